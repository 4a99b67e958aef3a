"""Hand-made results for the report tests: 2 models x 3 methods (incl. j+h) x 2 seeds, with
med and select at k = 3 and 5, over two small cases scored by the real scorer.

Outcomes per (model, method, k), in the order (invoice s0, invoice s42, trip s0, trip s42):
see BEHAVIOURS. Completion rates are therefore known by hand.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_revprop.core.cases import Case
from pytest_revprop.core.scoring import score_patch
from pytest_revprop.reporting.stats import mean_std

MODELS = ["m-small", "m-large"]
SEEDS = [0, 42]
EVIL = '</script><script>alert("x")</script><img src="https://example.invalid/x.png">'

INVOICE: dict[str, Any] = {
    "id": "invoice-qty/10",
    "scenario": "invoice-qty",
    "domain": "invoice",
    "pattern": "arithmetic",
    "size": 10,
    "split": "test",
    "theme": "Changing one line's quantity recomputes the invoice totals",
    "conversation": [
        {
            "user": "Start an invoice for Acme in USD.",
            "assistant": [
                {"op": "add", "path": "/client", "value": "Acme"},
                {"op": "add", "path": "/currency", "value": "USD"},
            ],
        },
        {
            "user": "Add three widgets at $12 each, with 10% tax. " + EVIL,
            "assistant": [
                {
                    "op": "add",
                    "path": "/lines",
                    "value": [{"item": "widget", "qty": 3, "price": 12.0, "amount": 36.0}],
                },
                {"op": "add", "path": "/subtotal", "value": 36.0},
                {"op": "add", "path": "/tax", "value": 3.6},
                {"op": "add", "path": "/total", "value": 39.6},
                {"op": "add", "path": "/memo", "value": "three widgets"},
            ],
        },
    ],
    "artifact": {
        "client": "Acme",
        "currency": "USD",
        "lines": [{"item": "widget", "qty": 3, "price": 12.0, "amount": 36.0}],
        "subtotal": 36.0,
        "tax": 3.6,
        "total": 39.6,
        "memo": "three widgets",
    },
    "request": "Make that two widgets instead of three.",
    "reference": None,
    "gold": [
        {"op": "replace", "path": "/lines/0/qty", "value": 2, "kind": "direct"},
        {"op": "replace", "path": "/lines/0/amount", "value": 24.0, "kind": "cascade"},
        {"op": "replace", "path": "/subtotal", "value": 24.0, "kind": "cascade"},
        {"op": "replace", "path": "/tax", "value": 2.4, "kind": "cascade"},
        {"op": "replace", "path": "/total", "value": 26.4, "kind": "cascade"},
        {
            "op": "replace",
            "path": "/memo",
            "value": "(?i)two widgets",
            "kind": "cascade",
            "match": "regex_match",
            "optional": True,
        },
    ],
    "notes": "hand-made for the report tests",
}

TRIP: dict[str, Any] = {
    "id": "trip-shift/10",
    "scenario": "trip-shift",
    "domain": "travel_itinerary",
    "pattern": "temporal",
    "size": 10,
    "split": "test",
    "theme": "Shifting the start date shifts every date tied to it",
    "conversation": [
        {
            "user": "Plan a trip for two from May 1 to May 5, 2025, budget 800 EUR.",
            "assistant": [
                {
                    "op": "add",
                    "path": "/trip",
                    "value": {"start": "2025-05-01", "end": "2025-05-05"},
                },
                {"op": "add", "path": "/travelers", "value": 2},
                {"op": "add", "path": "/budget", "value": 800},
                {"op": "add", "path": "/currency", "value": "EUR"},
            ],
        },
        {
            "user": "Arrive on the first day, museum two days after arrival; stay at Seaside.",
            "assistant": [
                {
                    "op": "add",
                    "path": "/days",
                    "value": [
                        {"date": "2025-05-01", "plan": "arrive"},
                        {"date": "2025-05-03", "plan": "museum"},
                    ],
                },
                {"op": "add", "path": "/hotel", "value": "Seaside"},
            ],
        },
    ],
    "artifact": {
        "trip": {"start": "2025-05-01", "end": "2025-05-05"},
        "travelers": 2,
        "budget": 800,
        "currency": "EUR",
        "days": [
            {"date": "2025-05-01", "plan": "arrive"},
            {"date": "2025-05-03", "plan": "museum"},
        ],
        "hotel": "Seaside",
    },
    "request": "Move the whole trip one day later.",
    "reference": {"note": "hotel confirmed for the new dates"},
    "gold": [
        {"op": "replace", "path": "/trip/start", "value": "2025-05-02", "kind": "direct"},
        {"op": "replace", "path": "/trip/end", "value": "2025-05-06", "kind": "cascade"},
        {"op": "replace", "path": "/days/0/date", "value": "2025-05-02", "kind": "cascade"},
        {"op": "replace", "path": "/days/1/date", "value": "2025-05-04", "kind": "cascade"},
    ],
    "notes": "",
}

CASES = {INVOICE["id"]: INVOICE, TRIP["id"]: TRIP}


def _gold(case: dict[str, Any]) -> list[dict[str, Any]]:
    ops = [{"op": g["op"], "path": g["path"], "value": g["value"]} for g in case["gold"]]
    if case is INVOICE:
        ops[-1]["value"] = "two widgets"
    return ops


def patch_for(case: dict[str, Any], behaviour: str) -> list[dict[str, Any]] | None:
    """A model patch that completes ("ok") or fails in one known way."""
    gold = _gold(case)
    if behaviour == "ok":
        return gold
    if behaviour == "miss":  # only the direct edit and the first cascade
        return gold[:2]
    if behaviour == "over":  # everything, plus an unrelated change
        extra = "/client" if case is INVOICE else "/hotel"
        return [*gold, {"op": "replace", "path": extra, "value": "CHANGED"}]
    if behaviour == "wrong":  # the last required value is off
        return [*gold[:-1], {**gold[-1], "value": 1.0 if case is INVOICE else "2025-05-09"}]
    if behaviour == "invalid":
        return None
    raise ValueError(behaviour)


# (model, method, k) -> behaviours for (invoice s0, invoice s42, trip s0, trip s42)
BEHAVIOURS: dict[tuple[str, str, int], list[str]] = {
    ("m-small", "j+h", 1): ["miss", "ok", "miss", "invalid"],  # 0.25
    ("m-small", "med", 3): ["ok", "ok", "miss", "over"],  # 0.50
    ("m-small", "med", 5): ["ok", "ok", "ok", "over"],  # 0.75
    ("m-small", "select", 3): ["ok", "wrong", "ok", "miss"],  # 0.50
    ("m-small", "select", 5): ["ok", "ok", "ok", "wrong"],  # 0.75
    ("m-large", "j+h", 1): ["ok", "ok", "miss", "ok"],  # 0.75
    ("m-large", "med", 3): ["ok", "ok", "ok", "miss"],  # 0.75
    ("m-large", "med", 5): ["ok", "ok", "ok", "ok"],  # 1.00
    ("m-large", "select", 3): ["ok", "ok", "ok", "ok"],  # 1.00
    ("m-large", "select", 5): ["ok", "ok", "ok", "ok"],  # 1.00
}
BASE_COST = {"m-small": 0.001, "m-large": 0.004}
BASE_LATENCY = {"m-small": 10.0, "m-large": 5.0}
COST_FACTOR = {"j+h": 1.0, "med": 1.0, "select": 1.5}
LATENCY_FACTOR = {"j+h": 1.0, "med": 1.2, "select": 2.5}


def _result(
    case: dict[str, Any], model: str, method: str, k: int, seed: int, behaviour: str
) -> dict[str, Any]:
    patch = patch_for(case, behaviour)
    if patch is None:
        score = {
            "completed": False,
            "valid": False,
            "error": "no_patch",
            "reason": "no JSON array of operations",
            "miss": 0,
            "over_edit": 0,
            "wrong_value": 0,
            "findings": [],
        }
    else:
        score = score_patch(Case.from_dict(case), patch).to_dict()
    calls = 1 if method == "j+h" else k
    return {
        "case": case["id"],
        "model": model,
        "method": method,
        "k": k,
        "seed": seed,
        **score,
        "patch": patch,
        "cost_usd": round(BASE_COST[model] * calls * COST_FACTOR[method], 9),
        "latency_s": round(BASE_LATENCY[model] * LATENCY_FACTOR[method] * (1 + 0.1 * (k - 1)), 6),
        "calls": calls,
        "domain": case["domain"],
        "pattern": case["pattern"],
        "size": case["size"],
        "split": case["split"],
        "selection_fallback": False if method == "select" else None,
    }


def make_results_list() -> list[dict[str, Any]]:
    rows = []
    for (model, method, k), behaviours in BEHAVIOURS.items():
        slots = [(INVOICE, 0), (INVOICE, 42), (TRIP, 0), (TRIP, 42)]
        for (case, seed), behaviour in zip(slots, behaviours, strict=True):
            rows.append(_result(case, model, method, k, seed, behaviour))
    return rows


def summarise(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for r in results:
        groups.setdefault((r["model"], r["method"], r["k"]), []).append(r)
    summary = []
    for (model, method, k), rows in groups.items():
        by_seed = {
            str(s): sum(r["completed"] for r in rows if r["seed"] == s)
            / sum(1 for r in rows if r["seed"] == s)
            for s in SEEDS
        }
        rate, std = mean_std(by_seed.values())
        summary.append(
            {
                "model": model,
                "method": method,
                "k": k,
                "n_cases": 2,
                "runs": 2,
                "completion_rate": rate,
                "completion_std": std,
                "completion_by_seed": by_seed,
                "miss": sum(r["miss"] for r in rows),
                "over_edit": sum(r["over_edit"] for r in rows),
                "wrong_value": sum(r["wrong_value"] for r in rows),
                "invalid": sum(not r["valid"] for r in rows),
                "cost_usd": sum(r["cost_usd"] for r in rows),
                "latency_s": sum(r["latency_s"] for r in rows),
                "calls": sum(r["calls"] for r in rows),
                "n_items": len(rows),
                "errors": 0,
            }
        )
    return summary


def make_results() -> dict[str, Any]:
    results = make_results_list()
    return {
        "meta": {
            "version": "0.1.0",
            "created": "2026-01-01T00:00:00Z",
            "cases_path": None,
            "split": "test",
            "models": {m: {"litellm_model": f"openai/{m}", "kind": "litellm"} for m in MODELS},
            "methods": ["j+h", "med", "select"],
            "k_values": [3, 5],
            "seeds": SEEDS,
        },
        "summary": summarise(results),
        "results": results,
    }


def make_samples(results: dict[str, Any]) -> list[dict[str, Any]]:
    """samples.jsonl records: each result plus the request and one raw reply per call."""
    samples = []
    for r in results["results"]:
        case = CASES[r["case"]]
        content = (
            "no patch here, sorry"
            if r["patch"] is None
            else "```json\n" + json.dumps(r["patch"]) + "\n```"
        )
        if r["model"] == "m-small" and r["method"] == "j+h" and r["seed"] == 0:
            content = EVIL + "\n" + content
        replies = [
            {
                "role": "sample",
                "seed": r["seed"] + i,
                "content": content,
                "reasoning": f"thinking about {case['request']} " + EVIL,
                "finish_reason": "stop",
                "input_tokens": 900,
                "output_tokens": 120,
                "reasoning_tokens": 80,
                "latency_s": r["latency_s"],
                "cached": i > 0,
            }
            for i in range(min(r["calls"], 2))
        ]
        samples.append({**r, "request": case["request"], "replies": replies})
    return samples
