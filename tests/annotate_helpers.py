"""Helpers for the `revprop annotate` tests: case folders, the app under a test client, and
the command run as a real server process."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from pytest_revprop.cases import BENCHMARK_DIR

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
