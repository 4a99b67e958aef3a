"""Aggregation of result records: summary rows built one record at a time, the order of the
report files, and the cells of the summary tables (summary.md and the terminal summary).
The files themselves are written by ``sink.RecordSink`` as records arrive. No pytest here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.reporting.chains import CHAIN_TABLE_NOTE, ChainTally, chain_table
from pytest_revprop.reporting.metrics import BEYOND_HEADER, GroupTally, beyond_cells
from pytest_revprop.reporting.relative import relative_to_jh
from pytest_revprop.reporting.report_rows import method_rank as _order
from pytest_revprop.reporting.stats import mean_std
from pytest_revprop.reporting.tables import NO_RATE, markdown_table, text_table
from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS, OUTCOME_ERRORS


def file_order(record: Mapping[str, Any]) -> tuple[Any, ...]:
    """Sort key of the report files: model, method (protocol order), k, case, seed."""
    return (record["model"], _order(record["method"]), record["k"], record["case"], record["seed"])


@dataclass
class _Group:
    """What a summary row needs of one (model, method, k), gathered one record at a time."""

    cases: set[str] = field(default_factory=set)
    by_seed: dict[int, list[int]] = field(default_factory=dict)  # seed -> [completed, scored]
    miss: int = 0
    over_edit: int = 0
    wrong_value: int = 0
    invalid: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    calls: int = 0
    n_items: int = 0
    errors: int = 0
    truncated: int = 0
    selection_fallbacks: int = 0
    invalid_by_reason: dict[str, int] = field(default_factory=dict)
    beyond: GroupTally = field(default_factory=GroupTally)
    """What the figures beyond the paper need (``metrics``)."""
    chain: ChainTally = field(default_factory=ChainTally)
    """What a chain run's fields need (``chains``); nothing for records without chains."""


class SummaryBuilder:
    """Summary rows built incrementally: ``add`` each record once, ``rows()`` at any time.
    Holds a few numbers per (model, method, k) and seed, and the set of case ids, never the
    records."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str, int], _Group] = {}

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one record into its (model, method, k) group: usage always, the verdict only when
        it is not an infrastructure error (those count as errors, outside the completion rate).
        """
        key = (record["model"], record["method"], record["k"])
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group()
        group.n_items += 1
        group.cases.add(record["case"])
        group.cost_usd += record["cost_usd"]
        group.latency_s += record["latency_s"]
        group.calls += record["calls"]
        group.beyond.add(record)
        group.chain.add(record)
        if record.get("error") in INFRASTRUCTURE_ERRORS:
            group.errors += 1
            return
        tally = group.by_seed.setdefault(record["seed"], [0, 0])
        tally[0] += bool(record["completed"])
        tally[1] += 1
        group.miss += record["miss"]
        group.over_edit += record["over_edit"]
        group.wrong_value += record["wrong_value"]
        if not record["valid"]:
            group.invalid += 1
            reason = record.get("error") or "invalid"
            group.invalid_by_reason[reason] = group.invalid_by_reason.get(reason, 0) + 1
        group.truncated += record.get("error") == "truncated"
        group.selection_fallbacks += bool(record.get("selection_fallback"))

    def rows(self) -> list[dict[str, Any]]:
        """The summary rows of results.json, one per (model, method, k), in report order (model,
        then the methods' listing order, then k).
        """
        rows = []
        for (model, method, k), g in sorted(
            self._groups.items(), key=lambda kv: (kv[0][0], _order(kv[0][1]), kv[0][2])
        ):
            rates = {seed: done / scored for seed, (done, scored) in sorted(g.by_seed.items())}
            # no result at all (every item an infrastructure error): no rate, not a zero
            mean, std = mean_std(rates.values()) if rates else (None, None)
            rows.append({
                "model": model, "method": method, "k": k, "n_cases": len(g.cases),
                "runs": len(rates), "completion_rate": mean, "completion_std": std,
                "miss": g.miss, "over_edit": g.over_edit, "wrong_value": g.wrong_value,
                "invalid": g.invalid, "cost_usd": g.cost_usd, "latency_s": g.latency_s / g.n_items,
                "calls": g.calls, "n_items": g.n_items, "errors": g.errors,
                "truncated": g.truncated, "selection_fallbacks": g.selection_fallbacks,
                "completion_by_seed": {str(s): v for s, v in rates.items()},
                **g.beyond.figures(),
                "invalid_by_reason": _by_reason(g.invalid_by_reason),
                **g.chain.figures(),
            })  # fmt: skip
        return rows


def _by_reason(counts: Mapping[str, int]) -> dict[str, int]:
    """Invalid-reply counts in the vocabulary's order of reasons (others after, by name)."""
    known = [reason for reason in OUTCOME_ERRORS if reason in counts]
    return {reason: counts[reason] for reason in [*known, *sorted(set(counts) - set(known))]}


def invalid_reasons_text(row: Mapping[str, Any]) -> str:
    """A row's invalid replies by reason, e.g. ``no_patch 8, truncated 2`` ("" for none)."""
    reasons = row.get("invalid_by_reason") or {}
    return ", ".join(f"{reason} {count}" for reason, count in reasons.items())


