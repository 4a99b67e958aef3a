"""An xdist worker's role: it runs the items the controller hands it and sends their reports.

``RevpropWorker`` points the models at the servers the controller started and makes its runner
under its share of the spending ceiling. xdist hands items out as workers free up, so no worker
knows its items ahead: each makes the calls of its share of the cases at once (cache claims
keep any call from being made twice) and runs the items it is handed on demand, calls first.
Its reports carry each reply's text only the first time (``SentTexts``) and are dropped once
xdist sent them. At the end it puts what it spent into its output and, after a Ctrl-C, the
records of everything it finished (``interruption.hand_over``).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import pytest

from pytest_revprop.plugin.interruption import hand_over
from pytest_revprop.plugin.reports import drop_report, take_record
from pytest_revprop.plugin.role import RunRole
from pytest_revprop.reporting.sink import SentTexts
from pytest_revprop.run.cover import worker_share
from pytest_revprop.run.items import ItemSpec
from pytest_revprop.run.plan import RunPlan, with_api_bases
from pytest_revprop.run.runner import Runner
from pytest_revprop.vocabulary import ResultRecord

SPENT_KEY = "revprop_spent_usd"
"""The ``workeroutput`` entry that says what a worker's calls cost."""


class RevpropWorker(RunRole):
    """The role of xdist worker ``config.workerinput["workerid"]`` in one run."""

    def __init__(self, config: pytest.Config, plan: RunPlan) -> None:
        super().__init__(config, plan, None)  # no terminal: a second Ctrl-C is not noted
        workerinput: dict[str, Any] = config.workerinput  # type: ignore[attr-defined]
        self.workerinput = workerinput
        self.index = int(workerinput["workerid"].removeprefix("gw"))
        self.count = int(workerinput["workercount"])
        self.sent = SentTexts()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """The runner, its models pointed at the controller's servers and its calls under this
        worker's share of the ceiling (one of the workers'), so that together they stay
        within it. An estimate makes none: it sends no request."""
        if self.plan.scope.estimate_only:
            return
        bases = self.workerinput.get("revprop_api_bases", {})
        self.runner = Runner(
            self.plan.cases,
            with_api_bases(self.plan.models, bases),
            self.plan.settings,
            max_cost_usd=self.plan.scope.ceiling_share(self.count),
        )

    def _begin(self, runner: Runner, specs: Sequence[ItemSpec]) -> None:
        """The calls of this worker's share of the cases, made ahead (``worker_share``)."""
        runner.prefetch(worker_share(specs, self.index, self.count, self.plan.settings.registry))

    def outgoing(self, record: ResultRecord) -> ResultRecord:
        """The record without the reply texts this worker sent before (``SentTexts.strip``)."""
        stripped: ResultRecord = self.sent.strip(record)
        return stripped

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, None, None]:
        """Once xdist sent a report of ours, it goes, record and all (``reports.drop_report``)."""
        yield
        take_record(report)
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        drop_report(report, getattr(terminal, "stats", None))

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int
    ) -> Generator[None, None, None]:
        """Before xdist sends the worker's output (in its own sessionfinish): the shield after
        a Ctrl-C, the work stopped (leaving while others go on, the requests in flight finish
        first, as others may wait for them), what it spent and, interrupted, its finished
        records handed over."""
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        if interrupted:
            self.shield.install()
        try:
            self.stop_runner(leaving=not interrupted)
            output = getattr(self.config, "workeroutput", None)
            if output is not None and self.runner is not None:
                output[SPENT_KEY] = self.runner.ceiling.spent_usd
                if interrupted:
                    hand_over(output, self.runner.done())
            yield
        finally:
            self.shield.remove()


__all__ = ["SPENT_KEY", "RevpropWorker"]
