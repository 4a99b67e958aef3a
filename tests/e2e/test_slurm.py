"""docs/scale-out.md's Slurm recipe on a real single-node Slurm (Debian's ``slurm-wlm`` and
``munge``, started here as root): the job script ``docs/scale-out.sbatch`` as the docs quote
it, the dependent combine, a task that dies, the combine that names its shard, the documented
rerun of that task alone (and of two tasks at once), the combine again, equal record for
record to one unsharded run.

What differs from a cluster: no GPU server (the test double, ``python -m
pytest_revprop.testing.fakeserver``, runs beside the cluster in place of ``revprop serve``), a
smaller run (``j+h`` on the dev split's size-10 cases, seeds 0 and 1) and a temporary folder
for ``/shared/revprop``. A task dies as a node would (SIGKILL, no report) through
``slurm_node_failure``, which the tasks load from the environment. One cluster serves the
module; it and everything it started are stopped whatever happens. Where Slurm cannot be
started (no packages, not root, a daemon that does not come up) the tests are skipped with
the reason. Run with ``-s`` to see the log: job ids, each task's shard, the combine lines, the
rerun's shard and request count.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers.child_pytest import DEV_PLUGINS_ADDOPTS, DEV_PLUGINS_OFF

from pytest_revprop.core.cases import select_cases
from pytest_revprop.testing.fakeserver import FakeServer, FakeServerProcess, message_text

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "scale-out.md"
SCRIPT = ROOT / "docs" / "scale-out.sbatch"
HERE = Path(__file__).resolve().parent
RESPONDER = "pytest_revprop.testing.responder:respond"
SMALLER_RUN = "--revprop-method=j+h --revprop-split=dev --revprop-sizes=10 --revprop-seeds=0,1"
"""In place of the script's ``--revprop-method=all`` (on the test split): 20 items, 20 calls."""
PROGRAMS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel")
DONE = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED"}
TIMING = ("latency_s", "cached", "key")
"""What may differ from the unsharded run's records: timings, cache flags, and the replies' cache
keys (a key names its server's address, and the unsharded run has a server of its own)."""


def log(line: str) -> None:
    print(f"slurm-e2e: {line}", flush=True)


# ------------------------------------------------------------------------------ the docs


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, re.S)


def doc_block(containing: str) -> str:
    """The one bash block of docs/scale-out.md that contains ``containing``."""
    blocks = [b for b in bash_blocks(DOC.read_text(encoding="utf-8")) if containing in b]
    assert len(blocks) == 1, f"{len(blocks)} bash blocks of {DOC.name} contain {containing!r}"
    return blocks[0]


def test_the_docs_quote_the_tested_script_whole() -> None:
    script = SCRIPT.read_text(encoding="utf-8")
    assert doc_block("#SBATCH --array=") == script
    assert "export REVPROP_SHARD_COUNT=4" in script and "#SBATCH --array=1-4" in script


def adapted_script(base_url: str, shared: Path) -> str:
    """The docs' script with the test double in place of the model server, a smaller run and
    ``shared`` in place of /shared/revprop; every replaced text must be there."""
    script = SCRIPT.read_text(encoding="utf-8")
    server = re.findall(r"^revprop serve .*?^done\n", script, re.S | re.M)
    assert len(server) == 1, "the script starts its model server in one block"
    for text in ("http://127.0.0.1:8000/v1", "--revprop-method=all", "/shared/revprop"):
        assert text in script, f"the script no longer has {text!r}"
    script = script.replace(server[0], "")
    script = script.replace("http://127.0.0.1:8000/v1", base_url)
    script = script.replace("--revprop-method=all", SMALLER_RUN)
    return script.replace("/shared/revprop", str(shared))


# ------------------------------------------------------------------------------ the cluster


