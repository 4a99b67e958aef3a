"""What the two process roles of a run share (``controller.RevpropController``,
``worker.RevpropWorker``), as xdist has its ``DSession`` in the controller and a
``WorkerInteractor`` in each worker: one object per role, registered by ``plugin/__init__.py``.

A role holds the frozen plan and what its process builds up: the runner (made at the session's
start), the collector's run thresholds and the Ctrl-C shield. A process that collects items
(every xdist worker, and a controller without workers) also registers ``item_hooks.ItemHooks``,
which asks its role to start the items' work (``begin_items``) and what a record becomes on its
way out (``outgoing``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from pytest_revprop.plugin.gc_tuning import GcTuning
from pytest_revprop.plugin.interruption import SigintShield, drop_unlocated
from pytest_revprop.run.items import ItemSpec
from pytest_revprop.run.plan import RunPlan
from pytest_revprop.run.runner import Runner
from pytest_revprop.vocabulary import ResultRecord


class RunRole:
    """The base of a run's role objects: ``config`` and the frozen ``plan``; ``note`` writes a
    line to the terminal for the Ctrl-C shield (None in a process without one)."""

    def __init__(
        self, config: pytest.Config, plan: RunPlan, note: Callable[[str], None] | None
    ) -> None:
        self.config = config
        self.plan = plan
        self.runner: Runner | None = None
        """The process's runner, made at the session's start (None for an estimate)."""
        self.gc = GcTuning()
        config.add_cleanup(self.gc.unfreeze)  # registered first, so it runs last
        self.shield = SigintShield(note)
        config.add_cleanup(self.shield.remove)  # also when the session never started

    def begin_items(self, specs: Sequence[ItemSpec]) -> None:
        """Start the work of this process's items (``specs``: those left after deselection),
        then set the collector's run thresholds (after the start: litellm, imported there,
        lives as long as the session)."""
        if self.runner is None:
            return
        self._begin(self.runner, specs)
        self.gc.start()

    def _begin(self, runner: Runner, specs: Sequence[ItemSpec]) -> None:
        """How this role starts its items' work; each role that runs items says."""
        raise NotImplementedError

    def outgoing(self, record: ResultRecord) -> ResultRecord:
        """What an item's record becomes on its report: itself, in the process that writes the
        reports."""
        return record

    def stop_runner(self, *, leaving: bool) -> None:
        """Stop the runner's work (``leaving``: a process that leaves while others go on first
        finishes its requests in flight, which they may wait for) and restore the collector."""
        if self.runner is not None:
            self.runner.close(finish_in_flight=leaving)
        self.gc.restore()

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        """At a Ctrl-C, the shield: a second one waits for the reports (``interruption``); and
        the interrupt's traceback made one that pytest's report can show (``drop_unlocated``)."""
        if isinstance(excinfo.value, KeyboardInterrupt):
            self.shield.install()
            drop_unlocated(excinfo.value, excinfo.tb)


__all__ = ["RunRole"]
