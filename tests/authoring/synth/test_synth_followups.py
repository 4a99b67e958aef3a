"""`revprop synth` drafts chains: a card's follow-ups, each request checked as the first one,
each gold drafted on the canonical document before it; a follow-up that fails ends the
chain and the draft keeps the follow-ups before it. Against the scripted fake server."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.scripted_writer import FOLLOWUPS, GOLD_MARK, ScriptedWriter, model

from pytest_revprop.authoring.synth.batch import card_jobs
from pytest_revprop.authoring.synth.cards import Card, example_card_text, parse_card
from pytest_revprop.authoring.synth.pipeline import Outcome, Role, Settings, card_draft
from pytest_revprop.core.cases import load_case, load_cases
from pytest_revprop.core.chain import canonical_after
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.llm.budget import Ceiling
from pytest_revprop.llm.client import Client
from pytest_revprop.testing.fakeserver import FakeServer

CARD = parse_card(example_card_text("invoice-discount"), Path("cards/invoice-discount.toml"))
PROPOSED = dataclasses.replace(CARD, proposed_followups=3)
LISTED = dataclasses.replace(
    CARD,
    followups=(
        "The user corrects the hours worked.",
        "The user raises the hourly rate.",
        "The user raises the sales tax rate.",
    ),
)


def _draft(
    server: FakeServer,
    tmp: Path,
    card: Card = PROPOSED,
    ceiling: Ceiling | None = None,
    **changes: Any,
) -> Outcome:
    client = Client(model(server.base_url), cache_dir=tmp / "cache", concurrency=4, ceiling=ceiling)
    settings = Settings(
        out=tmp / "out",
        prompts=Prompts(),
        writer=Role(client, "fake"),
        gold=Role(client, "fake-gold"),
        **changes,
    )
    return asyncio.run(card_draft(card, 1, settings))


@pytest.fixture
def serve(fake_server: Callable[..., FakeServer]) -> Callable[[ScriptedWriter], FakeServer]:
    return lambda writer: fake_server(responder=writer)


def _ops(gold: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in op.items() if k != "kind"} for op in gold]


def test_a_card_asking_for_three_follow_ups_drafts_a_chain_that_loads(
    serve: Any, tmp_path: Path
) -> None:
    writer = ScriptedWriter()
    outcome = _draft(serve(writer), tmp_path)
    assert outcome.status == "draft" and outcome.path is not None
    case = load_case(outcome.path)  # every loading rule, the chain's included
    assert [f.request for f in case.followups] == [f["request"] for f in FOLLOWUPS]
    assert [f.theme for f in case.followups] == [f["theme"] for f in FOLLOWUPS]
    for number, followup in enumerate(case.followups, start=1):
        assert followup.gold_patch == FOLLOWUPS[number - 1]["gold"]
        assert followup.gold[0].kind == "direct"
        assert {g.kind for g in followup.gold[1:]} == {"cascade"}
    # each follow-up starts from the document the revision before it leaves
    assert case.followups[0].artifact["discount_percent"] == 15
    assert case.followups[1].artifact["line"] == {"hours": 14, "rate": 85, "amount": 1190}
    assert case.followups[2].artifact["total"] == 1156.68
    assert canonical_after(case, 3)["total"] == 1178.1
    # the writer: 4 turns and the request; then per follow-up its request and 3 gold samples
    assert outcome.tally.calls == 4 + 1 + 3 + 3 * (1 + 3)
    assert outcome.chain is not None and len(outcome.chain.followups) == 3
    draft = json.loads(outcome.path.read_text())["annotation"]["draft"]
    assert draft["followups_asked"] == 3
    assert [d["edit"] for d in draft["followups"]] == [f["edit"] for f in FOLLOWUPS]
    assert "followups_failed" not in draft


def test_the_writer_asks_each_follow_up_in_its_chat_on_the_document_before_it(
    serve: Any, tmp_path: Path
) -> None:
    writer = ScriptedWriter()
    _draft(serve(writer), tmp_path, card=LISTED)
    asks = [b for b in writer.bodies if ScriptedWriter.step(b).startswith("followup")]
    assert [ScriptedWriter.step(b) for b in asks] == ["followup 1", "followup 2", "followup 3"]
    last = asks[2]["messages"]
    prompt = last[-1]["content"]
    assert "follow-up 3 of 3" in prompt and LISTED.followups[2] in prompt
    assert '"rate": 90' in prompt and '"hours": 14' in prompt  # after follow-ups 1 and 2
    # the same chat: the card, the turns, the request and the accepted follow-ups before it
    assert last[0]["role"] == "system"
    said = [m["content"] for m in last if m["role"] == "assistant"]
    assert json.loads(said[-1])["request"] == FOLLOWUPS[1]["request"]


def test_a_proposed_follow_up_asks_for_a_change_in_the_cards_domain(
    serve: Any, tmp_path: Path
) -> None:
    writer = ScriptedWriter()
    _draft(serve(writer), tmp_path)
    ask = next(b for b in writer.bodies if ScriptedWriter.step(b) == "followup 1")
    assert (
        "one you choose, that a person working on this invoice document"
        in (ask["messages"][-1]["content"])
    )


def test_a_follow_ups_gold_is_drafted_as_a_run_shows_the_turn(serve: Any, tmp_path: Path) -> None:
    writer = ScriptedWriter()
    _draft(serve(writer), tmp_path)
    golds = [b for b in writer.bodies if GOLD_MARK in b["messages"][-1]["content"]]
    steps = sorted(writer._chained(ScriptedWriter.step(b), b) for b in golds)
    assert steps == sorted(
        [f"gold {s}" for s in range(3)]
        + [f"followup {n} gold {s}" for n in (1, 2, 3) for s in range(3)]
    )
    second = next(
        b for b in golds if b["messages"][-1]["content"].endswith(FOLLOWUPS[1]["request"])
    )
    shown = second["messages"][-1]["content"]
    # the earlier requests, each answered by its concrete patch, and the document before it
    assert "Please make the discount 15% instead of 10%." in shown
    assert FOLLOWUPS[0]["request"] in shown
    assert '"hours": 14' in shown and '"amount": 1190' in shown


def test_a_follow_up_whose_gold_fails_ends_the_chain_and_the_draft_keeps_the_ones_before(
    serve: Any, tmp_path: Path
) -> None:
    writer = ScriptedWriter({"followup 2 gold": ["I am not sure."]})
    outcome = _draft(serve(writer), tmp_path)
    assert outcome.status == "draft" and outcome.path is not None
    case = load_case(outcome.path)
    assert [f.request for f in case.followups] == [FOLLOWUPS[0]["request"]]
    assert writer.asked["followup 3"] == 0  # it was to start from follow-up 2's document
    assert outcome.chain is not None and outcome.chain.untried == 1
    draft = json.loads(outcome.path.read_text())["annotation"]
    failed = draft["draft"]["followups_failed"]
    assert (failed["followup"], failed["step"]) == (2, "gold")
    assert "no gold sample gave a usable patch" in failed["reasons"][0]
    assert "Follow-up 2 of 3 failed at its gold" in draft["notes"]
    assert load_cases([tmp_path / "out"]).errors == []


def test_a_follow_up_whose_gold_misses_its_edit_ends_the_chain(serve: Any, tmp_path: Path) -> None:
    wrong = json.dumps(FOLLOWUPS[0]["gold"][1:])  # the cascade without the edit itself
    outcome = _draft(serve(ScriptedWriter({"followup 1 gold": [wrong]})), tmp_path)
    assert outcome.status == "draft" and outcome.path is not None
    assert load_case(outcome.path).followups == ()
    assert outcome.chain is not None and outcome.chain.failed is not None
    assert outcome.chain.failed.reasons[0].startswith(
        "the maj of 3 gold samples does not make the requested change"
    )
    notes = json.loads(outcome.path.read_text())["annotation"]["notes"]
    assert notes.endswith("the chain ends before it starts.")


def _followup(**changes: Any) -> str:
    return json.dumps({k: v for k, v in FOLLOWUPS[0].items() if k != "gold"} | changes)


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (
            _followup(request="We actually worked more hours."),
            "does not state the new value 14",
        ),
        (
            _followup(
                request="Bill them in EUR.",
                edit={"op": "replace", "path": "/currency", "value": "EUR"},
            ),
            "no value declared in the conversation depends on /currency",
        ),
        (_followup(theme=""), 'the object has no "theme"'),
    ],
)
def test_a_follow_up_request_is_checked_as_the_first_request_and_asked_again(
    serve: Any, tmp_path: Path, bad: str, reason: str
) -> None:
    writer = ScriptedWriter({"followup 1": [bad, _followup()]})
    outcome = _draft(serve(writer), tmp_path)
    assert outcome.status == "draft" and outcome.path is not None
    (reask,) = writer.reasks()
    assert reason in reask
    assert len(load_case(outcome.path).followups) == 3


def test_a_follow_up_request_that_keeps_failing_ends_the_chain_at_its_request(
    serve: Any, tmp_path: Path
) -> None:
    writer = ScriptedWriter({"followup 1": [_followup(theme="")]})
    outcome = _draft(serve(writer), tmp_path, max_reasks=1)
    assert outcome.status == "draft" and outcome.chain is not None
    assert outcome.chain.failed is not None and outcome.chain.failed.step == "request"
    assert writer.asked["followup 1"] == 2
    assert outcome.chain.untried == 2


def test_a_budget_that_runs_out_in_the_chain_stops_the_draft_and_keeps_what_was_made(
    serve: Any, tmp_path: Path
) -> None:
    """The whole draft costs about $0.029 here; $0.02 has room for the first follow-up only.
    The record keeps the follow-up made; a rerun with room writes the draft in its place."""
    writer = ScriptedWriter()
    stopped = _draft(serve(writer), tmp_path, ceiling=Ceiling(0.02))
    assert stopped.status == "stopped" and stopped.path is not None
    record = json.loads(stopped.path.read_text())
    assert record["rejected"]["step"] == "budget"
    assert [f["request"] for f in record["followups"]] == [FOLLOWUPS[0]["request"]]
    assert record["followups_asked"] == 3
    again = _draft(serve(writer), tmp_path, ceiling=Ceiling(0.04))
    assert again.status == "draft" and again.path is not None
    assert len(load_case(again.path).followups) == 3
    assert not stopped.path.exists()


def test_the_dependencies_follow_the_places_an_earlier_revision_moved(
    serve: Any, tmp_path: Path
) -> None:
    """The case's own revision removes a list element: a follow-up's edit is checked against
    the dependencies at their moved places."""
    from pytest_revprop.authoring.synth.checks import Dependency
    from pytest_revprop.authoring.synth.followups import moved
    from pytest_revprop.core.cases import Case, GoldOp

    doc = {"items": [{"price": 1}, {"price": 2}, {"price": 3}], "total": 6}
    case = Case.of(
        id="x/3",
        scenario="x",
        domain="cart",
        pattern="add_remove",
        size=4,
        split="test",
        conversation=[],
        artifact=doc,
        request="Drop the first item.",
        reference=None,
        gold=[
            GoldOp("remove", "/items/0", None, "direct"),
            GoldOp("replace", "/total", 5, "cascade"),
        ],
        theme="t",
    )
    deps = [Dependency("/total", ("/items/1/price", "/items/2/price"), "sum", 1)]
    (dep,) = moved(deps, case, 0)
    assert dep.sources == ("/items/0/price", "/items/1/price")
    gone = [Dependency("/total", ("/items/0/price",), "sum", 1)]
    assert moved(gone, case, 0) == []


def test_a_draft_plans_its_follow_ups_calls_under_the_budget(tmp_path: Path) -> None:
    text = example_card_text("invoice-discount") + "\nfollowups = 3\n"
    (tmp_path / "card.toml").write_text(text)
    (job,) = card_jobs([str(tmp_path / "card.toml")], 1)
    settings = Settings(out=tmp_path, prompts=Prompts(), writer=None, gold=None)  # type: ignore[arg-type]
    turns = PROPOSED.max_turns
    assert job.calls(settings) == (turns + 1 + 3) + 3 * (1 + 3)


def test_a_drafted_chain_opens_in_revprop_annotate_and_saves(serve: Any, tmp_path: Path) -> None:
    """The draft opens in the annotation tool's server without a broken rule, follow-ups and
    all, and a save (the annotator's first) writes it back valid."""
    from helpers.annotate_helpers import with_client

    from pytest_revprop.authoring.annotate.app import make_app
    from pytest_revprop.authoring.annotate.assist import Assistant
    from pytest_revprop.authoring.annotate.store import CaseStore

    outcome = _draft(serve(ScriptedWriter()), tmp_path)
    assert outcome.path is not None
    store = CaseStore([tmp_path / "out"])
    app = make_app(store, Assistant(cache_dir=None), {"annotator": "", "model": "gold"})
    key = "0/invoice-discount/10-1.json"

    async def scenario(client: Any) -> None:
        response = await client.get("/api/case", params={"file": key})
        assert response.status == 200
        entry = await response.json()
        assert entry["error"] is None
        assert len(entry["data"]["followups"]) == 3
        body = {"file": key, "hash": entry["hash"], "data": entry["data"], "annotator": "alice"}
        assert (await client.post("/api/save", json=body)).status == 200

    with_client(app, scenario)
    saved = load_case(outcome.path)
    assert len(saved.followups) == 3
    assert saved.annotation is not None and saved.annotation["status"] == "annotated"
