"""Runs of the real plugin against servers that misbehave: the shared selection of shipped
cases, the scripted responder's reference outcome of each item, and readers of what a run
left (results, cache entries, pytest's tally, the requests a server received).

The scripted responder answers each request the same way every time, so the reference outcome
of every item is the methods fed its answers directly; every faulty or interrupted run must end
with exactly those results (latency aside)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import re
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

from helpers.child_pytest import DEV_PLUGINS_OFF
from pytest_revprop.core.cases import BENCHMARK_DIR, Case, load_cases
from pytest_revprop.core.prompts import default_prompts
from pytest_revprop.core.registry import run_method
from pytest_revprop.llm.cache import ResponseCache
from pytest_revprop.llm.transports import TRANSPORT_ENV
from pytest_revprop.llm.types import Reply, canonical_json
from pytest_revprop.run.items import ItemSpec
from pytest_revprop.run.records import result_record
from pytest_revprop.testing.fakeserver import FakeServer
from pytest_revprop.testing.responder import respond
from pytest_revprop.vocabulary import RESULT_KEYS

RESPONDER = "pytest_revprop.testing.responder:respond"
MODEL = "openai/fake"
N_CASES = 4
"""Shipped dev cases of size 10 in a run: enough for a mix of completed and failed items and
for a Ctrl-C'd run to stop midway; each case has four items and four distinct calls."""


@functools.cache
def dev_cases() -> list[Case]:
    """The first ``N_CASES`` shipped dev cases of size 10, by id."""
    found = (c for c in load_cases([BENCHMARK_DIR]).cases if c.split == "dev" and c.size == 10)
    return sorted(found, key=lambda c: c.id)[:N_CASES]


def selection() -> list[str]:
    """The options of the items: ``dev_cases()`` x (j+h, med at k=3) x seeds 0,1 (j+h at seed s
    is med's first sample at seed s: four distinct calls per case, seeds 0-3)."""
    return [
        "--revprop-split=dev",
        "--revprop-sizes=10",
        f"--revprop-case={','.join(c.id for c in dev_cases())}",
        "--revprop-method=j+h,med",
        "--revprop-k=3",
        "--revprop-seeds=0,1",
    ]


FAST_RETRIES = ["--revprop-retries=4", "--revprop-retry-delay=0.01"]
# Self-hosted servers are called directly by default; litellm's path has its own errors to map.
TRANSPORTS = {"direct": {TRANSPORT_ENV: "direct"}, "litellm": {TRANSPORT_ENV: "litellm"}}
# Off in the runs: other plugins' own folders (.pytest_cache, .benchmarks), so every file a
# run writes is revprop's, and pytest's exit-time garbage hunt, seconds long with litellm loaded.
OTHER_PLUGINS_OFF = [
    *(f"-pno:{name}" for name in ("cacheprovider", "unraisableexception", "threadexception")),
    *DEV_PLUGINS_OFF,
]


def run_options(run_dir: Path, *args: str, figures: bool = False) -> list[str]:
    """pytest's arguments for a run whose cache and reports are in ``run_dir``."""
    return [
        *OTHER_PLUGINS_OFF,
        "-q",
        f"--rootdir={run_dir}",
        f"--revprop-cache={run_dir / 'cache'}",
        f"--revprop-report={run_dir / 'report'}",
        *([] if figures else ["--revprop-no-figures"]),
        *args,
    ]


def inherited_environment(name: str) -> bool:
    """Whether a variable of the test's environment stays out of a run: pytest settings,
    real keys and our own settings."""
    return name.startswith(("PYTEST_", "OPENAI_", "REVPROP_")) or "KEY" in name.upper()


class Finished(Protocol):
    """What a finished run printed (a ``subprocess.CompletedProcess`` or an in-process run)."""

    @property
    def stdout(self) -> str: ...


def results(run_dir: Path) -> list[dict[str, Any]]:
    doc = json.loads((run_dir / "report" / "results.json").read_text(encoding="utf-8"))
    return list(doc["results"])


