"""The run's outputs at its end, in the controller: the report files, the results hook, the
figures and the HTML report, the baseline written.

``write_outputs`` is called once, with the sink that holds every record: the sink writes
results.json, the sorted samples.jsonl and summary.md and returns the results document, whose
summary (computed there, once) the results hook, JUnit, the figures and the terminal share.
Neither the figures nor a results hook that raises costs the user the results: each is
reported as one line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_revprop.core.cases import Case
from pytest_revprop.reporting.results import PARTIAL_FIELD
from pytest_revprop.reporting.sink import REPORT_FILES, RecordSink
from pytest_revprop.run.plan import RunPlan


@dataclass
class RunOutputs:
    """What the end of a run wrote: ``doc`` is the results document (its ``summary`` the
    summary rows), ``written`` the files and folders, ``error`` a line for what failed."""

    doc: dict[str, Any]
    written: list[Path] = field(default_factory=list)
    baseline_written: Path | None = None
    error: str | None = None

    @property
    def summary(self) -> list[dict[str, Any]]:
        """The results' summary rows, one per (model, method, k)."""
        return list(self.doc["summary"])


def write_outputs(
    plan: RunPlan,
    sink: RecordSink,
    results_hook: Any,
    spent_usd: float,
    cut_items: int = 0,
    *,
    interrupted: bool = False,
) -> RunOutputs:
    """Write everything the run's records make; ``results_hook`` is pytest's
    ``config.hook.pytest_revprop_results``, ``spent_usd`` what the run's calls cost,
    ``cut_items`` the items its spending ceiling left unrun, ``interrupted`` whether Ctrl-C
    stopped the run (its meta then says so: ``interrupted: true``, a partial run)."""
    meta = plan.meta(spent_usd, cut_items)
    if interrupted:
        meta = {**meta, PARTIAL_FIELD: True}
    doc = sink.finish(meta)
    out_dir = sink.out_dir
    outputs = RunOutputs(doc, [out_dir / name for name in REPORT_FILES])
    _call_results_hook(outputs, results_hook, sink.records())
    if not plan.value("revprop_no_figures"):
        _figures(outputs, plan.cases, sink, out_dir)
        outputs.written += [d for d in [out_dir / "report_files"] if d.is_dir()]
    if plan.value("revprop_update_baseline") and plan.baseline_path is not None:
        from pytest_revprop.reporting.gate import write_baseline

        write_baseline(plan.baseline_path, doc)
        outputs.baseline_written = plan.baseline_path
    return outputs


def _call_results_hook(
    outputs: RunOutputs, hook: Any, records: Iterable[Mapping[str, Any]]
) -> None:
    """Hand the run's results to ``pytest_revprop_results`` implementations, once; one that
    raises is reported and costs no result. ``records`` streams them back from disk."""
    try:
        hook(summary=outputs.doc["summary"], records=records)
    except Exception as exc:
        outputs.error = f"pytest_revprop_results failed: {type(exc).__name__}: {exc}"


def _figures(outputs: RunOutputs, cases: Sequence[Case], sink: RecordSink, out_dir: Path) -> None:
    try:
        from pytest_revprop.reporting.report import write_report

        by_id = {c.id: c.to_dict() for c in cases}
        samples = sink.records(with_replies=False)
        for path in write_report(outputs.doc, out_dir, samples=samples, cases=by_id):
            path.chmod(0o600)  # like results.json: the report folder is the user's only
            outputs.written.append(path)
    except Exception as exc:  # figures must never cost the user their results
        outputs.error = f"figures/HTML report not written: {type(exc).__name__}: {exc}"


__all__ = ["RunOutputs", "write_outputs"]
