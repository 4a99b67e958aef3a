"""The evaluation items: one pytest item per (case, model, method, k, seed).

A ``RevpropItem``'s setup asks the run's ``Runner`` for its record (the runner has it ready or
makes it now; an item the spending ceiling left unrun is skipped), its call fails when the
sample did not complete, and what it raises carries its report, a few lines ending with the
command that reruns it (``failures``). What its reports carry and what pytest keeps of them
is ``reports.py``'s; the hooks that make the items are ``item_hooks.py``'s.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.core.cases import Case
from pytest_revprop.llm.budget import BudgetReached
from pytest_revprop.plugin.failures import (
    CallFailedError,
    RevpropFailure,
    call_failure_text,
    describe_call_failure,
    failure_text,
    is_reported_here,
    junit_properties,
    rerun_args,
    rerun_command,
)
from pytest_revprop.run.items import ItemSpec
from pytest_revprop.run.runner import Runner
from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS, ResultRecord


class RevpropItem(pytest.Item):
    """One evaluation item: ``spec`` on ``case``, whose record ``runner`` makes."""

    def __init__(self, *, spec: ItemSpec, case: Case, runner: Runner, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.case = case
        self.runner = runner
        self.record: ResultRecord | None = None
        self.cut = False
        """The spending ceiling left this item unrun."""
        for marker in ("revprop", case.domain, case.pattern, case.split, f"size{case.size}"):
            self.add_marker(shared_mark(marker))

    def setup(self) -> None:
        """Take the item's record from the runner; skip an item the ceiling left unrun, and
        raise ``CallFailedError`` when a call or the method failed for good."""
        try:
            self.record = self.runner.result(self.spec)
        except BudgetReached as exc:
            self.cut = True
            self.record = getattr(exc, "record", None)  # a chain cut after its first turn
            pytest.skip(f"not run: {exc}")
        except OSError as exc:  # the response cache's folder or disk, a prompt file
            why = f"infrastructure error: {type(exc).__name__}: {exc}"
            raise CallFailedError(call_failure_text(why, self.rerun_command())) from None
        self.user_properties.extend(junit_properties(self.record))
        error = self.record["error"]
        if error == "call_failed":
            why = describe_call_failure(self.record, uses_k=self.uses_k)
            raise CallFailedError(call_failure_text(why, self.rerun_command()))
        if error in INFRASTRUCTURE_ERRORS:
            why = f"method failed: {self.record.get('reason')}"
            raise CallFailedError(call_failure_text(why, self.rerun_command()))

    def runtest(self) -> None:
        """Fail with ``RevpropFailure`` when the sample did not complete."""
        assert self.record is not None
        if not self.record["completed"]:
            text = failure_text(
                self.spec.case, self.spec.label(), self.record, self.rerun_command()
            )
            raise RevpropFailure(text)

    def rerun_command(self) -> str:
        """The command that reruns this item: the run's arguments that a rerun keeps
        (``failures.rerun_args``), read from this process's command line."""
        kept = rerun_args(self.config.invocation_params.args)
        turns = self.runner.settings.turns
        return rerun_command(dataclasses.asdict(self.spec), kept, uses_k=self.uses_k, turns=turns)

    @property
    def uses_k(self) -> bool:
        """Whether the item's method uses k (the registry's word), for its reports."""
        return self.runner.settings.registry.get(self.spec.method).uses_k

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        """Our outcomes' report is their message; any other exception's is pytest's."""
        if is_reported_here(excinfo.value):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path | str, int | None, str]:
        """Where the item comes from: its case file, and its name."""
        return (self.case.source or self.spec.case, None, self.spec.node_name())


@functools.cache
def shared_mark(name: str) -> pytest.MarkDecorator:
    """One marker object per name for all items: each item's own five cost about 1 KB, in every
    xdist worker, for every item of the run (marks are immutable, so sharing is safe)."""
    return getattr(pytest.mark, name)  # type: ignore[no-any-return]


__all__ = ["RevpropItem", "shared_mark"]
