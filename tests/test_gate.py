"""The baseline gate: a regression needs a drop beyond max-drop AND McNemar p < 0.05
(p values worked out by hand: b flips one way and none the other give p = 2 / 2**b)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.gate import gate, read_baseline, write_baseline


def _record(case: str, completed: bool, *, error: str | None = None) -> dict[str, Any]:
    return {
        "case": case,
        "model": "m",
        "method": "med",
        "k": 3,
        "seed": 0,
        "completed": completed,
        "valid": True,
        "error": error,
        "miss": 0 if completed else 1,
    }


def _runs(
    n: int, flipped: int, *, before: bool = True
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """n samples that all had outcome ``before`` in the baseline; the first ``flipped`` change."""
    base = [_record(f"c{i}", before) for i in range(n)]
    new = [_record(f"c{i}", before != (i < flipped)) for i in range(n)]
    return {"meta": {}, "summary": [], "results": base}, new


def test_a_drop_beyond_max_drop_with_p_below_005_is_a_regression() -> None:
    # 10 of 10 fail now: 100 -> 0 %, -100 points; b = 10, c = 0: p = 2 / 1024 = 0.00195
    baseline, new = _runs(10, 10)
    result = gate(baseline, new, max_drop=2.0)
    (group,) = result["regressions"]
    assert group.delta == pytest.approx(-100.0)
    assert group.p_value == pytest.approx(2 / 1024)
    assert [s.case for s in group.regressed] == [f"c{i}" for i in range(10)]
    assert result["improvements"] == []


def test_a_drop_beyond_max_drop_that_is_not_significant_passes() -> None:
    # 4 of 20 fail now: 100 -> 80 %, -20 points; b = 4: p = 2 / 16 = 0.125
    baseline, new = _runs(20, 4)
    result = gate(baseline, new, max_drop=2.0)
    (group,) = result["comparison"].groups
    assert group.delta == pytest.approx(-20.0)
    assert group.p_value == pytest.approx(0.125)
    assert result["regressions"] == [] and result["improvements"] == []


def test_a_significant_drop_within_max_drop_passes() -> None:
    # 6 of 200 fail now: 100 -> 97 %, -3 points; b = 6: p = 2 / 64 = 0.03125 < 0.05
    baseline, new = _runs(200, 6)
    result = gate(baseline, new, max_drop=5.0)
    (group,) = result["comparison"].groups
    assert group.delta == pytest.approx(-3.0) and group.p_value == pytest.approx(0.03125)
    assert result["regressions"] == []
    assert gate(baseline, new, max_drop=2.0)["regressions"] == [group]


def test_an_improvement_is_reported_and_is_not_a_regression() -> None:
    # 10 of 10 complete now: 0 -> 100 %, +100 points; c = 10: p = 2 / 1024
    baseline, new = _runs(10, 10, before=False)
    result = gate(baseline, new, max_drop=2.0)
    (group,) = result["improvements"]
    assert group.delta == pytest.approx(100.0) and group.p_value == pytest.approx(2 / 1024)
    assert [s.case for s in group.improved] == [f"c{i}" for i in range(10)]
    assert result["regressions"] == []


def test_failed_calls_are_left_out_of_the_pairs() -> None:
    # 10 flips would regress, but 5 of them are call failures now: 5 pairs left, p = 2 / 32
    baseline, new = _runs(10, 10)
    for record in new[:5]:
        record["error"] = "call_failed"
    result = gate(baseline, new, max_drop=2.0)
    assert result["comparison"].skipped == 5
    (group,) = result["comparison"].groups
    assert group.n_pairs == 5 and group.p_value == pytest.approx(0.0625)
    assert result["regressions"] == []


def test_a_written_baseline_keeps_what_pairing_needs_and_reads_back(tmp_path: Path) -> None:
    record = {**_record("c0", True), "findings": ["x"], "patch": []}
    doc = {"meta": {"split": "dev"}, "summary": [], "results": [record]}
    path = tmp_path / "baselines" / "base.json"
    write_baseline(path, doc)
    baseline = read_baseline(path)
    assert baseline["meta"] == {"split": "dev"}
    assert baseline["results"] == [
        {k: record[k] for k in ("case", "model", "method", "k", "seed", "completed", "valid")}
        | {"error": None}
    ]


def test_a_baseline_needs_results_but_no_summary(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps({"results": [_record("c0", True)]}))
    assert len(read_baseline(path)["results"]) == 1
    path.write_text(json.dumps({"summary": []}))
    with pytest.raises(UserError, match=r"base\.json: 'results' is missing or not a list"):
        read_baseline(path)
    path.write_text("{oops")
    with pytest.raises(UserError, match=r"base\.json: not JSON"):
        read_baseline(path)
