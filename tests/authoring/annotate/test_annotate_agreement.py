"""`revprop annotate --agreement`: two copies of the dev split where a few golds differ."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.annotate_helpers import single_revision

from pytest_revprop.authoring.annotate.agreement import agreement
from pytest_revprop.cli.annotate import annotate_main
from pytest_revprop.core.cases import BENCHMARK_DIR, dump_case, load_cases
from pytest_revprop.errors import UserError


def _copy_dev(folder: Path) -> Path:
    for case in load_cases([BENCHMARK_DIR]).cases:
        if case.split == "dev" and case.source is not None:
            target = folder / case.source.relative_to(BENCHMARK_DIR)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(dump_case(single_revision(case.to_dict())), encoding="utf-8")
    return folder


def _edit(folder: Path, case_id: str, change: Any) -> None:
    path = folder / f"{case_id}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(dump_case(data), encoding="utf-8")


def _other_value(data: dict[str, Any]) -> None:
    data["gold"][1]["value"] = "2025-09-01"


def _swap_independent(data: dict[str, Any]) -> None:
    gold = data["gold"]
    gold[1], gold[2] = gold[2], gold[1]


def _flip_kind(data: dict[str, Any]) -> None:
    data["gold"][1]["kind"] = "direct"


def _one_replace_for_two(data: dict[str, Any]) -> None:
    """/sections/1/room and /sections/1/seats as one replace of the whole section."""
    gold = data["gold"]
    section = json.loads(json.dumps(data["artifact"]["sections"][1]))
    for op in gold[:3]:
        section[op["path"].rsplit("/", 1)[1]] = op["value"]
    gold[:3] = [{"op": "replace", "path": "/sections/1", "value": section, "kind": "direct"}]


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    a, b = _copy_dev(tmp_path / "alice"), _copy_dev(tmp_path / "bob")
    _edit(b, "bom-production-start/10", _other_value)
    _edit(b, "cart-free-shipping/10", _swap_independent)
    _edit(b, "deploy-staging-region-move/10", _flip_kind)
    _edit(b, "course-section-cancel/10", _one_replace_for_two)
    _edit(b, "cart-free-shipping/50", lambda d: d.update(request="Two bags of the kibble, please."))
    (b / "bom-production-start/100.json").unlink()
    return a, b


def test_agreement_per_case_and_the_rate(folders: tuple[Path, Path]) -> None:
    report = agreement(str(folders[0]), str(folders[1]))
    verdicts = {p.case: p.verdict for p in report.pairings}
    assert len(verdicts) == 29 and report.only_a == ["bom-production-start/100"]
    assert verdicts["bom-production-start/10"] == "disagree"
    assert verdicts["cart-free-shipping/10"] == "same"  # independent ops in another order
    assert verdicts["deploy-staging-region-move/10"] == "equivalent"  # each completes the other
    assert verdicts["course-section-cancel/10"] == "equivalent"
    assert sum(v == "same" for v in verdicts.values()) == 26
    assert report.rate == pytest.approx(28 / 29)
    [disagreement] = [p for p in report.pairings if p.verdict == "disagree"]
    assert disagreement.only_a == ['replace /materials_due = "2025-09-17" [cascade]']
    assert disagreement.only_b == ['replace /materials_due = "2025-09-01" [cascade]']
    notes = {p.case: p.note for p in report.pairings if p.note}
    assert notes == {"cart-free-shipping/50": "the requests differ"}


def test_the_text_report_lists_the_disagreements_with_their_ops(
    folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert annotate_main(["--agreement", str(folders[0]), str(folders[1])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "agreement: 28 of 29 cases agree (96.6%): 26 same, 2 equivalent, 1 disagree"
    start = out.index("disagree   bom-production-start/10")
    assert out[start + 1 : start + 3] == [
        '  only in A: replace /materials_due = "2025-09-17" [cascade]',
        '  only in B: replace /materials_due = "2025-09-01" [cascade]',
    ]
    assert "only in A: 1 case(s): bom-production-start/100" in out
    assert "same       cart-free-shipping/50 (the requests differ)" in out


def test_the_markdown_report_is_a_table_of_what_differs(
    folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert annotate_main(["--agreement", str(folders[0]), str(folders[1]), "--markdown"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("## Annotator agreement\n")
    assert "28 of 29 cases agree (96.6%)" in text
    assert (
        '| `bom-production-start/10` | disagree | `replace /materials_due = "2025-09-17" [cascade]`'
        in text
    )
    assert "| `deploy-staging-region-move/10` | equivalent |" in text
    assert "Only in A: `bom-production-start/100`" in text


def test_golds_on_different_artifacts_never_agree(tmp_path: Path) -> None:
    a, b = _copy_dev(tmp_path / "a"), _copy_dev(tmp_path / "b")
    _edit(b, "bom-production-start/10", lambda d: d.update(theme="same gold, other wording"))
    path = b / "cart-free-shipping/10.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["conversation"][0]["user"] += " Thanks."
    path.write_text(dump_case(data), encoding="utf-8")
    verdicts = {p.case: (p.verdict, p.note) for p in agreement(str(a), str(b)).pairings}
    assert verdicts["bom-production-start/10"] == ("same", "")
    assert verdicts["cart-free-shipping/10"] == ("same", "")  # the artifact is what counts
    data["artifact"]["note"] = "x"
    data["size"] += 1
    data["conversation"][0]["assistant"].append({"op": "add", "path": "/note", "value": "x"})
    path.write_text(dump_case(data), encoding="utf-8")
    verdicts = {p.case: (p.verdict, p.note) for p in agreement(str(a), str(b)).pairings}
    assert verdicts["cart-free-shipping/10"] == ("disagree", "the artifacts differ")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--agreement", "nowhere", "."], "nowhere: no such file or folder"),
        (["--agreement", ".", ".", "extra"], "takes its two folders and no other path"),
        (["--markdown", "."], "--markdown goes with --agreement"),
        (["nowhere"], "nowhere: no such file or folder"),
        ([], "name at least one folder"),
    ],
)
def test_unusable_arguments_are_one_line_errors(argv: list[str], words: str) -> None:
    with pytest.raises(UserError, match=words):
        annotate_main(argv)


@pytest.mark.slow
def test_the_agreement_report_and_validate_never_import_aiohttp() -> None:
    code = (
        "import sys\n"
        "from pytest_revprop.cli import main\n"
        "main(['annotate', '--agreement', sys.argv[1], sys.argv[1]])\n"
        "main(['validate', '-q', sys.argv[1]])\n"
        "assert 'aiohttp' not in sys.modules, 'aiohttp imported'\n"
        "assert 'litellm' not in sys.modules, 'litellm imported'\n"
    )
    folder = str(BENCHMARK_DIR / "invoice-workshop-hours")
    result = subprocess.run([sys.executable, "-c", code, folder], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "agreement: 3 of 3 cases agree (100.0%)" in result.stdout
