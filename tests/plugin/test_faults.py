"""Faults end to end, in-process: the real plugin run by ``pytester.runpytest`` against fake
servers on 127.0.0.1.

Server faults, a server that never recovers, hostile replies, hostile case ids, planted API keys
and file modes. Every faulty run must end with the scripted responder's reference results
(``helpers.faulty_runs``). Runs killed or interrupted by Ctrl-C, and ``-W error`` in a fresh
process, are in tests/e2e/test_interrupted_runs.py.
"""

from __future__ import annotations

import json
import os
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
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
    clean_outcomes,
    counts,
    dev_cases,
    fault_count,
    inherited_environment,
    item_key,
    outcomes,
    received,
    responder_reply,
    results,
    retries,
    run_options,
    selection,
    tiny_server,
)
from helpers.handmade_cases import invoice_case, write_cases

from pytest_revprop.core.prompts import default_prompts
from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.reporting.samples import read_samples
from pytest_revprop.testing.fakeserver import FakeServer


@dataclass(frozen=True)
class Run:
    """What an in-process run ended with and printed."""

    returncode: int
    stdout: str
    stderr: str


RunPytest = Callable[..., Run]


@pytest.fixture
def run_pytest(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> RunPytest:
    """``run_pytest(run_dir, *args, env=None, figures=False)``: a run in ``run_dir`` (its
    working folder and rootdir), without the test's keys and revprop settings in the
    environment, plus ``env``."""
    for name in list(os.environ):
        if inherited_environment(name) and not name.startswith("PYTEST_"):  # pytester's own
            monkeypatch.delenv(name)

    def run(
        run_dir: Path, *args: str, env: dict[str, str] | None = None, figures: bool = False
    ) -> Run:
        run_dir.mkdir(parents=True, exist_ok=True)
        with monkeypatch.context() as scoped:
            scoped.chdir(run_dir)
            for name, value in (env or {}).items():
                scoped.setenv(name, value)
            result = pytester.runpytest(*run_options(run_dir, *args, figures=figures))
        return Run(int(result.ret), result.stdout.str(), result.stderr.str())

    return run


@pytest.fixture(scope="module")
def clean() -> dict[tuple[Any, ...], dict[str, Any]]:
    return clean_outcomes()


# ------------------------------------------------------------------------------ server faults


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_faulty_server_gives_the_clean_results(
    run_pytest: RunPytest,
    tmp_path: Path,
    clean: dict[tuple[Any, ...], dict[str, Any]],
    transport: str,
) -> None:
    faults = {
        "first_attempt_fail_fraction": 0.5,
        "kinds": ["429", "503", "reset", "malformed", "hang"],
        "retry_after_s": 0.05,
        "hang_s": 10,
    }
    with FakeServer(responder=RESPONDER, faults=faults) as server:
        run = run_pytest(
            tmp_path,
            f"--revprop-model={MODEL}",
            f"--revprop-api-base={server.base_url}",
            *selection(),
            *FAST_RETRIES,
            "--revprop-timeout=2",
            env=TRANSPORTS[transport],
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
    run_pytest: RunPytest, tmp_path: Path, clean: dict[tuple[Any, ...], dict[str, Any]]
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
            *selection(),
            *FAST_RETRIES,
        )
        assert down.stats()["statuses"] == {"503": n * 4}  # only the seed-3 calls, 4 attempts each
    rows = {item_key(r): r for r in results(tmp_path)}
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
            *selection(),
            *FAST_RETRIES,
        )
        assert {seed for _, seed in received(back)} == {3} and len(received(back)) == n
    assert "errors" not in counts(rerun)
    assert outcomes(results(tmp_path)) == clean


@pytest.mark.slow  # two xdist workers per run
def test_under_xdist_errored_items_report_briefly_and_a_refused_key_stops_the_run(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    with FakeServer(responder=RESPONDER, faults={"always_fail": "503"}) as down:
        run = run_pytest(tmp_path / "down", f"--revprop-model={MODEL}", f"--revprop-api-base={down.base_url}",
                         *selection(), *FAST_RETRIES, "-n", "2", env=TRANSPORTS["direct"])  # fmt: skip
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
        stopped = run_pytest(tmp_path / "refused", f"--revprop-model={MODEL}", f"--revprop-api-base={refusing.base_url}",
                             *selection(), "--revprop-concurrency=1", "-n", "2", env=TRANSPORTS["direct"])  # fmt: skip
        sent = refusing.stats()["count"]
    assert stopped.returncode == pytest.ExitCode.USAGE_ERROR, stopped.stdout[-3000:]
    assert "the provider refused the credentials (HTTP 401" in stopped.stdout
    assert "OPENAI_API_KEY is not set" in stopped.stdout
    # each worker sends the first call it has in flight (one at a time), then nothing more
    assert sent <= 2


# ------------------------------------------------------------------------------ hostile replies


class _BadBytesHandler(TinyHandler):
    """Answers every chat request with a completion whose body is not valid UTF-8."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        message = b'{"role": "assistant", "content": "[] \xff\xfe"}'
        self.send_body(
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


def test_hostile_replies_get_clear_categories_in_bounded_time(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    rules = [{"seed": seed, **reply} for seed, reply in HOSTILE_REPLIES.items()]
    with FakeServer(rules=rules) as server:
        started = time.process_time()  # the run's CPU time: the server's thread and the run's
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
        cpu_s = time.process_time() - started
    assert cpu_s < 60  # the 10 MB reply and the 100,000-deep nesting are not searched
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


def test_a_body_that_is_not_utf8_is_a_call_failure_and_is_not_cached(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
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


class _EchoHandler(TinyHandler):
    """A provider that rejects the key and echoes the request, key included, in the error."""

    seen: list[str] = []  # noqa: RUF012

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode("utf-8")
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        self.seen.append(key)
        message = f"Incorrect API key provided: {key}. Request was: {body[:200]}"
        error = {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}
        self.send_body(401, json.dumps({"error": error}).encode("utf-8"))


@pytest.fixture
def echo_server() -> Iterator[str]:
    _EchoHandler.seen = []
    with tiny_server(_EchoHandler) as url:
        yield url


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_keys_never_leak_files_are_private_and_hostile_ids_write_nothing_outside(
    run_pytest: RunPytest, tmp_path: Path, echo_server: str, transport: str
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
        env = {"OPENAI_API_KEY": OPENAI_KEY, ODD_VAR: ODD_SECRET, **TRANSPORTS[transport]}
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
