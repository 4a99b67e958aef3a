"""Faults end to end: the real plugin in a pytest subprocess against fake servers on 127.0.0.1.

Server faults, a server that never recovers, SIGKILL and Ctrl-C mid-run, hostile replies,
hostile case ids, planted API keys and file modes. The scripted responder answers each request
the same way every time, so the reference outcome of every item is the methods fed its answers
directly; every faulty or interrupted run must end with exactly those results (latency aside).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from handmade_cases import invoice_case, write_cases

from pytest_revprop.core.cases import BENCHMARK_DIR, Case, load_cases
from pytest_revprop.core.prompts import default_prompts
from pytest_revprop.core.registry import run_method
from pytest_revprop.llm.cache import ResponseCache
from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.llm.transports import TRANSPORT_ENV
from pytest_revprop.llm.types import Reply, canonical_json
from pytest_revprop.plugin.interruption import SECOND_NOTE, STOPPING_NOTE
from pytest_revprop.reporting.samples import read_samples
from pytest_revprop.run.runner import ItemSpec, result_record
from pytest_revprop.testing.fakeserver import FakeServer
from pytest_revprop.testing.responder import respond
from pytest_revprop.vocabulary import RESULT_KEYS

pytestmark = pytest.mark.slow

RESPONDER = "pytest_revprop.testing.responder:respond"
MODEL = "openai/fake"
# The shipped dev cases of size 10 x (j+h, med at k=3) x seeds 0,1: four items per case, and four
# distinct calls per case (seeds 0-3; j+h at seed s is med's first sample at seed s).
SELECTION = [
    "--revprop-split=dev",
    "--revprop-sizes=10",
    "--revprop-method=j+h,med",
    "--revprop-k=3",
    "--revprop-seeds=0,1",
]
FAST_RETRIES = ["--revprop-retries=4", "--revprop-retry-delay=0.01"]
# Self-hosted servers are called directly by default; litellm's path has its own errors to map.
TRANSPORTS = {"direct": {TRANSPORT_ENV: "direct"}, "litellm": {TRANSPORT_ENV: "litellm"}}
# Off in the child runs: other plugins' own folders (.pytest_cache, .benchmarks), so every file a
# run writes is revprop's, and pytest's exit-time garbage hunt, seconds long with litellm loaded.
OTHER_PLUGINS_OFF = [
    f"-pno:{name}"
    for name in ("cacheprovider", "benchmark", "unraisableexception", "threadexception")
]


# ------------------------------------------------------------------------------ helpers


def _env(**extra: str) -> dict[str, str]:
    """The environment of a child run: no inherited pytest settings, no real keys."""
    keep = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "OPENAI_", "REVPROP_")) and "KEY" not in k.upper()
    }
    return {**keep, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **extra}


def _command(run_dir: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        *OTHER_PLUGINS_OFF,
        "-q",
        f"--rootdir={run_dir}",
        f"--revprop-cache={run_dir / 'cache'}",
        f"--revprop-report={run_dir / 'report'}",
        *args,
    ]


def run_pytest(
    run_dir: Path, *args: str, env: dict[str, str] | None = None, figures: bool = False
) -> subprocess.CompletedProcess[str]:
    run_dir.mkdir(parents=True, exist_ok=True)
    flags = [] if figures else ["--revprop-no-figures"]
    return subprocess.run(
        _command(run_dir, *flags, *args),
        cwd=run_dir,
        env=env or _env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _as_at_a_terminal() -> None:
    """In the child: SIGINT not ignored, and a process group of its own, as a terminal's
    foreground job has (a Ctrl-C there reaches every process of the group: xdist's workers too)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setpgid(0, 0)


def start_pytest(run_dir: Path, *args: str, figures: bool = False) -> subprocess.Popen[str]:
    """A run in the background whose Ctrl-C (``ctrl_c``) behaves as at a terminal."""
    run_dir.mkdir(parents=True, exist_ok=True)
    flags = [] if figures else ["--revprop-no-figures"]
    with (run_dir / "output.txt").open("w") as out:
        return subprocess.Popen(
            _command(run_dir, *flags, *args), cwd=run_dir, env=_env(), stdout=out,
            stderr=subprocess.STDOUT, text=True, preexec_fn=_as_at_a_terminal,
        )  # fmt: skip


def ctrl_c(process: subprocess.Popen[str]) -> None:
    """SIGINT to the run's process group, as a Ctrl-C at a terminal sends it."""
    with contextlib.suppress(ProcessLookupError):  # the run has ended
        os.killpg(process.pid, signal.SIGINT)


def items_answered_by(answered: set[tuple[str, int]]) -> set[tuple[Any, ...]]:
    """The SELECTION items all of whose calls are among ``answered`` (messages, seed) pairs."""
    items = set()
    for case in dev_cases():
        messages = canonical_json(default_prompts().revision_messages(case, "j+h"))
        for method, k, width in (("j+h", 1, 1), ("med", 3, 3)):
            for seed in (0, 1):
                if all((messages, s) in answered for s in range(seed, seed + width)):
                    items.add((case.id, MODEL, method, k, seed))
    return items


def _wait_for(condition: Any, process: subprocess.Popen[str], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.02)


def results(run_dir: Path) -> list[dict[str, Any]]:
    doc = json.loads((run_dir / "report" / "results.json").read_text(encoding="utf-8"))
    return list(doc["results"])


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["case"], row["model"], row["method"], row["k"], row["seed"])


