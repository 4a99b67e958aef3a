"""`revprop validate`, `revprop score` and `revprop merge`, run as a user runs them: in a child
process, reading files, printing JSON, failing in one line with an exit status."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from handmade_cases import invoice_case, write_cases

from pytest_revprop.cli import COMMANDS

pytestmark = pytest.mark.slow


def _revprop(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_revprop.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _bash(script: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``script`` run by bash, with ``revprop`` standing for this interpreter's command."""
    revprop = f"{shlex.quote(sys.executable)} -m pytest_revprop.cli"
    return subprocess.run(
        ["bash", "-c", script.replace("revprop ", f"{revprop} ")],
        input=stdin,
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


def test_a_reply_on_stdin_scores_and_merges_as_from_its_file(tmp_path: Path) -> None:
    case = str(_case_file(tmp_path))
    gold_text = json.dumps(invoice_case().gold_patch[:3])
    gold = str(_reply_file(tmp_path, "gold.txt", gold_text))
    noop = str(_reply_file(tmp_path, "noop.txt", "[]"))
    for args in (["score", case], ["score", "--details", case], ["merge", "--rule", "maj", case]):
        from_files = _revprop(*args, *([noop, gold, noop] if "merge" in args else [gold]))
        piped = subprocess.run(
            [sys.executable, "-m", "pytest_revprop.cli", *args,
             *([noop, "-", noop] if "merge" in args else ["-"])],
            input=gold_text, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert from_files.returncode == piped.returncode == 0, piped.stderr
        assert from_files.stdout == piped.stdout and from_files.stdout.strip()


def test_a_process_substitution_is_read_as_its_file_would_be(tmp_path: Path) -> None:
    case = shlex.quote(str(_case_file(tmp_path)))
    gold = shlex.quote(
        str(_reply_file(tmp_path, "gold.txt", json.dumps(invoice_case().gold_patch[:3])))
    )
    noop = shlex.quote(str(_reply_file(tmp_path, "noop.txt", "[]")))
    score = _bash(f"revprop score {case} <(cat {gold})")
    merge = _bash(f"revprop merge --rule maj {case} <(cat {noop}) <(cat {gold}) {gold}")
    assert (score.returncode, merge.returncode) == (0, 0), score.stderr + merge.stderr
    assert score.stdout == _bash(f"revprop score {case} {gold}").stdout
    assert json.loads(score.stdout)["completed"] is True
    assert merge.stdout == _bash(f"revprop merge --rule maj {case} {noop} {gold} {gold}").stdout
    assert json.loads(merge.stdout)["chosen"] == 1


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
            ("merge", "--rule", "or", "case.json", "-", "-"),
            2,
            "revprop merge: error: stdin holds one reply: give '-' at most once",
        ),
        (
            ("frobnicate",),
            2,
            f"revprop: unknown command 'frobnicate' (choose from {', '.join(COMMANDS)})",
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
    piped = _bash(f"revprop score {shlex.quote(str(case))} - < {shlex.quote(str(binary))}")
    assert piped.returncode == 2
    assert piped.stderr.splitlines() == [
        "revprop score: error: reply on stdin: binary content (NUL bytes), expected a text reply"
    ]
    broken = _reply_file(tmp_path, "b.json", json.dumps({"id": 1}))
    result = _revprop("score", str(broken), str(binary))
    assert result.returncode == 2 and "schema" in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = _revprop("validate", str(empty))
    assert result.returncode == 2 and "no case files" in result.stderr


def test_every_command_is_a_front_end_in_cli() -> None:
    import importlib

    for name, (target, _) in COMMANDS.items():
        module, function = target.split(":")
        assert module.startswith("pytest_revprop.cli."), name
        assert callable(getattr(importlib.import_module(module), function)), name


def test_validate_score_and_merge_load_neither_litellm_nor_matplotlib(tmp_path: Path) -> None:
    case = _case_file(tmp_path)
    reply = _reply_file(tmp_path, "gold.txt", json.dumps(invoice_case().gold_patch[:3]))
    code = (
        "import sys\n"
        "from pytest_revprop.cli import main\n"
        "case, reply = sys.argv[1:]\n"
        "assert main(['validate', '-q', case]) == 0\n"
        "assert main(['score', case, reply]) == 0\n"
        "assert main(['merge', '--rule', 'maj', case, reply, reply]) == 0\n"
        "heavy = {'litellm', 'matplotlib', 'aiohttp'} & set(sys.modules)\n"
        "assert not heavy, f'imported {sorted(heavy)}'\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(case), str(reply)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