def invalid_lines(summary: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per summary row with invalid replies: ``model method k K: no_patch 8, ...``."""
    return [
        f"{r['model']} {r['method']} k {r['k']}: {invalid_reasons_text(r)}"
        for r in summary
        if invalid_reasons_text(r)
    ]


def summarize(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (model, method, k): completion mean and std over seeds, failure totals,
    total cost, mean latency per item, total calls. Call failures are not model outcomes:
    they are counted in ``errors`` and left out of the rates. One pass; keeps no record."""
    builder = SummaryBuilder()
    for record in records:
        builder.add(record)
    return builder.rows()


# ------------------------------------------------------------------------------ tables


def _pct(value: float | None) -> str:
    return f"{NO_RATE:>5}" if value is None else f"{100 * value:5.1f}"


def table_rows(summary: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the summary table (the terminal summary and summary.md)."""
    header = [
        "model",
        "method",
        "k",
        "completion %",
        "± std",
        "miss",
        "over",
        "wrong",
        "invalid",
        "errors",
        "cost $",
        "latency s",
        "calls",
        *BEYOND_HEADER,
    ]
    rows = [
        [
            r["model"],
            r["method"],
            str(r["k"]),
            _pct(r["completion_rate"]),
            _pct(r["completion_std"]),
            str(r["miss"]),
            str(r["over_edit"]),
            str(r["wrong_value"]),
            str(r["invalid"]),
            str(r.get("errors", 0)),
            f"{r['cost_usd']:.4f}",
            f"{r['latency_s']:.2f}",
            str(r["calls"]),
            *beyond_cells(r),
        ]
        for r in summary
    ]
    return header, rows


def relative_rows(summary: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the relative-to-j+h table (the terminal summary and summary.md)."""
    header = ["model", "method", "k", "gain pts", "cost x", "latency x", "cost-effectiveness"]

    def fmt(value: float | None, spec: str) -> str:
        return "n/a" if value is None else format(value, spec)

    rows = [
        [
            key.model,
            key.method,
            str(key.k),
            fmt(rel.gain_points, "+.1f"),
            fmt(rel.cost_multiple, ".2f"),
            fmt(rel.latency_multiple, ".2f"),
            fmt(rel.cost_effectiveness, ".2f"),
        ]
        for key, rel in relative_to_jh(summary)
    ]
    return header, rows


def shown_k_values(doc: Mapping[str, Any]) -> list[int]:
    """The k values a results document's reports name: those of its rows whose method uses k
    (``meta.method_info``), ``[1]`` when no such method ran (``--revprop-k`` then changed
    nothing), ``meta.k_values`` when the document does not say which methods use k."""
    meta = doc.get("meta", {})
    info = meta.get("method_info")
    if not isinstance(info, Mapping):
        return list(meta.get("k_values") or [])
    uses_k = {
        name for name, spec in info.items() if isinstance(spec, Mapping) and spec.get("uses_k")
    }
    rows = doc.get("summary") or []
    ks = sorted({r["k"] for r in rows if r.get("method") in uses_k})
    if ks or rows:
        return ks or [1]
    ran = set(meta.get("methods") or [])
    return list(meta.get("k_values") or []) if ran & uses_k else [1]


def markdown_summary(doc: Mapping[str, Any]) -> str:
    """summary.md: the summary table, the table relative to j+h and the first failed samples."""
    meta = doc.get("meta", {})
    parts = [
        "# RevPropBench results",
        "",
        f"Split `{meta.get('split')}`, seeds {meta.get('seeds')}, k {shown_k_values(doc)}, "
        f"{len(doc['results'])} samples.",
        "",
        markdown_table(*table_rows(doc["summary"]), tight_rule=True),
    ]
    if meta.get("interrupted") is True:
        parts[2:2] = [
            "**Partial run**: interrupted (Ctrl-C) before every item ran; these results hold "
            "only the items that finished.",
            "",
        ]
    invalid = invalid_lines(doc["summary"])
    if invalid:
        parts += ["", "Invalid replies by reason:", "", *(f"- {line}" for line in invalid)]
    header, rows = relative_rows(doc["summary"])
    if rows:
        parts += ["", "## Relative to j+h", "", markdown_table(header, rows, tight_rule=True)]
    header, rows = chain_table(doc["summary"])
    if rows:
        parts += [
            "",
            "## Chains",
            "",
            CHAIN_TABLE_NOTE,
            "",
            markdown_table(header, rows, tight_rule=True),
        ]
    failed = [r for r in doc["results"] if not r["completed"]]
    if failed:
        parts += ["", "## Failed samples (first 50)", ""]
        for r in failed[:50]:
            what = (
                r["error"]
                or f"miss {r['miss']}, over edit {r['over_edit']}, wrong value {r['wrong_value']}"
            )
            if r.get("chain") and isinstance(r.get("turns_completed"), int):
                what += f" (first failed turn: {r['turns_completed']})"
            parts.append(
                f"- `{r['case']}` {r['model']} {r['method']} k{r['k']} s{r['seed']}: {what}"
            )
    return "\n".join(parts) + "\n"


def summary_text(summary: Sequence[Mapping[str, Any]]) -> str:
    """The terminal summary of summary rows: the table per (model, method, k), then, when
    j+h ran, each method relative to it."""
    parts = [text_table(*table_rows(summary))]
    invalid = invalid_lines(summary)
    if invalid:
        parts += ["invalid replies by reason:", *(f"  {line}" for line in invalid)]
    header, rows = relative_rows(summary)
    if rows:
        parts += [
            "",
            "relative to j+h (gain in points; cost-effectiveness = gain / (cost multiple - 1)):",
            text_table(header, rows),
        ]
    header, rows = chain_table(summary)
    if rows:
        parts += ["", "chains (completion by turn; regressions: places a later turn broke):"]
        parts.append(text_table(header, rows))
    return "\n".join(parts)