def item_key(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["case"], row["model"], row["method"], row["k"], row["seed"])


def outcomes(rows: Sequence[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Rows by item, without the one field that depends on timing."""
    return {item_key(r): {k: v for k, v in r.items() if k != "latency_s"} for r in rows}


def counts(run: Finished) -> dict[str, int]:
    """pytest's final tally, e.g. {"failed": 3, "passed": 27, "errors": 10} (warnings left out)."""
    tally = re.findall(
        r"(\d+) (failed|passed|errors?|deselected|skipped)\b", run.stdout.strip().splitlines()[-1]
    )
    return {("errors" if word == "error" else word): int(n) for n, word in tally}


def retries(run: Finished) -> int:
    match = re.search(r"calls \S+: .*\bretries (\d+),", run.stdout)
    assert match, run.stdout[-2000:]
    return int(match.group(1))


def cache_entries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.rglob("*.json")) if cache_dir.exists() else []


def cached_requests(cache_dir: Path) -> set[tuple[str, int]]:
    """(messages, seed) of every complete cache entry; each must read back as a reply."""
    found = set()
    cache = ResponseCache(cache_dir)
    for path in cache_entries(cache_dir):
        assert cache.read(path.stem) is not None, f"unreadable cache entry {path}"
        request = json.loads(path.read_text(encoding="utf-8"))["request"]
        found.add((canonical_json(request["messages"]), request["seed"]))
    return found


def received(server: FakeServer) -> list[tuple[str, int]]:
    return [(canonical_json(b["messages"]), b["seed"]) for b in server.stats()["requests"]]


def fault_count(server: FakeServer) -> int:
    statuses = server.stats()["statuses"]
    return sum(n for status, n in statuses.items() if status != "200")


def items_answered_by(answered: set[tuple[str, int]]) -> set[tuple[Any, ...]]:
    """The selected items all of whose calls are among ``answered`` (messages, seed) pairs."""
    items = set()
    for case in dev_cases():
        messages = canonical_json(default_prompts().revision_messages(case, "j+h"))
        for method, k, width in (("j+h", 1, 1), ("med", 3, 3)):
            for seed in (0, 1):
                if all((messages, s) in answered for s in range(seed, seed + width)):
                    items.add((case.id, MODEL, method, k, seed))
    return items


def responder_reply(messages: list[dict[str, str]], seed: int) -> Reply:
    answer = respond({"messages": messages, "seed": seed})
    return Reply(content=answer["content"], reasoning=answer.get("reasoning"), finish_reason="stop")


@functools.cache
def clean_outcomes() -> dict[tuple[Any, ...], dict[str, Any]]:
    """The reference outcome of every selected item: the methods fed the responder's answers
    directly (no server, no client), i.e. what a flawless run must record."""

    async def ask(messages: list[dict[str, str]], seed: int, purpose: str, priority: int) -> Reply:
        return responder_reply(messages, seed)

    async def run_all() -> list[dict[str, Any]]:
        records = []
        for case in dev_cases():
            for method, k in (("j+h", 1), ("med", 3)):
                for seed in (0, 1):
                    run = await run_method(method, case, ask, k=k, seed=seed)
                    spec = ItemSpec(case.id, MODEL, method, k, seed)
                    record = result_record(case, spec, run)
                    records.append({key: record[key] for key in record if key in RESULT_KEYS})
        return records

    rows = asyncio.run(run_all())
    assert len(rows) == 4 * len(dev_cases())
    assert 0 < sum(r["completed"] for r in rows) < len(rows)  # the responder errs at times
    return outcomes(rows)


class TinyHandler(BaseHTTPRequestHandler):
    """An OpenAI-compatible server for what the fake server cannot send (its bodies are JSON)."""

    def do_GET(self) -> None:
        self.send_body(200, b'{"object": "list", "data": [{"id": "fake"}]}')

    def send_body(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def tiny_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` served on 127.0.0.1 in a thread; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
