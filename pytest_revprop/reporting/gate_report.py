"""The baseline gate's verdict in the run's files: a "Baseline gate" section appended to
summary.md and report.md once the gate has judged, with the same table, verdicts and
detectable drops as ``revprop compare --markdown``, why each side's samples failed, the groups
not compared and the prompt templates that differ from the baseline's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_revprop.reporting.compare import render_markdown, why_rows
from pytest_revprop.reporting.gate import GateResult, describe_groups
from pytest_revprop.reporting.stats import DEFAULT_ALPHA
from pytest_revprop.vocabulary import REGRESSION_EXIT

__all__ = ["GATE_FILES", "append_gate_section", "gate_markdown"]

GATE_FILES = ("summary.md", "report.md")
"""The run's files the gate's section is appended to (those the run wrote)."""


def gate_markdown(
    result: GateResult,
    max_drop: float,
    baseline_name: str,
    alpha: float = DEFAULT_ALPHA,
    sides: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None,
) -> str:
    """The gate's section as Markdown: the comparison with the baseline (``compare``'s
    table, a verdict and the smallest detectable drop per group), the prompt templates that
    differ, the groups not compared, the exit status a regression gives, and given ``sides``
    (the baseline's and this run's results documents) why each side's samples failed."""
    notes: list[str] = [result["prompts"]] if result["prompts"] else []
    for groups, why in (
        (result["run_only"], "only in this run"),
        (result["baseline_only"], "only in the baseline"),
        (result["unpaired"], "no pair of the same case and seed without a failed call"),
    ):
        if groups:
            notes.append(f"Not compared ({why}): {describe_groups(groups)}.")
    notes += result.get("detect", [])
    if result["regressions"]:
        notes.append(f"The gate fails the run: exit status {REGRESSION_EXIT}.")
    return render_markdown(
        result["comparison"],
        baseline_name,
        "this run",
        max_drop,
        alpha,
        metric=result.get("metric", "completion"),
        notes=notes,
        heading=f"## Baseline gate: `{baseline_name}` (A) → this run (B)",
        why=None if sides is None else why_rows(result["comparison"], *sides),
    )


def append_gate_section(
    out_dir: Path,
    result: GateResult,
    max_drop: float,
    baseline_name: str,
    sides: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None,
) -> list[Path]:
    """Append the gate's section to each of ``GATE_FILES`` in ``out_dir`` that the run
    wrote (``sides``: as ``gate_markdown``); returns the files appended to."""
    section = gate_markdown(result, max_drop, baseline_name, sides=sides)
    appended = []
    for name in GATE_FILES:
        path = out_dir / name
        if path.is_file():
            with path.open("a", encoding="utf-8") as out:
                out.write("\n" + section)
            appended.append(path)
    return appended
