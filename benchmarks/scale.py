"""Paper-scale benchmark: memory, report sizes and report times of a run with many models.

    python benchmarks/scale.py [--models 2] [--reasoning-kb 8] [--workers 2] [--split test]
                               [--methods paper] [--latency 0.05] [--slots 64]
                               [--concurrency 32] [--transport litellm|direct] [--no-browser]
                               [--keep DIR] [--json FILE]

One real pytest session (``python -m pytest --revprop-method=paper``: the nine methods, k=5,
the 5 paper seeds, figures and HTML on) with ``--models`` models (``hosted_vllm/fake-1`` ...)
against a FakeServerProcess on 127.0.0.1 that answers with the scripted responder plus ``--reasoning-kb``
KB of reasoning per reply (``reasoning_responder.py``: distinct text per request), holds every
request ``--latency`` seconds and works on at most ``--slots`` at once. Then ``revprop report``
on the run's results.json into another folder, and the run's report.html in headless Chromium.

Printed: items, calls the server received and distinct calls (reply files in the cache), wall
time, the peak resident memory of each process of the run (controller, each xdist worker) and
of ``revprop report``, the size of every file and folder of the reports folder and of the
cache, the report-writing time (the session's ``pytest_sessionfinish``: results, samples,
summary, figures and HTML) and ``revprop report``'s time, and in Chromium the time until the
sample list shows and the time to open the last sample of the run with its replies and
reasoning (and whether its reasoning was there in full).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reasoning_responder import REASONING_BYTES_ENV
from throughput import HERE, Session, TreeSampler, run_pytest

from pytest_revprop.core.cases import BENCHMARK_DIR, load_cases
from pytest_revprop.testing.fakeserver import FakeServerProcess

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
MIB = 2**20


def folder_size(path: Path) -> tuple[int, int]:
    """(bytes, files) under ``path``."""
    total = files = 0
    for root, _, names in os.walk(path):
        for name in names:
            try:
                total += (Path(root) / name).stat().st_size
                files += 1
            except OSError:
                continue
    return total, files


def report_listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Name -> (bytes, files) of each file and folder directly in ``folder``."""
    out: dict[str, tuple[int, int]] = {}
    for entry in sorted(folder.iterdir()):
        if entry.is_dir():
            out[entry.name + "/"] = folder_size(entry)
        else:
            out[entry.name] = (entry.stat().st_size, 1)
    return out


def tally(summary_line: str) -> int:
    """Items in pytest's last line ("12 failed, 34 passed in 5.6s")."""
    return sum(int(n) for n, word in re.findall(r"(\d+) (\w+)", summary_line) if word != "warnings")


def process_peaks(session: Session) -> dict[str, float]:
    """Peak MiB per process of the run: main and gwN by their phase files, any other xdist
    worker as "worker", the largest of the rest (helpers) as "other"."""
    roles = {int(p["pid"]): role for role, p in session.phases.items()}
    peaks: dict[str, float] = {}
    workers = 0
    for pid, rss in sorted(session.peak_by_pid.items()):
        role = roles.get(pid)
        if role is None and "sys.stdin.readline" in session.commands.get(pid, ""):
            workers += 1
            role = f"worker {workers}"
        role = role or "other"
        peaks[role] = max(peaks.get(role, 0.0), rss / MIB)
    return peaks


def run_report_command(results: Path, out: Path) -> dict[str, Any]:
    """``revprop report RESULTS --out OUT``: wall time, peak RSS, exit status."""
    shutil.rmtree(out, ignore_errors=True)
    command = [
        sys.executable,
        "-m",
        "pytest_revprop.cli",
        "report",
        str(results),
        "--out",
        str(out),
    ]
    started = time.time()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sampler = TreeSampler(process.pid)
    sampler.start()
    _, err = process.communicate()
    sampler.stop()
    return {
        "wall_s": time.time() - started,
        "peak_mib": sampler.peak_process / MIB,
        "exit": process.returncode,
        "stderr": err.decode(errors="replace")[-500:],
    }


