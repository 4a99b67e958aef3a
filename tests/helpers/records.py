"""The one builder of a single revision's result record that tests share, shaped as
docs/interfaces.md and the runner's records have it (every field of ``ResultRecord``): a
completed sample of ``c/10`` by ``m``'s ``j+h`` at seed 0 unless told otherwise. Chain records:
``helpers.chain_records``."""

from __future__ import annotations

from typing import Any


def a_record(case: str = "c/10", completed: bool = True, **fields: Any) -> dict[str, Any]:
    """A record of ``case``; ``fields`` set any other field (``seed``, ``method``, ``error``,
    ...). A record that did not complete misses one place unless ``miss`` is given; one with
    an ``error`` is invalid unless ``valid`` is given."""
    error = fields.get("error")
    base: dict[str, Any] = {
        "case": case,
        "model": "m",
        "method": "j+h",
        "k": 1,
        "seed": 0,
        "completed": completed,
        "valid": error is None,
        "error": error,
        "miss": 0 if completed or error is not None else 1,
        "over_edit": 0,
        "wrong_value": 0,
        "cost_usd": 0.0,
        "latency_s": 0.1,
        "calls": 1,
        "patch": [],
        "reason": None,
        "findings": [],
        "selection_fallback": None,
        "map_valid": None,
        "map_edges": None,
        "map_dropped": None,
        "domain": "invoice",
        "pattern": "arithmetic",
        "size": 10,
        "split": "test",
        "request": "Change it.",
        "replies": [],
        "failed_call": None,
        "cascade_recall": None,
        "preservation": None,
    }
    return {**base, **fields}
