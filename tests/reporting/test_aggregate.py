"""aggregate.summarize on small hand-written records, every expected value worked out by hand."""

from __future__ import annotations

import math
from typing import Any

import pytest
from helpers.records import a_record

from pytest_revprop.reporting.aggregate import summarize, table_rows


def _record(case: str, seed: int, completed: bool, **fields: Any) -> dict[str, Any]:
    defaults = {"miss": 0, "cost_usd": 0.002, "latency_s": 1.0, "valid": True}
    return a_record(case, completed, seed=seed, **{**defaults, **fields})


RECORDS = [
    # seed 0: a and c complete, b misses 2 and over-edits 1, d has a wrong value -> rate 2/4 = 0.5
    _record("a", 0, True),
    _record("b", 0, False, miss=2, over_edit=1),
    _record("c", 0, True),
    _record("d", 0, False, wrong_value=1),
    # seed 1: a, b, d complete, c is cut off (a model outcome) -> rate 3/4 = 0.75
    _record("a", 1, True),
    _record("b", 1, True),
    _record("c", 1, False, valid=False, error="truncated"),
    _record("d", 1, True),
    # seed 1: e's call failed: an error, not a model outcome; it costs nothing and took 10 s
    _record("e", 1, False, valid=False, error="call_failed", cost_usd=0.0, latency_s=10.0),
]


@pytest.fixture
def row() -> dict[str, Any]:
    (only,) = summarize(RECORDS)
    return only


def test_completion_rate_is_the_mean_over_seeds_and_its_spread_the_sample_std(
    row: dict[str, Any],
) -> None:
    assert row["completion_by_seed"] == {"0": 0.5, "1": 0.75}
    assert row["runs"] == 2
    assert row["completion_rate"] == pytest.approx(0.625)  # (0.5 + 0.75) / 2
    # deviations -0.125 and +0.125: sqrt((0.015625 + 0.015625) / (2 - 1)) = sqrt(0.03125)
    assert row["completion_std"] == pytest.approx(math.sqrt(0.03125))
    assert row["completion_std"] == pytest.approx(0.1767767, abs=1e-7)


def test_failure_counts_are_totals_over_the_scored_records(row: dict[str, Any]) -> None:
    assert (row["miss"], row["over_edit"], row["wrong_value"]) == (2, 1, 1)
    assert row["invalid"] == 1  # c at seed 1 (the failed call e is not counted)
    assert row["truncated"] == 1


def test_call_failures_are_counted_as_errors_and_left_out_of_the_rates(
    row: dict[str, Any],
) -> None:
    assert row["errors"] == 1
    # with e counted as a failure, seed 1 would be 3/5 = 0.6 and the mean 0.55, not 0.625
    assert row["completion_by_seed"]["1"] == 0.75
    assert row["n_items"] == 9 and row["n_cases"] == 5  # a..e


def test_cost_and_calls_are_totals_and_latency_is_the_mean_per_item_over_every_record(
    row: dict[str, Any],
) -> None:
    assert row["cost_usd"] == pytest.approx(0.016)  # 8 x 0.002 + 0.0
    assert row["latency_s"] == pytest.approx(2.0)  # (8 x 1.0 + 10.0) / 9
    assert row["calls"] == 9


def test_a_group_whose_items_all_errored_has_no_rate_and_no_runs_and_shows_a_dash() -> None:
    failed = _record("a", 0, False, valid=False, error="call_failed")
    broken = {**failed, "seed": 1, "error": "method_failed"}
    (row,) = summarize([failed, broken])
    assert (row["completion_rate"], row["completion_std"], row["runs"]) == (None, None, 0)
    assert row["errors"] == 2 and row["invalid"] == 0
    header, (cells,) = table_rows([row])
    rate, std = cells[header.index("completion %")], cells[header.index("± std")]
    assert (rate.strip(), std.strip()) == ("–", "–")
    (measured,) = summarize([_record("a", 0, False)])  # a measured zero stays a zero
    _, (zero,) = table_rows([measured])
    assert zero[header.index("completion %")].strip() == "0.0"


def test_one_seed_has_zero_spread() -> None:
    (row,) = summarize([_record("a", 0, True), _record("b", 0, False)])
    assert (row["completion_rate"], row["completion_std"]) == (0.5, 0.0)


def test_rows_are_ordered_by_model_then_the_protocols_method_order_then_k() -> None:
    records = [
        _record("a", 0, True, model="m", method="med", k=5),
        _record("a", 0, True, model="m", method="med", k=3),
        _record("a", 0, True, model="m", method="j+h"),
        _record("a", 0, True, model="m", method="j"),
        _record("a", 0, True, model="b-model", method="select", k=3),
    ]
    order = [(r["model"], r["method"], r["k"]) for r in summarize(records)]
    assert order == [
        ("b-model", "select", 3),
        ("m", "j", 1),
        ("m", "j+h", 1),
        ("m", "med", 3),
        ("m", "med", 5),
    ]


def test_the_summary_table_shows_rates_in_percent_and_cost_to_four_places(
    row: dict[str, Any],
) -> None:
    header, (cells,) = table_rows([row])
    assert dict(zip(header, cells, strict=True)) == {
        "model": "m",
        "method": "j+h",
        "k": "1",
        "completion %": " 62.5",
        "± std": " 17.7",  # 100 x 0.1768
        "miss": "2",
        "over": "1",
        "wrong": "1",
        "invalid": "1",
        "errors": "1",
        "cost $": "0.0160",
        "latency s": "2.00",
        "calls": "9",
        # beyond the paper: a passes at both seeds, b, c and d at one (flaky): 1/4 and 4/4
        "pass^S %": "25.0",
        "pass@S %": "100.0",
        "95% CI %": "{:.1f}–{:.1f}".format(*(100 * v for v in row["completion_ci95"])),
        "recall": "–",  # these records carry no partial credit
        "preserved": "–",
        "flaky": "3",
    }
