"""The nine methods over a real OpenAI-compatible server (the fake, scripted), through litellm:
calls (count, seeds, messages), results, cost and latency accounting, and call sharing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case

from pytest_revprop.core.askers import client_ask, reference_ask
from pytest_revprop.core.methods import parse_selection
from pytest_revprop.core.prompts import Prompts, default_prompts
from pytest_revprop.core.registry import run_method
from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.llm.types import CallFailed
from pytest_revprop.run.items import ItemSpec, RunSettings, item_specs
from pytest_revprop.run.runner import Runner
from pytest_revprop.testing.fakeserver import FakeServer
from pytest_revprop.vocabulary import METHODS, CallRole

CASE = invoice_case()
GOLD = json.dumps(CASE.gold_patch[:3])
DIRECT = json.dumps(CASE.gold_patch[:1])
SELECT_MARK = "The attempts to choose from"
REFLECT_MARK = "This is the document after applying your patch"


def _model(server: FakeServer, **kw: Any) -> ModelConfig:
    return ModelConfig(
        name="fake",
        litellm_model="openai/fake",
        api_bases=(server.base_url,),
        temperature=0.6,
        max_tokens=256,
        price_in=1.0,
        price_out=2.0,
        **kw,
    )


def _run(
    server: FakeServer, method: str, tmp: Path, *, k: int = 3, seed: int = 10, case: Any = CASE
) -> Any:
    client = Client(_model(server), cache_dir=tmp / "cache", concurrency=8)

    async def go() -> Any:
        return await run_method(method, case, client_ask(client), k=k, seed=seed)

    return asyncio.run(go())


def _bodies(server: FakeServer) -> list[dict[str, Any]]:
    return server.stats()["requests"]


@pytest.fixture
def scripted(fake_server: Callable[..., FakeServer]) -> FakeServer:
    """Seed 10: gold; 11: direct only; 12: prose. Selection answers 2; reflection adds the missing total."""
    rules = [
        {"contains": SELECT_MARK, "content": "2", "reasoning": "candidate 2 is complete"},
        {"contains": REFLECT_MARK, "seed": 11, "content": json.dumps(CASE.gold_patch[1:3])},
        {"contains": REFLECT_MARK, "content": "[]"},
        {"seed": 10, "content": GOLD, "reasoning": "qty feeds amount and total"},
        {
            "seed": 11,
            "content": f"Done:\n```json\n{DIRECT}\n```",
            "reasoning_field": "reasoning_content",
            "reasoning": "only the quantity " + GOLD,
        },
        {"seed": 12, "content": "I would lower the quantity."},
    ]
    return fake_server(rules=rules, latency_s=0.01)


@pytest.mark.parametrize(
    ("method", "context"), [("j", "artifact"), ("h", "conversation"), ("j+h", "both")]
)
def test_single_call_methods_send_their_context(
    scripted: FakeServer, tmp_path: Path, method: str, context: str
) -> None:
    run = _run(scripted, method, tmp_path)
    (body,) = _bodies(scripted)
    assert body["seed"] == 10 and body["temperature"] == 0.6 and body["max_tokens"] == 256
    system, user = body["messages"]
    assert system["content"] == default_prompts().render("system")
    has_artifact = '"client": "Acme"' in user["content"]
    has_history = "--- Turn 1 ---" in user["content"]
    assert (has_artifact, has_history) == {
        "artifact": (True, False),
        "conversation": (False, True),
        "both": (True, True),
    }[context]
    assert CASE.request in user["content"]
    assert run.score(CASE).completed and len(run.calls) == 1
    assert run.calls[0].reply.reasoning == "qty feeds amount and total"


def test_reasoning_content_is_kept_apart_and_only_content_is_scored(
    scripted: FakeServer, tmp_path: Path
) -> None:
    run = _run(scripted, "j+h", tmp_path, seed=11)
    reply = run.calls[0].reply
    assert reply.reasoning.startswith("only the quantity") and GOLD not in reply.content
    score = run.score(CASE)
    assert score.valid and not score.completed and score.miss == 2


@pytest.mark.parametrize(
    ("rule", "completed"),
    [("or", True), ("and", False), ("maj", False), ("med", True)],
)
def test_parallel_methods_sample_seeds_s_to_s_plus_k_minus_1(
    scripted: FakeServer, tmp_path: Path, rule: str, completed: bool
) -> None:
    run = _run(scripted, rule, tmp_path, k=3)
    assert sorted(b["seed"] for b in _bodies(scripted)) == [10, 11, 12]
    assert len({json.dumps(b["messages"]) for b in _bodies(scripted)}) == 1  # all j+h, same prompt
    assert [c.seed for c in run.calls] == [10, 11, 12] and len(run.calls) == 3
    # Samples: gold, direct only, invalid. `and` needs all 3 (the invalid one blocks); `maj` needs 2 of 3.
    assert run.score(CASE).completed is completed
    if rule == "maj":
        assert run.outcome.patch == json.loads(DIRECT)
    if rule == "and":
        assert run.outcome.patch == []
    latencies = [c.reply.latency_s for c in run.calls]
    assert run.latency_s == max(latencies)
    assert (
        run.cost_usd == pytest.approx(sum(c.reply.cost_usd for c in run.calls)) and run.cost_usd > 0
    )


def test_med_picks_among_valid_samples_only(scripted: FakeServer, tmp_path: Path) -> None:
    run = _run(scripted, "med", tmp_path, k=3)
    assert run.outcome.patch == json.loads(GOLD)  # two valid samples tie; the earliest wins


def test_select_samples_k_minus_1_then_asks_with_seed_s(
    scripted: FakeServer, tmp_path: Path
) -> None:
    run = _run(scripted, "select", tmp_path, k=3)
    bodies = _bodies(scripted)
    selection = [b for b in bodies if SELECT_MARK in b["messages"][-1]["content"]]
    samples = [b for b in bodies if b not in selection]
    assert sorted(b["seed"] for b in samples) == [10, 11] and [b["seed"] for b in selection] == [10]
    text = selection[0]["messages"][-1]["content"]
    assert "Attempt 1:" in text and "Attempt 2:" in text and CASE.request in text
    assert selection[0]["messages"][0]["content"] == default_prompts().render("select_system")
    assert run.outcome.patch == json.loads(DIRECT) and run.outcome.selection_fallback is False
    assert run.latency_s == pytest.approx(
        max(c.reply.latency_s for c in run.calls[:2]) + run.calls[2].reply.latency_s
    )


def test_select_records_a_fallback_on_an_unusable_answer(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    server = fake_server(
        rules=[{"contains": SELECT_MARK, "content": "Attempt one looks best."}],
        default={"content": GOLD},
    )
    run = _run(server, "select", tmp_path, k=3)
    assert run.outcome.selection_fallback is True and run.score(CASE).completed


def test_reflect_runs_k_minus_1_rounds_at_seed_s_in_one_chat(
    scripted: FakeServer, tmp_path: Path
) -> None:
    run = _run(scripted, "reflect", tmp_path, k=3, seed=11)
    bodies = sorted(_bodies(scripted), key=lambda b: len(b["messages"]))
    assert [len(b["messages"]) for b in bodies] == [2, 4, 6] and {b["seed"] for b in bodies} == {11}
    second = bodies[1]["messages"]
    assert second[2] == {"role": "assistant", "content": f"Done:\n```json\n{DIRECT}\n```"}
    assert REFLECT_MARK in second[3]["content"] and '"qty": 2' in second[3]["content"]
    # Round 1 fixes amount and total; round 2 answers [] -> the final artifact is the gold one.
    assert run.score(CASE).completed and len(run.calls) == 3
    assert run.latency_s == pytest.approx(sum(c.reply.latency_s for c in run.calls))


def test_reflect_always_runs_its_rounds_even_when_nothing_changes(
    scripted: FakeServer, tmp_path: Path
) -> None:
    run = _run(scripted, "reflect", tmp_path, k=5, seed=10)
    assert len(run.calls) == 5 and run.outcome.patch == json.loads(GOLD)


def test_truncated_reply_is_its_own_outcome(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    server = fake_server(default={"content": '[{"op": "repl', "finish_reason": "length"})
    run = _run(server, "j+h", tmp_path)
    assert run.outcome.error == "truncated" and run.score(CASE).outcome.error == "truncated"


def test_all_invalid_samples_give_an_invalid_answer(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    server = fake_server(default={"content": "no idea"})
    run = _run(server, "maj", tmp_path, k=3)
    assert (
        run.outcome.patch is None
        and run.outcome.error == "no_patch"
        and "all 3 samples invalid" in (run.outcome.reason or "")
    )


def test_a_selection_answer_names_one_attempt_in_range_or_none() -> None:
    assert [
        parse_selection(t, 3) for t in ["2", " 3\n", "Attempt 1", "#2.", "4", "0", "2 or 3", "two"]
    ] == [1, 2, 0, 1, None, None, None, None]


def test_reference_solvers_make_no_call() -> None:
    async def go(solver: str, method: str) -> Any:
        return await run_method(method, CASE, reference_ask(CASE, solver), k=3, seed=0)

    for method in METHODS:
        assert asyncio.run(go("gold", method)).score(CASE).completed
        assert asyncio.run(go("noop", method)).outcome.patch == []
        assert asyncio.run(go("direct-only", method)).score(CASE).miss == 2


def test_all_nine_methods_share_calls_60_distinct_per_case_instead_of_165(
    fake_server: Callable[..., FakeServer], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The paper's protocol: k=5, five seeds. Distinct requests: j 5 + h 5 + j+h/samples 25 +
    selection 5 + reflection rounds 20 = 60; each method alone would make 165."""
    server = fake_server(
        rules=[
            {"contains": SELECT_MARK, "content": "1"},
            {"contains": REFLECT_MARK, "content": "[]"},
        ],
        default={"content": GOLD},
    )
    model = _model(server)
    settings = RunSettings(
        methods=list(METHODS), k_values=[5], seeds=[0, 42, 84, 126, 168], cache_dir=tmp_path / "c"
    )
    specs = item_specs([CASE], [model], settings)
    runner = Runner([CASE], [model], settings)
    try:
        records = runner.run_all(specs)
    finally:
        runner.close()
    naive = sum(r["calls"] for r in records)
    bodies = _bodies(server)
    distinct = {json.dumps(b, sort_keys=True) for b in bodies}
    with capsys.disabled():
        print(
            f"\n[calls] 9 methods, k=5, 5 seeds, 1 case: {len(bodies)} requests sent, {len(distinct)} distinct, naive {naive}"
        )
    assert (len(bodies), len(distinct), naive) == (60, 60, 165)
    assert all(r["completed"] for r in records)


