"""`revprop score` and `revprop merge` run as a shell runs them, through the ``revprop``
command in a child process: a reply on stdin, a shell's process substitution (``<(...)``), and
binary content on stdin."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.case_files import case_file, reply_file
from helpers.handmade_cases import invoice_case

pytestmark = pytest.mark.slow


def _revprop(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_revprop.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _bash(script: str) -> subprocess.CompletedProcess[str]:
    """``script`` run by bash, with ``revprop`` standing for this interpreter's command."""
    revprop = f"{shlex.quote(sys.executable)} -m pytest_revprop.cli"
    return subprocess.run(
        ["bash", "-c", script.replace("revprop ", f"{revprop} ")],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_reply_on_stdin_scores_and_merges_as_from_its_file(tmp_path: Path) -> None:
    case = str(case_file(tmp_path))
    gold_text = json.dumps(invoice_case().gold_patch[:3])
    gold = str(reply_file(tmp_path, "gold.txt", gold_text))
    noop = str(reply_file(tmp_path, "noop.txt", "[]"))
    for args in (["score", case], ["score", "--details", case], ["merge", "--rule", "maj", case]):
        from_files = _revprop(*args, *([noop, gold, noop] if "merge" in args else [gold]))
        piped = _revprop(*args, *([noop, "-", noop] if "merge" in args else ["-"]), stdin=gold_text)
        assert from_files.returncode == piped.returncode == 0, piped.stderr
        assert from_files.stdout == piped.stdout and from_files.stdout.strip()


def test_a_process_substitution_is_read_as_its_file_would_be(tmp_path: Path) -> None:
    case = shlex.quote(str(case_file(tmp_path)))
    gold = shlex.quote(
        str(reply_file(tmp_path, "gold.txt", json.dumps(invoice_case().gold_patch[:3])))
    )
    noop = shlex.quote(str(reply_file(tmp_path, "noop.txt", "[]")))
    score = _bash(f"revprop score {case} <(cat {gold})")
    merge = _bash(f"revprop merge --rule maj {case} <(cat {noop}) <(cat {gold}) {gold}")
    assert (score.returncode, merge.returncode) == (0, 0), score.stderr + merge.stderr
    assert score.stdout == _bash(f"revprop score {case} {gold}").stdout
    assert json.loads(score.stdout)["completed"] is True
    assert merge.stdout == _bash(f"revprop merge --rule maj {case} {noop} {gold} {gold}").stdout
    assert json.loads(merge.stdout)["chosen"] == 1


def test_binary_content_on_stdin_is_refused_in_one_line(tmp_path: Path) -> None:
    case = case_file(tmp_path)
    binary = tmp_path / "r.bin"
    binary.write_bytes(b"\x00\x01\x02")
    piped = _bash(f"revprop score {shlex.quote(str(case))} - < {shlex.quote(str(binary))}")
    assert piped.returncode == 2
    assert piped.stderr.splitlines() == [
        "revprop score: error: reply on stdin: binary content (NUL bytes), expected a text reply"
    ]
