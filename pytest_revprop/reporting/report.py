"""The report folder: figures, report.md and report.html from a run's results.

``write_report`` writes the figures (PNG with their data as CSV), report.md and report.html
(with its data files) into a folder; the session calls it at the end of a run and
``revprop report RESULTS.json`` calls it on any run's results, reading results.json and
samples.jsonl one record at a time.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.figures import FIGURE_FILES, render_figures
from pytest_revprop.reporting.html import write_html
from pytest_revprop.reporting.metrics import fill_summary
from pytest_revprop.reporting.pooled import pool_note, pooled_records
from pytest_revprop.reporting.report_tables import report_tables
from pytest_revprop.reporting.results import check_results
from pytest_revprop.reporting.samples import SampleFile
from pytest_revprop.reporting.tables import Table

__all__ = ["default_cases", "load_case_dicts", "write_report"]


def load_case_dicts(path: Path | str) -> dict[str, dict[str, Any]]:
    """Case id -> case JSON (file format) for every valid case file under ``path``."""
    from pytest_revprop.core.cases import load_cases

    case_set = load_cases([path])
    if not case_set.cases:
        first = f" ({case_set.errors[0]})" if case_set.errors else ""
        raise UserError(f"cases {path}: no valid case files{first}")
    return {case.id: case.to_dict() for case in case_set.cases}


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(
            handle, fieldnames=list(rows[0]) if rows else ["model", "method", "k"]
        )
        writer.writeheader()
        writer.writerows(rows)


def _report_markdown(
    results: Mapping[str, Any], tables: list[Table], pngs: Mapping[str, bytes], notes: list[str]
) -> str:
    meta = results.get("meta", {})
    parts = ["# RevProp report", ""]
    facts = [
        f"{name}: {meta[name]}"
        for name in ("version", "created", "split", "cases_path")
        if meta.get(name)
    ]
    if facts:
        parts += ["; ".join(str(f) for f in facts), ""]
    parts += [f"![{name}]({FIGURE_FILES[name]})" for name in pngs]
    parts.append("")
    parts += [table.to_markdown() for table in tables]
    if notes:
        parts += ["## Notes", "", *(f"- {n}" for n in notes), ""]
    return "\n".join(parts)


def write_report(
    results: dict[str, Any],
    out_dir: Path,
    *,
    samples: Iterable[Mapping[str, Any]] | SampleFile | None = None,
    cases: Mapping[str, Mapping[str, Any]] | None = None,
    others: Sequence[Mapping[str, Any]] = (),
    pooled: Sequence[Mapping[str, Any]] = (),
    pool_names: Sequence[str] = (),
) -> list[Path]:
    """Write figures (PNG + CSV), report.md and report.html (with ``report_files/`` and
    ``replies/`` beside it) into ``out_dir``.

    ``samples`` are samples.jsonl records, or a ``SampleFile`` (read one case at a time; its
    replies' text comes from the store beside it); the result rows are used when None,
    without replies. ``cases`` maps case id -> case JSON for the sample browser. ``others``:
    chain runs of the other protocol, drawn and tabled beside the run's chains; ``pooled``:
    runs of the run's protocol with other fresh instances, pooled with it for robustness
    (``pooled.sort_runs`` sorts the runs given to ``revprop report``); ``pool_names``: the
    files of the run and of the pooled runs, named in the pool's note. Returns the paths
    written (the data folders not listed).
    """
    check_results(results)
    results, filled = fill_summary(results)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    pool = [results, *pooled]

    def records() -> Iterable[Mapping[str, Any]] | None:
        return pooled_records(pool) if pooled else None

    pngs, data, notes = render_figures(results, others, records())
    notes = filled + ([pool_note(pool, pool_names)] if pooled else []) + notes
    written: list[Path] = []
    for name, png in pngs.items():
        png_path = out_dir / FIGURE_FILES[name]
        png_path.write_bytes(png)
        csv_path = png_path.with_suffix(".csv")
        _write_csv(csv_path, data[name])
        written += [png_path, csv_path]
    tables = report_tables(results, others, records())
    markdown_path = out_dir / "report.md"
    markdown_path.write_text(_report_markdown(results, tables, pngs, notes), encoding="utf-8")
    written.append(markdown_path)
    html_path = write_html(
        results,
        samples if samples is not None else results["results"],
        cases or {},
        out_dir / "report.html",
        figures=pngs,
        tables=tables,
        notes=notes,
    )
    written.append(html_path)
    return written


def default_cases(results: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Cases named by the run's meta.cases_path (else the shipped benchmark) and its fresh
    instances (``meta.instances.folder``); {} if unusable."""
    from pytest_revprop.core.cases import BENCHMARK_DIR

    meta = results.get("meta", {})
    named = meta.get("cases_path")
    path = Path(named) if isinstance(named, str) and named else BENCHMARK_DIR
    instances = meta.get("instances")
    fresh = instances.get("folder") if isinstance(instances, dict) else None
    found: dict[str, dict[str, Any]] = {}
    for folder in (path, Path(fresh) if isinstance(fresh, str) else None):
        if folder is None or not folder.exists():
            continue
        try:
            found.update(load_case_dicts(folder))
        except UserError:
            continue
    return found
