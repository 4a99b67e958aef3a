"""Helpers for the `revprop annotate` tests: case folders, the app under a test client, the
command run as a real server process, and a Chromium page driven by Playwright."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from helpers.chromium import CHROMIUM, HANG_LIMIT_MS
from pytest_revprop.core.cases import BENCHMARK_DIR, dump_case

BROWSER_TESTS = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium"
    ),
]
"""The marks of every browser test module (``pytestmark = BROWSER_TESTS``)."""

DEV_CASES = (
    "invoice-workshop-hours/10",
    "travel-shift-departure/10",
    "org-remove-member/10",
)


def single_revision(data: dict[str, Any]) -> dict[str, Any]:
    """A shipped case's file data without its follow-ups: the annotation tests edit the first
    revision's gold, which a chain's follow-ups would (rightly) refuse: rule followup-previous."""
    return {k: v for k, v in data.items() if k != "followups"}


def shipped_case(case_id: str) -> dict[str, Any]:
    """A shipped case's file data as a single revision (:func:`single_revision`)."""
    data = json.loads((BENCHMARK_DIR / f"{case_id}.json").read_text("utf-8"))
    return single_revision(data)


def copy_cases(folder: Path, ids: Sequence[str] = DEV_CASES) -> Path:
    """Copies of shipped case files under ``folder``, at ``<scenario>/<size>.json``, as single
    revisions (:func:`single_revision`)."""
    for case_id in ids:
        target = folder / f"{case_id}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(dump_case(shipped_case(case_id)), encoding="utf-8")
    return folder


def with_client(app: Any, scenario: Callable[[Any], Awaitable[None]]) -> None:
    """Run ``scenario(client)`` against ``app`` served on 127.0.0.1 by aiohttp's test server."""
    from aiohttp.test_utils import TestClient, TestServer

    async def main() -> None:
        async with TestClient(TestServer(app, host="127.0.0.1", port=0)) as client:
            await scenario(client)

    asyncio.run(main())


def run_async(coroutine: Any) -> Any:
    """``asyncio.run`` that also works inside a browser test, where Playwright's sync API
    marks its own event loop as running in this thread."""
    loop = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        return asyncio.run(coroutine)
    finally:
        asyncio.events._set_running_loop(loop)


WATCH_S = "0.2"
"""How often the tests' pages look for changes on disk (``--watch``; 2 s for people): a test
that changes a file waits for the page to notice, so it waits a tenth as long."""


