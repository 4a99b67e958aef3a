"""Shared fixtures: fake OpenAI-compatible servers on 127.0.0.1 and fast retry settings."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.llm.types import RetryPolicy
from pytest_revprop.testing.fakeserver import FakeServer, FakeServerProcess


@pytest.fixture
def fake_server() -> Iterator[Callable[..., FakeServer]]:
    """Factory: ``fake_server(**options)`` starts an in-process FakeServer, stopped after the test."""
    servers: list[FakeServer] = []

    def start(**options: Any) -> FakeServer:
        server = FakeServer(**options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def fake_server_process(tmp_path: Path) -> Iterator[Callable[..., FakeServerProcess]]:
    """Factory: ``fake_server_process(**options)`` runs the fake server in a child process."""
    servers: list[FakeServerProcess] = []

    def start(**options: Any) -> FakeServerProcess:
        server = FakeServerProcess(tmp_path, **options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def fast_retry() -> RetryPolicy:
    """Retries with millisecond delays and a short per-attempt timeout, for quick tests."""
    return RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.2, attempt_timeout_s=10.0)


# Packages whose modules an in-process run of the plugin imports.
_RUN_PACKAGES = ("plugin", "run", "core", "llm", "reporting", "util")


@pytest.fixture(scope="session")
def _revprop_run_imports() -> None:
    """Import, once per session, what an in-process run of the plugin imports.

    pytester drops from ``sys.modules`` every module first imported during an in-process run,
    so without this each ``pytester.runpytest`` would import the plugin's run modules,
    matplotlib, hypothesis and litellm again (seconds of CPU each time, and litellm's globals made anew).
    litellm is loaded as a run loads it; the environment variables that load sets are put back
    as they were, so no test sees them unless a run of its own sets them."""
    for package in _RUN_PACKAGES:
        found = importlib.import_module(f"pytest_revprop.{package}")
        for module in pkgutil.walk_packages(found.__path__, f"{found.__name__}."):
            importlib.import_module(module.name)
    importlib.import_module("matplotlib.backends.backend_agg")  # the figures' canvas
    importlib.import_module("matplotlib.figure")
    importlib.import_module("hypothesis")  # its pytest plugin imports it at a run's summary

    from pytest_revprop.llm.litellm_setup import load_litellm

    saved = {name: os.environ.get(name) for name in _LITELLM_ENV}
    load_litellm()
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


_LITELLM_ENV = ("LITELLM_LOCAL_MODEL_COST_MAP", "LITELLM_TELEMETRY")


@pytest.fixture
def pytester(_revprop_run_imports: None, pytester: pytest.Pytester) -> pytest.Pytester:
    """pytest's ``pytester``, with the plugin's run modules imported beforehand (above)."""
    return pytester


@pytest.fixture(autouse=True)
def _only_slow_tests_start_processes(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``slow`` mark's meaning, kept: a test without it that starts a Python process
    (pytest, a ``revprop`` command, a server, the model's server), a shell or a browser fails,
    naming itself. Quick system tools that libraries call (``git``, ``uname``, ``file``) may run."""
    if request.node.get_closest_marker("slow"):
        return
    execute_child = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def refuse(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        program = Path(str(args if isinstance(args, (str, bytes)) else args[0])).name
        if program.startswith(("python", "revprop")) or program in SLOW_PROGRAMS:
            raise AssertionError(
                f"{request.node.nodeid} starts a process ({args!r}) without the slow mark"
            )
        execute_child(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)


SLOW_PROGRAMS = {"bash", "sh", "node", "uv", "chromium", "chrome", "headless_shell"}
"""Programs besides Python's that only slow tests start (a shell, a browser and its driver)."""
