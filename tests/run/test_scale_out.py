"""docs/scale-out.md in its local form: shards against the test double, then ``revprop
combine``; the plan against the requests the server received; the spending ceiling.

Each recipe runs here as its engine would run it: the Slurm array job's tasks (``--revprop-
shard=auto`` under SLURM_ARRAY_* variables, each with its own cache, one after another:
in-process), the Kubernetes Indexed Job's pods (``auto`` under JOB_COMPLETION_INDEX, all at once
on one shared cache folder: three processes), the CI matrix's jobs (``--revprop-shard=I/N``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers.child_pytest import DEV_PLUGINS_OFF

from pytest_revprop.cli import main as revprop
from pytest_revprop.testing.fakeserver import FakeServer

RESPONDER = "pytest_revprop.testing.responder:respond"
# The ten dev cases of size 10.
RUN = [
    "--revprop-model=openai/fake", "--revprop-split=dev", "--revprop-sizes=10", "--revprop-seeds=0",
    "--revprop-k=3",
]  # fmt: skip
N_CASES = 10
N_METHODS = 10
TIMING = ("latency_s", "cached")
"""What may differ between a sharded and an unsharded run's records (timings, cache flags)."""


def _left_out(name: str) -> bool:
    """Variables of the test's environment that stay out of a run."""
    return name.startswith(("PYTEST_", "OPENAI_", "REVPROP_", "SLURM_", "JOB_COMPLETION"))


def _env(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not _left_out(k)}
    return {**keep, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "REVPROP_TRANSPORT": "direct", **extra}


def _args(run_dir: Path, base: str, cache: str, report: str, *args: str) -> list[str]:
    return [
        "-pno:cacheprovider", *DEV_PLUGINS_OFF, "-q", f"--rootdir={run_dir}",
        f"--revprop-api-base={base}",
        f"--revprop-cache={run_dir / cache}", f"--revprop-report={run_dir / report}", *RUN, *args,
    ]  # fmt: skip


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Run]:
    """``run(run_dir, base, cache, report, *args, **env)``: an in-process run in ``run_dir``
    with the direct transport and ``env``, without the test's own shard variables."""
    for name in list(os.environ):
        if _left_out(name) and not name.startswith("PYTEST_"):  # pytester's own
            monkeypatch.delenv(name)

    def run_in(run_dir: Path, base: str, cache: str, report: str, *args: str, **env: str) -> Run:
        with monkeypatch.context() as scoped:
            scoped.chdir(run_dir)
            for name, value in {"REVPROP_TRANSPORT": "direct", **env}.items():
                scoped.setenv(name, value)
            result = pytester.runpytest(*_args(run_dir, base, cache, report, *args))
        return Run(int(result.ret), result.stdout.str(), result.stderr.str())

    return run_in


