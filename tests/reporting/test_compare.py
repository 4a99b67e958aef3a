from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.records import a_record
from helpers.revprop_report_data import make_results

from pytest_revprop import cli
from pytest_revprop.vocabulary import REGRESSION_EXIT


def _record(
    case: str, completed: bool, method: str = "med", k: int = 3, seed: int = 0
) -> dict[str, Any]:
    return a_record(case, completed, method=method, k=k, seed=seed, valid=True)


def _write(path: Path, results: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"meta": {}, "summary": [], "results": results}))
    return path


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    """med k=3: 10 samples all pass in A and all fail in B (p = 2/1024);
    select k=5: 5 pass in A and fail in B (p = 0.0625, not significant); j+h: 1 of 2 improves."""
    a = [_record(f"c{i}", True) for i in range(10)]
    b = [_record(f"c{i}", False) for i in range(10)]
    a += [_record(f"s{i}", True, "select", 5) for i in range(5)]
    b += [_record(f"s{i}", False, "select", 5) for i in range(5)]
    a += [_record("j0", False, "j+h", 1), _record("j1", True, "j+h", 1)]
    b += [_record("j0", True, "j+h", 1), _record("j1", True, "j+h", 1)]
    return _write(tmp_path / "a.json", a), _write(tmp_path / "b.json", b)


def test_markdown_comparison_names_the_regression_and_the_flips(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = runs
    assert cli.main(["compare", str(a), str(b), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert (
        "| model | method | k | pairs | A % | B % | Δ points | A pass→B fail | A fail→B pass | p | "
        "verdict | detectable drop |" in out
    )
    assert (
        "| m | med | 3 | 10 | 100.0 | 0.0 | -100.0 | 10 | 0 | 0.001953 | regression | 83.5 |" in out
    )
    assert (
        "| m | select | 5 | 5 | 100.0 | 0.0 | -100.0 | 5 | 0 | 0.0625 | no significant change | none |"
        in out
    )
    assert (
        "| m | j+h | 1 | 2 | 50.0 | 100.0 | +50.0 | 0 | 1 | 1 | no significant change | none |"
        in out
    )
    assert "**1 regression: m · med k=3.**" in out
    assert "- m · j+h k=1: A fail → B pass (1): j0 (seed 0)" in out
    assert "<details><summary>Samples that flipped (16)</summary>" in out


def test_fail_on_regression_exits_with_the_gates_regression_code(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = runs
    assert cli.main(["compare", str(a), str(b), "--fail-on-regression"]) == REGRESSION_EXIT == 6
    assert "1 regression: m · med k=3." in capsys.readouterr().out
    # the other direction improves; and a drop no larger than --max-drop is tolerated
    assert cli.main(["compare", str(b), str(a), "--fail-on-regression"]) == 0
    assert cli.main(["compare", str(a), str(b), "--fail-on-regression", "--max-drop", "100"]) == 0
    assert cli.main(["compare", str(a), str(b), "--fail-on-regression", "--alpha", "0.001"]) == 0


def test_help_states_the_regression_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["compare", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        f"--fail-on-regression exit {REGRESSION_EXIT} when any (model, method, k) regressed"
        in help_text
    )


def test_unchanged_runs_list_no_flips_and_count_unpaired_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = make_results()
    a = tmp_path / "a.json"
    a.write_text(json.dumps(results))
    b = tmp_path / "b.json"
    changed = copy.deepcopy(results)
    changed["results"] = changed["results"][:-1]
    b.write_text(json.dumps(changed))
    assert cli.main(["compare", str(a), str(b), "--fail-on-regression"]) == 0
    out = capsys.readouterr().out
    assert "No regression." in out
    assert "Samples that flipped" not in out
    assert "Unpaired results: 1 only in A, 0 only in B." in out
    assert sum("  no significant change  " in line for line in out.splitlines()) == 10


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json", "b.json"], "missing.json: no such file"),
        (["a.json", "other.json"], "share no (case, model, method, k, seed) results to pair"),
        (["a.json", "dupe.json"], "new results: duplicate result for case 'x'"),
    ],
)
def test_unusable_inputs_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    _write(tmp_path / "a.json", [_record("a", True)])
    _write(tmp_path / "b.json", [_record("a", True)])
    _write(tmp_path / "other.json", [_record("z", True)])
    _write(tmp_path / "dupe.json", [_record("x", True), _record("x", False)])
    assert cli.main(["compare", *(str(tmp_path / a) for a in args)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_a_negative_max_drop_is_a_usage_error(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = runs
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["compare", str(a), str(b), "--max-drop", "-1"])
    assert exit_info.value.code == 2
    assert "argument --max-drop: max drop must be >= 0, got -1" in capsys.readouterr().err


def test_the_comment_says_why_each_side_failed_and_reads_the_baselines_figures_from_its_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A baseline keeps only what pairing needs of each record, and its summary: A's recall
    and preserved come from that summary. Every reply of B is prose (no_patch): the comment
    says so, per side, beside A's failure categories."""
    from pytest_revprop.reporting.gate import write_baseline

    doc = make_results()
    for summary_row in doc["summary"]:
        summary_row.update(cascade_recall=0.733, preservation=0.956)
    write_baseline(tmp_path / "a.json", doc)
    b = [{**r, "completed": False, "valid": False, "error": "no_patch"} for r in doc["results"]]
    _write(tmp_path / "b.json", b)
    args = ["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--markdown"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    row = next(r for r in doc["summary"] if (r["model"], r["method"]) == ("m-small", "j+h"))
    a_side = f"| m-small | j+h | 1 | A | 4 | 3 | {row['miss']} | {row['over_edit']} | {row['wrong_value']} |"
    assert a_side in out
    assert "| m-small | j+h | 1 | B | 4 | 4 | – | – | – | no_patch 4 |" in out
    after = out.split("Beyond the paper:", 1)[1].splitlines()
    [beyond] = [line for line in after if line.startswith("| m-small | j+h | 1 |")]
    assert beyond.split(" | ")[7:11] == ["0.73", "–", "0.96", "– |"], beyond  # A: not –


def test_flipped_samples_sort_as_a_person_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = ["cart/100", "cart/10", "cart/50"]
    a = _write(tmp_path / "a.json", [_record(c, True) for c in cases])
    b = _write(tmp_path / "b.json", [_record(c, False) for c in cases])
    assert cli.main(["compare", str(a), str(b), "--markdown"]) == 0
    assert "(3): cart/10 (seed 0), cart/50 (seed 0), cart/100 (seed 0)" in capsys.readouterr().out
