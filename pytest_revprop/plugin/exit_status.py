"""The run's exit status, decided here and nowhere else (docs/interfaces.md, "Exit codes").

Four things make it, in this order:

1. **the tests**: pytest's failure count, from which it derives the status every plugin then
   sees. Under a baseline the gate, not pytest, judges the model's failures, so the items whose
   sample did not complete leave that count (``GateVerdict.waive``); every other failure and
   error stays;
2. **the gate's bit**: at the end the gate compares the run with the baseline
   (``GateVerdict.judge``; ``reporting.gate`` computes the verdict) and a regression ORs
   ``REGRESSION_EXIT`` into the status pytest and the other plugins left, never overwriting
   their bits (``combined_exit_status``);
3. **estimate mode**: ``--revprop-plan`` collects no item by design, so it exits 0 instead of
   pytest's "no tests collected";
4. **the cut bit**: a run the spending ceiling cut has ``CUT_EXIT`` ORed in.

``run_exit_status`` applies 2 to 4 to the status pytest left (pytest's interrupted,
internal, usage and no-tests statuses stand).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import (
    CUT_EXIT,
    PYTEST_UNFINISHED_EXITS,
    PYTEST_USAGE_EXIT,
    REGRESSION_EXIT,
    GateMetric,
)

if TYPE_CHECKING:
    from pytest_revprop.reporting.gate import GateResult


class GateVerdict:
    """The gate of one run: ``baseline`` is the document to compare with (read and checked
    before the first item), None when the run compares with none."""

    def __init__(self, baseline: dict[str, Any] | None) -> None:
        self.baseline = baseline
        self.not_completed = 0
        """Items whose sample did not complete, counted on the controller."""
        self.result: GateResult | None = None
        self.error: str | None = None
        self.status: int | None = None
        """REGRESSION_EXIT or USAGE_ERROR, folded into the session's exit status at the end."""

    def count_not_completed(self) -> None:
        """Count one item whose sample did not complete (the gate may waive its failure)."""
        self.not_completed += 1

    def waive(self, session: pytest.Session) -> None:
        """Take the items that did not complete out of pytest's failure count (under a baseline)."""
        if self.baseline is not None:
            session.testsfailed = max(0, session.testsfailed - self.not_completed)

    def judge(self, results: Any, max_drop: float, name: Path | str, metric: GateMetric) -> None:
        """Compare the run's ``results`` with the baseline (if any) by ``metric`` (the
        ``--revprop-gate-metric``) and keep the verdict."""
        if self.baseline is None:
            return
        from pytest_revprop.reporting.gate import gate

        try:
            self.result = gate(self.baseline, results, max_drop, name=str(name), metric=metric)
        except UserError as exc:
            self.error = str(exc)
            self.status = PYTEST_USAGE_EXIT
            return
        if self.result["regressions"]:
            self.status = REGRESSION_EXIT

    def section(self, max_drop: float) -> list[tuple[str, Mapping[str, bool]]]:
        """The terminal's gate section, each line with its markup; empty when no gate ran."""
        if self.result is None and self.error is None:
            return []
        from pytest_revprop.reporting.gate import gate_section

        return list(gate_section(self.result, self.error, max_drop))


def combined_exit_status(status: int, gate_status: int) -> int:
    """The session's exit status once the gate has spoken.

    pytest's 2 to 5 stand. A regression ORs ``REGRESSION_EXIT`` (6) into any other status, so
    the bits pytest and other plugins set survive: 0 -> 6, and 1 (a failed test, or a plugin's
    failure bit, as syrupy ORs in) -> 7. Any other verdict (a gate that could compare nothing:
    a usage error, 4) replaces the status.
    """
    if status in PYTEST_UNFINISHED_EXITS:
        return status
    if gate_status == REGRESSION_EXIT:
        return status | REGRESSION_EXIT
    return gate_status


def run_exit_status(
    status: int, *, gate_status: int | None, estimate_only: bool, cut_items: int
) -> int:
    """The run's exit status from ``status``, the one pytest and every other plugin left:
    the gate's verdict folded in (``gate_status``: ``GateVerdict.status``), 0 for an estimate
    (``--revprop-plan``: no item collected by design), and ``CUT_EXIT`` ORed in when the
    spending ceiling left ``cut_items`` unrun. ``status`` is returned as it is (a pytest
    ``ExitCode``) when none of them applies."""
    if gate_status is not None:
        status = combined_exit_status(status, gate_status)
    if estimate_only and status == pytest.ExitCode.NO_TESTS_COLLECTED:
        status = pytest.ExitCode.OK
    if cut_items and status not in PYTEST_UNFINISHED_EXITS:
        status = int(status) | CUT_EXIT
    return status


__all__ = ["GateVerdict", "combined_exit_status", "run_exit_status"]
