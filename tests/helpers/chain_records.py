"""Chain records written by hand, shaped as docs/interfaces.md and the run's records have them:
one item per chain, its ``turns`` one dict per turn run, the fixed fields for the chain as a
whole (``completed`` and ``valid`` over every turn, the failure counts, usage summed, ``reason``
and ``findings`` of the first failing turn, ``patch`` of the last).

``chain_record("cart/10", "free", [True, "miss", True])`` is a free chain whose turn 1 missed a
place; a turn is True (completed), ``"miss"``, ``"over_edit"``, ``"wrong_value"`` (valid, one
finding of that kind) or an error (``"no_patch"``, ``"call_failed"``, ...: no patch).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pytest_revprop.run.records import chain_error
from pytest_revprop.vocabulary import FAILURE_KINDS

TurnSpec = bool | str


def _turn(index: int, spec: TurnSpec, regressions: int) -> dict[str, Any]:
    completed = spec is True
    kind = spec if isinstance(spec, str) and spec in FAILURE_KINDS else None
    error = spec if isinstance(spec, str) and kind is None else None
    if spec is False:
        kind = "miss"
    path = f"/items/{index}/price"
    patch = None if error else [{"op": "replace", "path": path, "value": 10 + index}]
    findings = (
        [{"kind": kind, "path": path, "expected": 10 + index, "got": 9, "gold_kind": "direct"}]
        if kind
        else []
    )
    reason = None if completed else (f"{error}: no patch" if error else f"{kind} at {path}")
    failed_call = error in ("call_failed", "method_failed")
    return {
        "turn": index,
        "completed": completed,
        "valid": error is None,
        "error": error,
        "reason": reason,
        "miss": int(kind == "miss"),
        "over_edit": int(kind == "over_edit"),
        "wrong_value": int(kind == "wrong_value"),
        "calls": 0 if failed_call else 1,
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "cost_usd": 0.0 if failed_call else 0.001,
        "latency_s": 0.5,
        "patch": patch,
        "findings": findings,
        "regressions": regressions,
        "regressed": [f"/items/{i}/price" for i in range(regressions)],
        "request": f"Revision {index}: set the price of item {index} to {10 + index}.",
    }


def chain_record(
    case: str = "cart-free-shipping/10",
    protocol: str = "teacher",
    turns: Sequence[TurnSpec] = (True, True, True),
    *,
    model: str = "m",
    method: str = "j+h",
    k: int = 1,
    seed: int = 0,
    regressions: Sequence[int] | None = None,
    pattern: str = "threshold",
) -> dict[str, Any]:
    """One chain's record (see the module's docstring); ``regressions`` per turn (default 0)."""
    per_turn = list(regressions or [0] * len(turns))
    rows = [_turn(i, spec, per_turn[i]) for i, spec in enumerate(turns)]
    first_failed = next((row for row in rows if not row["completed"]), None)
    before = next((i for i, row in enumerate(rows) if not row["completed"]), len(rows))
    return {
        "case": case,
        "model": model,
        "method": method,
        "k": k,
        "seed": seed,
        "completed": first_failed is None,
        "valid": all(row["valid"] for row in rows),
        "error": chain_error(rows),
        "miss": sum(row["miss"] for row in rows),
        "over_edit": sum(row["over_edit"] for row in rows),
        "wrong_value": sum(row["wrong_value"] for row in rows),
        "cost_usd": sum(row["cost_usd"] for row in rows),
        "latency_s": sum(row["latency_s"] for row in rows),
        "calls": sum(row["calls"] for row in rows),
        "patch": rows[-1]["patch"],
        "reason": None
        if first_failed is None
        else f"turn {first_failed['turn']}: {first_failed['reason']}",
        "findings": []
        if first_failed is None
        else [{**f, "turn": first_failed["turn"]} for f in first_failed["findings"]],
        "selection_fallback": None,
        "domain": "shopping_cart",
        "pattern": pattern,
        "size": 10,
        "split": "test",
        "cascade_recall": None,
        "preservation": None,
        "request": rows[0]["request"],
        "replies": [
            {
                "role": "sample",
                "seed": seed,
                "turn": row["turn"],
                "content": json.dumps(row["patch"]),
                "reasoning": None,
                "finish_reason": "stop",
                "input_tokens": 100,
                "output_tokens": 20,
                "reasoning_tokens": 0,
                "latency_s": 0.5,
                "cost_usd": 0.001,
                "cached": False,
            }
            for row in rows
            if row["calls"]
        ],
        "failed_call": None,
        "chain": protocol,
        "turns": rows,
        "turns_completed": before,
        "regressions": sum(per_turn),
    }


def chain_meta(protocol: str, turns: int | None = None) -> dict[str, Any]:
    """A chain run's ``meta`` fields that reporting reads (``meta.chain``), with the usual few."""
    return {
        "split": "test",
        "seeds": [0, 1],
        "k_values": [1],
        "models": {"m": {"litellm_model": "openai/m", "kind": "litellm"}},
        "methods": ["j+h", "med"],
        "chain": {"protocol": protocol, "turns": turns},
    }
