"""The report's tables beyond the paper (report.md and report.html): where models fail, by
pattern, size and domain, and the cases that no (model, method, k) completes and that every
one completes (``metrics.breakdown_rows``, ``metrics.solved_cases``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_revprop.reporting.metrics import NONE_CELL, breakdown_rows, solved_cases
from pytest_revprop.reporting.tables import Table

__all__ = ["LISTED_CASES", "where_tables"]

LISTED_CASES = 100
"""Case ids a cell of the solved-cases table names before it says how many more there are."""


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def _where_table(rows: list[dict[str, Any]]) -> Table:
    models = list(dict.fromkeys(r["model"] for r in rows))
    by_place: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for r in rows:
        by_place.setdefault((r["by"], r["value"]), {})[r["model"]] = r
    header = ["by", "value", "cases"]
    for model in models:
        header += [f"{model} completion %", f"{model} pass^S %", f"{model} recall"]
    body = []
    for (name, value), mine in by_place.items():
        cells = [name, value, str(max(r["cases"] for r in mine.values()))]
        for model in models:
            found = mine.get(model)
            if found is None:
                cells += [NONE_CELL] * 3
                continue
            recall = found["cascade_recall"]
            cells += [
                _pct(found["completion_rate"]),
                _pct(found["pass_all_seeds"]),
                NONE_CELL if recall is None else f"{recall:.2f}",
            ]
        body.append(cells)
    return Table(
        "Where they fail",
        header,
        body,
        anchor="where",
        note="Per model over its methods at their largest k: completion % of the samples, "
        "pass^S % of the (method, case) pairs (completed at every seed) and the mean cascade "
        "recall (Figure: where_they_fail.png).",
    )


def _case_list(cases: list[str]) -> str:
    if not cases:
        return "none"
    more = len(cases) - LISTED_CASES
    return ", ".join(cases[:LISTED_CASES]) + (f" and {more} more" if more > 0 else "")


def _solved_table(solved: Mapping[str, str]) -> Table:
    rows = []
    for label, what in (
        ("by none", "no (model, method, k) completes it at any seed"),
        ("by all", "every (model, method, k) completes it at every seed"),
    ):
        cases = [case for case, how in solved.items() if how == label]
        rows.append([what, str(len(cases)), _case_list(cases)])
    return Table(
        "Cases solved by none and by all",
        ["cases that", "count", "case ids"],
        rows,
        anchor="solved",
        note="The sample browser's filter 'solved' selects them (samples whose call failed are "
        "left out).",
    )


def where_tables(results: Mapping[str, Any]) -> list[Table]:
    """The breakdown and the solved-cases tables; none when the run has no result."""
    rows = breakdown_rows(results["results"])
    solved = solved_cases(results["results"])
    tables = [_where_table(rows)] if rows else []
    if solved:
        tables.append(_solved_table(solved))
    return tables