def test_custom_prompt_folder_overrides_file_by_file(scripted: FakeServer, tmp_path: Path) -> None:
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "revise.md").write_text("EDIT REQUEST: $request\n\n$context\n")
    prompts = Prompts(folder)
    messages = prompts.revision_messages(CASE, "j")
    assert messages[1]["content"].startswith("EDIT REQUEST: Change it.")
    assert messages[0]["content"] == default_prompts().render("system")


def test_item_specs_skip_select_below_k3_and_give_single_methods_k1() -> None:
    model = ModelConfig(name="gold", kind="reference")
    settings = RunSettings(methods=["j", "select", "med"], k_values=[2, 3], seeds=[0])
    specs = item_specs([CASE], [model], settings)
    assert [(s.method, s.k) for s in specs] == [("j", 1), ("select", 3), ("med", 2), ("med", 3)]
    assert isinstance(specs[0], ItemSpec)


def test_structured_output_asks_for_a_patch_object_and_reads_it(
    fake_server: Callable[..., FakeServer], tmp_path: Path
) -> None:
    server = fake_server(default={"content": json.dumps({"patch": CASE.gold_patch[:3]})})
    client = Client(_model(server), cache_dir=tmp_path / "cache")

    async def go() -> Any:
        return await run_method("j+h", CASE, client_ask(client, structured=True), k=1, seed=0)

    run = asyncio.run(go())
    (body,) = _bodies(server)
    schema = body["response_format"]["json_schema"]["schema"]
    assert body["response_format"]["type"] == "json_schema" and schema["required"] == ["patch"]
    assert run.score(CASE).completed