class SlurmUnavailable(Exception):
    """Slurm cannot be started here; the message says why."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def program(name: str) -> str | None:
    """The path of ``name`` on PATH, or in the system folders where Debian puts daemons."""
    return shutil.which(name) or shutil.which(name, path=f"/usr/sbin{os.pathsep}/sbin")


def _missing() -> str | None:
    if sys.platform != "linux" or os.geteuid() != 0:
        return "a single-node Slurm is started as root on Linux; this is not root"
    absent = [name for name in PROGRAMS if program(name) is None]
    if absent:
        names = ", ".join(absent)
        return f"Slurm or munge is not installed (no {names}): apt-get install slurm-wlm munge"
    return None


class Slurm:
    """munged, slurmctld and slurmd in the foreground, as children of this process, on free
    ports with everything under ``home``: one node (``localhost``) with 4 CPUs and 4 GPUs
    (character devices that stand for them), one partition."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.conf = home / "slurm.conf"
        self.daemons: list[tuple[str, subprocess.Popen[bytes]]] = []

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a Slurm client command (and so of the jobs it submits)."""
        keep = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("PYTEST_", "SLURM_", "REVPROP_", "OPENAI_", "E2E_", "JOB_COMP"))
        }
        return {
            **keep,
            "SLURM_CONF": str(self.conf),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{keep.get('PATH', '')}",
            "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), keep.get("PYTHONPATH")) if p),
            "PYTEST_PLUGINS": "slurm_node_failure",
            **DEV_PLUGINS_ADDOPTS,
            "REVPROP_TRANSPORT": "direct",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            **extra,
        }

    def _configure(self) -> None:
        home = self.home
        home.chmod(0o711)  # munged wants its socket's folder searchable
        for name in ("state", "spool"):
            (home / name).mkdir()
        subprocess.run(
            [str(program("mungekey")), "--create", f"--keyfile={home / 'munge.key'}"], check=True,
            capture_output=True, timeout=30,
        )  # fmt: skip
        gpus = ",".join(["/dev/null", "/dev/zero", "/dev/full", "/dev/urandom"])
        (home / "gres.conf").write_text(
            f"AutoDetect=off\nNodeName=localhost Name=gpu File={gpus}\n"
        )
        settings = {
            "ClusterName": "revprop", "SlurmctldHost": "localhost(127.0.0.1)",
            "SlurmUser": "root", "SlurmdUser": "root",
            "SlurmctldPort": _free_port(), "SlurmdPort": _free_port(),
            "AuthType": "auth/munge", "CredType": "cred/munge",
            "AuthInfo": f"socket={home / 'munge.sock'}",
            "StateSaveLocation": home / "state", "SlurmdSpoolDir": home / "spool",
            "SlurmctldPidFile": home / "slurmctld.pid", "SlurmdPidFile": home / "slurmd.pid",
            "SlurmctldLogFile": home / "slurmctld.log", "SlurmdLogFile": home / "slurmd.log",
            "ProctrackType": "proctrack/linuxproc", "TaskPlugin": "task/none",
            "SwitchType": "switch/none", "MpiDefault": "none", "JobCompType": "jobcomp/none",
            "AccountingStorageType": "accounting_storage/none",
            "JobAcctGatherType": "jobacct_gather/none",
            "SchedulerType": "sched/builtin", "SelectType": "select/cons_tres",
            "SelectTypeParameters": "CR_CPU", "SlurmdParameters": "config_overrides",
            "ReturnToService": 2, "MinJobAge": 3600, "KillWait": 2, "GresTypes": "gpu",
            "SchedulerParameters": "batch_sched_delay=0,sched_min_interval=0",
        }  # fmt: skip
        lines = [f"{key}={value}" for key, value in settings.items()]
        lines.append("NodeName=localhost NodeAddr=127.0.0.1 CPUs=4 Gres=gpu:4 State=UNKNOWN")
        lines.append("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP")
        self.conf.write_text("\n".join(lines) + "\n")

    def _daemon(self, name: str, *command: str) -> None:
        with (self.home / f"{name}.out").open("wb") as out:
            process = subprocess.Popen(
                [str(program(command[0])), *command[1:]], stdout=out, stderr=subprocess.STDOUT,
                cwd=self.home, env=self.env(),
            )  # fmt: skip
        self.daemons.append((name, process))

    def start(self, timeout_s: float = 60.0) -> None:
        home = self.home
        self._configure()
        self._daemon(
            "munged", "munged", "--foreground", "--force", f"--socket={home / 'munge.sock'}",
            f"--key-file={home / 'munge.key'}", f"--pid-file={home / 'munged.pid'}",
            f"--log-file={home / 'munged.log'}", f"--seed-file={home / 'munged.seed'}",
        )  # fmt: skip
        self._wait_for(lambda: (home / "munge.sock").exists(), "munged", timeout_s)
        self._daemon("slurmctld", "slurmctld", "-D", "-f", str(self.conf))
        self._daemon("slurmd", "slurmd", "-D", "-N", "localhost", "-f", str(self.conf))
        self._wait_for(self._node_idle, "slurmd", timeout_s)

    def _node_idle(self) -> bool:
        shown = self.client("sinfo", "-h", "-o", "%T", check=False)
        return shown.returncode == 0 and shown.stdout.strip() == "idle"

    def _wait_for(self, ready: Any, name: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not ready():
            dead = [(n, p.returncode) for n, p in self.daemons if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                what = f"{dead[0][0]} exited ({dead[0][1]})" if dead else f"{name} not ready"
                tail = self._tail(dead[0][0] if dead else name)
                raise SlurmUnavailable(f"a single-node Slurm did not start: {what}: {tail}")
            time.sleep(0.2)

    def _tail(self, name: str) -> str:
        lines: list[str] = []
        for path in (self.home / f"{name}.out", self.home / f"{name}.log"):
            if path.exists():
                lines += path.read_text(errors="replace").strip().splitlines()
        errors = [line for line in lines if "error" in line.lower()]
        return (errors or lines or ["(no output)"])[-1].strip()

    def stop(self) -> None:
        """Cancel every job, let their steps end, then stop the daemons (slurmd, slurmctld,
        munged), each by its process id."""
        if any(name == "slurmctld" and p.poll() is None for name, p in self.daemons):
            self.client("scancel", "--full", "--user=root", check=False)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                shown = self.client("squeue", "-h", "-o", "%i", check=False)
                if shown.returncode != 0 or not shown.stdout.strip():
                    break
                time.sleep(0.3)
        for _, process in reversed(self.daemons):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(15)
        self.daemons.clear()

    def client(
        self, *command: str, check: bool = True, **env: str
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(program(command[0])), *command[1:]], env=self.env(**env), capture_output=True,
            text=True, timeout=60,
            cwd=self.home,
        )  # fmt: skip
        if check:
            assert done.returncode == 0, f"{command}: {done.stderr.strip()}"
        return done

    def bash(self, text: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
        """Run a shell block of the docs (its sbatch lines submit to this cluster)."""
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", text], env=self.env(**env), cwd=cwd,
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done

    def wait(self, *jobs: str, timeout_s: float = 300.0) -> dict[str, str]:
        """Wait until ``jobs`` (and every task of an array) ended; their states by job id
        (``5_3`` for task 3 of array job 5)."""
        deadline = time.monotonic() + timeout_s
        while True:
            shown = self.client("squeue", "-h", "-t", "all", "-j", ",".join(jobs), "-o", "%i %T")
            states = dict(line.split() for line in shown.stdout.splitlines() if line.strip())
            if states and all(state in DONE for state in states.values()):
                return states
            assert time.monotonic() < deadline, f"jobs {jobs} did not end: {states}"
            time.sleep(0.3)


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Slurm]:
    reason = _missing()
    if reason is not None:
        pytest.skip(reason)
    cluster = Slurm(tmp_path_factory.mktemp("slurm"))
    try:
        started = time.monotonic()
        try:
            cluster.start()
        except SlurmUnavailable as exc:
            pytest.skip(str(exc))
        log(f"single-node Slurm up in {time.monotonic() - started:.1f} s ({cluster.conf})")
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeServerProcess]:
    """The test double in place of ``revprop serve``, beside the cluster (one for all jobs)."""
    with FakeServerProcess(tmp_path_factory.mktemp("server"), responder=RESPONDER) as process:
        yield process


# ------------------------------------------------------------------------------ the reference


@functools.cache
def _requests() -> dict[str, str]:
    """The run's cases by their revision request."""
    return {case.request: case.id for case in select_cases(None, "dev", [10])}


