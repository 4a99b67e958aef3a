"""docs/ci.md's "Try it offline" block, run as a user runs it: copied as it is into an empty
folder and run with bash, with this environment's commands first on the PATH. It starts the
attentive double, makes a baseline, shows a prompt change that regresses (exit 6, and a
comment that says why) and a harmless rewording (exit 0), and checks those exit codes itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.child_pytest import DEV_PLUGINS_ADDOPTS

ROOT = Path(__file__).resolve().parent.parent
MARK = "<!-- try-it-offline: tests/test_ci_offline_doc.py runs this block as it is -->"


def offline_block() -> str:
    doc = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    found = re.search(re.escape(MARK) + r"\n```bash\n(.*?)```", doc, re.DOTALL)
    assert found is not None, "docs/ci.md lost the offline block or its mark"
    return found.group(1)


@pytest.mark.slow  # bash, a server and three pytest runs in child processes: the point of it
def test_the_try_it_offline_block_shows_a_regression_and_a_harmless_rewording(
    tmp_path: Path,
) -> None:
    (tmp_path / "try.sh").write_text(offline_block(), encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.update(DEV_PLUGINS_ADDOPTS)  # the test environment's own plugins, which users lack
    env.pop("PYTEST_XDIST_WORKER", None)
    result = subprocess.run(
        ["bash", "try.sh"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-4000:]
    assert "asks for prose first: exit 6 (6: a regression); rewording: exit 0 (0)" in out
    assert "REGRESSION openai/fake j+h k1" in out and "no significant change" in out
    comment = (tmp_path / "comment.md").read_text(encoding="utf-8")
    why = [
        line for line in comment.splitlines() if line.startswith("| openai/fake | j+h | 1 | B |")
    ]
    assert why and re.search(r"no_patch \d+ \|$", why[0]), comment
    summary = (tmp_path / "reports" / "prose" / "summary.md").read_text(encoding="utf-8")
    assert "## Baseline gate" in summary and why[0] in summary  # the run's files say why too
