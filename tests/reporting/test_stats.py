from __future__ import annotations

import json
import math
from typing import Any

import pytest
from helpers.records import a_record

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.stats import SampleKey, mcnemar_exact, mean_std, pair_outcomes


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (0, 5, 0.0625),  # 2 * 1/32
        (5, 0, 0.0625),  # symmetric
        (1, 9, 0.021484375),  # 2 * (1 + 10) / 1024
        (2, 8, 0.109375),  # 2 * (1 + 10 + 45) / 1024
        (3, 3, 1.0),  # b == c: capped at 1
        (0, 1, 1.0),  # 2 * 1/2
        (0, 0, 1.0),  # no discordant pairs
        (0, 60, 2.0**-59),  # exact even where floats of C(n, i) / 2**n would underflow in steps
    ],
)
def test_mcnemar_exact_matches_hand_computed_values(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_exact_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_mean_std_uses_the_sample_std() -> None:
    mean, std = mean_std([1, 2, 3, 4])
    assert mean == 2.5
    assert std == pytest.approx(math.sqrt(5 / 3))  # squares 2.25+0.25+0.25+2.25 = 5, / (4 - 1)


def test_mean_std_of_one_value_has_zero_spread_and_of_none_is_an_error() -> None:
    assert mean_std([0.7]) == (0.7, 0.0)
    with pytest.raises(ValueError):
        mean_std([])


def _record(
    case: str,
    completed: bool,
    *,
    model: str = "m",
    method: str = "med",
    k: int = 3,
    seed: int = 0,
    error: str | None = None,
) -> dict[str, Any]:
    return a_record(case, completed, model=model, method=method, k=k, seed=seed, error=error)


def test_pair_outcomes_counts_discordant_pairs_per_group() -> None:
    base = [
        _record("a", True),
        _record("b", True),
        _record("c", False),
        _record("d", False),
        _record("a", True, seed=42),
        _record("a", True, method="j+h", k=1),
        _record("only-base", True),
    ]
    new = [
        _record("a", False),
        _record("b", True),
        _record("c", True),
        _record("d", False),
        _record("a", False, seed=42),
        _record("a", True, method="j+h", k=1),
        _record("only-new", True),
        _record("only-new", True, seed=1),
    ]
    comparison = pair_outcomes(base, new)
    assert [(g.method, g.k) for g in comparison.groups] == [("j+h", 1), ("med", 3)]
    med = comparison.groups[1]
    assert (med.n_pairs, med.b, med.c) == (5, 2, 1)
    assert med.base_rate == pytest.approx(3 / 5)
    assert med.new_rate == pytest.approx(2 / 5)
    assert med.delta == pytest.approx(-20.0)
    assert med.p_value == 1.0  # 2 * (1 + 3) / 8, capped
    assert med.regressed == [SampleKey("a", 0), SampleKey("a", 42)]
    assert med.improved == [SampleKey("c", 0)]
    assert (comparison.unpaired_base, comparison.unpaired_new) == (1, 2)
    assert json.loads(json.dumps(comparison.to_dict()))["groups"][1]["regressed"] == [
        ["a", 0],
        ["a", 42],
    ]


def test_pairs_with_a_failed_call_are_left_out() -> None:
    base = [_record("a", True), _record("b", True)]
    new = [_record("a", False, error="call_failed"), _record("b", False)]
    comparison = pair_outcomes(base, new)
    assert comparison.skipped == 1
    assert (comparison.groups[0].n_pairs, comparison.groups[0].b) == (1, 1)


def _runs(n: int, lost: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """n paired samples that all pass in the base run; the first ``lost`` fail in the new one."""
    base = [_record(f"c{i}", True) for i in range(n)]
    new = [_record(f"c{i}", i >= lost) for i in range(n)]
    return base, new


def test_regression_rule_needs_both_a_drop_and_significance() -> None:
    # 10 of 10 lost: delta -100 points, p = 2 / 1024 -> regression
    group = pair_outcomes(*_runs(10, lost=10)).groups[0]
    assert group.p_value == pytest.approx(0.001953125)
    assert group.is_regression(max_drop=2)
    # 5 of 5 lost: delta -100 points but p = 0.0625 -> not significant
    group = pair_outcomes(*_runs(5, lost=5)).groups[0]
    assert group.delta == pytest.approx(-100.0)
    assert not group.is_regression(max_drop=2)
    # 15 of 1000 lost: significant (p = 2 / 2**15) but only -1.5 points
    group = pair_outcomes(*_runs(1000, lost=15)).groups[0]
    assert group.delta == pytest.approx(-1.5)
    assert group.p_value == pytest.approx(2 / 2**15)
    assert not group.is_regression(max_drop=2)
    assert group.is_regression(max_drop=1)
    assert pair_outcomes(*_runs(1000, lost=15)).regressions(max_drop=1) == [group]


def test_improvement_is_the_mirror_of_the_regression_rule() -> None:
    base, new = _runs(10, lost=10)
    group = pair_outcomes(new, base).groups[0]  # 10 of 10 gained
    assert (group.delta, group.c) == (100.0, 10)
    assert group.is_improvement(max_drop=2) and not group.is_regression(max_drop=2)
    assert not pair_outcomes(*_runs(10, lost=10)).groups[0].is_improvement(max_drop=2)


def test_duplicate_or_incomplete_records_are_user_errors() -> None:
    with pytest.raises(UserError, match="duplicate result for case 'a'"):
        pair_outcomes([_record("a", True), _record("a", False)], [])
    with pytest.raises(UserError, match="new results: a record lacks case/model/method"):
        pair_outcomes([], [{"model": "m"}])
