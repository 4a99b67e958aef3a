"""`revprop validate`, `revprop score` and `revprop merge` as a user runs them, in-process
(``cli.main``, the ``revprop`` entry point's function): reading files, printing JSON, failing
in one line with an exit status. Replies on stdin and from a shell's process substitution, run
by a real shell, are in tests/e2e/test_commands_shell.py."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers.case_files import case_file, reply_file
from helpers.handmade_cases import invoice_case

from pytest_revprop.cli import COMMANDS, main
from pytest_revprop.core.prompts import Prompts


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def revprop(capsys: pytest.CaptureFixture[str]) -> Any:
    """``revprop(*args)``: the command's exit status and what it printed."""

    def run(*args: str) -> Result:
        capsys.readouterr()
        try:
            status = main(list(args))
        except SystemExit as stop:  # argparse's --help and usage errors
            status = stop.code if isinstance(stop.code, int) else 2
        printed = capsys.readouterr()
        return Result(status, printed.out, printed.err)

    return run


def test_validate_score_and_merge_print_their_verdicts_as_json(
    revprop: Any, tmp_path: Path
) -> None:
    case = case_file(tmp_path)
    gold = reply_file(
        tmp_path,
        "gold.txt",
        "Sure:\n```json\n" + json.dumps(invoice_case().gold_patch[:3]) + "\n```",
    )
    noop = reply_file(tmp_path, "noop.txt", "[]")
    prose = reply_file(tmp_path, "prose.txt", "no idea")
    assert revprop("validate", str(tmp_path / "cases")).returncode == 0
    out = json.loads(revprop("score", str(case), str(gold)).stdout)
    assert out == {
        "completed": True,
        "valid": True,
        "error": None,
        "miss": 0,
        "over_edit": 0,
        "wrong_value": 0,
    }
    assert json.loads(revprop("score", str(case), str(prose)).stdout)["error"] == "no_patch"
    merged = json.loads(
        revprop("merge", "--rule", "maj", str(case), str(gold), str(noop), str(gold)).stdout
    )
    assert merged["chosen"] == 0 and merged["artifact"]["total"] == 38.0
    med = json.loads(revprop("merge", "--rule", "med", str(case), str(prose), str(prose)).stdout)
    assert med == {"artifact": None, "patch": None, "chosen": None}


