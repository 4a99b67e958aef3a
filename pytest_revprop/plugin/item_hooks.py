"""The hooks of a process that collects and runs a run's items: every xdist worker, and a
controller without workers (a plain ``pytest`` run). Under xdist the controller collects
nothing, so these hooks stay idle there.

``ItemHooks`` adds one ``RevpropItem`` per spec of the plan before ``-m``/``-k`` deselection,
asks its role to start the work of those left (``RunRole.begin_items``), puts each item's
record onto its report (``reports.carry_record``, as its role's ``outgoing`` makes it) and
makes the few-line report of our failures (``failures.failure_report``).
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.plugin.failures import failure_report
from pytest_revprop.plugin.items import RevpropItem
from pytest_revprop.plugin.reports import carry_record
from pytest_revprop.plugin.role import RunRole


class ItemHooks:
    """The item hooks of the process whose role is ``role``."""

    def __init__(self, role: RunRole) -> None:
        self.role = role
        self.plan = role.plan
        self.config = role.config

    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        """A benchmark run collects only its own items, unless --revprop-with-tests."""
        if collection_path.is_file() and not self.plan.value("revprop_with_tests"):
            return True
        return None

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Add the evaluation items before -m/-k deselection and report them as collected
        (none for an estimate: it runs nothing, and its role made no runner)."""
        runner = self.role.runner
        if runner is None:
            return
        by_id = {c.id: c for c in self.plan.cases}
        created: list[pytest.Item] = [
            RevpropItem.from_parent(
                session,
                name=(name := spec.node_name()),
                nodeid=name,
                spec=spec,
                case=by_id[spec.case],
                runner=runner,
            )
            for spec in self.plan.specs
        ]
        items.extend(created)
        report = pytest.CollectReport("revprop", "passed", None, list(created))
        config.hook.pytest_collectreport(report=report)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Start the work of the items that survived deselection."""
        if self.config.option.collectonly:
            return
        self.role.begin_items(
            [item.spec for item in session.items if isinstance(item, RevpropItem)]
        )

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, Any, Any]:
        """Our items' records onto their reports (``reports.carry_record``)."""
        report = yield
        if isinstance(item, RevpropItem):
            carry_record(report, item, call, self.role.outgoing)
        return report

    @pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
    def pytest_runtest_makereport_ours(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> pytest.TestReport | None:
        """Our items' failures and errors as their few lines (``failures.failure_report``)."""
        return failure_report(item, call)


__all__ = ["ItemHooks"]
