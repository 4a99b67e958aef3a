"""docs/ci.md's recipe, as written, end to end: its three shell blocks (the shared run, the
pull-request gate, the main-branch baseline) run against the test double (the fair
responder) in a temporary git repository with a remote. The baseline job commits and pushes a
baseline in which some items failed; a pull request whose prompt change regresses ends with
the regression code and a comment naming the changed template; one whose change does not
regress ends with 0.

Kept cheap: the ``pytest`` and ``revprop`` lines run in this process (``pytester.runpytest``,
``cli.main``), every other line through bash; the shared run is narrowed to j+h on eight dev
cases at one seed by appending to the recipe's ``RUN``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop import cli
from pytest_revprop.core.prompts import shipped_template_names
from pytest_revprop.vocabulary import REGRESSION_EXIT

ROOT = Path(__file__).resolve().parents[2]
CASES = (
    "cart-free-shipping/10", "deploy-staging-region-move/10", "org-role-change/10",
    "pipeline-drop-dedupe-stage/10", "schedule-permit-threshold/10", "course-section-cancel/50",
    "bom-production-start/10", "invoice-issue-date/10",
)  # fmt: skip
"""Eight dev cases; the fair responder completes the first six at seed 0 (its hash of the case,
the seed and the context gives them the gold patch) and not the last two."""
NARROWER = f"RUN+=(--revprop-method=j+h --revprop-seeds=0 --revprop-case={','.join(CASES)})"
"""Appended to the recipe's shared block: the same commands on a few cases at one seed."""
STATUS = "|| status=$?"

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
    pytest.mark.slow,  # the recipe's shell lines and git run as processes, as in CI
]


def _recipe() -> tuple[str, str, str]:
    """docs/ci.md's three blocks under "The commands, for any CI": shared, gate, baseline."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    start = text.index("## The commands, for any CI")
    blocks = re.findall(r"```sh\n(.*?)```", text[start : text.index("\n## ", start + 3)], re.S)
    shared, gate, baseline = blocks
    return shared, gate, baseline


def _lines(block: str) -> Iterator[str]:
    """The block's commands: continuation lines joined, blank and comment lines left out."""
    for line in block.replace("\\\n", " ").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            yield line.strip()


class Job:
    """One CI job in a checkout: the shared block's variables, then a job block line by line
    as a CI step runs it (any failing line fails the job, as ``bash -e`` does)."""

    def __init__(self, pytester: pytest.Pytester, capsys: Any, checkout: Path) -> None:
        shared = _recipe()[0]
        assert "pip install" in shared
        kept = [line for line in shared.splitlines() if not line.startswith("pip install")]
        self.prelude = "\n".join([*kept, NARROWER])
        self.pytester, self.capsys, self.checkout = pytester, capsys, checkout
        self.outputs: list[str] = []

    def bash(self, script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", f"{self.prelude}\n{script}"], cwd=self.checkout,
                              capture_output=True, text=True, env=os.environ.copy(), check=False)  # fmt: skip

    def words(self, command: str) -> list[str]:
        """``command`` as bash expands it (the recipe's arrays and variables)."""
        done = self.bash(f"printf '%s\\0' {command}")
        assert done.returncode == 0, done.stderr
        return done.stdout.split("\0")[:-1]

    def run(self, block: str) -> int:
        status = 0
        for line in _lines(block):
            command, _, target = line.partition(" > ")
            keeps_status = command.endswith(STATUS)
            command = command.removesuffix(STATUS).strip()
            if command.startswith(("pytest ", "revprop ")):
                code = self.in_process(self.words(command), target.strip())
            else:
                done = self.bash(f"status={status}\n{line}")
                self.outputs.append(done.stdout + done.stderr)
                if line.startswith("exit "):
                    return done.returncode
                if re.fullmatch(r"status=\d+", line):
                    status = int(line.partition("=")[2])
                code = done.returncode
            if keeps_status:
                status = code
            elif code != 0:
                return code
        return 0

    def in_process(self, argv: list[str], target: str) -> int:
        os.chdir(self.checkout)
        if argv[0] == "pytest":
            result = self.pytester.runpytest(*argv[1:])
            self.outputs.append(result.stdout.str() + result.stderr.str())
            return int(result.ret)
        self.capsys.readouterr()
        code = cli.main(argv[1:])
        out = self.capsys.readouterr().out
        if target:
            (self.checkout / target).write_text(out, encoding="utf-8")
        return code


