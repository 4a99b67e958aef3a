"""Helpers for the `revprop annotate` tests: case folders, the app under a test client, the
command run as a real server process, and a Chromium page driven by Playwright."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from chromium import CHROMIUM, CHROMIUM_ARGS

from pytest_revprop.core.cases import BENCHMARK_DIR

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


def copy_cases(folder: Path, ids: Sequence[str] = DEV_CASES) -> Path:
    """Copies of shipped case files under ``folder``, at ``<scenario>/<size>.json``."""
    for case_id in ids:
        target = folder / f"{case_id}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(BENCHMARK_DIR / f"{case_id}.json", target)
    return folder


def with_client(app: Any, scenario: Callable[[Any], Awaitable[None]]) -> None:
    """Run ``scenario(client)`` against ``app`` served on 127.0.0.1 by aiohttp's test server."""
    from aiohttp.test_utils import TestClient, TestServer

    async def main() -> None:
        async with TestClient(TestServer(app, host="127.0.0.1", port=0)) as client:
            await scenario(client)

    asyncio.run(main())


class AnnotateProcess:
    """``revprop annotate`` in a child process on a free port; ``url`` once it serves."""

    def __init__(self, args: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.args = list(args)
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
    """One page, with every console problem and every request that leaves the server."""

    def __init__(self, page: Any, url: str, expect: Any, chromium: Any = None) -> None:
        self.page = page
        self.chromium = chromium
        self.expect = expect
        self.url = url
        self.problems: list[str] = []
        self.outside: list[str] = []
        self.expected_statuses: set[int] = set()
        page.on("request", self._request)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))

    def _console(self, message: Any) -> None:
        """Every warning and error, but Chromium's note of an HTTP status the test expects."""
        if message.type not in {"error", "warning"}:
            return
        status = re.search(r"Failed to load resource: .* status of (\d+)", message.text)
        if status is None or int(status.group(1)) not in self.expected_statuses:
            self.problems.append(f"console {message.type}: {message.text}")

    def _request(self, request: Any) -> None:
        if not request.url.startswith(self.url):
            self.outside.append(request.url)

    def open(self, case_id: str | None = None) -> None:
        self.page.goto(self.url)
        self.page.wait_for_selector(".case-item")
        if case_id is not None:
            self.page.click(f'.case-item:has(.case-id:text-is("{case_id}"))')
            self.expect(self.page.locator("#case-id")).to_have_text(case_id)
            self.settle()

    def saved(self) -> None:
        """Wait for the page to say the save went through."""
        self.expect(self.page.locator("#save-state")).to_have_text(re.compile("^Saved"))

    def settle(self) -> None:
        """Wait until the page's last check of the case has come back."""
        self.page.wait_for_timeout(50)
        self.page.wait_for_selector("body:not([data-checking])", state="attached")
        self.page.wait_for_load_state("networkidle")

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
        context = (
            self.page.context
            if same_browser_profile
            else self.chromium.new_context(viewport={"width": 1500, "height": 1000})
        )
        page = context.new_page()
        page.set_default_timeout(20_000)
        return Browser(page, self.url, self.expect, self.chromium)


@contextmanager
def browser(url: str) -> Iterator[Browser]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = chromium.new_context(viewport={"width": 1500, "height": 1000})
            page = context.new_page()
            page.set_default_timeout(20_000)
            yield Browser(page, url, sync_api.expect, chromium)
        finally:
            chromium.close()
