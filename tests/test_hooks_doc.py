"""docs/hooks.md shows the example user test as it is in tests/plugin/test_user_method_example.py,
which the suite runs (the MLflow example has its own test, tests/plugin/test_results_mlflow.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.child_pytest import DEV_PLUGINS_ADDOPTS

ROOT = Path(__file__).resolve().parent.parent
MARK = "<!-- user-method-example: tests/plugin/test_user_method_example.py below its docs line -->"
DOCS_LINE = "\n# docs/hooks.md shows the rest of this file.\n"


def test_the_user_method_example_in_the_docs_is_the_test_the_suite_runs() -> None:
    doc = (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    shown = re.search(re.escape(MARK) + r"\n```python\n(.*?)```", doc, re.DOTALL)
    assert shown is not None, "docs/hooks.md lost the example block or its mark"
    source = (ROOT / "tests" / "plugin" / "test_user_method_example.py").read_text(encoding="utf-8")
    body = source.split(DOCS_LINE, 1)[1].lstrip("\n")
    assert shown.group(1) == body


def test_the_readme_shows_the_worked_method_of_docs_hooks_md_and_imports_only_the_api() -> None:
    """The README's only Python block is the method example of docs/hooks.md, character for
    character, so the checks on that page's blocks (tests/test_architecture.py: nothing of ours
    imported but ``pytest_revprop.api``) hold for the README's copy too."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    doc = (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    shown = re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
    assert len(shown) == 1, "the README should show one Python block: the method example"
    assert shown[0] in re.findall(r"```python\n(.*?)```", doc, re.DOTALL)
    imports = re.findall(r"^\s*(?:from|import)\s+([\w.]+)", shown[0], re.MULTILINE)
    assert imports == ["pytest_revprop.api"]


USER_IMPORTS = """import pytest

from pytest_revprop.testing import FakeServer, run_revprop

"""


@pytest.mark.slow  # a fresh pytest process in a project of its own: the point of the test
def test_the_docs_example_runs_twice_in_one_session_from_a_project_outside_the_checkout(
    tmp_path: Path,
) -> None:
    """A user copies the example (with the imports the page names) and runs it twice in one
    session, as a second test would: pytester drops what a run first imported (litellm, and
    the importlib_metadata backport with it), which once left the second run with no plugin
    (``unrecognized arguments: --revprop-model``)."""
    doc = (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    shown = re.search(re.escape(MARK) + r"\n```python\n(.*?)```", doc, re.DOTALL)
    assert shown is not None
    name = "def test_second_opinion_asks_again_when_the_first_reply_changes_nothing("
    assert name in shown.group(1)
    twice = shown.group(1).replace(
        name, f"@pytest.mark.parametrize('time', [1, 2])\n{name}time: int, "
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_my_method.py").write_text(USER_IMPORTS + twice, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "pytester", "-p", "no:cacheprovider", "-q"],
        cwd=project,
        env={**os.environ, **DEV_PLUGINS_ADDOPTS},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert re.search(r"\b2 passed\b", result.stdout), result.stdout[-2000:]
