"""From a results document to the rows the report's figures and tables show.

Completion rates, their std and the failure totals come from the summary rows; cost,
latency and calls per sample are the means over the result records of each (model, method,
k). Models are listed in the run's order, methods in the protocol's order. Where a figure
shows one row per (model, method), it is the one at the largest k (the run's main k).
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_revprop.reporting.results import is_number
from pytest_revprop.reporting.stats import GroupKey, mean_std
from pytest_revprop.vocabulary import BUILTIN_METHODS, OUTCOME_COLUMNS, SINGLE_CALL_METHODS

__all__ = [
    "Usage",
    "completion_rows",
    "completion_std",
    "cost_curve_rows",
    "count_of",
    "failure_rows",
    "fixed_k_methods",
    "k_of",
    "method_rank",
    "multi_k_values",
    "ordered_methods",
    "rate_of",
    "run_models",
    "single_call_methods",
    "usage_by_group",
]

Row = Mapping[str, Any]


def method_rank(method: str) -> tuple[int, str]:
    """Sort key: the built-in methods in their order (the protocol's nine, then dep), then
    any registered method by name."""
    if method in BUILTIN_METHODS:
        return (BUILTIN_METHODS.index(method), "")
    return (len(BUILTIN_METHODS), method)


def fixed_k_methods(results: Mapping[str, Any]) -> set[str]:
    """The methods of a run that do not use k, as its ``meta.method_info`` says; for a file
    without it (written before methods could be registered), the protocol's j, h and j+h."""
    info = results.get("meta", {}).get("method_info")
    if not isinstance(info, Mapping):
        return set(SINGLE_CALL_METHODS)
    return {str(m) for m, i in info.items() if isinstance(i, Mapping) and not i.get("uses_k")}


def single_call_methods(results: Mapping[str, Any]) -> set[str]:
    """The methods that do not use k and make at most one call per item (j, h, j+h)."""
    fixed = fixed_k_methods(results)
    calls: dict[str, list[int]] = {}
    for row in results["summary"]:
        if row["method"] in fixed and is_number(row.get("calls")):
            counts = calls.setdefault(str(row["method"]), [0, 0])
            counts[0] += int(row["calls"])
            counts[1] += int(row.get("n_items") or 0)
    return {m for m in fixed if m not in calls or calls[m][0] <= calls[m][1]}


def _ordered(values: Iterable[str], preferred: Sequence[Any] = ()) -> list[str]:
    """Distinct values: those named in ``preferred`` first (in its order), then by appearance."""
    seen = list(dict.fromkeys(values))
    first = [v for v in preferred if v in seen]
    return first + [v for v in seen if v not in first]


def run_models(results: Mapping[str, Any]) -> list[str]:
    """The run's models: in the order of meta.models, then as the summary first names them."""
    preferred = results.get("meta", {}).get("models") or []
    return _ordered((str(r["model"]) for r in results["summary"]), preferred)


def ordered_methods(rows: Iterable[Row]) -> list[str]:
    """The distinct methods of ``rows``, in ``method_rank`` order."""
    return sorted({str(r["method"]) for r in rows}, key=method_rank)


def k_of(row: Row) -> int:
    """The row's k; 1 when it has none (or not an integer)."""
    k = row.get("k")
    return k if isinstance(k, int) and not isinstance(k, bool) else 1


def _primary_rows(summary: Iterable[Row]) -> dict[tuple[str, str], Row]:
    """One summary row per (model, method): the one with the largest k (the run's main k)."""
    chosen: dict[tuple[str, str], Row] = {}
    for row in summary:
        key = (str(row["model"]), str(row["method"]))
        if key not in chosen or k_of(row) > k_of(chosen[key]):
            chosen[key] = row
    return chosen


def rate_of(row: Row) -> float | None:
    """The summary row's completion rate; None when it has none (every item errored)."""
    rate = row.get("completion_rate")
    return float(rate) if is_number(rate) else None


def completion_std(row: Row) -> float | None:
    """The summary row's std over seeds; from its rates by seed when it has no std; else 0
    (None for a row without a rate)."""
    if rate_of(row) is None:
        return None
    std = row.get("completion_std")
    if is_number(std):
        return float(std)
    by_seed = row.get("completion_by_seed")
    if isinstance(by_seed, dict) and by_seed:
        return mean_std(float(v) for v in by_seed.values())[1]
    return 0.0


def count_of(row: Row, name: str) -> int:
    """The row's count ``name``; 0 when it is missing or not a number."""
    value = row.get(name)
    return int(value) if is_number(value) else 0


@dataclass(frozen=True)
class Usage:
    """Means per result record of one (model, method, k)."""

    cost_usd: float | None
    latency_s: float | None
    calls: float | None


_USAGE: weakref.WeakKeyDictionary[Any, dict[GroupKey, Usage]] = weakref.WeakKeyDictionary()
"""Usage of streamed row sources (read from disk each time they are iterated), by source."""


def usage_by_group(results: Iterable[Row]) -> dict[GroupKey, Usage]:
    """Mean cost, latency and calls per result record, by (model, method, k). One pass that
    keeps three numbers per record, not the records; a streamed source is read once."""
    try:
        return _USAGE[results]
    except (KeyError, TypeError):  # not seen yet, or a list (not weakly referable)
        pass
    values: dict[GroupKey, tuple[list[float], list[float], list[float]]] = {}
    for record in results:
        key = GroupKey(str(record["model"]), str(record["method"]), k_of(record))
        group = values.setdefault(key, ([], [], []))
        for column, name in zip(group, ("cost_usd", "latency_s", "calls"), strict=True):
            value = record.get(name)
            if is_number(value):
                column.append(float(value))
    usage = {
        key: Usage(*(mean_std(column)[0] if column else None for column in columns))
        for key, columns in values.items()
    }
    with contextlib.suppress(TypeError):
        _USAGE[results] = usage
    return usage


def completion_rows(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Data of Figure 4: one row per (model, method) at the run's main k."""
    primary = _primary_rows(results["summary"])
    return [
        {
            "model": model,
            "method": method,
            "k": k_of(primary[model, method]),
            "completion_rate": rate_of(primary[model, method]),
            "completion_std": completion_std(primary[model, method]),
            "runs": primary[model, method].get("runs"),
        }
        for model in run_models(results)
        for method in ordered_methods(primary.values())
        if (model, method) in primary
    ]


def failure_rows(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Data of Figure 5: failure totals per (model, method) at the run's main k."""
    primary = _primary_rows(results["summary"])
    return [
        {
            "model": model,
            "method": method,
            "k": k_of(primary[model, method]),
            **{kind: count_of(primary[model, method], kind) for kind in OUTCOME_COLUMNS},
        }
        for model in run_models(results)
        for method in ordered_methods(primary.values())
        if (model, method) in primary
    ]


def cost_curve_rows(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Data of Figure 6: every summary row with its mean cost, latency and calls per sample."""
    usage = usage_by_group(results["results"])
    rows: list[dict[str, Any]] = []
    for row in sorted(results["summary"], key=lambda r: (method_rank(str(r["method"])), k_of(r))):
        key = GroupKey(str(row["model"]), str(row["method"]), k_of(row))
        use = usage.get(key, Usage(None, None, None))
        rows.append(
            {
                "model": key.model,
                "method": key.method,
                "k": key.k,
                "calls": use.calls,
                "cost_usd": use.cost_usd,
                "latency_s": use.latency_s,
                "completion_rate": rate_of(row),
            }
        )
    models = run_models(results)
    rows.sort(key=lambda r: models.index(r["model"]))
    return rows


def multi_k_values(results: Mapping[str, Any]) -> list[int]:
    """The k values at which multi-call methods ran."""
    fixed = fixed_k_methods(results)
    return sorted({k_of(r) for r in results["summary"] if r["method"] not in fixed})
