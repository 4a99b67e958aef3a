"""Loading rules of case-format.md: every broken file names the file, the rule and the place."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from handmade_cases import invoice_case

from pytest_revprop.cases import case_schema, load_case, load_cases


def _write(tmp: Path, name: str, data: object) -> Path:
    path = tmp / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _good() -> dict:
    return invoice_case().to_dict()


def test_a_good_case_round_trips(tmp_path: Path) -> None:
    case = load_case(_write(tmp_path, "a.json", _good()))
    assert case.to_dict() == _good() and case.size == 12
    assert case_schema()["title"] == "RevPropBench case"


@pytest.mark.parametrize(
    ("mutate", "rule", "pointer"),
    [
        (lambda d: d.pop("request"), "schema", ""),
        (lambda d: d.update(pattern="sideways"), "schema", "/pattern"),
        (lambda d: d["gold"][1].update(kind="maybe"), "schema", "/gold/1/kind"),
        (
            lambda d: d["conversation"][0]["assistant"][0].update(op="replace"),
            "schema",
            "/conversation/0/assistant/0/op",
        ),
        (lambda d: d["artifact"].update(total=51.0), "conversation-replay", "/artifact/total"),
        (lambda d: d["gold"][0].update(path="/lines/5/qty"), "gold-applies", "/gold"),
        (lambda d: d.update(size=11), "size", "/size"),
        (lambda d: d["gold"][3].update(value="(unclosed"), "regex", "/gold/3/value"),
        (
            lambda d: d["conversation"][1]["assistant"][0].update(path="/x/y"),
            "conversation-replay",
            "/conversation/1/assistant/0",
        ),
    ],
)
def test_each_broken_rule_is_named_with_its_pointer(
    tmp_path: Path, mutate, rule: str, pointer: str
) -> None:
    data = _good()
    mutate(data)
    good = _write(tmp_path, "ok.json", _good() | {"id": "ok/10"})
    bad = _write(tmp_path, "bad.json", data)
    result = load_cases([tmp_path])
    assert [c.id for c in result.cases] == ["ok/10"] and good.exists()
    (error,) = result.errors
    assert (error.file, error.rule, error.pointer) == (str(bad), rule, pointer)
    assert str(bad) in str(error) and rule in str(error)


@pytest.mark.parametrize(
    ("content", "rule"),
    [
        ("{not json", "json"),
        ('{"a": NaN}', "json"),
        ('{"a": 1, "a": 2}', "json"),
        ("[" * 50_000, "json"),
    ],
)
def test_unparseable_files(tmp_path: Path, content: str, rule: str) -> None:
    _write(tmp_path, "x.json", content)
    (error,) = load_cases([tmp_path]).errors
    assert error.rule == rule


def test_invalid_utf8_and_missing_paths(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_bytes(b'{"id": "\xff"}')
    errors = load_cases([tmp_path, tmp_path / "nope"]).errors
    assert sorted(e.rule for e in errors) == ["exists", "utf-8"]


def test_duplicate_ids_are_reported(tmp_path: Path) -> None:
    _write(tmp_path, "a.json", _good())
    _write(tmp_path, "b.json", _good())
    result = load_cases([tmp_path])
    assert len(result.cases) == 1 and result.errors[0].rule == "unique-id"


def _revprop(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_revprop.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_validate_score_merge(tmp_path: Path) -> None:
    case = _write(tmp_path, "cases/a.json", _good())
    gold = _write(
        tmp_path,
        "gold.txt",
        "Sure:\n```json\n" + json.dumps(invoice_case().gold_patch[:3]) + "\n```",
    )
    noop = _write(tmp_path, "noop.txt", "[]")
    prose = _write(tmp_path, "prose.txt", "no idea")
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
    "args",
    [
        ("validate", "/nonexistent/dir"),
        ("score", "/nonexistent.json", "/nonexistent.txt"),
        ("merge", "--rule", "xor", "a", "b"),
        ("frobnicate",),
    ],
)
def test_cli_errors_are_one_line_without_traceback(args: tuple[str, ...]) -> None:
    result = _revprop(*args)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2


def test_cli_rejects_binary_and_broken_case(tmp_path: Path) -> None:
    case = _write(tmp_path, "a.json", _good())
    binary = tmp_path / "r.bin"
    binary.write_bytes(b"\x00\x01\x02")
    result = _revprop("score", str(case), str(binary))
    assert result.returncode == 2 and "binary" in result.stderr and "Traceback" not in result.stderr
    broken = _write(tmp_path, "b.json", {"id": 1})
    result = _revprop("score", str(broken), str(binary))
    assert result.returncode == 2 and "schema" in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = _revprop("validate", str(empty))
    assert result.returncode == 2 and "no case files" in result.stderr
