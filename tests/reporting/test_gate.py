"""The baseline gate: a regression needs a drop beyond max-drop AND McNemar p < 0.05
(p values worked out by hand: b flips one way and none the other give p = 2 / 2**b)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.records import a_record

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.gate import (
    describe_groups,
    gate,
    gate_lines,
    groups_of,
    read_baseline,
    write_baseline,
)
from pytest_revprop.reporting.stats import GroupKey


def _record(
    case: str,
    completed: bool,
    *,
    error: str | None = None,
    model: str = "m",
    method: str = "med",
    k: int = 3,
    seed: int = 0,
) -> dict[str, Any]:
    return a_record(case, completed, error=error, model=model, method=method, k=k, seed=seed,
                  valid=True, miss=0 if completed else 1)  # fmt: skip


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


def test_a_baseline_sharing_no_model_method_k_is_refused_naming_both_sides() -> None:
    baseline = {"results": [_record("c0", True, model="gold", method="j+h", k=1)]}
    run = [_record("c0", False, model="noop", method="j+h", k=1), _record("c0", False)]
    with pytest.raises(UserError) as error:
        gate(baseline, run, max_drop=2.0, name="base.json")
    assert str(error.value) == (
        "the baseline base.json shares no (model, method, k) with this run: "
        "the baseline holds gold j+h k1; this run holds m med k3, noop j+h k1"
    )


def test_shared_groups_without_a_common_case_and_seed_are_refused() -> None:
    baseline = {"results": [_record(f"c{i}", True) for i in range(3)]}
    run = [_record(f"c{i}", True, seed=1) for i in range(3)]
    with pytest.raises(
        UserError,
        match=r"pairs no sample with this run: both hold m med k3, but the baseline has seeds 0 "
        r"and this run seeds 1 \(pass --revprop-seeds=0\)$",
    ):
        gate(baseline, run, max_drop=2.0)


def test_pairs_all_left_out_for_failed_calls_are_no_usage_error() -> None:
    # the failed calls fail the run already; the gate has nothing to add
    baseline, new = _runs(3, 0)
    for record in new:
        record["error"] = "call_failed"
    result = gate(baseline, new, max_drop=2.0)
    assert result["comparison"].groups == [] and result["comparison"].skipped == 3
    assert result["unpaired"] == [GroupKey("m", "med", 3)]


def test_a_partial_overlap_lists_each_group_not_compared_and_why() -> None:
    baseline = {
        "results": [
            _record("c0", True),
            _record("c0", True, method="select", k=5),
            _record("c0", True, method="j+h", k=1),
        ]
    }
    run = [
        _record("c0", True),
        _record("c0", True, model="x"),
        _record("c1", True, method="j+h", k=1),  # a case the baseline does not hold
    ]
    result = gate(baseline, run, max_drop=2.0)
    assert [g.key for g in result["comparison"].groups] == [GroupKey("m", "med", 3)]
    assert gate_lines(result) == [
        "no significant change m med k3: 100.0% -> 100.0% (+0.0 pts, flips 0 down / 0 up, p=1)",
        "    1 pair cannot detect even a 100-point drop (80% power, exact McNemar at alpha 0.05; "
        "0% of them flipped)",
        "not compared (only in this run): x med k3",
        "not compared (only in the baseline): m select k5",
        "not compared (no pair of the same case and seed without a failed call): m j+h k1",
    ]


def test_the_gate_section_lists_a_regressions_flipped_samples() -> None:
    baseline, new = _runs(10, 10)
    lines = gate_lines(gate(baseline, new, max_drop=2.0), flipped_listed=2)
    assert lines == [
        "REGRESSION m med k3: 100.0% -> 0.0% (-100.0 pts, flips 10 down / 0 up, p=0.00195)",
        "    c0 seed 0",
        "    c1 seed 0",
        "    and 8 more",
    ]


def test_the_terminal_names_ten_flipped_samples_in_natural_order_and_counts_the_rest() -> None:
    """Cases sort as a person reads them (/10, /50, /100, not /10, /100, /50)."""
    cases = [f"cart/{size}" for size in (100, 10, 50)] + [f"inv/{n}" for n in range(12, 0, -1)]
    baseline = {"results": [_record(c, True) for c in cases]}
    run = [_record(c, False) for c in cases]
    lines = gate_lines(gate(baseline, run, max_drop=2.0))
    assert lines[1:] == [
        *(f"    {c} seed 0" for c in ["cart/10", "cart/50", "cart/100"]),
        *(f"    inv/{n} seed 0" for n in range(1, 8)),
        "    and 5 more",
    ]


def test_group_lists_name_the_first_eight_then_count_the_rest() -> None:
    groups = groups_of(_record("c0", True, k=k) for k in range(10, 0, -1))
    assert groups[0] == GroupKey("m", "med", 1)  # sorted by k as a number
    assert describe_groups(groups) == (
        "m med k1, m med k2, m med k3, m med k4, m med k5, m med k6, m med k7, m med k8 and 2 more"
    )
    assert describe_groups([]) == "nothing"
