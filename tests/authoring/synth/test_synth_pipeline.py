"""`revprop synth` end to end against the scripted fake server, through the project's client
and litellm: a card becomes a valid draft, each check's failure is re-asked with its reason,
a step that keeps failing becomes a rejected draft with its reasons, and the gold's flags."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.scripted_writer import GOLD, REQUEST, TURNS, ScriptedWriter, add, dep, model, turn

from pytest_revprop.authoring.synth.cards import example_card_text, parse_card
from pytest_revprop.authoring.synth.pipeline import Outcome, Role, Settings, card_draft
from pytest_revprop.core.cases import load_case, load_cases
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.llm.client import Client
from pytest_revprop.testing.fakeserver import FakeServer

CARD = parse_card(example_card_text("invoice-discount"), Path("cards/invoice-discount.toml"))


def _draft(
    server: FakeServer,
    tmp: Path,
    *,
    max_reasks: int = 2,
    gold_rule: str = "maj",
    out: Path | None = None,
) -> Outcome:
    client = Client(model(server.base_url), cache_dir=tmp / "cache", concurrency=4)
    settings = Settings(
        out=out or tmp / "out",
        prompts=Prompts(),
        writer=Role(client, "fake"),
        gold=Role(client, "fake-gold"),
        max_reasks=max_reasks,
        gold_rule=gold_rule,
    )
    return asyncio.run(card_draft(CARD, 1, settings))


@pytest.fixture
def serve(fake_server: Callable[..., FakeServer]) -> Callable[[ScriptedWriter], FakeServer]:
    return lambda writer: fake_server(responder=writer)


def test_a_card_becomes_a_valid_draft_case(serve: Any, tmp_path: Path) -> None:
    writer = ScriptedWriter()
    outcome = _draft(serve(writer), tmp_path)
    assert outcome.status == "draft"
    assert outcome.path == tmp_path / "out" / "invoice-discount" / "10-1.json"
    case = load_case(outcome.path)
    assert case.id == "invoice-discount/10-1"
    assert (case.scenario, case.domain, case.pattern, case.size) == (
        "invoice-discount",
        "invoice",
        "arithmetic",
        10,
    )
    assert case.request == json.loads(REQUEST)["request"]
    assert [len(t.assistant) for t in case.conversation] == [2, 1, 2, 3]
    assert case.gold_patch == GOLD
    assert [g.kind for g in case.gold] == ["direct", "cascade", "cascade", "cascade"]
    assert outcome.turns == 4
    assert outcome.tally.calls == 4 + 1 + 3


def test_the_draft_carries_a_draft_annotation_with_models_seeds_cost_and_flags(
    serve: Any, tmp_path: Path
) -> None:
    outcome = _draft(serve(ScriptedWriter()), tmp_path)
    assert outcome.path is not None
    note = json.loads(outcome.path.read_text())["annotation"]
    assert note["status"] == "draft"
    assert [(h["annotator"], h["action"]) for h in note["history"]] == [("synth", "drafted")]
    draft = note["draft"]
    assert draft["models"] == {"writer": "fake", "gold": "fake-gold"}
    assert draft["seeds"] == [0, 1, 2]
    assert draft["card"] == "cards/invoice-discount.toml"
    assert draft["source"] is None
    assert draft["cost_usd"] == pytest.approx(outcome.tally.cost_usd)
    assert draft["cost_usd"] > 0
    # seed 2 answers only the first two operations: tax and total have 2 of 3 samples
    assert [f["gold"] for f in draft["flags"]] == [2, 3]
    assert "2 of 3" in draft["flags"][0]["reason"]
    assert draft["generator"].startswith("revprop synth ")


def test_and_rule_keeps_only_what_every_sample_makes(serve: Any, tmp_path: Path) -> None:
    outcome = _draft(serve(ScriptedWriter()), tmp_path, gold_rule="and")
    assert outcome.path is not None
    data = json.loads(outcome.path.read_text())
    assert [op["path"] for op in data["gold"]] == ["/discount_percent", "/discount"]
    left_out = data["annotation"]["draft"]["left_out"]
    assert [(e["path"], e["samples"]) for e in left_out] == [("/tax", 2), ("/total", 2)]


BAD_STEPS = {
    "the patch does not apply": (
        "turn 2",
        turn("12 hours at $85 an hour.", [add("/line/hours", 12)]),
        "does not apply",
    ),
    "the turn grows past the per-turn limit": (
        "turn 1",
        turn(
            "Harbor Lane Bakery, US dollars, 12 hours at $85.",
            [
                add("/client", "Harbor Lane Bakery"),
                add("/currency", "USD"),
                add("/h", 12),
                add("/r", 85),
            ],
        ),
        "at most 3 this turn",
    ),
    "an aggregate comes before what it aggregates": (
        "turn 3",
        turn(
            "Give them a 10% discount.",
            [add("/discount", 102.0), add("/discount_percent", 10)],
            [dep("/discount", "/line/amount", "/discount_percent")],
        ),
        "not there before it",
    ),
    "an aggregate is not declared": (
        "turn 4",
        turn(
            "Add 8% tax; the total is the discounted amount plus tax.",
            [add("/tax_percent", 8), add("/tax", 73.44), add("/total", 991.44)],
            [dep("/tax", "/line/amount", "/discount", "/tax_percent")],
        ),
        'declare it in "derived"',
    ),
    "the request names a group, not one leaf": (
        "request",
        json.dumps(
            {"request": "Change the line.", "edit": {"op": "replace", "path": "/line", "value": 1}}
        ),
        "name one single value",
    ),
    "the request gives no concrete value": (
        "request",
        json.dumps(
            {
                "request": "Please raise the discount a bit.",
                "edit": {"op": "replace", "path": "/discount_percent", "value": 15},
            }
        ),
        "does not state the new value 15",
    ),
    "the reply holds no JSON object": ("turn 1", "Sure! Here is the first turn.", "no JSON object"),
}


@pytest.mark.parametrize("failure", list(BAD_STEPS))
def test_a_failed_check_is_asked_again_with_its_reason(
    serve: Any, tmp_path: Path, failure: str
) -> None:
    step, bad, reason = BAD_STEPS[failure]
    good = REQUEST if step == "request" else TURNS[int(step.split()[1])]
    writer = ScriptedWriter({step: [bad, good]})
    outcome = _draft(serve(writer), tmp_path)
    assert outcome.status == "draft"
    assert outcome.tally.checks_failed == 1
    (reask,) = writer.reasks()
    assert reason in reask
    assert writer.asked[step] == 2


@pytest.mark.parametrize("failure", list(BAD_STEPS))
def test_a_step_that_keeps_failing_becomes_a_rejected_draft_with_its_reasons(
    serve: Any, tmp_path: Path, failure: str
) -> None:
    step, bad, reason = BAD_STEPS[failure]
    writer = ScriptedWriter({step: [bad]})
    outcome = _draft(serve(writer), tmp_path, max_reasks=1)
    assert outcome.status == "rejected"
    assert writer.asked[step] == 2
    path = tmp_path / "out" / "__rejected__" / "invoice-discount" / "10-1.json"
    assert outcome.path == path
    record = json.loads(path.read_text())
    assert record["rejected"]["step"] == step
    assert any(reason in r for r in record["rejected"]["reasons"])
    assert [a["step"] for a in record["attempts"]] == [step, step]
    assert record["attempts"][0]["reply"] == bad
    assert record["annotation"]["status"] == "draft"
    done = int(step.split()[1]) - 1 if step.startswith("turn") else 4
    assert len(record["conversation"]) == done
    assert not (tmp_path / "out" / "invoice-discount").exists()
    assert load_cases([tmp_path / "out"]).errors == []


def test_a_document_that_ends_short_of_its_size_is_rejected(serve: Any, tmp_path: Path) -> None:
    small = {f"turn {n}": [turn(f"Note item {n}.", [add(f"/item{n}", n)])] for n in range(1, 8)}
    outcome = _draft(serve(ScriptedWriter(small)), tmp_path)
    assert outcome.status == "rejected"
    assert outcome.turns == 7
    assert outcome.reason.startswith("size: after 7 turns the document holds 7 primitive values")


def test_a_gold_that_misses_the_requested_change_is_rejected(serve: Any, tmp_path: Path) -> None:
    writer = ScriptedWriter({f"gold {s}": [json.dumps(GOLD[1:])] for s in range(3)})
    outcome = _draft(serve(writer), tmp_path)
    assert outcome.status == "rejected"
    assert outcome.reason.startswith(
        "gold: the maj of 3 gold samples does not make the requested change"
    )


def test_a_gold_without_any_usable_sample_is_rejected(serve: Any, tmp_path: Path) -> None:
    writer = ScriptedWriter({f"gold {s}": ["I am not sure."] for s in range(3)})
    outcome = _draft(serve(writer), tmp_path)
    assert outcome.status == "rejected"
    assert "no gold sample gave a usable patch (no_patch)" in outcome.reason


def test_a_draft_that_succeeds_on_rerun_replaces_its_rejected_record(
    serve: Any, tmp_path: Path
) -> None:
    bad = BAD_STEPS["the reply holds no JSON object"][1]
    first = _draft(serve(ScriptedWriter({"turn 1": [bad]})), tmp_path, max_reasks=0)
    assert first.status == "rejected"
    assert first.path is not None and first.path.exists()
    second = _draft(serve(ScriptedWriter()), tmp_path / "fresh-cache", out=tmp_path / "out")
    assert second.status == "draft"
    assert not first.path.exists()
