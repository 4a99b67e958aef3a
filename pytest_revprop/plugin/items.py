"""The evaluation items: one pytest item per (case, model, method, k, seed).

A ``RevpropItem``'s setup asks the run's ``Runner`` for its record (the runner has it ready or
makes it now; an item the spending ceiling left unrun is skipped), its call fails when the
sample did not complete, and its failure reports are a few lines ending with the command that
reruns it (``report_text``). What its reports carry
and what pytest keeps of them is ``reports.py``'s.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.core.cases import Case
from pytest_revprop.llm.budget import BudgetReached
from pytest_revprop.reporting.item_report import (
    describe_call_failure,
    describe_failure,
    junit_properties,
    rerun_command,
)
from pytest_revprop.run.runner import ItemSpec, Runner
from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS, ResultRecord


class CallFailedError(Exception):
    """A model call failed for good: an infrastructure error, reported by pytest as an error."""


class RevpropFailure(Exception):
    """The model's answer did not complete the sample."""


class RevpropItem(pytest.Item):
    """One evaluation item; ``rerun_args`` are the run's arguments that a rerun keeps."""

    def __init__(
        self,
        *,
        spec: ItemSpec,
        case: Case,
        runner: Runner,
        rerun_args: Sequence[str],
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.case = case
        self.runner = runner
        self.rerun_args = rerun_args
        self.record: ResultRecord | None = None
        self.cut = False
        """The spending ceiling left this item unrun."""
        for marker in ("revprop", case.domain, case.pattern, case.split, f"size{case.size}"):
            self.add_marker(shared_mark(marker))

    def setup(self) -> None:
        try:
            self.record = self.runner.result(self.spec)
        except BudgetReached as exc:
            self.cut = True
            pytest.skip(f"not run: {exc}")
        except OSError as exc:  # the response cache's folder or disk, a prompt file
            raise CallFailedError(f"infrastructure error: {type(exc).__name__}: {exc}") from None
        self.user_properties.extend(junit_properties(self.record))
        error = self.record["error"]
        if error == "call_failed":
            raise CallFailedError(describe_call_failure(self.record, uses_k=self.uses_k))
        if error in INFRASTRUCTURE_ERRORS:
            raise CallFailedError(f"method failed: {self.record.get('reason')}")

    def runtest(self) -> None:
        assert self.record is not None
        if not self.record["completed"]:
            raise RevpropFailure(describe_failure(self.record))

    def report_text(self, exc: BaseException) -> str | None:
        """The report of an outcome of ours (a failure or a call failure), ending with the
        command that reruns this item; None for any other exception."""
        if not isinstance(exc, RevpropFailure | CallFailedError):
            return None
        rerun = rerun_command(dataclasses.asdict(self.spec), self.rerun_args, uses_k=self.uses_k)
        if isinstance(exc, CallFailedError):
            return f"{exc}\n  rerun:    {rerun}"
        return f"{self.spec.case} [{self.spec.label()}]: not completed\n{exc}\nrerun: {rerun}"

    @property
    def uses_k(self) -> bool:
        """Whether the item's method uses k (the registry's word), for its reports."""
        return self.runner.settings.registry.get(self.spec.method).uses_k

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


__all__ = ["CallFailedError", "RevpropFailure", "RevpropItem", "shared_mark"]
