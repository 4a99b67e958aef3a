"""A hand-made revision chain for the run and plugin tests: an order revised three times, its
answers worked out by hand, and the scripted replies of a model that gets one turn wrong."""

from __future__ import annotations

import copy
import json
from typing import Any

from helpers.handmade_cases import make_case
from pytest_revprop.core.cases import Case
from pytest_revprop.core.patching import apply_operations

ORDER = {
    "client": "Acme",
    "lines": [
        {"item": "widget", "qty": 3, "unit_price": 12.0, "amount": 36.0},
        {"item": "bolt", "qty": 7, "unit_price": 2.0, "amount": 14.0},
    ],
    "total": 50.0,
    "paid": False,
}
REQUESTS = ("Make it 2 widgets.", "Make it 4 bolts instead.", "Raise the widgets to 5 after all.")
"""The requests of turns 0, 1 and 2 (the third re-revises the first one's quantity)."""
GOLD: tuple[list[dict[str, Any]], ...] = (
    [
        {"op": "replace", "path": "/lines/0/qty", "value": 2, "kind": "direct"},
        {"op": "replace", "path": "/lines/0/amount", "value": 24.0, "kind": "cascade"},
        {"op": "replace", "path": "/total", "value": 38.0, "kind": "cascade"},
    ],
    [
        {"op": "replace", "path": "/lines/1/qty", "value": 4, "kind": "direct"},
        {"op": "replace", "path": "/lines/1/amount", "value": 8.0, "kind": "cascade"},
        {"op": "replace", "path": "/total", "value": 32.0, "kind": "cascade"},
    ],
    [
        {"op": "replace", "path": "/lines/0/qty", "value": 5, "kind": "direct"},
        {"op": "replace", "path": "/lines/0/amount", "value": 60.0, "kind": "cascade"},
        {"op": "replace", "path": "/total", "value": 68.0, "kind": "cascade"},
    ],
)


def plain(gold: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A gold as a plain patch (no kinds)."""
    return [{"op": g["op"], "path": g["path"], "value": g["value"]} for g in gold]


def order_chain(case_id: str = "order-chain/10", followups: int = 2) -> Case:
    """The order of ``ORDER`` revised three times (``REQUESTS``, ``GOLD``); ``followups``:
    how many of the two follow-ups the case carries (0: a plain case)."""
    documents = [copy.deepcopy(ORDER)]
    for gold in GOLD[:-1]:
        documents.append(apply_operations(documents[-1], plain(gold)))
    extra = {
        "followups": [
            {
                "request": REQUESTS[i],
                "reference": None,
                "gold": GOLD[i],
                "artifact": documents[i],
                "theme": f"revision {i}",
            }
            for i in range(1, 1 + followups)
        ]
    }
    return make_case(
        copy.deepcopy(ORDER),
        GOLD[0],
        id=case_id,
        scenario=case_id.split("/")[0],
        domain="shopping_cart",
        request=REQUESTS[0],
        **(extra if followups else {}),
    )


def wrong_turn_rules(wrong: int) -> list[dict[str, Any]]:
    """Fake-server rules of a model that answers every turn's gold, but turn ``wrong`` with its
    direct operation only (a miss of its two cascades). A later turn's prompt shows the
    earlier requests too, so the rules go from the last turn to the first."""
    rules = []
    for turn in reversed(range(len(REQUESTS))):
        patch = plain(GOLD[turn])[:1] if turn == wrong else plain(GOLD[turn])
        rules.append({"contains": REQUESTS[turn], "content": json.dumps(patch)})
    return rules
