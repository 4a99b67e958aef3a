"""Runs through real processes that the in-process tests cannot stand in for: pytest killed by
SIGKILL or stopped by Ctrl-C (once and twice, with and without xdist) against fake servers, and
``-W error`` in a fresh process, where litellm's first call builds its validators.

Every interrupted run must keep exactly the scripted responder's reference results of what
finished (``helpers.faulty_runs``); tests/plugin/test_faults.py runs the other faults in-process.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.faulty_runs import (
    FAST_RETRIES,
    MODEL,
    RESPONDER,
    TRANSPORTS,
    TinyHandler,
    cache_entries,
    cached_requests,
    clean_outcomes,
    counts,
    dev_cases,
    inherited_environment,
    items_answered_by,
    outcomes,
    received,
    results,
    retries,
    run_options,
    selection,
    tiny_server,
)

from pytest_revprop.plugin.interruption import SECOND_NOTE, STOPPING_NOTE
from pytest_revprop.testing.fakeserver import FakeServer
from pytest_revprop.testing.responder import respond

pytestmark = pytest.mark.slow


def _env(**extra: str) -> dict[str, str]:
    """The environment of a child run: no inherited pytest settings, no real keys."""
    keep = {k: v for k, v in os.environ.items() if not inherited_environment(k)}
    return {**keep, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **extra}


def _command(run_dir: Path, *args: str, figures: bool) -> list[str]:
    return [sys.executable, "-m", "pytest", *run_options(run_dir, *args, figures=figures)]


def run_pytest(
    run_dir: Path, *args: str, env: dict[str, str] | None = None, figures: bool = False
) -> subprocess.CompletedProcess[str]:
    run_dir.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        _command(run_dir, *args, figures=figures),
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
    with (run_dir / "output.txt").open("w") as out:
        return subprocess.Popen(
            _command(run_dir, *args, figures=figures), cwd=run_dir, env=_env(), stdout=out,
            stderr=subprocess.STDOUT, text=True, preexec_fn=_as_at_a_terminal,
        )  # fmt: skip


def ctrl_c(process: subprocess.Popen[str]) -> None:
    """SIGINT to the run's process group, as a Ctrl-C at a terminal sends it."""
    with contextlib.suppress(ProcessLookupError):  # the run has ended
        os.killpg(process.pid, signal.SIGINT)


def _wait_for(condition: Any, process: subprocess.Popen[str], timeout: float = 240.0) -> None:
    """Polls ``condition`` while the run goes on (the timeout only stops a run that hangs)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def clean() -> dict[tuple[Any, ...], dict[str, Any]]:
    return clean_outcomes()


def test_warnings_as_errors_leave_the_calls_alone(
    tmp_path: Path, clean: dict[tuple[Any, ...], dict[str, Any]]
) -> None:
    """``-W error`` (common in CI) turns every warning into an exception, also the notes pydantic
    emits while litellm builds validators on its first call: they once failed every call."""
    with FakeServer(responder=RESPONDER) as server:
        run = run_pytest(tmp_path, "-W", "error", f"--revprop-model={MODEL}", f"--revprop-api-base={server.base_url}",
                         *selection(), *FAST_RETRIES, env=_env(**TRANSPORTS["litellm"]))  # fmt: skip
    # the responder's wrong answers fail; nothing errors
    assert run.returncode == 1, run.stdout[-3000:]
    assert "errors" not in counts(run) and retries(run) == 0
    assert outcomes(results(tmp_path)) == clean


# ------------------------------------------------------------------------------ interruption
# Two requests at a time, so a run is slow enough to interrupt; a generous per-attempt timeout.
THROTTLED = ["--revprop-concurrency=2", "--revprop-timeout=60", *FAST_RETRIES]


def test_sigkill_mid_run_loses_no_finished_call_and_the_rerun_finishes_the_rest(
    tmp_path: Path, clean: dict[tuple[Any, ...], dict[str, Any]]
) -> None:
    cache = tmp_path / "cache"
    # two calls at a time, half a second each: the run is still going when it is killed
    with FakeServer(responder=RESPONDER, latency_s=0.5) as server:
        args = [
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={server.base_url}",
            *selection(),
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
    # two calls a second: a whole run takes 8 s
    with FakeServer(responder=RESPONDER, latency_s=1.0) as server:
        run = start_pytest(
            tmp_path,
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={server.base_url}",
            *selection(),
            *THROTTLED,
        )
        try:
            _wait_for(lambda: len(cache_entries(cache)) >= 4, run)
            finished = items_answered_by(cached_requests(cache))
        finally:
            # From now on the server answers nothing within the test's time: the run ends
            # only if it stops without waiting for the calls in flight (promptly).
            server.app.latency_s = 3600.0
            ctrl_c(run)
            run.wait(120)
        calls_made = server.stats()["count"]
    output = (tmp_path / "output.txt").read_text()
    assert run.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
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
            *selection(),
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
            run.wait(120)
    text = output.read_text()
    assert run.returncode == pytest.ExitCode.INTERRUPTED, text[-3000:]
    assert SECOND_NOTE in text and "revprop summary" in text, text[-3000:]
    assert (tmp_path / "report" / "report.html").is_file()
    rows = results(tmp_path)
    assert f"interrupted; the reports hold the {len(rows)} items that finished" in text
    assert finished and finished <= set(outcomes(rows))
    assert all(clean[k] == v for k, v in outcomes(rows).items())


class _HoldingHandler(TinyHandler):
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
        self.send_body(200, json.dumps({**data, "choices": [choice]}).encode())


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
            tmp_path, f"--revprop-model={MODEL}", f"--revprop-api-base={url}", *selection(),
            "--revprop-concurrency=8", "--revprop-timeout=300", *FAST_RETRIES, "-n", "2", "-v",
        )  # fmt: skip
        try:
            # Ctrl-C as soon as every call made ahead is cached: whatever is still on its way
            # to a method run then, nothing may be left claimed or half written
            _wait_for(lambda: len(cache_entries(cache)) >= 4 * len(answered), run)
            ctrl_c(run)
            run.wait(120)
        finally:
            _HoldingHandler.release.set()
            if run.poll() is None:
                run.kill()
    output = (tmp_path / "output.txt").read_text()
    assert run.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    assert " PASSED " not in output and " FAILED " not in output  # no item was reported
    assert len(cache_entries(cache)) >= 4 * len(answered)
    assert not list(cache.rglob("*.claim")) and not list(cache.rglob("*.tmp"))
