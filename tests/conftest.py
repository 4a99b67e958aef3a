"""Shared fixtures: fake OpenAI-compatible servers on 127.0.0.1, fast retry settings, and one
Chromium per session for the browser tests (a new context per test)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium import CHROMIUM, CHROMIUM_ARGS

from pytest_revprop.llm.types import RetryPolicy
from pytest_revprop.testing.fakeserver import FakeServer, FakeServerProcess

pytest_plugins = ["annotate_helpers"]


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


# ------------------------------------------------------------------------------ the browser


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, launched once per session (per xdist worker) through Playwright."""
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(autouse=True)
def _asyncio_outside_the_browser(request: pytest.FixtureRequest) -> Iterator[None]:
    """Playwright's sync API marks its event loop as running in this thread for the whole
    session; a test that does not drive the browser gets the thread without it, so that its
    own ``asyncio.run`` works, and Playwright gets it back afterwards."""
    loop = asyncio.events._get_running_loop()
    if loop is None or "browser" in request.fixturenames:
        yield
        return
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(loop)


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
    contexts: list[Any] = []

    def make(width: int = 1500, height: int = 1000, context: Any = None) -> Any:
        if context is None:
            context = browser.new_context(viewport={"width": width, "height": height})
            contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)
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
