"""Throughput benchmark: real pytest sessions against a latency-simulating server.

    python benchmarks/throughput.py [--split dev|test|both] [--latency 0.2] [--slots 32]
                                    [--workers 0,2,4] [--concurrency 32] [--repeat 3]
                                    [--transport litellm|direct] [--model hosted_vllm/fake]
                                    [--figures] [--keep DIR]
                                    [--json FILE]

For each split and each worker count it runs ``python -m pytest --revprop-method=paper ...``
(9 methods, k=5, the 5 paper seeds) against a FakeServerProcess on 127.0.0.1 that answers with
the scripted responder (``pytest_revprop.testing.responder:respond``), holds every request ``--latency`` seconds and
works on at most ``--slots`` requests at once (the rest queue, as in a vLLM batch). Then:

- cold run (empty cache): distinct requests the server received against the protocol's floor
  (60 per case), identical requests sent twice, peak requests in flight at the server, and the
  calls window against the ideal schedule ``max(ceil(calls / slots), 5) x latency``;
- warm reruns (every call a cache hit; the server must receive nothing) interleaved with runs
  of a generated file of as many trivial test items: milliseconds per item of each (the best
  of ``--repeat`` runs) and their ratio, and the whole-process CPU time per item of each;
- peak resident memory of the pytest process tree (sampled with psutil every 50 ms).

Phases come from the ``revprop_bench_phases`` plugin loaded into every pytest process.
"Start-up" is process start to the end of collection (the runner starts there; under xdist,
the last worker's). The "calls window" runs from there to the end of the run loop (the last
item's result). "Reports" is pytest_sessionfinish (results.json, samples.jsonl, summary.md,
and the figures with ``--figures``); "terminal" is the terminal summary after it, mostly
pytest's listing of every failure. The per-item figure is collection plus run loop over the
number of items (under xdist: from the last worker's end of collection), the same for the
revprop and the trivial runs; start-up, reports and terminal are reported, not included.
Every run has random order, the cache provider and hypothesis' plugin off (QUIET_PLUGINS).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from pytest_revprop.core.cases import BENCHMARK_DIR, load_cases
from pytest_revprop.testing.fakeserver import FakeServerProcess

HERE = Path(__file__).resolve().parent
PHASES_PLUGIN = "revprop_bench_phases"
QUIET_PLUGINS = ("-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")
"""Off in every run, revprop or trivial: random order, the .pytest_cache folder, and
hypothesis' plugin, which imports hypothesis in each process's terminal summary (1 s, 5 s
with four xdist workers on two cores)."""
K = 5
SEEDS = (0, 42, 84, 126, 168)
METHODS = 9
LONGEST_CHAIN = K  # reflect: one sample, then k - 1 rounds, one after the other


def floor_calls_per_case(seeds: Sequence[int] = SEEDS, k: int = K) -> int:
    """Distinct calls one case needs for all nine methods: j, h and the reflection rounds
    and the selection call per seed, plus every distinct j+h sample seed (s..s+k-1)."""
    samples = {s + i for s in seeds for i in range(k)}
    return 2 * len(seeds) + len(samples) + (k - 1) * len(seeds) + len(seeds)


def ideal_seconds(calls: int, slots: int, latency: float) -> float:
    return max(math.ceil(calls / slots), LONGEST_CHAIN) * latency


# ------------------------------------------------------------------------------ processes


class TreeSampler(threading.Thread):
    """Peak RSS of a process and its descendants: the largest sum, the largest process, and
    each process's own peak (``peak_by_pid``)."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.peak_total = 0
        self.peak_process = 0
        self.peak_by_pid: dict[int, int] = {}
        self.commands: dict[int, str] = {}
        self._stop_event = threading.Event()

    def run(self) -> None:
        try:
            root = psutil.Process(self.pid)
        except psutil.NoSuchProcess:
            return
        while not self._stop_event.is_set():
            try:
                procs = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                return
            rss = []
            for proc in procs:
                try:
                    rss.append(proc.memory_info().rss)
                except psutil.Error:
                    continue
                self.peak_by_pid[proc.pid] = max(self.peak_by_pid.get(proc.pid, 0), rss[-1])
                if proc.pid not in self.commands:
                    try:
                        self.commands[proc.pid] = " ".join(proc.cmdline())
                    except psutil.Error:
                        self.commands[proc.pid] = ""
            if rss:
                self.peak_total = max(self.peak_total, sum(rss))
                self.peak_process = max(self.peak_process, max(rss))
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


