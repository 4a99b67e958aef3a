"""The ``slow`` marker's check, a pytest plugin (tests/conftest.py loads it).

A test that starts a process (``subprocess``, asyncio's subprocesses, which go through it,
``multiprocessing``, ``os.fork``, ``os.system``, ``os.posix_spawn``), itself or through a
fixture that started one, must be marked ``slow``; a test marked ``slow`` must start one, or
say why it is slow without: ``@pytest.mark.slow(reason="...")``. Either mismatch fails the
test, naming the first process it started or the marker to remove.
"""

from __future__ import annotations

import multiprocessing.process
import os
import subprocess
import traceback
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

TESTS_DIR = Path(__file__).resolve().parents[1]
_started: list[str] = []
"""Every process started in this pytest process so far, described with where it was started."""
_spawning_fixtures: dict[tuple[str, str], str] = {}
"""(baseid, name) of each fixture whose setup started a process -> the first it started."""
_FIRST = pytest.StashKey[int]()
_originals: list[tuple[Any, str, Any]] = []
_sessions: list[pytest.Config] = []


INCIDENTAL = {
    f"{os.sep}pytest_benchmark{os.sep}": "asks git for the commit as it adds its options",
    f"{os.sep}platform.py": "asks uname once a process (for openai's user agent)",
    f"{os.sep}matplotlib{os.sep}font_manager.py": "lists fonts with fc-list once a machine",
    f"{os.sep}git{os.sep}": "GitPython, under MLflow's run tags, asks git for the source version",
}
"""Code whose own process starts are not what a test does: a start from within it is not
counted (the value says why)."""


def _where(frames: traceback.StackSummary) -> str:
    """The innermost line of a test module that led to a start, else of a helper in tests/,
    else of the package."""
    picks: list[Callable[[str], bool]] = [
        lambda name: os.path.basename(name).startswith("test_"),
        lambda name: name.startswith(str(TESTS_DIR)) and name != __file__,
        lambda name: f"{os.sep}pytest_revprop{os.sep}" in name,
    ]
    for pick in picks:
        for frame in reversed(frames):
            if pick(frame.filename):
                return f"{os.path.basename(frame.filename)}:{frame.lineno}"
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
    """Count every process start from here on, once however many sessions load this (an
    in-process pytester run inside a test's); the last one to end restores the originals."""
    _sessions.append(config)
    if len(_sessions) > 1:
        return
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
    _sessions.remove(config)
    while not _sessions and _originals:
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
