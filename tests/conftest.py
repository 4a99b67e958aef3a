"""Shared fixtures: fake OpenAI-compatible servers on 127.0.0.1 and fast retry settings."""

from __future__ import annotations

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