@dataclass
class Session:
    """One finished pytest process: wall time, exit code, phases, memory, output tail."""

    wall_s: float
    exit_code: int
    started: float
    phases: dict[str, dict[str, Any]]
    peak_total_rss: int
    peak_process_rss: int
    cpu_s: float
    tail: str
    peak_by_pid: dict[int, int] = field(default_factory=dict)
    commands: dict[int, str] = field(default_factory=dict)

    def stamp(self, name: str, role: str = "main") -> float:
        """Seconds from the process start to the stamp ``name`` of ``role``."""
        return float(self.phases[role]["stamps"][name]) - self.started

    def workers(self) -> list[str]:
        return [role for role in self.phases if role != "main"] or ["main"]

    def startup_s(self) -> float:
        """Until collection ended everywhere (the runner starts scheduling there)."""
        return max(self.stamp("collect_end", role) for role in self.workers())

    def window_s(self) -> float:
        """From the end of start-up to the last item's result (the run loop's end)."""
        return self.stamp("loop_end") - self.startup_s()

    def reports_s(self) -> float:
        """pytest_sessionfinish: results.json, samples.jsonl, summary.md (and figures)."""
        return self.stamp("finish_end") - self.stamp("finish_start")

    def terminal_s(self) -> float:
        """The terminal summary (pytest's listing of every failure, the revprop tables)."""
        return self.stamp("unconfigure") - self.stamp("finish_end")

    def per_item_s(self, items: int) -> float:
        """Seconds per item from the start of collection to the end of the run loop. Under
        xdist, from the moment the last worker finished collecting (the controller starts
        handing out items then) to the controller's end of loop."""
        roles = self.workers()
        start = self.stamp("collect_start") if roles == ["main"] else self.startup_s()
        return (self.stamp("loop_end") - start) / items

    def summary_line(self) -> str:
        """pytest's last line ("N failed, M passed in S s")."""
        lines = [
            line
            for line in self.tail.splitlines()
            if " in " in line and ("passed" in line or "failed" in line)
        ]
        return lines[-1].strip("= ") if lines else ""


def run_pytest(args: Sequence[str], cwd: Path, work: Path, label: str) -> Session:
    phases_dir = work / f"phases-{label}"
    shutil.rmtree(phases_dir, ignore_errors=True)
    phases_dir.mkdir(parents=True)
    env = dict(os.environ)
    env["REVPROP_BENCH_PHASES"] = str(phases_dir)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH", "")]))
    env.pop("REVPROP_ORACLE_CASES", None)
    command = [sys.executable, "-m", "pytest", "-p", PHASES_PLUGIN, *QUIET_PLUGINS, *args]
    out_path = work / f"{label}.out"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with out_path.open("w", encoding="utf-8") as out:
        started = time.time()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        sampler = TreeSampler(process.pid)
        sampler.start()
        code = process.wait()
        wall = time.time() - started
        sampler.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    phases = {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(phases_dir.glob("*.json"))
    }
    text = out_path.read_text(encoding="utf-8", errors="replace")
    if "main" not in phases:
        raise SystemExit(f"{label}: pytest did not finish normally (exit {code}):\n{text[-3000:]}")
    return Session(
        wall,
        code,
        started,
        phases,
        sampler.peak_total,
        sampler.peak_process,
        cpu,
        text[-2000:],
        sampler.peak_by_pid,
        sampler.commands,
    )


def server_calls(server: FakeServerProcess) -> dict[str, int]:
    """Requests the server received since the last reset: all, distinct bodies, peaks."""
    stats = server.stats()
    digests = [
        hashlib.sha256(json.dumps(b, sort_keys=True).encode()).hexdigest()
        for b in stats["requests"]
    ]
    return {
        "count": int(stats["count"]),
        "distinct": len(set(digests)),
        "duplicates": len(digests) - len(set(digests)),
        "peak_in_flight": int(stats["peak_in_flight"]),
        "peak_received": int(stats["peak_received"]),
    }


# ------------------------------------------------------------------------------ the benchmark


@dataclass
class Config:
    latency: float
    slots: int
    concurrency: int
    workers: list[int]
    splits: list[str]
    figures: bool
    repeat: int
    transport: str
    model: str
    work: Path
    cases_per_split: dict[str, int] = field(default_factory=dict)


def revprop_args(
    cfg: Config, url: str, split: str, cache: Path, report: Path, workers: int
) -> list[str]:
    args = [
        f"--revprop-model={cfg.model}", f"--revprop-api-base={url}", "--revprop-method=paper",
        f"--revprop-split={split}", f"--revprop-cache={cache}", f"--revprop-report={report}",
        f"--revprop-concurrency={cfg.concurrency}", f"--revprop-transport={cfg.transport}", "-q",
        "--revprop-figures" if cfg.figures else "--revprop-no-figures",
    ]  # fmt: skip
    return [*args, "-n", str(workers)] if workers else args


