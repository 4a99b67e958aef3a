"""Reports of a run stopped midway, run for real (pytest in a child process against the fake
server): records and replies reach the reports folder while the run goes on, so a run stopped
by Ctrl-C or killed leaves a readable partial report, and every sample's replies read back
(``read_samples``, ``revprop samples``) equal the replies in the response cache."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.child_pytest import DEV_PLUGINS_OFF
from helpers.handmade_cases import invoice_case, travel_case, write_cases

from pytest_revprop.llm.cache import ResponseCache
from pytest_revprop.reporting.replystore import REPLIES_DIR
from pytest_revprop.reporting.results import load_results
from pytest_revprop.reporting.samples import read_samples
from pytest_revprop.testing.fakeserver import FakeServer

pytestmark = pytest.mark.slow

SEEDS = "0,1,2,3,4,5,6,7"
REPLY = {"content": "[]", "reasoning": "long thoughts about request {digest} " * 40}


def _start(run_dir: Path, server: FakeServer, *extra: str) -> subprocess.Popen[str]:
    """A run in the background (about 200 calls at 2 at a time) whose Ctrl-C behaves as at a
    terminal."""
    cases = write_cases(run_dir / "cases", [invoice_case(), travel_case()])
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "OPENAI_", "REVPROP_")) and "KEY" not in k.upper()
    }
    command = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *DEV_PLUGINS_OFF, "-q",
        f"--rootdir={run_dir}", "--revprop-model=hosted_vllm/fake",
        f"--revprop-api-base={server.base_url}", f"--revprop-cases={cases}", "--revprop-split=all",
        "--revprop-method=all", f"--revprop-seeds={SEEDS}", "--revprop-concurrency=2",
        f"--revprop-cache={run_dir / 'cache'}", f"--revprop-report={run_dir / 'reports'}",
        "--no-revprop-figures", *extra,
    ]  # fmt: skip
    with (run_dir / "output.txt").open("w") as out:
        return subprocess.Popen(
            command, cwd=run_dir, env={**env, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
            stdout=out, stderr=subprocess.STDOUT, text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # fmt: skip


def _wait_for(condition: Callable[[], bool], process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 180
    while not condition():
        assert process.poll() is None, "the run ended before it could be stopped"
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.05)


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.is_file() else 0


def _replies_equal_the_cached_ones(samples: list[dict[str, Any]], cache: Path) -> int:
    """Checks every reply of ``samples`` against its cache file; returns how many."""
    store = ResponseCache(cache)
    checked = 0
    for sample in samples:
        for reply in sample["replies"]:
            cached = store.read(reply["key"])
            assert cached is not None, reply["key"]
            assert reply["content"] == cached.content and reply["reasoning"] == cached.reasoning
            assert reply["output_tokens"] == cached.output_tokens
            assert reply["reasoning"].startswith("long thoughts about request")
            checked += 1
    return checked


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["single", "xdist"])
def test_ctrl_c_leaves_a_readable_report_of_what_finished(tmp_path: Path, xdist: list[str]) -> None:
    reports = tmp_path / "reports"
    with FakeServer(default=REPLY, latency_s=0.2) as server:
        run = _start(tmp_path, server, *xdist)
        try:
            # records are on disk while the run goes on, not only at its end
            _wait_for(lambda: _lines(reports / "samples.jsonl") >= 5, run)
            assert any((reports / REPLIES_DIR).iterdir())
            assert not (reports / "results.json").exists()
        finally:
            run.send_signal(signal.SIGINT)
            run.wait(120)
        calls = server.stats()["count"]
    output = (tmp_path / "output.txt").read_text()
    assert run.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    document = load_results(reports / "results.json")
    rows = document["results"]
    assert document["meta"]["interrupted"] is True  # a partial run says so
    assert "**Partial run**" in (reports / "summary.md").read_text(encoding="utf-8")
    samples = list(read_samples(reports))
    assert 5 <= len(rows) == len(samples) < 2 * 9 * 8, output[-3000:]
    assert [(s["case"], s["method"], s["seed"]) for s in samples] == [
        (r["case"], r["method"], r["seed"]) for r in rows
    ]
    assert calls < 2 * 8 * 12  # stopped midway
    assert _replies_equal_the_cached_ones(samples, tmp_path / "cache") >= len(samples)


def test_a_killed_run_leaves_its_samples_and_replies_readable(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    with FakeServer(default=REPLY, latency_s=0.2) as server:
        run = _start(tmp_path, server)
        try:
            _wait_for(lambda: _lines(reports / "samples.jsonl") >= 5, run)
        finally:
            run.send_signal(signal.SIGKILL)
            run.wait(60)
    assert not (reports / "results.json").exists()
    printed = subprocess.run(
        [sys.executable, "-m", "pytest_revprop.cli", "samples", str(reports)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.splitlines()
    samples = [json.loads(line) for line in printed]
    assert len(samples) >= 5
    assert _replies_equal_the_cached_ones(samples, tmp_path / "cache") >= len(samples)
    one = samples[0]
    (again,) = read_samples(
        reports, case=one["case"], model=one["model"], method=one["method"], k=one["k"],
        seed=one["seed"],
    )  # fmt: skip
    assert again == one