def case_of(body: Mapping[str, Any]) -> str:
    """The case a request is about (its revision request is in the last user message)."""
    users = [m for m in body["messages"] if m.get("role") == "user"]
    text = message_text(users[-1])
    found = {case for request, case in _requests().items() if request in text}
    assert len(found) == 1, f"{len(found)} cases in a request"
    return found.pop()


def records(folder: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    """samples.jsonl's records by item, without what ``TIMING`` names."""
    out = {}
    for line in (folder / "samples.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("latency_s")
        record["replies"] = [
            {k: v for k, v in reply.items() if k not in TIMING} for reply in record["replies"]
        ]
        out[(record["case"], record["method"], record["k"], record["seed"])] = record
    return out


class Reference:
    """One unsharded run of the same settings, on a server of its own (started at once, so
    that it runs while the cluster does): its records and its calls by case."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.server = FakeServer(responder=RESPONDER).start()
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SLURM_"))}
        env = {**keep, "REVPROP_TRANSPORT": "direct", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-pno:cacheprovider", *DEV_PLUGINS_OFF, "-q", f"--rootdir={home}",
             "--revprop-model=gpt-oss-20b", *SMALLER_RUN.split(),
             f"--revprop-api-base={self.server.base_url}", f"--revprop-cache={home / 'cache'}",
             f"--revprop-report={home / 'single'}", "--revprop-no-figures"],
            cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        self._records: dict[tuple[Any, ...], dict[str, Any]] | None = None
        self.calls: Counter[str] = Counter()

    def records(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        if self._records is None:
            output, _ = self.process.communicate(timeout=300)
            assert self.process.returncode in (0, 1), output[-3000:]
            self.calls = Counter(case_of(body) for body in self.server.stats()["requests"])
            self._records = records(self.home / "single")
            assert len(self._records) == 20 and sum(self.calls.values()) == 20
        return self._records

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()
        self.server.stop()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, slurm: Slurm) -> Iterator[Reference]:
    made = Reference(tmp_path_factory.mktemp("unsharded"))
    try:
        yield made
    finally:
        made.stop()


# ------------------------------------------------------------------------------ the recipe


def _submitted(output: str) -> str:
    match = re.search(r"Submitted batch job (\d+)", output)
    assert match is not None, output
    return match.group(1)


def _shard(report: Path) -> str:
    if not (report / "results.json").is_file():
        return "no report"
    shard = json.loads((report / "results.json").read_text())["meta"]["shard"]
    return f"shard {shard['index']}/{shard['count']}"


def _tasks(job: str, run: Path, states: Mapping[str, str]) -> dict[int, str]:
    tasks = {int(i.split("_")[1]): s for i, s in states.items() if i.startswith(f"{job}_")}
    for task, state in sorted(tasks.items()):
        log(f"  task {job}_{task}: {state}, {_shard(run / f'shard-{task}')}")
    return tasks


def _combine_line(home: Path, job: str) -> str:
    lines = (home / f"slurm-{job}.out").read_text().strip().splitlines()
    return lines[-1] if lines else "(no output)"


def _cache_entries(run: Path) -> int:
    return sum(1 for _ in (run / "cache").glob("*/*.json"))


def run_recipe(
    slurm: Slurm, server: FakeServerProcess, reference: Reference, home: Path,
    dying: Mapping[int, int], rerun: Sequence[int],
) -> None:  # fmt: skip
    """The docs' submission (with ``dying``: task -> replies it caches before its node dies),
    the combine that names the missing shards, the docs' rerun of ``rerun``, the combine
    again; checked against the unsharded run."""
    started = time.monotonic()
    shared = home / "shared"
    (home / "scale-out.sbatch").write_text(adapted_script(server.base_url, shared))
    failure = ",".join(f"{task}:{after}" for task, after in dying.items())
    submit = doc_block("JOB=$(sbatch --parsable scale-out.sbatch)")
    submit = submit.replace("/shared/revprop", str(shared))
    server.reset()
    done = slurm.bash(submit + 'echo "JOB=$JOB"\n', home, E2E_NODE_FAILURE=failure)
    job = re.findall(r"JOB=(\d+)", done.stdout)[-1]
    combine = _submitted(done.stdout)
    run = shared / f"run-{job}"
    log(f"array job {job} (--array=1-4; dying: {failure}), dependent combine job {combine}")
    states = slurm.wait(job, combine)
    tasks = _tasks(job, run, states)
    assert {t for t, s in tasks.items() if s != "COMPLETED"} == set(dying), states
    first_line = _combine_line(home, combine)
    log(f"  combine {combine}: {states[combine]}: {first_line}")
    missing = sorted(dying)
    expected = f"shard {missing[0]}/4 is missing ({4 - len(missing)} of 4 given"
    assert states[combine] == "FAILED" and expected in first_line
    for task in missing[1:]:
        assert f"{task}/4" in first_line.split("also missing:")[1]
    cached_before = _cache_entries(run)
    first_requests = len(server.stats()["requests"])

    server.reset()
    again = doc_block("--export=ALL,RUN=").replace("/shared/revprop", str(shared))
    assert "JOB=1234" in again
    again = again.replace("JOB=1234", f"JOB={job}")
    assert "--array=3 " in again
    again = again.replace("--array=3 ", f"--array={','.join(map(str, rerun))} ")
    done = slurm.bash(again + 'echo "RERUN=$RERUN"\n', home)
    rerun_job = re.findall(r"RERUN=(\d+)", done.stdout)[-1]
    combine_again = _submitted(done.stdout)
    log(f"rerun job {rerun_job} (--array={','.join(map(str, rerun))}, RUN={run.name}), "
        f"combine job {combine_again}")  # fmt: skip
    states = slurm.wait(rerun_job, combine_again)
    tasks = _tasks(rerun_job, run, states)
    assert tasks == dict.fromkeys(rerun, "COMPLETED"), states
    for task in rerun:
        assert _shard(run / f"shard-{task}") == f"shard {task}/4"
    requests = server.stats()["requests"]
    final_line = _combine_line(home, combine_again)
    log(f"  combine {combine_again}: {states[combine_again]}: {final_line or 'merged'}")
    assert states[combine_again] == "COMPLETED", final_line

    # the final report is the unsharded run's, record for record
    expected_records = reference.records()
    assert records(run / "report") == expected_records
    # the rerun sent its shards' calls that were not in the cache, and nothing else
    theirs = {
        r["case"]
        for t in rerun
        for r in json.loads((run / f"shard-{t}/results.json").read_text())["results"]
    }
    shard_calls = sum(reference.calls[case] for case in theirs)
    sent = Counter(case_of(body) for body in requests)
    assert set(sent) <= theirs
    assert len(requests) == shard_calls - sum(dying.values())
    assert _cache_entries(run) - cached_before == len(requests)
    assert _cache_entries(run) == sum(reference.calls.values())
    log(f"  rerun of shard(s) {', '.join(f'{t}/4' for t in rerun)}: {len(requests)} requests "
        f"({shard_calls} calls in these shards, {sum(dying.values())} in the cache before; "
        f"first submission {first_requests} requests, unsharded run "
        f"{sum(reference.calls.values())}); {len(expected_records)} records equal to the "
        f"unsharded run; {time.monotonic() - started:.1f} s")  # fmt: skip


@pytest.mark.slow
def test_a_task_that_died_reruns_alone_into_its_shard(
    slurm: Slurm, server: FakeServerProcess, reference: Reference, tmp_path: Path
) -> None:
    run_recipe(slurm, server, reference, tmp_path, dying={3: 1}, rerun=[3])


@pytest.mark.slow
def test_two_tasks_that_died_rerun_together(
    slurm: Slurm, server: FakeServerProcess, reference: Reference, tmp_path: Path
) -> None:
    run_recipe(slurm, server, reference, tmp_path, dying={2: 0, 4: 1}, rerun=[2, 4])
