"""Counts of the scenarios' follow-ups: by pattern, and which interact with an earlier revision."""

from __future__ import annotations

import dataclasses
import re
from datetime import date, timedelta
from typing import Any

import pytest

from pytest_revprop.authoring.assembly import build_case
from pytest_revprop.authoring.counts import (
    FollowupCounts,
    chain_interactions,
    followup_counts,
    format_followup_counts,
    pointers_overlap,
)
from pytest_revprop.authoring.scenario import Revision, Scenario, Turn
from pytest_revprop.cli.cases import cases_main

PLANS = {"basic": 100, "premium": 250}


def _chain() -> Scenario:
    """Seat licences (10 leaves at size 10) with four follow-ups: two edit places no earlier
    revision touched (the renewal dates, the support plan), two touch the seats' cost again."""

    def compute(p: dict[str, Any]) -> dict[str, Any]:
        renewal = date.fromisoformat(p["renewal"])
        return {
            "tool": "Jira",
            "seats": p["seats"],
            "price": p["price"],
            "cost_usd": p["seats"] * p["price"],
            "note": f"{p['seats']} seats for the audit team",
            "renewal": p["renewal"],
            "notice_by": (renewal - timedelta(days=30)).isoformat(),
            "support": {"plan": p["plan"], "fee": PLANS[p["plan"]]},
            "owner": "Ana",
        }

    def conversation(p: dict[str, Any]) -> list[Turn]:
        return [
            (
                "We use Jira, 4 seats at $30 each; show the cost and a note on the seats.",
                ["/tool", "/seats", "/price", "/cost_usd", "/note"],
            ),
            ("It renews 2025-12-01 and we give notice 30 days before.", ["/renewal", "/notice_by"]),
            (
                "Support is the basic plan at $100 (premium is $250); Ana owns it.",
                ["/support", "/owner"],
            ),
        ]

    def followups(p: dict[str, Any]) -> list[Revision]:
        return [
            Revision(
                request="The renewal moved to 2026-01-01.",
                mutate=lambda q: q.update(renewal="2026-01-01"),
                direct="/renewal",
                theme="The renewal moves and the notice date follows",
                pattern="temporal",
            ),
            Revision(
                request="Make it 8 seats.",
                mutate=lambda q: q.update(seats=8),
                direct="/seats",
                theme="More seats again: cost and note follow",
                pattern="arithmetic",
            ),
            Revision(
                request="Switch support to the premium plan.",
                mutate=lambda q: q.update(plan="premium"),
                direct="/support/plan",
                theme="The premium plan brings its fee",
                pattern="substitution",
            ),
            Revision(
                request="Seats cost $35 now.",
                mutate=lambda q: q.update(price=35),
                direct="/price",
                theme="A higher seat price raises the cost",
                pattern="arithmetic",
            ),
        ]

    return Scenario(
        id="org-toy-chain",
        domain="org_access",
        pattern="arithmetic",
        theme="Seats drive cost",
        params=lambda size: {"seats": 4, "price": 30, "renewal": "2025-12-01", "plan": "basic"},
        compute=compute,
        conversation=conversation,
        revision=lambda p: Revision(
            request="Make it 6 seats.", mutate=lambda q: q.update(seats=6), direct="/seats"
        ),
        followups=followups,
    )


@pytest.mark.parametrize(
    ("a", "b", "overlap"),
    [
        ("/items/1", "/items/1", True),
        ("/items/1", "/items/1/qty", True),
        ("/items/1/qty", "/items/1", True),
        ("/items/1", "/items/10", False),
        ("/items/1/qty", "/items/1/price", False),
        ("/a~1b", "/a", False),
        ("", "/anything", True),
    ],
)
def test_pointers_overlap_token_by_token(a: str, b: str, overlap: bool) -> None:
    assert pointers_overlap(a, b) is overlap


def _ops(*paths: str) -> list[dict[str, Any]]:
    """Replace ops: the first is the direct edit, the others its cascades."""
    return [
        {"op": "replace", "path": p, "value": 0, "kind": "cascade" if i else "direct"}
        for i, p in enumerate(paths)
    ]


def test_a_follow_up_interacts_with_the_case_revision_or_an_earlier_follow_up() -> None:
    case = {
        "gold": _ops("/items/1", "/total"),
        "followups": [
            {"gold": _ops("/items/10/qty", "/fee")},  # /items/10 is not inside /items/1
            {"gold": _ops("/items")},  # holds the case's /items/1
            {"gold": _ops("/fee/note")},  # inside follow-up 1's /fee
            {"gold": _ops("/tax")},
            {"gold": _ops("/discount", "/total")},  # shares only a dependent with the case
        ],
    }
    assert chain_interactions(case) == [False, True, True, False, False]
    assert chain_interactions({"gold": _ops("/x")}) == []


def test_followup_counts_counts_each_scenario_once_by_pattern_and_interaction() -> None:
    scenario = _chain()
    case = build_case(scenario, 10)
    assert [[op["path"] for op in f["gold"]] for f in case["followups"]] == [
        ["/renewal", "/notice_by"],
        ["/seats", "/cost_usd", "/note"],
        ["/support/plan", "/support/fee"],
        ["/price", "/cost_usd"],
    ]
    counts = followup_counts([(scenario, {10: case}), (scenario, {10: case, 50: case})])
    assert counts == FollowupCounts({"arithmetic": 4, "substitution": 2, "temporal": 2}, 2)
    assert counts.total == 8
    assert format_followup_counts(followup_counts([(scenario, {10: case})])) == (
        "follow-ups: 4 (arithmetic 2, substitution 1, temporal 1);"
        " 1 interact with an earlier revision (25%)"
    )


def test_a_follow_up_interacting_in_one_size_counts_as_interacting() -> None:
    scenario = _chain()
    case = build_case(scenario, 10)
    apart = [{**f, "gold": _ops(f"/x{i}")} for i, f in enumerate(case["followups"])]
    other = {**case, "followups": [{**apart[0], "gold": _ops("/seats")}, *apart[1:]]}
    assert chain_interactions(other) == [True, False, False, False]
    assert chain_interactions(case) == [
        False,
        True,
        False,
        False,
    ]  # 4: /cost_usd only as a dependent
    assert followup_counts([(scenario, {10: other})]).interacting == 1
    assert followup_counts([(scenario, {10: other, 50: case})]).interacting == 2


def test_no_follow_ups_is_one_short_line() -> None:
    plain = dataclasses.replace(_chain(), followups=None)
    assert followup_counts([(plain, {10: build_case(plain, 10)})]) == FollowupCounts({}, 0)
    assert format_followup_counts(FollowupCounts({}, 0)) == "follow-ups: 0"


def test_check_prints_the_follow_up_line_before_its_tally(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cases_main(["check", "cart-price-drop"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("ok   cart-price-drop")
    assert re.fullmatch(
        r"follow-ups: 3 \((\w+ \d, )*\w+ \d\); \d interact with an earlier revision \(\d+%\)",
        lines[1],
    )
    assert lines[2] == "1 ok, 0 failed"