def _git(where: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def remote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_server: Any) -> Path:
    """A bare repository whose main branch holds a project with a prompt folder (the shipped
    system prompt as its one override); the environment of the recipe's CI: the model and
    its server (the test double), a git identity."""
    server = fake_server(responder="pytest_revprop.testing.responder:respond")
    for name, value in {
        "REVPROP_MODEL": "hosted_vllm/fair", "REVPROP_API_BASE": server.base_url,
        "REVPROP_TRANSPORT": "direct", "GIT_AUTHOR_NAME": "ci", "GIT_AUTHOR_EMAIL": "ci@example.org",
        "GIT_COMMITTER_NAME": "ci", "GIT_COMMITTER_EMAIL": "ci@example.org",
    }.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    origin = tmp_path / "origin.git"
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    work = tmp_path / "start"
    _git(tmp_path, "clone", "-q", str(origin), str(work))
    (work / "prompts").mkdir()
    system = ROOT / "pytest_revprop" / "prompts" / "system.md"
    (work / "prompts" / "system.md").write_text(system.read_text(encoding="utf-8"))
    (work / ".gitignore").write_text("reports/*\n!reports/baselines/\n.revprop-cache/\n")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "project with its prompts")
    _git(work, "push", "-q", "origin", "HEAD:main")
    monkeypatch.chdir(tmp_path)
    return origin


def _checkout(remote: Path, name: str) -> Path:
    checkout = remote.parent / name
    _git(remote.parent, "clone", "-q", str(remote), str(checkout))
    return checkout


def _pull_request(remote: Path, name: str, template: str, text: str) -> Path:
    checkout = _checkout(remote, name)
    _git(checkout, "checkout", "-q", "-b", name)
    (checkout / "prompts" / f"{template}.md").write_text(text, encoding="utf-8")
    _git(checkout, "add", "prompts")
    _git(checkout, "commit", "-q", "-m", name)
    return checkout


def test_the_ci_recipe_commits_a_baseline_and_gates_prompt_changes(
    remote: Path, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    assert {"system", "revise"} <= set(shipped_template_names())
    _, gate_block, baseline_block = _recipe()

    # main: the baseline job commits a baseline although some items failed
    main = _checkout(remote, "main")
    job = Job(pytester, capsys, main)
    assert job.run(baseline_block) == 0, job.outputs
    assert re.match(
        r"[0-9a-f]+ revprop baseline: [0-9a-f]+", _git(remote, "log", "--oneline", "-1")
    )
    baseline = json.loads(_git(remote, "show", "main:reports/baselines/main.json"))
    outcomes = [r["completed"] for r in baseline["results"]]
    assert sum(outcomes) == 6 and len(outcomes) == 8  # failures recorded; enough passes to lose
    assert baseline["meta"]["prompts"]["system"]["source"] == "override"

    # a pull request whose prompt no longer states the request: every pass is lost
    regressing = _pull_request(remote, "terse", "revise", "$context\n\nDo what the user asked.\n")
    job = Job(pytester, capsys, regressing)
    assert job.run(gate_block) == REGRESSION_EXIT, job.outputs
    comment = (regressing / "comment.md").read_text()
    assert "| regression |" in comment
    assert "Prompt templates that differ: revise.md (A shipped, B override)." in comment

    # a pull request that rewords the system prompt: the test double answers as before
    system = (ROOT / "pytest_revprop" / "prompts" / "system.md").read_text(encoding="utf-8")
    harmless = _pull_request(remote, "polite", "system", system + "\nBe precise.\n")
    job = Job(pytester, capsys, harmless)
    assert job.run(gate_block) == 0, job.outputs
    comment = (harmless / "comment.md").read_text()
    assert "no significant change" in comment and "| regression |" not in comment
    assert "Prompt templates that differ: system.md (A override, B override)." in comment