LIST_SHOWN = (
    "() => { const c = document.getElementById('sample-count');"
    " return c !== null && / of /.test(c.textContent || ''); }"
)
REPLIES_SHOWN = (
    "() => { const d = document.getElementById('sample-detail');"
    " if (d.hasAttribute('data-state')) return d.getAttribute('data-state') !== 'loading';"
    " const r = [...d.querySelectorAll('.reply-content')];"
    " return r.length > 0 && r.every(e => (e.textContent || '').length > 0); }"
)
LAST_GROUP = (
    "() => { for (const name of ['model', 'method']) {"
    " const select = document.getElementById('filter-' + name);"
    " select.value = select.options[select.options.length - 1].value;"
    " select.dispatchEvent(new Event('change')); } }"
)


def browse(report: Path, timeout_s: float) -> dict[str, Any]:
    """Seconds until report.html lists its samples, and to open the last sample of the last
    model's last method (the end of the run, where a size budget would bite first)."""
    from playwright.sync_api import sync_playwright

    timeout_ms = timeout_s * 1000
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            started = time.perf_counter()
            try:
                page.goto(report.as_uri(), timeout=timeout_ms)
                page.wait_for_function(LIST_SHOWN, timeout=timeout_ms)
            except Exception as exc:  # a page too big to open is a result, not a crash
                return {"load_s": None, "error": f"{type(exc).__name__}: {str(exc)[:200]}"}
            load_s = time.perf_counter() - started
            count = page.text_content("#sample-count")
            page.evaluate(LAST_GROUP)  # the last model's last method: the end of the run
            started = time.perf_counter()
            page.locator(".sample-item").last.click()
            page.wait_for_function(REPLIES_SHOWN, timeout=timeout_ms)
            open_s = time.perf_counter() - started
            replies = page.locator("#sample-detail .reply").count()
            reasoning = page.eval_on_selector_all(
                "#sample-detail details.reasoning pre", "els => els.map(e => e.textContent)"
            )
            full = len(reasoning) == replies and all(
                len(text) > 1000 and not text.startswith("[not embedded") for text in reasoning
            )
            return {
                "load_s": load_s,
                "open_s": open_s,
                "count": count,
                "replies": replies,
                "reasoning_reached": full,
                "errors": errors,
            }
        finally:
            browser.close()


def measure(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    models = [f"hosted_vllm/fake-{i + 1}" for i in range(args.models)]
    cache, report, run_dir = work / "cache", work / "reports", work / "run"
    for folder in (cache, report):
        shutil.rmtree(folder, ignore_errors=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    os.environ[REASONING_BYTES_ENV] = str(int(args.reasoning_kb * 1024))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(HERE), os.environ.get("PYTHONPATH", "")])
    )
    options = {
        "latency_s": args.latency,
        "slots": args.slots,
        "responder": "reasoning_responder:respond",
        "record_bodies": False,
    }
    with FakeServerProcess(work, **options) as server:
        pytest_args = [
            f"--revprop-model={','.join(models)}", f"--revprop-api-base={server.base_url}",
            f"--revprop-method={args.methods}", f"--revprop-split={args.split}", f"--revprop-cache={cache}",
            f"--revprop-report={report}", f"--revprop-concurrency={args.concurrency}",
            f"--revprop-transport={args.transport}", "-q", "-n", str(args.workers),
        ]  # fmt: skip
        print(f"running {len(models)} models, -n {args.workers} ...", file=sys.stderr, flush=True)
        session = run_pytest(pytest_args, run_dir, work, "scale")
        calls = int(server.stats()["count"])
    peaks = process_peaks(session)
    row: dict[str, Any] = {
        "models": len(models), "workers": args.workers, "split": args.split,
        "reasoning_kb": args.reasoning_kb, "exit": session.exit_code,
        "summary": session.summary_line(), "items": tally(session.summary_line()),
        "calls": calls, "distinct_calls": folder_size(cache)[1],
        "wall_s": session.wall_s, "reports_s": session.reports_s(),
        "terminal_s": session.terminal_s(),
        "peak_mib": dict(sorted(peaks.items(), key=lambda kv: str(kv[0]))),
        "peak_total_mib": session.peak_total_rss / MIB,
        "notes": [line for line in session.tail.splitlines() if line.startswith("revprop:")],
        "files": report_listing(report) if report.is_dir() else {},
        "cache": folder_size(cache),
    }  # fmt: skip
    results = report / "results.json"
    if results.is_file():
        print("revprop report ...", file=sys.stderr, flush=True)
        row["report_command"] = run_report_command(results, work / "report-command")
    if args.browser and (report / "report.html").is_file() and CHROMIUM.exists():
        print("opening report.html in Chromium ...", file=sys.stderr, flush=True)
        row["browser"] = browse(report / "report.html", args.browser_timeout)
    return row


