"""pytest glue, part three: the evaluation items and what pytest keeps of their reports.

A ``RevpropItem`` is one (case, model, method, k, seed); its setup asks the run's owner (the
session) for the record, its call fails when the sample did not complete, and its failure
reports are a few lines ending with the command that reruns it.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest

from pytest_revprop.cases import Case
from pytest_revprop.llm.budget import BudgetReached
from pytest_revprop.reporting.item_report import (
    describe_call_failure,
    describe_failure,
    junit_properties,
    rerun_command,
)
from pytest_revprop.runner import ItemSpec
from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS, ResultRecord


class ItemOwner(Protocol):
    """What an item needs of the run: its record, the arguments that rerun it, and whether
    its method uses k (the registry's, for its reports)."""

    rerun_args: list[str]

    def result(self, spec: ItemSpec) -> ResultRecord: ...

    def uses_k(self, method: str) -> bool: ...


RECORD_ATTR = "revprop_record"
NOT_COMPLETED_ATTR = "revprop_not_completed"
"""Set on the call report of an item whose sample did not complete: the only failure that a
baseline gate may waive (a call error, or any other test's failure, never is)."""
CUT_ATTR = "revprop_cut"
"""Set on the setup report of an item the run's spending ceiling left unrun (skipped)."""
OURS_ATTR = "revprop_item"
"""Set on every report of our items (xdist carries it to the controller), so that ``let_go``
tells them from other tests' reports without a table of node ids."""


class CallFailedError(Exception):
    """A model call failed for good: an infrastructure error, reported by pytest as an error."""


class RevpropFailure(Exception):
    """The model's answer did not complete the sample."""


class RevpropItem(pytest.Item):
    def __init__(
        self, *, spec: ItemSpec, case: Case, runner_owner: ItemOwner, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.case = case
        self.owner = runner_owner
        self.record: ResultRecord | None = None
        self.cut = False
        """The spending ceiling left this item unrun."""
        for marker in ("revprop", case.domain, case.pattern, case.split, f"size{case.size}"):
            self.add_marker(shared_mark(marker))

    def setup(self) -> None:
        try:
            self.record = self.owner.result(self.spec)
        except BudgetReached as exc:
            self.cut = True
            pytest.skip(f"not run: {exc}")
        except OSError as exc:  # the response cache's folder or disk, a prompt file
            raise CallFailedError(f"infrastructure error: {type(exc).__name__}: {exc}") from None
        self._properties()
        error = self.record["error"]
        if error == "call_failed":
            uses_k = self.owner.uses_k(self.spec.method)
            raise CallFailedError(describe_call_failure(self.record, uses_k=uses_k))
        if error in INFRASTRUCTURE_ERRORS:
            raise CallFailedError(f"method failed: {self.record.get('reason')}")

    def runtest(self) -> None:
        assert self.record is not None
        if not self.record["completed"]:
            raise RevpropFailure(describe_failure(self.record))

    def _properties(self) -> None:
        assert self.record is not None
        self.user_properties.extend(junit_properties(self.record))

    def report_text(self, exc: BaseException) -> str | None:
        """The report of an outcome of ours (a failure or a call failure), ending with the
        command that reruns this item; None for any other exception."""
        if not isinstance(exc, RevpropFailure | CallFailedError):
            return None
        uses_k = self.owner.uses_k(self.spec.method)
        rerun = rerun_command(dataclasses.asdict(self.spec), self.owner.rerun_args, uses_k=uses_k)
        if isinstance(exc, CallFailedError):
            return f"{exc}\n  rerun:    {rerun}"
        return f"{self.spec.case} [{self.spec.label()}]: not completed\n{exc}\nrerun: {rerun}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        text = self.report_text(excinfo.value)
        return text if text is not None else str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path | str, int | None, str]:
        return (self.case.source or self.spec.case, None, self.spec.node_name())


@functools.cache
def shared_mark(name: str) -> pytest.MarkDecorator:
    """One marker object per name for all items: each item's own five cost about 1 KB, in every
    xdist worker, for every item of the run (marks are immutable, so sharing is safe)."""
    return getattr(pytest.mark, name)  # type: ignore[no-any-return]


def let_go(
    report: pytest.TestReport,
    stats: Mapping[str, list[Any]] | None,
    *,
    keep_phases: bool,
    in_worker: bool,
) -> None:
    """Keep of a report of ours, once every plugin saw it (the terminal, junitxml, xdist's
    sending), only what pytest reads at the end of the run; pytest keeps every report to the
    end, in each worker and in the controller, which made memory grow with the items.

    Its keywords and JUnit properties go (junitxml took the properties from the teardown
    report already). An xdist worker keeps none of our reports: the controller prints the
    run. Elsewhere a passed setup or teardown without captured output leaves the terminal's
    ``stats[""]``, where only ``--durations`` would read it (``keep_phases``); the call report
    stays, counted in the summary line and listed by ``-rA``, a failure with its few lines."""
    if not getattr(report, OURS_ATTR, False):
        return
    delattr(report, OURS_ATTR)
    if isinstance(report.keywords, dict):
        report.keywords.clear()  # emptied in place: a new empty one would cost as much
    report.user_properties.clear()
    if stats is None:
        return
    if in_worker:
        lists = list(stats.values())
    elif keep_phases or report.when == "call" or not report.passed or report.sections:
        _share_strings(report)
        return
    else:
        lists = [stats.get("", [])]
    for reports in lists:
        if reports and reports[-1] is report:  # the terminal appended it just now
            reports.pop()
            return


def _share_strings(report: pytest.TestReport) -> None:
    """A report xdist carried to the controller has its own copy of every string: the same
    few values (phase, outcome, worker, run id, case file) become shared ones, the item's name
    in its location the node id itself, and the leftover of its transport goes."""
    fields = report.__dict__
    fields.pop("$report_type", None)  # read when the report was rebuilt, never again
    for name in ("when", "outcome", "worker_id", "testrun_uid"):
        if isinstance(value := fields.get(name), str):
            fields[name] = sys.intern(value)
    path, line, name = report.location
    report.location = (sys.intern(path), line, report.nodeid if name == report.nodeid else name)


__all__ = [
    "CUT_ATTR",
    "NOT_COMPLETED_ATTR",
    "OURS_ATTR",
    "RECORD_ATTR",
    "CallFailedError",
    "ItemOwner",
    "RevpropFailure",
    "RevpropItem",
    "let_go",
    "shared_mark",
]
