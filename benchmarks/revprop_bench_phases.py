"""A pytest plugin for benchmarks/throughput.py: wall-clock times of a session's phases.

Loaded with ``-p revprop_bench_phases`` (this folder on PYTHONPATH) when the environment
variable ``REVPROP_BENCH_PHASES`` names a folder; each process (an xdist controller and each
worker) writes ``<folder>/<role>.json`` at unconfigure. Times are ``time.time()`` stamps; the
benchmark subtracts them from the moment it started the process. Also records the seconds
spent in garbage collection and the number of items collected.
"""

from __future__ import annotations

import gc
import json
import os
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

PHASES_ENV = "REVPROP_BENCH_PHASES"
IMPORTED = time.time()


class _Phases:
    def __init__(self, config: pytest.Config, folder: Path) -> None:
        worker = getattr(config, "workerinput", {}).get("workerid")
        self.path = folder / f"{worker or 'main'}.json"
        self.stamps: dict[str, float] = {"imported": IMPORTED, "configure": time.time()}
        self.items = 0
        self.gc_s = 0.0
        self._gc_started = 0.0
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_s += time.perf_counter() - self._gc_started

    def _around(self, name: str) -> Generator[None, Any, Any]:
        self.stamps[f"{name}_start"] = time.time()
        try:
            return (yield)
        finally:
            self.stamps[f"{name}_end"] = time.time()

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Generator[None, Any, Any]:
        return (yield from self._around("collect"))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.items = len(session.items)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        return (yield from self._around("loop"))

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Generator[None, Any, Any]:
        return (yield from self._around("finish"))

    @pytest.hookimpl(wrapper=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Generator[None, Any, Any]:
        return (yield from self._around("summary"))

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.stamps["unconfigure"] = time.time()
        gc.callbacks.remove(self._gc)
        record = {"stamps": self.stamps, "items": self.items, "gc_s": self.gc_s, "pid": os.getpid()}
        self.path.write_text(json.dumps(record), encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    folder = os.environ.get(PHASES_ENV)
    if folder:
        config.pluginmanager.register(_Phases(config, Path(folder)), "revprop-bench-phases")