def outcomes(rows: Sequence[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Rows by item, without the one field that depends on timing."""
    return {_key(r): {k: v for k, v in r.items() if k != "latency_s"} for r in rows}


def counts(run: subprocess.CompletedProcess[str]) -> dict[str, int]:
    """pytest's final tally, e.g. {"failed": 3, "passed": 27, "errors": 10} (warnings left out)."""
    tally = re.findall(
        r"(\d+) (failed|passed|errors?|deselected|skipped)\b", run.stdout.strip().splitlines()[-1]
    )
    return {("errors" if word == "error" else word): int(n) for n, word in tally}


def retries(run: subprocess.CompletedProcess[str]) -> int:
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


@functools.cache
def dev_cases() -> list[Case]:
    return sorted(
        (c for c in load_cases([BENCHMARK_DIR]).cases if c.split == "dev" and c.size == 10),
        key=lambda c: c.id,
    )


def responder_reply(messages: list[dict[str, str]], seed: int) -> Reply:
    answer = respond({"messages": messages, "seed": seed})
    return Reply(content=answer["content"], reasoning=answer.get("reasoning"), finish_reason="stop")


class _TinyHandler(BaseHTTPRequestHandler):
    """An OpenAI-compatible server for what the fake server cannot send (its bodies are JSON)."""

    def do_GET(self) -> None:
        self._send(200, b'{"object": "list", "data": [{"id": "fake"}]}')

    def _send(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def tiny_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def clean() -> dict[tuple[Any, ...], dict[str, Any]]:
    """The reference outcome of every SELECTION item: the methods fed the responder's answers
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
                    records.append(
                        {
                            key: value
                            for key, value in result_record(case, spec, run).items()
                            if key in RESULT_KEYS
                        }
                    )
        return records

    rows = asyncio.run(run_all())
    assert len(rows) == 4 * len(dev_cases())
    assert 0 < sum(r["completed"] for r in rows) < len(rows)  # the responder errs at times
    return outcomes(rows)


# ------------------------------------------------------------------------------ server faults


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_faulty_server_gives_the_clean_results(
    tmp_path: Path, clean: dict[tuple[Any, ...], dict[str, Any]], transport: str
) -> None:
    faults = {
        "first_attempt_fail_fraction": 0.3,
        "kinds": ["429", "503", "reset", "malformed", "hang"],
        "retry_after_s": 0.05,
        "hang_s": 10,
    }
    with FakeServer(responder=RESPONDER, faults=faults) as server:
        run = run_pytest(
            tmp_path,
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={server.base_url}",
            *SELECTION,
            *FAST_RETRIES,
            "--revprop-timeout=2",
            env=_env(**TRANSPORTS[transport]),
        )
        faulted = fault_count(server)
        statuses = server.stats()["statuses"]
    # the responder's wrong answers fail; nothing errors
    assert run.returncode == 1, run.stdout[-3000:]
    assert "errors" not in counts(run)
    assert outcomes(results(tmp_path)) == clean
    assert faulted >= 5 and len(set(statuses) - {"200"}) >= 3, statuses
    # a retry per injected fault (and per attempt slowed past the timeout)
    assert retries(run) >= faulted


def test_warnings_as_errors_leave_the_calls_alone(
    tmp_path: Path, clean: dict[tuple[Any, ...], dict[str, Any]]
) -> None:
    """``-W error`` (common in CI) turns every warning into an exception, also the notes pydantic
    emits while litellm builds validators on its first call: they once failed every call."""
    with FakeServer(responder=RESPONDER) as server:
        run = run_pytest(tmp_path, "-W", "error", f"--revprop-model={MODEL}", f"--revprop-api-base={server.base_url}",
                         *SELECTION, *FAST_RETRIES, env=_env(**TRANSPORTS["litellm"]))  # fmt: skip
    # the responder's wrong answers fail; nothing errors
    assert run.returncode == 1, run.stdout[-3000:]
    assert "errors" not in counts(run) and retries(run) == 0
    assert outcomes(results(tmp_path)) == clean


def seed_cache(cache_dir: Path, base_url: str, seeds: Sequence[int]) -> int:
    """Cache the responder's answers to the j+h revision prompts at ``seeds``, as a finished run
    against ``base_url`` would have; returns how many entries were written."""
    client = Client(resolve_model(MODEL, api_bases=[base_url]), cache_dir=cache_dir)
    assert client.cache is not None
    written = 0
    for case in dev_cases():
        messages = default_prompts().revision_messages(case, "j+h")
        for seed in seeds:
            request = client.make_request(messages, seed)
            client.cache.write(request.cache_key(), request, responder_reply(messages, seed))
            written += 1
    return written


def test_a_server_that_never_recovers_gives_errors_and_a_rerun_completes_them(
    tmp_path: Path, clean: dict[tuple[Any, ...], dict[str, Any]]
) -> None:
    with FakeServer(responder=RESPONDER, faults={"always_fail": "503"}) as down:
        port, url = down.port, down.base_url
        # An earlier run answered every call at seeds 0-2: all seed-0 items and j+h at seed 1.
        n = len(dev_cases())
        assert seed_cache(tmp_path / "cache", url, [0, 1, 2]) == 3 * n
        run = run_pytest(
            tmp_path,
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={url}",
            *SELECTION,
            *FAST_RETRIES,
        )
        assert down.stats()["statuses"] == {"503": n * 4}  # only the seed-3 calls, 4 attempts each
    rows = {_key(r): r for r in results(tmp_path)}
    failed = {k for k, r in rows.items() if r["error"] == "call_failed"}
    assert failed == {k for k in clean if k[2] == "med" and k[4] == 1}  # med at seed 1 needs seed 3
    for key in failed:
        assert "gave up after 4 attempts" in rows[key]["reason"] and "503" in rows[key]["reason"]
        assert rows[key]["completed"] is False and rows[key]["calls"] == 0
    assert all(
        rows[k] | {"latency_s": 0} == clean[k] | {"latency_s": 0} for k in rows if k not in failed
    )
    # pytest reports infrastructure errors as errors, the model's misses as failures
    n_failed = sum(not clean[k]["completed"] for k in clean if k not in failed)
    assert counts(run) == {"failed": n_failed, "passed": 3 * n - n_failed, "errors": n}
    assert "model call failed" in run.stdout
    summary = json.loads((tmp_path / "report" / "results.json").read_text())["summary"]
    med = next(row for row in summary if row["method"] == "med")
    assert med["errors"] == n and med["runs"] == 1 and med["n_items"] == 2 * n
    assert (
        med["completion_rate"]
        == sum(clean[k]["completed"] for k in clean if k[2] == "med" and k[4] == 0) / n
    )
    assert len(cache_entries(tmp_path / "cache")) == 3 * n  # nothing cached for the failed calls

    # the server restarts at the same address
    with FakeServer(responder=RESPONDER, port=port) as back:
        rerun = run_pytest(
            tmp_path,
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={url}",
            *SELECTION,
            *FAST_RETRIES,
        )
        assert {seed for _, seed in received(back)} == {3} and len(received(back)) == n
    assert "errors" not in counts(rerun)
    assert outcomes(results(tmp_path)) == clean


def test_under_xdist_errored_items_report_briefly_and_a_refused_key_stops_the_run(
    tmp_path: Path,
) -> None:
    with FakeServer(responder=RESPONDER, faults={"always_fail": "503"}) as down:
        run = run_pytest(tmp_path / "down", f"--revprop-model={MODEL}", f"--revprop-api-base={down.base_url}",
                         *SELECTION, *FAST_RETRIES, "-n", "2")  # fmt: skip
    n_items = 4 * len(dev_cases())
    assert counts(run) == {"errors": n_items}, run.stdout[-3000:]
    section = run.stdout.split(" ERRORS ", 1)[1].split(" revprop summary ", 1)[0]
    blocks = re.split(r"\n_+ ERROR at setup of \S+ _+\n", "\n" + section)[1:]
    assert len(blocks) == n_items
    for block in blocks:
        lines = block.strip("\n=").splitlines()
        assert len(lines) <= 20, lines
        assert any(line.startswith("model call failed: HTTP 503 ") for line in lines)
        assert lines[-1].startswith("  rerun:    pytest --revprop-model=openai/fake ")
    assert "Traceback" not in run.stdout and "_pytest" not in run.stdout

    with FakeServer(responder=RESPONDER, faults={"always_fail": "401"}) as refusing:
        stopped = run_pytest(tmp_path / "refused", f"--revprop-model={MODEL}",
                             f"--revprop-api-base={refusing.base_url}", *SELECTION, "-n", "2")  # fmt: skip
        sent = refusing.stats()["count"]
    assert stopped.returncode == pytest.ExitCode.USAGE_ERROR, stopped.stdout[-3000:]
    assert "the provider refused the credentials (HTTP 401" in stopped.stdout
    assert "OPENAI_API_KEY is not set" in stopped.stdout
    # each worker sends the first calls it has in flight, then nothing more
    assert sent <= 2 * 32 and sent < 4 * len(dev_cases()) * 3


# ------------------------------------------------------------------------------ interruption
# Two requests at a time, so a run is slow enough to interrupt; a generous per-attempt timeout.
THROTTLED = ["--revprop-concurrency=2", "--revprop-timeout=60", *FAST_RETRIES]


def test_sigkill_mid_run_loses_no_finished_call_and_the_rerun_finishes_the_rest(
    tmp_path: Path, clean: dict[tuple[Any, ...], dict[str, Any]]
) -> None:
    cache = tmp_path / "cache"
    with FakeServer(responder=RESPONDER, latency_s=0.1) as server:
        args = [
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={server.base_url}",
            *SELECTION,
            *THROTTLED,
        ]
        first = start_pytest(tmp_path, *args)
        try:
            _wait_for(lambda: len(cache_entries(cache)) >= 6, first)
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait(30)
        answered = cached_requests(cache)
        assert 6 <= len(answered) < len(clean)
        server.reset()
        rerun = run_pytest(tmp_path, *args)
        again = received(server)
    assert rerun.returncode == 1, rerun.stdout[-3000:]
    assert not set(again) & answered  # no finished call is made twice
    # as many items as distinct calls
    assert len(again) == len(set(again)) == len(clean) - len(answered)
    assert outcomes(results(tmp_path)) == clean
    # the dead run's claims were broken, the rerun's released
    assert not list(cache.rglob("*.claim"))


def test_ctrl_c_stops_promptly_and_reports_what_finished(
    tmp_path: Path, clean: dict[tuple[Any, ...], dict[str, Any]]
) -> None:
    cache = tmp_path / "cache"
    # two calls a second: a whole run takes 20 s
    with FakeServer(responder=RESPONDER, latency_s=1.0) as server:
        run = start_pytest(
            tmp_path,
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={server.base_url}",
            *SELECTION,
            *THROTTLED,
        )
        try:
            _wait_for(lambda: len(cache_entries(cache)) >= 4, run)
            finished = items_answered_by(cached_requests(cache))
        finally:
            ctrl_c(run)
            interrupted = time.monotonic()
            run.wait(60)
        stop_s = time.monotonic() - interrupted
        calls_made = server.stats()["count"]
    output = (tmp_path / "output.txt").read_text()
    assert run.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    assert stop_s < 10, output[-3000:]
    assert calls_made < len(clean)
    assert "KeyboardInterrupt" in output and "revprop summary" in output
    rows = results(tmp_path)
    assert f"interrupted; the reports hold the {len(rows)} items that finished" in output
    assert finished and finished <= set(outcomes(rows))  # finished before Ctrl-C, reported or not
    assert rows and all(r["error"] != "call_failed" for r in rows)  # cancelled work is no failure
    assert all(clean[k] == v for k, v in outcomes(rows).items())
    assert len(cached_requests(cache)) <= calls_made
    assert not list(cache.rglob("*.claim")) and not list(cache.rglob("*.tmp"))


def test_a_second_ctrl_c_while_stopping_still_gets_the_reports_written(
    tmp_path: Path, clean: dict[tuple[Any, ...], dict[str, Any]]
) -> None:
    cache, output = tmp_path / "cache", tmp_path / "output.txt"
    with FakeServer(responder=RESPONDER, latency_s=1.0) as server:
        run = start_pytest(
            tmp_path,
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={server.base_url}",
            *SELECTION,
            *THROTTLED,
            figures=True,  # writing the figures and report.html keeps the run busy a while
        )
        try:
            _wait_for(lambda: len(cache_entries(cache)) >= 4, run)
            finished = items_answered_by(cached_requests(cache))
            ctrl_c(run)
            _wait_for(lambda: STOPPING_NOTE in output.read_text(), run)
        finally:
            ctrl_c(run)
            run.wait(60)
    text = output.read_text()
    assert run.returncode == pytest.ExitCode.INTERRUPTED, text[-3000:]
    assert SECOND_NOTE in text and "revprop summary" in text, text[-3000:]
    assert (tmp_path / "report" / "report.html").is_file()
    rows = results(tmp_path)
    assert f"interrupted; the reports hold the {len(rows)} items that finished" in text
    assert finished and finished <= set(outcomes(rows))
    assert all(clean[k] == v for k, v in outcomes(rows).items())


class _HoldingHandler(_TinyHandler):
    """The scripted responder after ``LATENCY_S``, except that requests whose messages contain
    one of ``held`` get no answer at all (they are held until ``release`` is set)."""

    LATENCY_S = 0.3
    held: tuple[str, ...] = ()
    release = threading.Event()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        text = "".join(str(m.get("content") or "") for m in body["messages"])
        if any(marker in text for marker in self.held):
            self.release.wait(300)
            return  # released when the test ends: nobody waits for an answer any more
        time.sleep(self.LATENCY_S)
        answer = respond(body)
        message = {"role": "assistant", "content": answer["content"]}
        if answer.get("reasoning"):
            message["reasoning_content"] = answer["reasoning"]
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        data = {"id": "x", "object": "chat.completion", "created": 0, "model": "fake"}
        self._send(200, json.dumps({**data, "choices": [choice]}).encode())


def test_ctrl_c_under_xdist_keeps_the_calls_workers_made_ahead_for_the_rerun(
    tmp_path: Path, clean: dict[tuple[Any, ...], dict[str, Any]]
) -> None:
    """Each worker is handed the first cases first; their calls get no answer, so no item is
    ever reported, while each worker makes the calls of its share of the other cases ahead
    (the med runs, whose samples include the j+h calls). A run made ahead is let go once its
    replies are cached (flat memory), so after Ctrl-C no item is reported, and the cache holds
    every call made ahead: nothing is left claimed or half written."""
    cache = tmp_path / "cache"
    in_run_order = sorted(dev_cases(), key=lambda c: (c.scenario, c.size, c.id))
    held, answered = in_run_order[:2], in_run_order[2:]
    _HoldingHandler.held = tuple(c.request for c in held)
    _HoldingHandler.release = threading.Event()
    with tiny_server(_HoldingHandler) as url:
        run = start_pytest(
            tmp_path, f"--revprop-model={MODEL}", f"--revprop-api-base={url}", *SELECTION,
            "--revprop-concurrency=8", "--revprop-timeout=300", *FAST_RETRIES, "-n", "2", "-v",
        )  # fmt: skip
        try:
            _wait_for(lambda: len(cache_entries(cache)) >= 4 * len(answered), run)
            time.sleep(1.0)  # the last replies reach their method runs
            ctrl_c(run)
            interrupted = time.time()
            run.wait(60)
        finally:
            _HoldingHandler.release.set()
            if run.poll() is None:
                run.kill()
    output = (tmp_path / "output.txt").read_text()
    assert run.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    assert " PASSED " not in output and " FAILED " not in output  # no item was reported
    assert time.time() - interrupted < 60
    assert len(cache_entries(cache)) >= 4 * len(answered)
    assert not list(cache.rglob("*.claim")) and not list(cache.rglob("*.tmp"))


# ------------------------------------------------------------------------------ hostile replies


class _BadBytesHandler(_TinyHandler):
    """Answers every chat request with a completion whose body is not valid UTF-8."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        message = b'{"role": "assistant", "content": "[] \xff\xfe"}'
        self._send(
            200,
            b'{"id": "x", "object": "chat.completion", "created": 0, "model": "fake", "choices": '
            b'[{"index": 0, "message": ' + message + b', "finish_reason": "stop"}]}',
        )


NESTED = "[" * 100_000 + "]" * 100_000
HOSTILE_REPLIES: dict[int, dict[str, Any]] = {
    0: {"content": '[{"op": "replace", "path": "/x", "value": "2025-06', "finish_reason": "length"},
    1: {"content": "", "reasoning": '[{"op": "replace", "path": "/x", "value": "2025-06-10"}]'},
    2: {"content": "[" + " " * (10 * 1024 * 1024) + "]"},
    3: {"content": NESTED},
    4: {"content": '[{"op": "replace", "path": "/x", "value": NaN}]'},
    5: {"content": '[{"op": "replace", "path": "/x", "path": "/x", "value": 1}]'},
    6: {"content": "[] \ud800 lone surrogates \udfff"},
    7: {"content": '[{"op": "replace", "path": "/x", "value": Infinity}]'},
}


def test_hostile_replies_get_clear_categories_in_bounded_time(tmp_path: Path) -> None:
    rules = [{"seed": seed, **reply} for seed, reply in HOSTILE_REPLIES.items()]
    with FakeServer(rules=rules) as server:
        started = time.monotonic()
        case = dev_cases()[0]
        run = run_pytest(
            tmp_path,
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={server.base_url}",
            f"--revprop-cases={case.source}",
            "--revprop-split=all",
            "--revprop-method=j+h",
            "--revprop-seeds=0,1,2,3,4,5,6,7",
            *FAST_RETRIES,
        )
        elapsed = time.monotonic() - started
    assert elapsed < 120
    # model outcomes are failures, not errors
    assert counts(run) == {"failed": 8}, run.stdout[-3000:]
    rows = {r["seed"]: r for r in results(tmp_path)}
    got = {seed: (r["error"], r["valid"]) for seed, r in rows.items()}
    assert got == {
        0: ("truncated", False),
        1: ("no_patch", False),  # content only in the reasoning field
        2: ("no_patch", False),  # 10 MB is not searched
        3: ("no_patch", False),
        4: ("no_patch", False),  # NaN / Infinity / duplicate keys are not JSON we accept
        5: ("no_patch", False),
        6: (None, True),  # the lone surrogates become U+FFFD; "[]" is a valid (empty) patch
        7: ("no_patch", False),
    }
    assert "not searched" in rows[2]["reason"]
    summary = json.loads((tmp_path / "report" / "results.json").read_text())["summary"][0]
    assert summary["truncated"] == 1 and summary["errors"] == 0 and summary["invalid"] == 7
    replies = {sample["seed"]: sample["replies"][0] for sample in read_samples(tmp_path / "report")}
    assert replies[6]["content"] == "[] \ufffd lone surrogates \ufffd"
    assert (
        replies[1]["content"] == "" and replies[1]["reasoning"] == HOSTILE_REPLIES[1]["reasoning"]
    )


def test_a_body_that_is_not_utf8_is_a_call_failure_and_is_not_cached(tmp_path: Path) -> None:
    """The server is broken, not the model: a clear infrastructure error after bounded retries."""
    with tiny_server(_BadBytesHandler) as url:
        run = run_pytest(
            tmp_path,
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={url}",
            f"--revprop-cases={dev_cases()[0].source}",
            "--revprop-split=all",
            "--revprop-seeds=0",
            "--revprop-retries=2",
            "--revprop-retry-delay=0.01",
        )
    assert counts(run) == {"errors": 1}, run.stdout[-3000:]
    [row] = results(tmp_path)
    assert (
        row["error"] == "call_failed"
        and "gave up after 2 attempts" in row["reason"]
        and "utf-8" in row["reason"]
    )
    assert not cache_entries(tmp_path / "cache")


# ------------------------------------------------------------------------------ secrets, modes, ids

OPENAI_KEY = "sk-plant-0c9a5e7b1d3f4a2e"
# a name redaction cannot guess: the configured key must still be hidden
ODD_VAR = "MY_LLM_CREDENTIAL"
ODD_SECRET = "plant-cred-7e1f0b2c9d8a"
HOSTILE_IDS = [
    "../../escaped/10",
    "/etc/revprop-abs/10",
    "odd:: id\t<>&\"'|*?\\ ✓/..",
    "a/" + "../" * 40 + "deep",
]


class _EchoHandler(_TinyHandler):
    """A provider that rejects the key and echoes the request, key included, in the error."""

    seen: list[str] = []  # noqa: RUF012

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode("utf-8")
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        self.seen.append(key)
        message = f"Incorrect API key provided: {key}. Request was: {body[:200]}"
        error = {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}
        self._send(401, json.dumps({"error": error}).encode("utf-8"))


@pytest.fixture
def echo_server() -> Iterator[str]:
    _EchoHandler.seen = []
    with tiny_server(_EchoHandler) as url:
        yield url


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_keys_never_leak_files_are_private_and_hostile_ids_write_nothing_outside(
    tmp_path: Path, echo_server: str, transport: str
) -> None:
    run_dir = tmp_path / "project" / "run"
    cases_dir = write_cases(tmp_path / "cases-src", [])
    for n, case_id in enumerate(HOSTILE_IDS):
        data = invoice_case().to_dict() | {"id": case_id}
        (cases_dir / f"case{n}.json").write_text(json.dumps(data), encoding="utf-8")
    with FakeServer(default={"content": "[]"}) as good:
        run_dir.mkdir(parents=True)
        (run_dir / "revprop.toml").write_text(
            f'[models.good]\nlitellm_model = "{MODEL}"\napi_bases = ["{good.base_url}"]\n'
            f'[models.echo-env]\nlitellm_model = "{MODEL}"\napi_bases = ["{echo_server}"]\n'
            f'[models.echo-cred]\nlitellm_model = "{MODEL}"\napi_bases = ["{echo_server}"]\napi_key_env = "{ODD_VAR}"\n',
            encoding="utf-8",
        )
        before = {p for p in tmp_path.rglob("*")}
        options = [f"--revprop-cases={cases_dir}", "--revprop-split=all", "--revprop-seeds=0", *FAST_RETRIES,
                   "--log-level=DEBUG", "-rA", "-v", f"--junitxml={run_dir / 'junit.xml'}"]  # fmt: skip
        env = _env(OPENAI_API_KEY=OPENAI_KEY, **{ODD_VAR: ODD_SECRET}, **TRANSPORTS[transport])
        run = run_pytest(run_dir, "--revprop-model=good", *options, env=env, figures=True)
        # the cases differ only in their ids: one cache entry serves all
        assert good.stats()["count"] == 1
    assert counts(run) == {"failed": len(HOSTILE_IDS)}, run.stdout[-3000:]
    assert {r["case"] for r in results(run_dir)} == set(HOSTILE_IDS)
    assert len(list(ET.parse(run_dir / "junit.xml").getroot().iter("testcase"))) == len(HOSTILE_IDS)
    # a provider that refuses the key stops the run at its first answer, each key's run alike
    refused = [run_pytest(run_dir, f"--revprop-model={name}", *options, env=env, figures=True)
               for name in ("echo-env", "echo-cred")]  # fmt: skip
    # both keys were sent, and echoed back
    assert {OPENAI_KEY, ODD_SECRET} <= set(_EchoHandler.seen)
    for stopped in refused:
        assert stopped.returncode == pytest.ExitCode.USAGE_ERROR, stopped.stdout[-3000:]
        (line,) = {
            line.strip(" !")
            for line in (stopped.stdout + stopped.stderr).splitlines()
            if "the provider refused the credentials (" in line
        }
        assert "401" in line and "***" in line
        (row,) = results(run_dir)
        assert row["error"] == "call_failed" and "401" in row["reason"] and "***" in row["reason"]

    written = {p for p in tmp_path.rglob("*")} - before
    allowed = (run_dir / "report", run_dir / "cache", run_dir / "junit.xml")
    outside = [p for p in written if not any(p == a or a in p.parents for a in allowed)]
    assert written and outside == [], sorted(outside)
    assert {p.name for p in (run_dir / "report").iterdir()} >= {
        "results.json",
        "samples.jsonl",
        "summary.md",
        "report.html",
    }
    for folder in (run_dir / "report", run_dir / "cache"):
        for path in [folder, *folder.rglob("*")]:
            mode = path.stat().st_mode & 0o777
            assert mode == (0o700 if path.is_dir() else 0o600), f"{path}: {oct(mode)}"

    texts = [text for r in (run, *refused) for text in (r.stdout, r.stderr)] + [
        p.read_bytes().decode("utf-8", "replace") for p in written if p.is_file()
    ]
    for secret in (OPENAI_KEY, ODD_SECRET):
        assert not any(secret in text for text in texts), secret
