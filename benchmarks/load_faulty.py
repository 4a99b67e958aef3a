"""Load run under faults: the whole test split with every method, against a faulty server.

    python benchmarks/load_faulty.py [--split test] [--fraction 0.3] [--kinds 429,503,reset]
                                     [--transport default|litellm] [--workers N] [--keep DIR] [--json FILE]

Two real pytest sessions (``python -m pytest --revprop-method=paper``: 9 methods, k=5, the 5 paper
seeds; 5,400 items on the test split), each with an empty cache, against a FakeServerProcess
on 127.0.0.1 that answers with the scripted responder (``pytest_revprop.testing.responder:respond``):

- clean: a healthy server;
- faulty: the same server, but ``--fraction`` of all first attempts fail with one of ``--kinds``
  (429 with Retry-After, 5xx, a connection reset, a malformed body, a hang).

It checks that both sessions record the same results (every field but ``latency_s``), that
no item errored, and reports per session: wall time, pytest's tally, the client's counters
(requests sent, retries, failures), the faults the server injected, and peak memory of the
pytest process (ru_maxrss from wait4) and of its whole process tree (sampled with psutil).
Exit status 0 when the results are identical, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from pytest_revprop.testing.fakeserver import FakeServerProcess

ORACLE = "pytest_revprop.testing.responder:respond"
MODEL = "openai/fake"


def _tree_rss(pid: int) -> int:
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            total += proc.memory_info().rss
    return total


def _run_session(run_dir: Path, base_url: str, args: argparse.Namespace) -> dict[str, Any]:
    """One pytest session; its tally, client counters, wall time and peak memory."""
    run_dir.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--rootdir={run_dir}",
        f"--revprop-model={MODEL}", f"--revprop-api-base={base_url}", "--revprop-method=paper",
        f"--revprop-split={args.split}", f"--revprop-cache={run_dir / 'cache'}",
        f"--revprop-report={run_dir / 'report'}", "--revprop-no-figures",
        f"--revprop-retries={args.retries}", f"--revprop-retry-delay={args.retry_delay}",
        f"--revprop-timeout={args.timeout}", f"--revprop-concurrency={args.concurrency}",
    ]  # fmt: skip
    if args.workers:
        command += ["-n", str(args.workers)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    if args.transport == "litellm":
        env["REVPROP_TRANSPORT"] = "litellm"
    output = run_dir / "output.txt"
    peak_tree = 0
    started = time.monotonic()
    with output.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            command, cwd=run_dir, env=env, stdout=out, stderr=subprocess.STDOUT
        )
        done = threading.Event()

        def sample() -> None:
            nonlocal peak_tree
            while not done.wait(0.2):
                peak_tree = max(peak_tree, _tree_rss(process.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        sampler.join()
    wall = time.monotonic() - started
    text = output.read_text(encoding="utf-8")
    last = text.strip().splitlines()[-1] if text.strip() else ""
    tally = {
        ("errors" if w == "error" else w): int(n)
        for n, w in re.findall(r"(\d+) (failed|passed|errors?)\b", last)
    }
    counters = re.search(r"calls \S+: (.*)", text)
    client = {}
    if counters:
        client = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", counters.group(1))}
    return {
        "exit_status": process.returncode,
        "wall_s": round(wall, 1),
        "tally": tally,
        "client": client,
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "peak_tree_rss_mb": round(peak_tree / 2**20, 1),
        "output": str(output),
    }


def _results(run_dir: Path) -> list[dict[str, Any]]:
    doc = json.loads((run_dir / "report" / "results.json").read_text(encoding="utf-8"))
    return list(doc["results"])


def _comparable(rows: list[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, Any]]:
    return {
        (r["case"], r["model"], r["method"], r["k"], r["seed"]): {
            k: v for k, v in r.items() if k != "latency_s"
        }
        for r in rows
    }


def _session_with_server(
    name: str, work: Path, args: argparse.Namespace, faults: dict[str, Any] | None
) -> dict[str, Any]:
    options: dict[str, Any] = {"responder": ORACLE, "record_bodies": False}
    if faults:
        options["faults"] = faults
    with FakeServerProcess(work, **options) as server:
        print(f"[{name}] server {server.base_url}; running pytest ...", flush=True)
        session = _run_session(work / name, server.base_url, args)
        stats = server.stats()
    session["server"] = {"attempts": stats["count"], "statuses": stats["statuses"]}
    print(f"[{name}] {json.dumps({k: v for k, v in session.items() if k != 'output'})}", flush=True)
    return session


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="test", choices=["dev", "test", "all"])
    parser.add_argument(
        "--fraction",
        type=float,
        default=0.3,
        help="share of first attempts that fail (default 0.3)",
    )
    parser.add_argument(
        "--kinds",
        default="429,503,reset",
        help="fault kinds, from 429,503,500,reset,malformed,hang",
    )
    parser.add_argument("--retries", type=int, default=5)
    parser.add_argument("--retry-delay", type=float, default=0.1)
    parser.add_argument(
        "--timeout", type=float, default=20.0, help="seconds per attempt (a hang costs this much)"
    )
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument(
        "--workers", type=int, default=0, help="pytest-xdist workers (default: none)"
    )
    parser.add_argument(
        "--transport",
        choices=["default", "litellm"],
        default="default",
        help="litellm: send every call through litellm (REVPROP_TRANSPORT=litellm)",
    )
    parser.add_argument("--keep", type=Path, default=None, help="keep the runs in this folder")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)

    faults = {"first_attempt_fail_fraction": args.fraction, "kinds": args.kinds.split(","),
              "retry_after_s": 0.2, "hang_s": args.timeout * 2}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="revprop-load-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        clean = _session_with_server("clean", work, args, None)
        faulty = _session_with_server("faulty", work, args, faults)
        clean_rows, faulty_rows = _results(work / "clean"), _results(work / "faulty")
        expected, got = _comparable(clean_rows), _comparable(faulty_rows)
        same = expected == got
        differing = sorted(
            str(k) for k in expected.keys() | got.keys() if expected.get(k) != got.get(k)
        )[:10]
    summary = {
        "split": args.split,
        "transport": args.transport,
        "items": len(clean_rows),
        "identical_results": same,
        "first_differences": differing,
        "call_failed": sum(r["error"] == "call_failed" for r in faulty_rows),
        "faults": faults,
        "clean": clean,
        "faulty": faulty,
    }
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0 if same and summary["call_failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