@pytest.mark.parametrize(
    ("args", "status", "stderr"),
    [
        (
            ("validate", "/nonexistent/dir"),
            2,
            "revprop validate: error: no such file or folder: /nonexistent/dir",
        ),
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
    revprop: Any, args: tuple[str, ...], status: int, stderr: str
) -> None:
    result = revprop(*args)
    assert (result.returncode, result.stderr.splitlines()) == (status, [stderr])


def test_binary_replies_broken_cases_and_empty_folders_are_refused(
    revprop: Any, tmp_path: Path
) -> None:
    case = case_file(tmp_path)
    binary = tmp_path / "r.bin"
    binary.write_bytes(b"\x00\x01\x02")
    result = revprop("score", str(case), str(binary))
    assert result.returncode == 2 and "binary" in result.stderr and "Traceback" not in result.stderr
    broken = reply_file(tmp_path, "b.json", json.dumps({"id": 1}))
    result = revprop("score", str(broken), str(binary))
    assert result.returncode == 2 and "schema" in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = revprop("validate", str(empty))
    assert result.returncode == 2 and "no case files" in result.stderr


def test_every_command_is_a_front_end_in_cli() -> None:
    import importlib

    for name, (target, _) in COMMANDS.items():
        module, function = target.split(":")
        assert module.startswith("pytest_revprop.cli."), name
        assert callable(getattr(importlib.import_module(module), function)), name


@pytest.mark.slow  # a fresh interpreter: what a command imports can only be seen there
def test_validate_score_and_merge_load_neither_litellm_nor_matplotlib(tmp_path: Path) -> None:
    case = case_file(tmp_path)
    reply = reply_file(tmp_path, "gold.txt", json.dumps(invoice_case().gold_patch[:3]))
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


def test_score_turn_scores_a_follow_up_from_the_canonical_document_before_it(
    revprop: Any, tmp_path: Path
) -> None:
    from pytest_revprop.core.cases import BENCHMARK_DIR, load_case
    from pytest_revprop.core.chain import teacher_patch

    path = BENCHMARK_DIR / "cart-free-shipping" / "10.json"
    case = load_case(path)
    last = len(case.followups)
    assert last >= 3
    right = reply_file(tmp_path, "right.txt", json.dumps(teacher_patch(case, 2)))
    first = reply_file(tmp_path, "first.txt", json.dumps(case.gold_patch))
    verdict = json.loads(revprop("score", "--turn", "2", str(path), str(right)).stdout)
    assert verdict["completed"] and verdict["valid"]
    assert not json.loads(revprop("score", str(path), str(right)).stdout)["completed"]
    assert not json.loads(revprop("score", "--turn", "2", str(path), str(first)).stdout)[
        "completed"
    ]
    refused = revprop("score", "--turn", str(last + 1), str(path), str(right))
    assert refused.returncode == 2
    assert f"has {last} follow-up(s): --turn takes 0 to {last}" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_cases_generate_writes_seeded_chains_that_validate_and_score_turn_by_turn(
    revprop: Any, tmp_path: Path
) -> None:
    from pytest_revprop.core.cases import load_case
    from pytest_revprop.core.chain import teacher_patch

    out = tmp_path / "fresh"
    made = revprop(
        "cases", "generate", "--seed", "9", "--out", str(out), "--turns", "5", "--sizes", "10",
        "--scenarios", "cart-price-drop",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    path = out / "cart-price-drop" / "10@9.json"
    assert [p.name for p in out.rglob("*.json")] == [path.name]
    assert revprop("validate", str(out)).returncode == 0
    case = load_case(path)
    assert case.id == "cart-price-drop/10@9" and len(case.followups) == 5
    right = reply_file(tmp_path, "right.txt", json.dumps(teacher_patch(case, 5)))
    verdict = json.loads(revprop("score", "--turn", "5", str(path), str(right)).stdout)
    assert verdict["completed"]
    refused = revprop("cases", "generate", "--seed", "9", "--out", str(out), "--turns", "30")
    assert refused.returncode == 2 and refused.stderr.strip().count("\n") == 0
    assert "--turns must be 0 to 20, got 30" in refused.stderr


def test_the_shipped_cases_folder_is_printed_and_is_the_default_path(
    revprop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_revprop.core.cases import BENCHMARK_DIR, load_cases

    shipped = len(load_cases([BENCHMARK_DIR]).cases)
    monkeypatch.chdir(tmp_path)  # a project outside the checkout
    printed = revprop("cases", "path")
    assert (printed.returncode, printed.stdout) == (0, f"{BENCHMARK_DIR}\n")
    validated = revprop("validate")
    assert validated.returncode == 0
    assert validated.stderr == f"{shipped} valid case(s), all valid\n"
    stats = revprop("cases", "stats", "--json")
    assert json.loads(stats.stdout)["cases"] == shipped
    reply = reply_file(tmp_path, "r.txt", "[]")
    for name in ("cart-free-shipping/10.json", "benchmark_cases/cart-free-shipping/10.json"):
        scored = revprop("score", name, str(reply))
        assert scored.returncode == 0 and not json.loads(scored.stdout)["completed"], name
    missing = revprop("score", "cart-free-shipping/11.json", str(reply))
    assert missing.stderr == (
        "revprop score: error: case file cart-free-shipping/11.json: no such file\n"
    )


def test_prompts_copy_gives_templates_that_a_run_accepts_and_never_overwrites(
    revprop: Any, tmp_path: Path
) -> None:
    shipped = Path(revprop("prompts", "path").stdout.strip())
    assert (shipped / "system.md").is_file()
    mine = tmp_path / "mine"
    result = revprop("prompts", "copy", str(mine), "system", "revise.md")
    assert (result.returncode, result.stdout.strip()) == (0, f"copied 2 template(s) into {mine}")
    assert sorted(p.name for p in mine.iterdir()) == ["revise.md", "system.md"]
    assert (mine / "system.md").read_text() == (shipped / "system.md").read_text()
    assert Prompts(mine).dropped_placeholders() == []  # a copy a run takes as it is
    (mine / "system.md").write_text("edited")
    again = revprop("prompts", "copy", str(mine))
    assert again.returncode == 2 and ".md exists; nothing copied" in again.stderr
    assert (mine / "system.md").read_text() == "edited" and not (mine / "turn.md").exists()
    unknown = revprop("prompts", "copy", str(tmp_path / "other"), "sytem")
    assert unknown.returncode == 2 and "no shipped template 'sytem'" in unknown.stderr
    assert not (tmp_path / "other").exists()
