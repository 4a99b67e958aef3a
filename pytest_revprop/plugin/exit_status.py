"""The baseline gate's and the run's scope's places in the exit status (docs/interfaces.md,
"Exit codes").

Under a baseline the gate, not pytest, judges the model's failures (and a run that writes a
baseline records them, so they fail neither): pytest's failure count,
from which it derives the exit status every plugin then sees, keeps every other failure and
error but not the items whose sample did not complete (``waive``). At the end the gate
compares the run with the baseline (``judge``) and its verdict is folded into the exit status
that pytest and the other plugins left (``fold``), never overwriting it. Then the scope has
its say (``scoped_exit_status``): a plan, which runs no item, exits 0, and a run that the
spending ceiling cut has ``CUT_EXIT`` ORed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.run.scope import RunScope
from pytest_revprop.vocabulary import PYTEST_USAGE_EXIT, REGRESSION_EXIT, GateMetric

if TYPE_CHECKING:
    from pytest_revprop.reporting.gate import GateResult


class GateVerdict:
    """The gate of one run: ``baseline`` is the document to compare with (read and checked
    before the first item), None when the run compares with none. ``writes_baseline``: the
    run writes a baseline (``--revprop-update-baseline``); the items that did not complete are
    then the baseline's record of the model's failures, listed but not failing the run."""

    def __init__(self, baseline: dict[str, Any] | None, *, writes_baseline: bool = False) -> None:
        self.baseline = baseline
        self.writes_baseline = writes_baseline
        self.not_completed = 0
        """Items whose sample did not complete, counted on the controller."""
        self.result: GateResult | None = None
        self.error: str | None = None
        self.status: int | None = None
        """REGRESSION_EXIT or USAGE_ERROR, folded into the session's exit status at the end."""

    def count_not_completed(self) -> None:
        self.not_completed += 1

    def waive(self, session: pytest.Session) -> None:
        """Take the items that did not complete out of pytest's failure count (under a baseline,
        compared with or written)."""
        if self.baseline is not None or self.writes_baseline:
            session.testsfailed = max(0, session.testsfailed - self.not_completed)

    def judge(
        self,
        results: Any,
        max_drop: float,
        name: Path | str,
        metric: GateMetric,
        run_meta: Mapping[str, Any] | None = None,
        detect: float | None = None,
    ) -> None:
        """Compare the run's ``results`` with the baseline (if any) by ``metric`` (the
        ``--revprop-gate-metric``) and keep the verdict; ``run_meta``, the run's results meta,
        names the prompt templates that differ from the baseline's; ``detect`` (points, the
        ``--revprop-detect``) asks what detecting a drop of that size takes."""
        if self.baseline is None:
            return
        from pytest_revprop.reporting.gate import gate

        try:
            self.result = gate(
                self.baseline,
                results,
                max_drop,
                name=str(name),
                metric=metric,
                run_meta=run_meta,
                detect=detect,
            )
        except UserError as exc:
            self.error = str(exc)
            self.status = PYTEST_USAGE_EXIT
            return
        if self.result["regressions"]:
            self.status = REGRESSION_EXIT

    def fold(self, session: pytest.Session) -> None:
        """The verdict into ``session.exitstatus``, after every other plugin set its own."""
        if self.status is not None:
            from pytest_revprop.reporting.gate import combined_exit_status

            session.exitstatus = combined_exit_status(session.exitstatus, self.status)

    def section(self, max_drop: float) -> list[tuple[str, Mapping[str, bool]]]:
        """The terminal's gate section, each line with its markup; empty when no gate ran."""
        if self.result is None and self.error is None:
            return []
        from pytest_revprop.reporting.gate import gate_section

        return list(gate_section(self.result, self.error, max_drop))


def scoped_exit_status(status: int, scope: RunScope) -> int:
    """``status`` (after the gate's fold) as the run's scope has it: a plan, which collects no
    item by design, exits 0 instead of pytest's "no tests collected"; a run the spending
    ceiling cut gets ``CUT_EXIT`` (``RunScope.exit_status``)."""
    if scope.plan and status == pytest.ExitCode.NO_TESTS_COLLECTED:
        status = pytest.ExitCode.OK
    return scope.exit_status(status)


__all__ = ["GateVerdict", "scoped_exit_status"]