@pytest.mark.parametrize(
    ("method", "nth", "role", "seed", "round_"),
    [
        ("j+h", 1, "sample", 10, None),
        ("med", 3, "sample", 12, None),
        ("select", 1, "select", 10, None),
        ("reflect", 2, "reflect", 10, 2),
    ],
)
def test_a_call_that_fails_for_good_is_named_by_its_role_seed_and_reflect_round(
    method: str, nth: int, role: CallRole, seed: int, round_: int | None
) -> None:
    """The ``nth`` call of ``role`` fails (sample calls are made in seed order)."""
    gold = reference_ask(CASE, "gold")
    made: list[str] = []

    async def ask(messages: list[dict[str, str]], seed: int, asked: CallRole, priority: int) -> Any:
        made.append(asked)
        if asked == role and made.count(role) == nth:
            raise CallFailed("openai/fake at http://x/v1: HTTP 503", {"attempts": 4, "url": "u"})
        return await gold(messages, seed, asked, priority)

    run = asyncio.run(run_method(method, CASE, ask, k=3, seed=10))
    assert run.outcome.error == "call_failed" and run.outcome.patch is None
    assert run.failed_call == {
        "attempts": 4,
        "url": "u",
        "role": role,
        "seed": seed,
        "round": round_,
    }
    where = f"reflect round {round_}" if round_ else f"{role} call"
    assert run.outcome.reason == f"{where} at seed {seed}: openai/fake at http://x/v1: HTTP 503"
