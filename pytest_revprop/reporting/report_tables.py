"""The report's tables (report.md and report.html), built from a results document.

The summary (one row per model, method and k), completion by method, the chains, the
robustness to fresh instances (``robustness``), and, when multi-call
methods ran, latency and cost relative to j+h and the cost- and latency-effectiveness
(``relative.relative_to`` on the means per sample; j+h at its smallest k is the reference).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pytest_revprop.reporting.chains import CHAIN_TABLE_NOTE, chain_table
from pytest_revprop.reporting.metrics import BEYOND_HEADER, beyond_cells
from pytest_revprop.reporting.relative import REFERENCE_METHOD, Measures, Relative, relative_to
from pytest_revprop.reporting.report_rows import (
    Usage,
    completion_rows,
    completion_std,
    count_of,
    k_of,
    method_rank,
    ordered_methods,
    rate_of,
    run_models,
    single_call_methods,
    usage_by_group,
)
from pytest_revprop.reporting.robustness import robustness_tables
from pytest_revprop.reporting.stats import GroupKey
from pytest_revprop.reporting.tables import NO_RATE, Table
from pytest_revprop.reporting.where_tables import where_tables
from pytest_revprop.vocabulary import OUTCOME_COLUMNS

__all__ = ["report_tables"]

Row = Mapping[str, Any]


def _pct(rate: float | None) -> str:
    return NO_RATE if rate is None else f"{100 * rate:.1f}"


def _rate_cell(rate: float | None, std: float | None) -> str:
    return NO_RATE if rate is None else f"{_pct(rate)} ± {_pct(std)}"


def _summary_table(results: Mapping[str, Any]) -> Table:
    usage = usage_by_group(results["results"])
    models = run_models(results)
    summary = sorted(
        results["summary"],
        key=lambda r: (models.index(str(r["model"])), method_rank(str(r["method"])), k_of(r)),
    )
    rows = []
    for r in summary:
        use = usage.get(
            GroupKey(str(r["model"]), str(r["method"]), k_of(r)), Usage(None, None, None)
        )
        rows.append(
            [
                str(r["model"]),
                str(r["method"]),
                str(k_of(r)),
                str(r.get("n_cases", "")),
                str(r.get("runs", "")),
                _rate_cell(rate_of(r), completion_std(r)),
                *(str(count_of(r, kind)) for kind in OUTCOME_COLUMNS),
                str(count_of(r, "errors")),
                _fmt(use.cost_usd, "{:.4f}"),
                _fmt(use.latency_s, "{:.2f}"),
                _fmt(use.calls, "{:.2f}"),
                *beyond_cells(r),
            ]
        )
    header = [
        "model",
        "method",
        "k",
        "cases",
        "runs",
        "completion % (± std)",
        "miss",
        "over edit",
        "wrong value",
        "invalid",
        "call errors",
        "cost/sample (USD)",
        "latency/sample (s)",
        "calls/sample",
        *BEYOND_HEADER,
    ]
    return Table(
        "Summary",
        header,
        rows,
        anchor="summary",
        note="Failure columns are totals over all runs: miss, over edit and wrong value count "
        "artifact elements, invalid counts replies. Beyond the paper (docs/protocol.md): pass^S "
        "and pass@S are the shares of cases completed at every seed and at some seed, the 95% "
        "interval of the completion rate resamples cases, recall and preserved are the means of "
        "the samples' cascade recall and preservation, flaky counts the cases completed at some "
        "seeds and not others.",
    )


def _fmt(value: float | None, pattern: str) -> str:
    return "n/a" if value is None else pattern.format(value)


def _completion_matrix(results: Mapping[str, Any]) -> Table:
    rows = completion_rows(results)
    methods = ordered_methods(rows)
    by_key = {(r["model"], r["method"]): r for r in rows}
    body = [
        [
            model,
            *(
                _rate_cell(by_key[model, m]["completion_rate"], by_key[model, m]["completion_std"])
                if (model, m) in by_key
                else ""
                for m in methods
            ),
        ]
        for model in run_models(results)
    ]
    return Table(
        "Completion rate by method (%)",
        ["model", *methods],
        body,
        anchor="completion",
        note="Mean ± sample std over seeds, at each method's largest k (Figure: completion_by_method.png).",
    )


def _ratio_columns(results: Mapping[str, Any]) -> list[tuple[str, int]]:
    single = single_call_methods(results)
    return sorted(
        {(str(r["method"]), k_of(r)) for r in results["summary"] if r["method"] not in single},
        key=lambda mk: (method_rank(mk[0]), mk[1]),
    )


def _reference_row(summary: Iterable[Row], model: str) -> Row | None:
    refs = [r for r in summary if r["model"] == model and r["method"] == REFERENCE_METHOD]
    return min(refs, key=k_of) if refs else None


def _measures(row: Row, use: Usage | None) -> Measures:
    return Measures(
        rate_of(row),
        use.cost_usd if use else None,
        use.latency_s if use else None,
    )


def _relative_cell(relative: Relative, measure: str, *, effectiveness: bool) -> str:
    if measure == "cost_usd":
        value = relative.cost_effectiveness if effectiveness else relative.cost_multiple
    else:
        value = relative.latency_effectiveness if effectiveness else relative.latency_multiple
    if value is None:
        return "n/a"
    return f"{value:+.2f}" if effectiveness else f"{value:.2f}×"


def _ratio_table(
    results: Mapping[str, Any], measure: str, *, effectiveness: bool
) -> list[list[str]]:
    """Per model and (method, k): the multiple of j+h's ``measure`` (cost_usd or latency_s),
    or the effectiveness, from the means per sample (``relative.relative_to``)."""
    usage = usage_by_group(results["results"])
    columns = _ratio_columns(results)
    by_key = {(str(r["model"]), str(r["method"]), k_of(r)): r for r in results["summary"]}
    body = []
    for model in run_models(results):
        ref = _reference_row(results["summary"], model)
        reference = (
            _measures(ref, usage.get(GroupKey(model, REFERENCE_METHOD, k_of(ref)))) if ref else None
        )
        cells = [model]
        if not effectiveness:
            base = getattr(reference, measure) if reference else None
            cells.append(_fmt(base, "{:.2f} s" if measure == "latency_s" else "{:.4f}"))
        for method, k in columns:
            row = by_key.get((model, method, k))
            if row is None or reference is None:
                cells.append("n/a")
                continue
            relative = relative_to(_measures(row, usage.get(GroupKey(model, method, k))), reference)
            cells.append(_relative_cell(relative, measure, effectiveness=effectiveness))
        body.append(cells)
    return body


def _chain_tables(docs: Sequence[Mapping[str, Any]]) -> list[Table]:
    """The chain table of chain runs (``docs``: the run, then any other protocol's run given
    with it); none when no run holds chains."""
    header, rows = chain_table([row for doc in docs for row in doc["summary"]])
    if not rows:
        return []
    note = CHAIN_TABLE_NOTE + " Figure: completion_by_turn.png."
    return [Table("Chains: completion by turn", header, rows, note=note, anchor="chains")]


def report_tables(
    results: Mapping[str, Any],
    others: Sequence[Mapping[str, Any]] = (),
    pooled: Iterable[Mapping[str, Any]] | None = None,
) -> list[Table]:
    """Every table of the report, in order (the lead's Markdown may reuse any of them);
    ``others``: chain runs of other protocols whose chain rows join the run's chain table;
    ``pooled``: the run's records pooled with its protocol's runs of other fresh instances,
    which the robustness tables count instead of the run's own."""
    columns = [f"{m} k={k}" for m, k in _ratio_columns(results)]
    tables = [_summary_table(results), _completion_matrix(results)]
    tables += _chain_tables([results, *others])
    if pooled is None:
        tables += robustness_tables(results.get("results") or [])
    else:
        tables += robustness_tables(pooled, pooled=True)
    if not columns:
        return tables + where_tables(results)
    relative = [
        Table(
            "Latency relative to j+h",
            ["model", "j+h latency", *columns],
            _ratio_table(results, "latency_s", effectiveness=False),
            anchor="latency",
            note="Mean latency per sample of each method divided by that of j+h (parallel calls count "
            "as the slowest of them, sequential calls add up).",
        ),
        Table(
            "Cost relative to j+h",
            ["model", "j+h cost (USD)", *columns],
            _ratio_table(results, "cost_usd", effectiveness=False),
            anchor="cost",
        ),
        Table(
            "Cost-effectiveness",
            ["model", *columns],
            _ratio_table(results, "cost_usd", effectiveness=True),
            anchor="cost-effectiveness",
            note="gain / (cost / cost_j+h - 1), gain in completion points over j+h; "
            "n/a when the cost ratio is <= 1 or unknown. Higher is better.",
        ),
        Table(
            "Latency-effectiveness",
            ["model", *columns],
            _ratio_table(results, "latency_s", effectiveness=True),
            anchor="latency-effectiveness",
            note="gain / (latency / latency_j+h - 1); n/a when the latency ratio is <= 1 or unknown.",
        ),
    ]
    # a table relative to j+h with no figure in any method's column says nothing: left out
    tables += [
        t for t in relative if any(c != "n/a" for row in t.rows for c in row[-len(columns) :])
    ]
    return tables + where_tables(results)
