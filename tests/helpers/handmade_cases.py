"""Small hand-made cases for unit tests (answers worked out by hand in each test)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pytest_revprop.core.cases import Case
from pytest_revprop.util.jsonutil import leaf_count


def make_case(artifact: dict[str, Any], gold: list[dict[str, Any]], **extra: Any) -> Case:
    """A valid case whose conversation adds each top-level member in one turn (without
    ``gold``: a case as a gold model is shown it)."""
    turns = [
        {
            "user": f"Please note the {key}.",
            "assistant": [{"op": "add", "path": f"/{key}", "value": copy.deepcopy(value)}],
        }
        for key, value in artifact.items()
    ]
    data = {
        "id": extra.pop("id", "unit/10"),
        "scenario": "unit",
        "domain": "invoice",
        "pattern": "arithmetic",
        "size": leaf_count(artifact),
        "split": "test",
        "theme": "unit test",
        "conversation": turns,
        "artifact": artifact,
        "request": extra.pop("request", "Change it."),
        "reference": None,
        "gold": gold,
        "notes": "",
    }
    data.update(extra)
    return Case.from_dict(data) if gold else Case.without_gold(data)


def invoice_case() -> Case:
    """Two lines, qty 3 -> 2 on line 0: amount 36 -> 24, total 50 -> 38, memo optional regex."""
    return make_case(
        {
            "client": "Acme",
            "lines": [
                {"item": "widget", "qty": 3, "unit_price": 12.0, "amount": 36.0},
                {"item": "bolt", "qty": 7, "unit_price": 2.0, "amount": 14.0},
            ],
            "total": 50.0,
            "memo": "3 widgets and 7 bolts",
            "paid": False,
        },
        [
            {"op": "replace", "path": "/lines/0/qty", "value": 2, "kind": "direct"},
            {"op": "replace", "path": "/lines/0/amount", "value": 24.0, "kind": "cascade"},
            {"op": "replace", "path": "/total", "value": 38.0, "kind": "cascade"},
            {
                "op": "replace",
                "path": "/memo",
                "value": "(?i)\\b2 widgets",
                "kind": "cascade",
                "match": "regex_match",
                "optional": True,
            },
        ],
    )


def travel_case() -> Case:
    """Trip starts 2026-05-01; the tour is 'two days after arrival'; start moves to 05-03."""
    return make_case(
        {
            "trip": {"start": "2026-05-01", "nights": 4},
            "tour": {"name": "Old town walk", "date": "2026-05-03"},
            "museum": {"date": "2026-05-02"},
            "checkout": "2026-05-05",
        },
        [
            {"op": "replace", "path": "/trip/start", "value": "2026-05-03", "kind": "direct"},
            {"op": "replace", "path": "/tour/date", "value": "2026-05-05", "kind": "cascade"},
            {"op": "replace", "path": "/checkout", "value": "2026-05-07", "kind": "cascade"},
        ],
        id="travel-shift/10",
        scenario="travel-shift",
        domain="travel_itinerary",
        pattern="temporal",
        request="Push the arrival to May 3rd.",
    )


def write_cases(folder: Path, cases: list[Case]) -> Path:
    import json

    folder.mkdir(parents=True, exist_ok=True)
    for case in cases:
        name = case.id.replace("/", "-") + ".json"
        (folder / name).write_text(json.dumps(case.to_dict(), indent=1), encoding="utf-8")
    return folder


def task_drop_case() -> Case:
    """Remove task B from three; C's ``after`` moves to A; count 3 -> 2; the project stays."""
    return make_case(
        {
            "project": "Apollo",
            "tasks": [
                {"name": "A", "after": None},
                {"name": "B", "after": "A"},
                {"name": "C", "after": "B"},
            ],
            "count": 3,
        },
        [
            {"op": "remove", "path": "/tasks/1", "kind": "direct"},
            {"op": "replace", "path": "/tasks/1/after", "value": "A", "kind": "cascade"},
            {"op": "replace", "path": "/count", "value": 2, "kind": "cascade"},
        ],
        id="tasks-drop/8",
        scenario="tasks-drop",
        domain="project_schedule",
        request="Drop task B.",
    )
