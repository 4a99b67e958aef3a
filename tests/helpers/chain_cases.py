"""Small hand-made revision chains (a case and its follow-ups) for unit tests.

Each follow-up's canonical artifact is the previous one with that revision's ``made`` patch
applied: the concrete values a correct model writes (an example where the gold has a regex).
"""

from __future__ import annotations

import copy
from typing import Any

from helpers.handmade_cases import make_case
from pytest_revprop.core.cases import Case
from pytest_revprop.core.patching import apply_operations

Gold = list[dict[str, Any]]


def _plain(gold: Gold) -> list[dict[str, Any]]:
    return [{k: v for k, v in op.items() if k in ("op", "path", "value")} for op in gold]


def chain_case(
    artifact: dict[str, Any],
    turns: list[tuple[str, Gold, list[dict[str, Any]] | None]],
    *,
    load: bool = True,
    **extra: Any,
) -> Case | dict[str, Any]:
    """A case whose turn i has the request and gold of ``turns[i]``; the third member is the
    concrete patch that makes the next canonical document (None: the gold's stored values).
    ``load=False``: the file data instead of the loaded case."""
    docs = [copy.deepcopy(artifact)]
    for _request, gold, made in turns[:-1]:
        docs.append(apply_operations(docs[-1], made if made is not None else _plain(gold)))
    request, gold, _ = turns[0]
    base = make_case(artifact, gold, request=request, **extra)
    data = base.to_dict()
    data["followups"] = [
        {"request": r, "reference": None, "gold": g, "artifact": docs[i], "theme": f"turn {i}"}
        for i, (r, g, _m) in enumerate(turns[1:], start=1)
    ]
    return Case.from_dict(data) if load else data


def cart_chain() -> Case:
    """The worked example of docs/protocol.md: a cart of A (1 x 10) and B (2 x 5), shipping 5
    under a subtotal of 40. Turn 0 adds one C at 8 (note: "3 items", a regex), turn 1 makes it
    3 of C (subtotal 44: shipping becomes free), turn 2 removes A (C moves from index 2 to 1;
    subtotal 34: shipping is back to 5; note "2 items")."""
    cart = {
        "items": [
            {"sku": "A", "qty": 1, "price": 10, "line": 10},
            {"sku": "B", "qty": 2, "price": 5, "line": 10},
        ],
        "subtotal": 20,
        "shipping": 5,
        "total": 25,
        "note": "2 items in the cart",
    }
    c_item = {"sku": "C", "qty": 1, "price": 8, "line": 8}
    turn0: Gold = [
        {"op": "add", "path": "/items/-", "value": c_item, "kind": "direct"},
        {"op": "replace", "path": "/subtotal", "value": 28, "kind": "cascade"},
        {"op": "replace", "path": "/total", "value": 33, "kind": "cascade"},
        {
            "op": "replace",
            "path": "/note",
            "value": "^3 items",
            "kind": "cascade",
            "match": "regex_match",
        },
    ]
    made0 = [*_plain(turn0[:3]), {"op": "replace", "path": "/note", "value": "3 items in the cart"}]
    turn1: Gold = [
        {"op": "replace", "path": "/items/2/qty", "value": 3, "kind": "direct"},
        {"op": "replace", "path": "/items/2/line", "value": 24, "kind": "cascade"},
        {"op": "replace", "path": "/subtotal", "value": 44, "kind": "cascade"},
        {"op": "replace", "path": "/shipping", "value": 0, "kind": "cascade"},
        {"op": "replace", "path": "/total", "value": 44, "kind": "cascade"},
    ]
    turn2: Gold = [
        {"op": "remove", "path": "/items/0", "kind": "direct"},
        {"op": "replace", "path": "/subtotal", "value": 34, "kind": "cascade"},
        {"op": "replace", "path": "/shipping", "value": 5, "kind": "cascade"},
        {"op": "replace", "path": "/total", "value": 39, "kind": "cascade"},
        {
            "op": "replace",
            "path": "/note",
            "value": "^2 items",
            "kind": "cascade",
            "match": "regex_match",
        },
    ]
    case = chain_case(
        cart,
        [
            ("Add one C at 8.", turn0, made0),
            ("Make that 3 of C.", turn1, None),
            ("Take A out.", turn2, None),
        ],
        id="cart-chain/12",
        scenario="cart-chain",
        domain="shopping_cart",
    )
    assert isinstance(case, Case)
    return case
