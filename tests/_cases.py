"""Small hand-made cases for unit tests (answers worked out by hand in each test)."""

from __future__ import annotations

import copy
from typing import Any

from pytest_revprop.cases import Case
from pytest_revprop.jsonutil import leaf_count


def make_case(artifact: dict[str, Any], gold: list[dict[str, Any]], **extra: Any) -> Case:
    """A valid case whose conversation adds each top-level member in one turn."""
    turns = [
        {"user": f"Please note the {key}.", "assistant": [{"op": "add", "path": f"/{key}", "value": copy.deepcopy(value)}]}
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
    return Case.from_dict(data)


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
            {"op": "replace", "path": "/memo", "value": "(?i)\\b2 widgets", "kind": "cascade",
             "match": "regex_match", "optional": True},
        ],
    )