def records(folder: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    """samples.jsonl's records by item, without timings and cache flags."""
    out = {}
    for line in (folder / "samples.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("latency_s")
        record["replies"] = [
            {k: v for k, v in reply.items() if k not in TIMING} for reply in record["replies"]
        ]
        out[(record["case"], record["method"], record["k"], record["seed"])] = record
    return out


def html_samples(folder: Path) -> int:
    page = (folder / "report.html").read_text(encoding="utf-8")
    match = re.search(
        r'<script type="application/json" id="revprop-data">(.*?)</script>', page, re.S
    )
    assert match is not None
    return len(json.loads(match.group(1))["index"]["case"])


def summary_table(folder: Path) -> list[dict[str, Any]]:
    summary: list[dict[str, Any]] = json.loads((folder / "results.json").read_text())["summary"]
    return [{k: v for k, v in row.items() if "latency" not in k} for row in summary]


@pytest.mark.slow  # the Kubernetes pods are three processes at once
def test_slurm_and_kubernetes_shards_combine_into_the_single_run(
    run: Callable[..., Run], tmp_path: Path
) -> None:
    with FakeServer(responder=RESPONDER) as server:
        base = server.base_url
        single = run(tmp_path, base, "cache-single", "single", "--revprop-method=all")
        assert single.returncode == 1, single.stdout[-2000:]  # the responder errs at times
        # the Slurm array: each task its shard (auto) and its own cache, one after another
        for task in (1, 2, 3):
            shard = run(
                tmp_path, base, f"cache-slurm{task}", f"slurm{task}", "--revprop-method=all",
                "--revprop-shard=auto", "--revprop-no-figures", SLURM_ARRAY_TASK_ID=str(task),
                SLURM_ARRAY_TASK_COUNT="3", SLURM_ARRAY_TASK_MIN="1",
            )  # fmt: skip
            assert shard.returncode in (0, 1), shard.stdout[-2000:] + shard.stderr[-2000:]
        # the Kubernetes Indexed Job: all pods at once, on one shared cache folder
        pods = [
            subprocess.Popen(
                [sys.executable, "-m", "pytest", *_args(tmp_path, base, "cache-shared", f"k8s{index}",
                 "--revprop-method=all", "--revprop-shard=auto", "--revprop-no-figures")],
                cwd=tmp_path, env=_env(JOB_COMPLETION_INDEX=str(index), REVPROP_SHARD_COUNT="3"),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            for index in range(3)
        ]  # fmt: skip
        assert all(pod.wait(timeout=900) in (0, 1) for pod in pods)
        received = len(server.stats()["requests"])
    slurm = [tmp_path / f"slurm{task}" for task in (1, 2, 3)]
    assert revprop(["combine", *map(str, slurm), "--out", str(tmp_path / "slurm")]) == 0
    k8s = [tmp_path / f"k8s{index}" for index in range(3)]
    assert revprop(["combine", *map(str, k8s), "--out", str(tmp_path / "k8s"), "--no-figures"]) == 0
    expected = records(tmp_path / "single")
    assert len(expected) == N_CASES * N_METHODS
    for combined in (tmp_path / "slurm", tmp_path / "k8s"):
        assert records(combined) == expected
        assert summary_table(combined) == summary_table(tmp_path / "single")
    assert html_samples(tmp_path / "slurm") == html_samples(tmp_path / "single") == len(expected)
    shards = [len(records(folder)) for folder in slurm]
    assert sum(shards) == len(expected)
    assert all(0 < n < len(expected) and n % N_METHODS == 0 for n in shards)  # whole cases
    # separate caches make every call once per run; the shared one once for all three pods
    single_calls = sum(1 for _ in (tmp_path / "cache-single").glob("*/*.json"))
    shared_calls = sum(1 for _ in (tmp_path / "cache-shared").glob("*/*.json"))
    assert shared_calls == single_calls and received == 3 * single_calls
    # a shard left out, or given twice, is refused in one line
    assert revprop(["combine", *map(str, slurm[:2]), "--out", str(tmp_path / "x")]) == 2
    assert revprop(["combine", *map(str, [*slurm, slurm[0]]), "--out", str(tmp_path / "x")]) == 2


PRICED = """
[tool.revprop.prices]
"openai/fake" = [2.0, 8.0]

[tool.revprop.models."openai/fake"]
max_tokens = 256
"""


def _plan_to_send(output: str) -> int:
    match = re.search(r"openai/fake: .* to send ([\d,]+)\n", output)
    assert match is not None, output[-3000:]
    return int(match.group(1).replace(",", ""))


def test_the_plan_counts_the_calls_and_the_ceiling_cuts_and_resumes(
    run: Callable[..., Run], tmp_path: Path
) -> None:
    (tmp_path / "pyproject.toml").write_text(PRICED)
    methods = "--revprop-method=j+h,reflect,maj"  # calls that do not depend on replies
    with FakeServer(responder=RESPONDER) as server:
        base = server.base_url
        plan = run(tmp_path, base, "cache", "plan", methods, "--revprop-plan")
        assert plan.returncode == 0, plan.stdout[-2000:] + plan.stderr[-2000:]
        assert server.stats()["requests"] == []
        to_send = _plan_to_send(plan.stdout)
        full = run(tmp_path, base, "cache", "full", methods)
        assert full.returncode == 1
        assert len(server.stats()["requests"]) == to_send
        again = run(tmp_path, base, "cache", "plan", methods, "--revprop-plan")
        assert _plan_to_send(again.stdout) == 0 and "answered by the cache" in again.stdout
        cost = sum(
            row["cost_usd"]
            for row in json.loads((tmp_path / "full" / "results.json").read_text())["results"]
        )
        assert cost > 0
        ceiling = cost / 3
        server.reset()
        cut = run(tmp_path, base, "cache-cut", "cut", methods, f"--revprop-max-cost={ceiling}")
        assert cut.returncode & 8 == 8, cut.stdout[-3000:]
        section = cut.stdout[cut.stdout.index("revprop summary") :]
        assert section.splitlines()[1].startswith("revprop: run cut by --revprop-max-cost=")
        meta = json.loads((tmp_path / "cut" / "results.json").read_text())["meta"]
        assert 0 < meta["cut"]["spent_usd"] <= ceiling
        assert "skipped" in cut.stdout.splitlines()[-1]
        resumed = run(tmp_path, base, "cache-cut", "resumed", methods)
        assert resumed.returncode == 1 and len(records(tmp_path / "resumed")) == len(
            records(tmp_path / "full")
        )
        # a ceiling on a model with no prices is a usage error naming where prices go
        (tmp_path / "pyproject.toml").write_text("")
        unpriced = run(tmp_path, base, "cache", "x", methods, "--revprop-max-cost=1")
        assert unpriced.returncode == 4 and "[tool.revprop.prices]" in unpriced.stderr


def _ci_recipe() -> tuple[list[str], list[str], list[str]]:
    """docs/scale-out.md's CI matrix: its shard values, its shard job's test command (one
    line, with ``${{ matrix.shard }}`` in it) and its combine job's revprop commands."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "scale-out.md").read_text()
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", doc, re.S) if "matrix:" in b]
    assert len(blocks) == 1
    matrix = re.search(r"matrix: \{shard: \[([\d, ]+)\]\}", blocks[0])
    assert matrix is not None
    folded = re.findall(r"- run: >\n((?:\s{10}\S.*\n)+)", blocks[0])
    assert len(folded) == 1 and "--revprop-shard=${{ matrix.shard }}" in folded[0]
    commands = re.findall(r"- run: (revprop .*)\n", blocks[0])
    return matrix.group(1).split(", "), [" ".join(folded[0].split())], commands


SMALLER = "--revprop-sizes=10 --revprop-seeds=0,1"
"""The CI matrix's run made smaller: the dev split's 10 cases of size 10, 2 seeds."""


@pytest.mark.slow  # the matrix's jobs are shell lines, run as CI runs them
def test_the_ci_matrix_recipe_as_the_matrix_runs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shards, (test_command,), combine_steps = _ci_recipe()
    assert shards == ["1", "2", "3"] and "--revprop-shard=${{ matrix.shard }}/3" in test_command
    assert [c.split()[1] for c in combine_steps] == ["combine", "compare"]
    with FakeServer(responder=RESPONDER) as server:
        # each matrix job on a machine of its own, all at once, runs the job's command as
        # written, on a smaller run (PYTEST_ADDOPTS); the test double stands in for OpenAI's
        # API through the checkout's pyproject.toml (--revprop-api-base leaves a hosted preset
        # at its provider; not hosted, it is called directly, with no litellm to import)
        def job(command: str, folder: Path) -> subprocess.Popen[str]:
            folder.mkdir()
            (folder / "pyproject.toml").write_text(
                f'[tool.revprop.models."gpt-5.4-mini"]\napi_bases = ["{server.base_url}"]\n'
                "hosted = false\n"
            )
            path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
            return subprocess.Popen(
                ["bash", "-c", command], cwd=folder,
                env=_env(PATH=path, OPENAI_API_KEY="sk-test", PYTEST_ADDOPTS=SMALLER),
                text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            )  # fmt: skip

        matrix_shard = "--revprop-shard=${{ matrix.shard }}/3"
        jobs = {
            shard: job(test_command.replace("${{ matrix.shard }}", shard), tmp_path / f"job{shard}")
            for shard in shards
        }  # fmt: skip
        unsharded = test_command.replace(f" {matrix_shard}", "")
        single = job(unsharded.replace("${{ matrix.shard }}", "all"), tmp_path / "single")
        for shard, process in [*jobs.items(), ("all", single)]:
            output, _ = process.communicate(timeout=900)
            assert process.returncode == 0, f"job {shard}: {output[-3000:]}"
            assert f"gpt-5.4-mini: openai/gpt-5.4-mini at {server.base_url}" in output
    # the artifacts the combine job downloads, each in its folder, and the baseline
    combine_job = tmp_path / "combine"
    combine_job.mkdir()
    for shard in shards:
        report = tmp_path / f"job{shard}" / f"shard-{shard}"
        meta = json.loads((report / "results.json").read_text())["meta"]
        assert meta["shard"] == {"index": int(shard), "count": 3} and "cut" not in meta
        (combine_job / f"shard-{shard}").symlink_to(report)
    (combine_job / "baseline.json").write_text(
        (tmp_path / "single/shard-all/results.json").read_text()
    )
    monkeypatch.chdir(combine_job)
    for step in combine_steps:
        assert revprop(step.split()[1:]) == 0, step
    assert records(combine_job / "report") == records(tmp_path / "single" / "shard-all")
    assert len(records(combine_job / "report")) == 20  # 10 cases, 2 seeds
    # each case's calls in one shard only: the shards' caches hold the unsharded run's calls
    calls = [sum(1 for _ in (tmp_path / job / ".revprop-cache").glob("*/*.json")) for job in
             ("job1", "job2", "job3", "single")]  # fmt: skip
    assert sum(calls[:3]) == calls[3] == 20 and all(calls[:3])
