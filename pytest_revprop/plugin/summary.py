"""The run's part of pytest's terminal summary: the ``revprop summary`` section (a cut run's
line, the summary table, where the reports went, the calls made, what failed to be written),
the baseline gate's section and an estimate's (``revprop plan``); and our passed setups and
teardowns kept out of pytest's failure listing.

pytest lists failures by scanning, for each one, every passed setup and teardown report for
teardown output (11 s for the 2,030 failures of a test-split run, 19 s under xdist). Ours
carry none: they are gone already (``reports.slim_report``), except under ``--durations``,
when ``PhasesAside`` takes them out of the terminal's stats while the failures are listed and
puts them back for the durations.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_revprop.plugin.outputs import RunOutputs

NO_MARKUP: Mapping[str, bool] = {}
"""The markup of a plain line."""


class PhasesAside:
    """Our passed setup and teardown reports, out of ``stats[""]`` between ``set_aside``
    and ``put_back``."""

    def __init__(self) -> None:
        self._aside: tuple[dict[str, list[Any]], list[Any], list[Any]] | None = None

    def set_aside(self, terminalreporter: Any, ours: Collection[str]) -> None:
        """Keep in ``stats[""]`` the reports that are not of ``ours`` (node ids) or carry output."""
        stats = getattr(terminalreporter, "stats", None)
        phases = stats.get("") if isinstance(stats, dict) else None
        if stats is None or not phases:
            return
        kept = [
            r
            for r in phases
            if getattr(r, "nodeid", None) not in ours or getattr(r, "sections", None)
        ]
        stats[""] = kept
        self._aside = (stats, kept, phases)

    def put_back(self) -> None:
        """Our reports back into ``stats[""]`` (unless someone replaced the list meanwhile)."""
        if self._aside is not None:
            stats, kept, phases = self._aside
            if stats.get("") is kept:
                stats[""] = phases
            self._aside = None


def summary_lines(
    outputs: RunOutputs | None,
    *,
    cut_line: str | None,
    interrupted: bool,
    kept: int,
    call_stats: Mapping[str, Mapping[str, int]],
) -> list[tuple[str, dict[str, bool]]]:
    """The ``revprop summary`` section's lines, each with its markup: ``outputs`` is None when
    no item's record was kept (the spending ceiling cut them all), ``cut_line`` the first
    line of a run the ceiling cut, ``kept`` the number of items the reports hold,
    ``call_stats`` each model client's counters."""
    from pytest_revprop.reporting.aggregate import summary_text

    lines: list[tuple[str, dict[str, bool]]] = []
    if cut_line is not None:
        lines.append((cut_line, {"red": True}))
    if outputs is not None:
        lines.append((summary_text(outputs.summary), {}))
        if outputs.written:
            lines.append((_reports_line(outputs.written), {}))
        if outputs.baseline_written is not None:
            lines.append((f"baseline written: {outputs.baseline_written}", {}))
    if interrupted:
        note = f"revprop: interrupted; the reports hold the {kept} items that finished"
        lines.append((note, {"yellow": True}))
    for name, stats in call_stats.items():
        lines.append((f"calls {name}: " + ", ".join(f"{k} {v}" for k, v in stats.items()), {}))
    if outputs is not None and outputs.error:
        lines.append((f"revprop: {outputs.error}", {"yellow": True}))
    return lines


def _reports_line(written: Sequence[Path]) -> str:
    first, *rest = written
    return f"reports: {first}" + "".join(f", {path.name}" for path in rest)


def write_section(
    terminalreporter: Any, title: str, lines: Sequence[tuple[str, Mapping[str, bool]]]
) -> None:
    """Write the section ``title`` of the terminal summary: ``lines``, each with its markup."""
    terminalreporter.section(title)
    for line, markup in lines:
        terminalreporter.write_line(line, **markup)


__all__ = ["NO_MARKUP", "PhasesAside", "summary_lines", "write_section"]
