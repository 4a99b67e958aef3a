"""`revprop validate`, `revprop score` and `revprop merge`, run as a user runs them: in a child
process, reading files, printing JSON, failing in one line with an exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from handmade_cases import invoice_case, write_cases

pytestmark = pytest.mark.slow


def _revprop(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_revprop.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _case_file(tmp: Path) -> Path:
    folder = write_cases(tmp / "cases", [invoice_case()])
    (path,) = folder.iterdir()
    return path


def _reply_file(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def test_validate_score_and_merge_print_their_verdicts_as_json(tmp_path: Path) -> None:
    case = _case_file(tmp_path)
    gold = _reply_file(
        tmp_path,
        "gold.txt",
        "Sure:\n```json\n" + json.dumps(invoice_case().gold_patch[:3]) + "\n```",
    )
    noop = _reply_file(tmp_path, "noop.txt", "[]")
    prose = _reply_file(tmp_path, "prose.txt", "no idea")
    assert _revprop("validate", str(tmp_path / "cases")).returncode == 0
    out = json.loads(_revprop("score", str(case), str(gold)).stdout)
    assert out == {
        "completed": True,
        "valid": True,
        "error": None,
        "miss": 0,
        "over_edit": 0,
        "wrong_value": 0,
    }
    assert json.loads(_revprop("score", str(case), str(prose)).stdout)["error"] == "no_patch"
    merged = json.loads(
        _revprop("merge", "--rule", "maj", str(case), str(gold), str(noop), str(gold)).stdout
    )
    assert merged["chosen"] == 0 and merged["artifact"]["total"] == 38.0
    med = json.loads(_revprop("merge", "--rule", "med", str(case), str(prose), str(prose)).stdout)
    assert med == {"artifact": None, "patch": None, "chosen": None}


@pytest.mark.parametrize(
    ("args", "status", "stderr"),
    [
        (("validate", "/nonexistent/dir"), 1, "0 valid case(s), 1 broken"),
        (
            ("score", "/nonexistent.json", "/nonexistent.txt"),
            2,
            "revprop score: error: case file /nonexistent.json: no such file",
        ),
        (
            ("merge", "--rule", "xor", "a", "b"),
            2,
            "revprop merge: error: argument --rule: invalid choice: 'xor' (choose from 'or', "
            "'and', 'maj', 'med') (see 'revprop merge --help')",
        ),
        (
            ("frobnicate",),
            2,
            "revprop: unknown command 'frobnicate' (choose from validate, score, merge, cases, "
            "synth, serve, report, compare)",
        ),
    ],
)
def test_errors_are_one_line_with_an_exit_status_and_no_traceback(
    args: tuple[str, ...], status: int, stderr: str
) -> None:
    result = _revprop(*args)
    assert (result.returncode, result.stderr.splitlines()) == (status, [stderr])


def test_binary_replies_broken_cases_and_empty_folders_are_refused(tmp_path: Path) -> None:
    case = _case_file(tmp_path)
    binary = tmp_path / "r.bin"
    binary.write_bytes(b"\x00\x01\x02")
    result = _revprop("score", str(case), str(binary))
    assert result.returncode == 2 and "binary" in result.stderr and "Traceback" not in result.stderr
    broken = _reply_file(tmp_path, "b.json", json.dumps({"id": 1}))
    result = _revprop("score", str(broken), str(binary))
    assert result.returncode == 2 and "schema" in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = _revprop("validate", str(empty))
    assert result.returncode == 2 and "no case files" in result.stderr
