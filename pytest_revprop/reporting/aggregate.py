"""Aggregation of result records and the files a run writes: results.json, samples.jsonl and
summary.md, plus the cells of the summary tables (summary.md and the terminal summary).
No pytest here; the session calls these at the end of a run.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_revprop import __version__
from pytest_revprop.reporting.relative import relative_to_jh
from pytest_revprop.reporting.shaping import method_rank as _order
from pytest_revprop.reporting.stats import mean_std
from pytest_revprop.reporting.tables import markdown_table, text_table
from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS, RESULT_KEYS, SAMPLE_ONLY_KEYS


def _in_file_order(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Records in the order results.json and samples.jsonl list them."""
    return sorted(
        records, key=lambda r: (r["model"], _order(r["method"]), r["k"], r["case"], r["seed"])
    )


def summarize(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (model, method, k): completion mean and std over seeds, failure totals,
    total cost, mean latency per item, total calls. Call failures are not model outcomes:
    they are counted in ``errors`` and left out of the rates."""
    groups: dict[tuple[str, str, int], list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        groups[(record["model"], record["method"], record["k"])].append(record)
    rows = []
    for (model, method, k), group in sorted(
        groups.items(), key=lambda kv: (kv[0][0], _order(kv[0][1]), kv[0][2])
    ):
        scored = [r for r in group if r.get("error") not in INFRASTRUCTURE_ERRORS]
        by_seed: dict[int, list[bool]] = defaultdict(list)
        for r in scored:
            by_seed[r["seed"]].append(bool(r["completed"]))
        rates = {seed: sum(v) / len(v) for seed, v in sorted(by_seed.items())}
        mean, std = mean_std(rates.values()) if rates else (0.0, 0.0)
        rows.append({
            "model": model,
            "method": method,
            "k": k,
            "n_cases": len({r["case"] for r in group}),
            "runs": len(rates),
            "completion_rate": mean,
            "completion_std": std,
            "miss": sum(r["miss"] for r in scored),
            "over_edit": sum(r["over_edit"] for r in scored),
            "wrong_value": sum(r["wrong_value"] for r in scored),
            "invalid": sum(1 for r in scored if not r["valid"]),
            "cost_usd": sum(r["cost_usd"] for r in group),
            "latency_s": sum(r["latency_s"] for r in group) / len(group),
            "calls": sum(r["calls"] for r in group),
            "n_items": len(group),
            "errors": len(group) - len(scored),
            "truncated": sum(1 for r in scored if r.get("error") == "truncated"),
            "selection_fallbacks": sum(1 for r in scored if r.get("selection_fallback")),
            "completion_by_seed": {str(s): v for s, v in rates.items()},
        })  # fmt: skip
    return rows


def results_document(
    records: Sequence[Mapping[str, Any]], meta: Mapping[str, Any]
) -> dict[str, Any]:
    """The results.json document: meta (with version and creation time), summary, results."""
    ordered = _in_file_order(records)
    return {
        "meta": {
            "version": __version__,
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            **meta,
        },
        "summary": summarize(ordered),
        "results": [{key: r.get(key) for key in RESULT_KEYS} for r in ordered],
    }


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) readable by the user only."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path


def _write_private(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


REPORT_FILES = ("results.json", "samples.jsonl", "summary.md")
"""The files ``write_reports`` writes, in that order."""


def write_reports(
    out_dir: Path, records: Sequence[Mapping[str, Any]], meta: Mapping[str, Any]
) -> dict[str, Any]:
    """results.json, samples.jsonl and summary.md under ``out_dir``; returns the results document."""
    private_dir(out_dir)
    results_path, samples_path, summary_path = (out_dir / name for name in REPORT_FILES)
    doc = results_document(records, meta)
    _write_private(results_path, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    lines = [
        json.dumps({k: r.get(k) for k in (*RESULT_KEYS, *SAMPLE_ONLY_KEYS)}, ensure_ascii=False)
        for r in _in_file_order(records)
    ]
    _write_private(samples_path, "\n".join(lines) + ("\n" if lines else ""))
    _write_private(summary_path, markdown_summary(doc))
    return doc


# ------------------------------------------------------------------------------ tables


def _pct(value: float) -> str:
    return f"{100 * value:5.1f}"


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
            f"{rel.gain_points:+.1f}",
            fmt(rel.cost_multiple, ".2f"),
            fmt(rel.latency_multiple, ".2f"),
            fmt(rel.cost_effectiveness, ".2f"),
        ]
        for key, rel in relative_to_jh(summary)
    ]
    return header, rows


def markdown_summary(doc: Mapping[str, Any]) -> str:
    """summary.md: the summary table, the table relative to j+h and the first failed samples."""
    meta = doc.get("meta", {})
    parts = [
        "# RevPropBench results",
        "",
        f"Split `{meta.get('split')}`, seeds {meta.get('seeds')}, k {meta.get('k_values')}, "
        f"{len(doc['results'])} samples.",
        "",
        markdown_table(*table_rows(doc["summary"]), tight_rule=True),
    ]
    header, rows = relative_rows(doc["summary"])
    if rows:
        parts += ["", "## Relative to j+h", "", markdown_table(header, rows, tight_rule=True)]
    failed = [r for r in doc["results"] if not r["completed"]]
    if failed:
        parts += ["", "## Failed samples (first 50)", ""]
        for r in failed[:50]:
            what = (
                r["error"]
                or f"miss {r['miss']}, over edit {r['over_edit']}, wrong value {r['wrong_value']}"
            )
            parts.append(
                f"- `{r['case']}` {r['model']} {r['method']} k{r['k']} s{r['seed']}: {what}"
            )
    return "\n".join(parts) + "\n"


def summary_text(records: Iterable[Mapping[str, Any]]) -> str:
    """The terminal summary: the table per (model, method, k), then, when j+h ran, each
    method relative to it."""
    summary = summarize(records)
    parts = [text_table(*table_rows(summary))]
    header, rows = relative_rows(summary)
    if rows:
        parts += [
            "",
            "relative to j+h (gain in points; cost-effectiveness = gain / (cost multiple - 1)):",
            text_table(header, rows),
        ]
    return "\n".join(parts)