class AnnotateProcess:
    """``revprop annotate`` in a child process on a free port; ``url`` once it serves. Its
    pages look at the disk every ``WATCH_S`` unless ``args`` say ``--watch``."""

    def __init__(self, args: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.args = list(args) if "--watch" in args else [*args, "--watch", WATCH_S]
        self.cwd = cwd
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.started_at = 0.0
        self.ready_at = 0.0

    def start(self, timeout_s: float = 60.0) -> AnnotateProcess:
        self.started_at = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pytest_revprop.cli", "annotate", *self.args, "--no-browser"],
            cwd=self.cwd,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout_s
        lines = []
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            lines.append(line)
            found = re.search(r"open (http://127\.0\.0\.1:\d+/)", line)
            if found:
                self.url = found.group(1)
                self.ready_at = time.perf_counter()
                return self
        self.stop()
        raise AssertionError(f"revprop annotate did not start: {''.join(lines)}")

    def stop(self) -> str:
        """Stop with Ctrl-C (SIGINT) and return what the process printed after starting."""
        if self.process is None:
            return ""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            out, _ = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, _ = self.process.communicate()
        return out or ""

    def __enter__(self) -> AnnotateProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Browser:
    """One page of the annotation tool, with every request that leaves the server; console
    problems go to the test's ``page_problems`` (the test fails on any)."""

    def __init__(self, page: Any, url: str, new_page: Callable[..., Any], problems: Any) -> None:
        from playwright.sync_api import expect

        self.page = page
        self.new_page = new_page
        self.expect = expect
        self.url = url
        self.problems: list[str] = problems.problems
        self.expected_statuses: set[int] = problems.expected_statuses
        self._page_problems = problems
        self.outside: list[str] = []
        page.on("request", self._request)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.page.is_closed():
            self.page.close()

    def _request(self, request: Any) -> None:
        if not request.url.startswith(self.url):
            self.outside.append(request.url)

    def open(self, case_id: str | None = None) -> None:
        self.page.goto(self.url)
        self.page.wait_for_selector(".case-item")
        if case_id is not None:
            self.pick(case_id)

    def pick(self, case_id: str) -> None:
        """Open ``case_id`` from the list as shown (its filters kept)."""
        self.page.click(f'.case-item:has(.case-id:text-is("{case_id}"))')
        self.expect(self.page.locator("#case-id")).to_have_text(case_id)
        self.settle()

    def saved(self) -> None:
        """Wait for the page to say the save went through (several saves at once on a loaded
        machine take seconds, or tens of them: only a hang reaches the limit)."""
        self.expect(self.page.locator("#save-state")).to_have_text(
            re.compile("^Saved"), timeout=HANG_LIMIT_MS
        )

    def settle(self) -> None:
        """Wait until the page's last check of the case has come back and no call to the
        server is out (the page is ``aria-busy`` while one is, and until its answer is used)."""
        self.page.wait_for_selector("body:not([data-checking]):not([aria-busy])", state="attached")

    def turn(self, turn: int) -> None:
        """Show chain turn ``turn`` (its tab in the turn bar); turn 0 is shown on opening."""
        if turn == 0 and self.page.locator("#turn-tab-0").count() == 0:
            return
        self.page.click(f"#turn-tab-{turn}")
        self.expect(self.page.locator(f"#turn-tab-{turn}")).to_have_attribute(
            "aria-selected", "true"
        )

    def op(self, index: int, field: str) -> Any:
        return self.page.locator(f'#gold .op[data-index="{index}"] [data-field="{field}"]')

    def messages(self, pointer: str) -> list[str]:
        texts: list[str] = self.page.eval_on_selector_all(
            f'[data-pointer="{pointer}"]', "els => els.map(e => e.textContent)"
        )
        return texts

    def shot(self, path: Path) -> None:
        self.page.screenshot(path=str(path), full_page=True)

    def another(self, same_browser_profile: bool) -> Browser:
        """A second tab: in this browser profile (shared storage), or as another person."""
        page = (
            self.new_page(context=self.page.context)
            if same_browser_profile
            else self.new_page(1500, 1000)
        )
        return Browser(page, self.url, self.new_page, self._page_problems)


@pytest.fixture
def browse(new_page: Callable[..., Any], page_problems: Any) -> Callable[[str], Browser]:
    """Factory: ``browse(url)`` is a page of the annotation tool at ``url`` in a new context
    of the session's Chromium."""

    def make(url: str) -> Browser:
        return Browser(new_page(1500, 1000), url, new_page, page_problems)

    return make


def annotate_server(
    tmp_path_factory: pytest.TempPathFactory, ids: Sequence[str], *args: str
) -> Iterator[tuple[AnnotateProcess, Path]]:
    """A module's shared ``revprop annotate`` on copies of ``ids`` (for tests that leave
    what they read unchanged): the server and its folder."""
    root = tmp_path_factory.mktemp("annotate")
    folder = copy_cases(root / "cases", ids)
    with AnnotateProcess([str(folder), "--port", "0", "--model", "gold", *args], cwd=root) as srv:
        yield srv, folder


def copy_chains(folder: Path, ids: Sequence[str]) -> Path:
    """Copies of shipped case files with their follow-ups (whole chains) under ``folder``, at
    ``<scenario>/<size>.json``, as the checkout has them."""
    for case_id in ids:
        target = folder / f"{case_id}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((BENCHMARK_DIR / f"{case_id}.json").read_bytes())
    return folder


def turn_gold(data: dict[str, Any], turn: int) -> list[dict[str, Any]]:
    """Chain turn ``turn``'s gold in a case file's data (0: the case's own)."""
    gold: list[dict[str, Any]] = data["gold"] if turn == 0 else data["followups"][turn - 1]["gold"]
    return gold


def assert_validates(path: Path) -> None:
    """``revprop validate PATH`` (a child process, as a person runs it) accepts the file."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest_revprop.cli", "validate", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
