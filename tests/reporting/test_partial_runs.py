"""A run stopped by Ctrl-C says it is partial (``meta.interrupted``), and what compares runs
treats it so: a partial baseline or run A is refused, a partial run B is named in a note, and
summary.md opens with the word."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.aggregate import markdown_summary
from pytest_revprop.reporting.compare import compare_files
from pytest_revprop.reporting.gate import read_comparable_baseline
from pytest_revprop.reporting.results import is_partial


def _results(path: Path, *, partial: bool) -> Path:
    meta: dict[str, Any] = {"split": "dev", "seeds": [0]}
    if partial:
        meta["interrupted"] = True
    rows = [
        {"case": "a/10", "model": "m", "method": "j+h", "k": 1, "seed": 0, "completed": True,
         "valid": True, "error": None},
    ]  # fmt: skip
    path.write_text(json.dumps({"meta": meta, "summary": [], "results": rows}), encoding="utf-8")
    return path


def test_a_partial_baseline_is_refused_before_the_run(tmp_path: Path) -> None:
    baseline = _results(tmp_path / "baseline.json", partial=True)
    with pytest.raises(UserError, match=r"is a partial run \(interrupted.*as a baseline"):
        read_comparable_baseline(baseline, [("m", "j+h", 1)])
    whole = _results(tmp_path / "whole.json", partial=False)
    assert read_comparable_baseline(whole, [("m", "j+h", 1)])["results"]


def test_compare_refuses_a_partial_run_a_and_names_a_partial_run_b(tmp_path: Path) -> None:
    whole = _results(tmp_path / "whole.json", partial=False)
    partial = _results(tmp_path / "partial.json", partial=True)
    with pytest.raises(UserError, match="as run A"):
        compare_files(partial, whole)
    notes = compare_files(whole, partial).notes
    assert any(n.startswith(f"Run B ({partial}) is partial") for n in notes)
    assert not any("is partial" in n for n in compare_files(whole, whole).notes)


def test_summary_md_says_partial_only_for_a_partial_run() -> None:
    doc: dict[str, Any] = {"meta": {"split": "dev", "seeds": [0]}, "summary": [], "results": []}
    assert "Partial run" not in markdown_summary(doc) and not is_partial(doc)
    doc["meta"]["interrupted"] = True
    assert "**Partial run**: interrupted" in markdown_summary(doc) and is_partial(doc)