def trivial_file(folder: Path, items: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "test_trivial.py"
    path.write_text(
        f"import pytest\n\n\n@pytest.mark.parametrize('i', range({items}))\ndef test_trivial(i):\n    pass\n",
        encoding="utf-8",
    )
    return path


def measure(cfg: Config, server: FakeServerProcess, split: str, workers: int) -> dict[str, Any]:
    cases = cfg.cases_per_split[split]
    items = cases * METHODS * len(SEEDS)
    label = f"{split}-n{workers}"
    # pytest walks its working folder even when it collects no file there: keep it empty.
    run_dir, cache, report = (cfg.work / f"{name}-{label}" for name in ("run", "cache", "report"))
    shutil.rmtree(cache, ignore_errors=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    args = revprop_args(cfg, server.base_url, split, cache, report, workers)

    server.reset()
    load_before = os.getloadavg()
    cold = run_pytest(args, run_dir, cfg.work, f"{label}-cold")
    calls = server_calls(server)

    trivial_dir = cfg.work / f"trivial-{items}"
    trivial_file(trivial_dir, items)
    trivial_args = ["-q", *(["-n", str(workers)] if workers else []), "test_trivial.py"]
    server.reset()
    warms, trivials = [], []
    for attempt in range(cfg.repeat):  # interleaved, so both see the same machine load
        trivials.append(
            run_pytest(trivial_args, trivial_dir, cfg.work, f"{label}-trivial{attempt}")
        )
        warms.append(run_pytest(args, run_dir, cfg.work, f"{label}-warm{attempt}"))
    warm_calls = server_calls(server)
    load_after = os.getloadavg()
    warm = min(warms, key=lambda w: w.per_item_s(items))
    trivial = min(trivials, key=lambda t: t.per_item_s(items))
    warm_cpu = min(w.cpu_s for w in warms)
    trivial_cpu = min(t.cpu_s for t in trivials)

    floor = cases * floor_calls_per_case()
    ideal = ideal_seconds(calls["distinct"], cfg.slots, cfg.latency)
    return {
        "split": split, "workers": workers, "cases": cases, "items": items, "repeat": cfg.repeat,
        "cold_summary": cold.summary_line(), "warm_summary": warm.summary_line(),
        "trivial_summary": trivial.summary_line(),
        "calls": calls["count"], "distinct": calls["distinct"], "floor": floor,
        "duplicates": calls["duplicates"], "peak_in_flight": calls["peak_in_flight"],
        "peak_received": calls["peak_received"], "target_in_flight": min(cfg.slots, cfg.concurrency),
        "wall_s": cold.wall_s, "startup_s": cold.startup_s(), "window_s": cold.window_s(),
        "reports_s": cold.reports_s(), "terminal_s": cold.terminal_s(), "cold_cpu_s": cold.cpu_s,
        "ideal_s": ideal, "wall_ratio": cold.window_s() / ideal,
        "warm_requests": warm_calls["count"],
        "warm_item_ms": 1000 * warm.per_item_s(items), "trivial_item_ms": 1000 * trivial.per_item_s(items),
        "overhead_ratio": warm.per_item_s(items) / trivial.per_item_s(items),
        "warm_items_ms_all": [round(1000 * w.per_item_s(items), 3) for w in warms],
        "trivial_items_ms_all": [round(1000 * t.per_item_s(items), 3) for t in trivials],
        "warm_cpu_item_ms": 1000 * warm_cpu / items, "trivial_cpu_item_ms": 1000 * trivial_cpu / items,
        "cpu_ratio": warm_cpu / trivial_cpu,
        "warm_wall_s": warm.wall_s, "trivial_wall_s": trivial.wall_s,
        "warm_reports_s": warm.reports_s(), "warm_terminal_s": warm.terminal_s(),
        "trivial_terminal_s": trivial.terminal_s(), "warm_gc_s": warm.phases["main"]["gc_s"],
        "cold_peak_total_mib": cold.peak_total_rss / 2**20, "cold_peak_process_mib": cold.peak_process_rss / 2**20,
        "warm_peak_total_mib": max(w.peak_total_rss for w in warms) / 2**20,
        "warm_peak_process_mib": max(w.peak_process_rss for w in warms) / 2**20,
        "load_before": load_before, "load_after": load_after,
    }  # fmt: skip


def markdown(rows: Sequence[dict[str, Any]], cfg: Config) -> str:
    columns = [
        ("split", "{split}"), ("-n", "{workers}"), ("items", "{items}"),
        ("distinct calls / floor", "{distinct} / {floor}"), ("duplicates", "{duplicates}"),
        ("peak in flight / min(C, conc.)", "{peak_in_flight} / {target_in_flight}"),
        ("start-up (s)", "{startup_s:.1f}"), ("calls window (s)", "{window_s:.1f}"),
        ("ideal (s)", "{ideal_s:.1f}"), ("window / ideal", "{wall_ratio:.2f}"),
        ("reports + terminal (s)", "{reports_s:.1f} + {terminal_s:.1f}"), ("wall (s)", "{wall_s:.1f}"),
        ("warm ms/item", "{warm_item_ms:.2f}"), ("trivial ms/item", "{trivial_item_ms:.2f}"),
        ("overhead ratio", "{overhead_ratio:.2f}"),
        ("CPU ms/item, whole process: warm / trivial", "{warm_cpu_item_ms:.2f} / {trivial_cpu_item_ms:.2f}"),
        ("CPU ratio", "{cpu_ratio:.2f}"),
        ("peak RSS cold: all / largest (MiB)", "{cold_peak_total_mib:.0f} / {cold_peak_process_mib:.0f}"),
        ("peak RSS warm: all / largest (MiB)", "{warm_peak_total_mib:.0f} / {warm_peak_process_mib:.0f}"),
    ]  # fmt: skip
    lines = [
        "| " + " | ".join(name for name, _ in columns) + " |",
        "|" + "---|" * len(columns),
        *("| " + " | ".join(fmt.format(**r) for _, fmt in columns) + " |" for r in rows),
        "",
        f"L = {cfg.latency} s per request, C = {cfg.slots} server slots, --revprop-concurrency "
        f"{cfg.concurrency}, --revprop-model={cfg.model}, --revprop-transport={cfg.transport}, {os.cpu_count()} CPUs; warm and "
        f"trivial: best of {cfg.repeat} interleaved runs.",
    ]
    for r in rows:
        lines.append(
            f"- {r['split']} -n {r['workers']}: cold `{r['cold_summary']}`; warm `{r['warm_summary']}` "
            f"({r['warm_requests']} requests; reports {r['warm_reports_s']:.1f} s, terminal "
            f"{r['warm_terminal_s']:.1f} s, gc {r['warm_gc_s']:.1f} s; ms/item of each run {r['warm_items_ms_all']}); "
            f"trivial `{r['trivial_summary']}` ms/item {r['trivial_items_ms_all']} "
            f"(terminal {r['trivial_terminal_s']:.1f} s); cold CPU {r['cold_cpu_s']:.1f} s; requests received at once (queued included) "
            f"{r['peak_received']}; load average {r['load_before'][0]:.1f} before, {r['load_after'][0]:.1f} after"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    parser.add_argument(
        "--latency", type=float, default=0.2, help="seconds per request (default 0.2)"
    )
    parser.add_argument(
        "--slots", type=int, default=32, help="requests the server works on at once (default 32)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=32, help="--revprop-concurrency (default 32)"
    )
    parser.add_argument(
        "--workers", default="0,2,4", help="xdist worker counts, 0 = no xdist (default 0,2,4)"
    )
    parser.add_argument(
        "--figures", action="store_true", help="also write figures and the HTML report"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="warm and trivial runs, interleaved; the best counts (default 3)",
    )
    parser.add_argument(
        "--keep", type=Path, default=None, help="work folder to keep (default: a temporary one)"
    )
    parser.add_argument(
        "--json", type=Path, default=None, help="also write the figures as JSON here"
    )
    parser.add_argument(
        "--transport",
        choices=("litellm", "direct"),
        default="litellm",
        help="how pytest-revprop reaches the server (default litellm, as in production; "
        "direct: the opt-in plain POST, to see the scheduler without litellm's CPU)",
    )
    parser.add_argument(
        "--model",
        default="hosted_vllm/fake",
        help="litellm model name (default hosted_vllm/fake, litellm's route to a vLLM "
        "server; openai/fake takes its OpenAI-SDK route, about 2 ms more CPU a call)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="revprop-throughput-"))
    work.mkdir(parents=True, exist_ok=True)
    cfg = Config(
        latency=args.latency, slots=args.slots, concurrency=args.concurrency,
        workers=[int(w) for w in args.workers.split(",")],
        splits=["dev", "test"] if args.split == "both" else [args.split],
        figures=args.figures, repeat=args.repeat, transport=args.transport, model=args.model, work=work,
    )  # fmt: skip
    loaded = load_cases([BENCHMARK_DIR]).cases
    cfg.cases_per_split = {s: sum(1 for c in loaded if c.split == s) for s in ("dev", "test")}
    options = {
        "latency_s": cfg.latency,
        "slots": cfg.slots,
        "responder": "pytest_revprop.testing.responder:respond",
    }
    rows = []
    try:
        with FakeServerProcess(work, **options) as server:
            for split in cfg.splits:
                for workers in cfg.workers:
                    print(f"running {split} split, -n {workers} ...", file=sys.stderr, flush=True)
                    rows.append(measure(cfg, server, split, workers))
                    print(markdown(rows[-1:], cfg), file=sys.stderr, flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(markdown(rows, cfg))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
