"""The j+h-relative arithmetic: gain, cost and latency multiples, effectiveness (hand-worked)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_revprop.reporting.aggregate import relative_rows
from pytest_revprop.reporting.relative import (
    Measures,
    effectiveness,
    multiple,
    relative_to,
    relative_to_jh,
)
from pytest_revprop.reporting.stats import GroupKey

JH = Measures(completion_rate=0.5, cost_usd=0.002, latency_s=4.0)


def test_gain_is_in_points_and_multiples_are_ratios_to_j_plus_h() -> None:
    rel = relative_to(Measures(0.8, 0.006, 10.0), JH)
    assert rel.gain_points == pytest.approx(30.0)  # 100 x (0.8 - 0.5)
    assert rel.cost_multiple == pytest.approx(3.0)  # 0.006 / 0.002
    assert rel.latency_multiple == pytest.approx(2.5)  # 10 / 4


def test_effectiveness_is_the_gain_per_extra_j_plus_h_cost() -> None:
    rel = relative_to(Measures(0.8, 0.006, 10.0), JH)
    assert rel.cost_effectiveness == pytest.approx(15.0)  # 30 / (3 - 1)
    assert rel.latency_effectiveness == pytest.approx(20.0)  # 30 / (2.5 - 1)


def test_a_loss_at_extra_cost_has_negative_effectiveness() -> None:
    rel = relative_to(Measures(0.4, 0.004, 4.0), JH)
    assert rel.gain_points == pytest.approx(-10.0)  # 100 x (0.4 - 0.5)
    assert rel.cost_effectiveness == pytest.approx(-10.0)  # -10 / (2 - 1)


def test_the_same_cost_as_j_plus_h_has_multiple_one_and_no_effectiveness() -> None:
    rel = relative_to(Measures(0.9, 0.002, 4.0), JH)
    assert rel.cost_multiple == 1.0 and rel.latency_multiple == 1.0
    assert rel.cost_effectiveness is None  # 40 / (1 - 1) is undefined
    assert rel.latency_effectiveness is None


def test_a_cheaper_method_has_no_effectiveness() -> None:
    rel = relative_to(Measures(0.9, 0.001, 2.0), JH)
    assert rel.cost_multiple == pytest.approx(0.5)
    assert rel.cost_effectiveness is None


def test_zero_cost_of_j_plus_h_leaves_the_multiple_and_effectiveness_unknown() -> None:
    free = Measures(0.5, 0.0, 0.0)
    rel = relative_to(Measures(0.9, 0.006, 3.0), free)
    assert rel.gain_points == pytest.approx(40.0)
    assert rel.cost_multiple is None and rel.latency_multiple is None
    assert rel.cost_effectiveness is None and rel.latency_effectiveness is None


def test_a_method_at_zero_cost_is_zero_times_j_plus_h() -> None:
    rel = relative_to(Measures(0.9, 0.0, 4.0), JH)
    assert rel.cost_multiple == 0.0 and rel.cost_effectiveness is None


def test_unknown_values_give_unknown_multiples() -> None:
    assert multiple(None, 2.0) is None
    assert multiple(2.0, None) is None
    assert effectiveness(10.0, None) is None


def _summary_row(model: str, method: str, k: int, rate: float, cost: float, latency: float) -> Any:
    return {
        "model": model,
        "method": method,
        "k": k,
        "completion_rate": rate,
        "cost_usd": cost,
        "latency_s": latency,
    }


SUMMARY = [
    # summary rows hold the total cost (here 4 items each) and the mean latency per item
    _summary_row("m", "j+h", 1, 0.5, 0.008, 4.0),
    _summary_row("m", "med", 5, 0.75, 0.040, 6.0),
    _summary_row("m", "select", 5, 0.5, 0.008, 2.0),
    _summary_row("other", "med", 5, 1.0, 0.040, 6.0),  # no j+h row for this model
]


def test_summary_rows_are_compared_with_their_models_j_plus_h_row() -> None:
    relatives = dict(relative_to_jh(SUMMARY))
    assert list(relatives) == [GroupKey("m", "med", 5), GroupKey("m", "select", 5)]
    med = relatives[GroupKey("m", "med", 5)]
    assert med.gain_points == pytest.approx(25.0)  # 100 x (0.75 - 0.5)
    assert med.cost_multiple == pytest.approx(5.0)  # 0.040 / 0.008
    assert med.latency_multiple == pytest.approx(1.5)  # 6 / 4
    assert med.cost_effectiveness == pytest.approx(6.25)  # 25 / (5 - 1)


def test_the_relative_table_shows_unknown_values_as_n_a() -> None:
    header, rows = relative_rows(SUMMARY)
    assert header == [
        "model",
        "method",
        "k",
        "gain pts",
        "cost x",
        "latency x",
        "cost-effectiveness",
    ]
    assert rows == [
        ["m", "med", "5", "+25.0", "5.00", "1.50", "6.25"],
        ["m", "select", "5", "+0.0", "1.00", "0.50", "n/a"],  # same cost: 0 / (1 - 1)
    ]
