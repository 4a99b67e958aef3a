"""Stand-ins for what pytest and xdist hand the plugin's role objects (in the manner of xdist's
own ``MockNode``): a config, a terminal, a worker node, reports; and a small real plan."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Generator
from pathlib import Path
from types import MappingProxyType, SimpleNamespace
from typing import Any

import pytest

from pytest_revprop.plugin.reports import OURS_ATTR, RECORD_ATTR
from pytest_revprop.run.plan import RunPlan

DEV_CASE = "cart-free-shipping/10"


def small_plan(tmp_path: Path, **given: Any) -> RunPlan:
    """The plan of one dev case for the gold solver, reports under ``tmp_path``. A plan is a
    frozen value, so tests share one per ``given`` and differ in the reports folder only."""
    shared = _plan(tuple(sorted(given.items())))
    values = MappingProxyType({**shared.values, "revprop_report": tmp_path / "reports"})
    return dataclasses.replace(shared, values=values)


@functools.cache
def _plan(given: tuple[tuple[str, Any], ...]) -> RunPlan:
    values = {
        "revprop_model": ["gold"],
        "revprop_case": [DEV_CASE],
        "revprop_seeds": [0, 1],
        "revprop_no_figures": True,
        "revprop_no_cache": True,
        **dict(given),
    }
    return RunPlan.from_options(values)


class FakeTerminal:
    """The terminal reporter's part the plugin uses: its stats, sections and lines."""

    def __init__(self) -> None:
        self.stats: dict[str, list[Any]] = {}
        self.lines: list[str] = []

    def section(self, title: str) -> None:
        self.lines.append(f"== {title} ==")

    def write_line(self, line: str, **markup: bool) -> None:
        self.lines.append(line)

    def flush(self) -> None:
        pass


class FakeConfig:
    """A pytest config as the role objects read it; ``workerinput`` makes it an xdist
    worker's (with an empty ``workeroutput``)."""

    def __init__(self, workerinput: dict[str, Any] | None = None, **option: Any) -> None:
        self.option = SimpleNamespace(collectonly=False, durations=None, **option)
        self.stash = pytest.Stash()
        self.terminal = FakeTerminal()
        self.pluginmanager = SimpleNamespace(get_plugin=self._plugin)
        self.results: list[dict[str, Any]] = []
        self.hook = SimpleNamespace(pytest_revprop_results=self._results)
        self.invocation_params = SimpleNamespace(args=())
        self.cleanups: list[Any] = []
        if workerinput is not None:
            self.workerinput = workerinput
            self.workeroutput: dict[str, Any] = {}

    def _plugin(self, name: str) -> Any:
        return self.terminal if name == "terminalreporter" else None

    def _results(self, **kwargs: Any) -> None:
        self.results.append(kwargs)

    def add_cleanup(self, func: Any) -> None:
        self.cleanups.append(func)


class MockNode:
    """An xdist ``WorkerController`` as the controller sees it: its id, input and output."""

    def __init__(self, worker_id: str, output: dict[str, Any] | None = None) -> None:
        self.gateway = SimpleNamespace(id=worker_id)
        self.workerinput: dict[str, Any] = {"workerid": worker_id}
        self.workeroutput = output
        self.channel = SimpleNamespace(isclosed=lambda: True)


def record(seed: int = 0, **fields: Any) -> dict[str, Any]:
    """A result record of the small plan's item at ``seed``."""
    return {"case": DEV_CASE, "model": "gold", "method": "j+h", "k": 1, "seed": seed,
            "completed": True, "valid": True, "error": None, "miss": 0, "over_edit": 0,
            "wrong_value": 0, "cost_usd": 0.0, "latency_s": 0.0, "calls": 0, "findings": [],
            "selection_fallback": False, "domain": "retail", "pattern": "p", "size": 10,
            "replies": [], **fields}  # fmt: skip


def report(when: str = "call", outcome: str = "passed", **attrs: Any) -> pytest.TestReport:
    """A report of one of our items (node id of seed 0), with ``attrs`` set on it."""
    made = pytest.TestReport(
        f"{DEV_CASE}[gold-j+h-k1-s0]", ("x", None, "x"), {"revprop": 1}, outcome, None, when, []
    )
    setattr(made, OURS_ATTR, True)
    for name, value in attrs.items():
        setattr(made, name, value)
    return made


def carrying(rec: dict[str, Any]) -> pytest.TestReport:
    """A call report that carries ``rec``."""
    return report(**{RECORD_ATTR: rec})


def through(wrapper: Generator[None, Any, Any], result: Any = None) -> Any:
    """Run a new-style hook wrapper around a hook that returns ``result``."""
    next(wrapper)
    try:
        wrapper.send(result)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the wrapper yielded twice")