def _size(nbytes: int) -> str:
    return f"{nbytes / MIB:.1f} MiB" if nbytes >= 100 * 1024 else f"{nbytes / 1024:.1f} KiB"


def markdown(row: dict[str, Any]) -> str:
    peaks = ", ".join(f"{role} {mib:.0f}" for role, mib in row["peak_mib"].items())
    lines = [
        f"### {row['models']} models, -n {row['workers']}, {row['split']} split, "
        f"{row['reasoning_kb']} KB reasoning per reply",
        "",
        "| what | measured |",
        "|---|---|",
        f"| items | {row['items']} (`{row['summary']}`, exit {row['exit']}) |",
        f"| calls received / distinct | {row['calls']} / {row['distinct_calls']} |",
        f"| wall time of the run | {row['wall_s']:.0f} s |",
        f"| peak RSS per process (MiB) | {peaks} (all together {row['peak_total_mib']:.0f}) |",
        f"| report writing at the end of the run | {row['reports_s']:.1f} s "
        f"(terminal summary {row['terminal_s']:.1f} s) |",
    ]
    command = row.get("report_command")
    if command:
        lines.append(
            f"| `revprop report` | {command['wall_s']:.1f} s, peak {command['peak_mib']:.0f} MiB"
            + (f", exit {command['exit']}: {command['stderr']!r}" if command["exit"] else "")
            + " |"
        )
    browser = row.get("browser")
    if browser:
        if browser.get("load_s") is None:
            lines.append(f"| report.html in Chromium | did not open: {browser['error']} |")
        else:
            lines.append(
                f"| report.html in Chromium | list shown after {browser['load_s']:.1f} s "
                f"({browser['count']}); last sample opened in {browser['open_s']:.2f} s, "
                f"{browser['replies']} replies, reasoning in full: "
                f"{'yes' if browser['reasoning_reached'] else 'no'}"
                + (f"; page errors {browser['errors']}" if browser["errors"] else "")
                + " |"
            )
    for note in row.get("notes", []):
        lines.append(f"| note | `{note}` |")
    for name, (nbytes, files) in row["files"].items():
        count = f" ({files} files)" if name.endswith("/") else ""
        lines.append(f"| `{name}` | {_size(nbytes)}{count} |")
    lines.append(f"| response cache | {_size(row['cache'][0])} ({row['cache'][1]} files) |")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=2, help="models in the run (default 2)")
    parser.add_argument(
        "--reasoning-kb", type=float, default=8.0, help="KB of reasoning per reply (default 8)"
    )
    parser.add_argument("--workers", type=int, default=2, help="xdist workers (default 2)")
    parser.add_argument(
        "--methods", default="paper", help="--revprop-method (default paper: the nine methods)"
    )
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per request")
    parser.add_argument("--slots", type=int, default=64, help="requests served at once")
    parser.add_argument("--concurrency", type=int, default=32, help="--revprop-concurrency")
    parser.add_argument("--transport", choices=("litellm", "direct"), default="litellm")
    parser.add_argument("--no-browser", dest="browser", action="store_false", help="skip Chromium")
    parser.add_argument("--browser-timeout", type=float, default=600.0, help="seconds")
    parser.add_argument("--keep", type=Path, default=None, help="work folder to keep")
    parser.add_argument("--json", type=Path, default=None, help="also write the row as JSON")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.split != "all":
        cases = [c for c in load_cases([BENCHMARK_DIR]).cases if c.split == args.split]
        print(f"{len(cases)} cases in the {args.split} split", file=sys.stderr)
    work = args.keep or Path(tempfile.mkdtemp(prefix="revprop-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        row = measure(args, work)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(markdown(row))
    if args.json:
        args.json.write_text(json.dumps(row, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
