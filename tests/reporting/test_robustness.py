"""Robustness to fresh instances (reporting/robustness.py): shipped against fresh completion,
the spread across instances, the fragile scenarios, and the report's tables."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pytest_revprop.reporting.robustness import robustness_rows, robustness_tables


def rec(case: str, completed: bool, seed: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "case": case, "model": "m", "method": "j+h", "k": 1, "seed": seed,
        "completed": completed, "error": None, **extra,
    }  # fmt: skip


RECORDS = [
    rec("a/10", True, 0), rec("a/10", True, 1),  # shipped a: always
    rec("a/10@1", False, 0), rec("a/10@1", False, 1),
    rec("a/10@2", False, 0), rec("a/10@2", False, 1),
    rec("b/10", False, 0), rec("b/10", False, 1),
    rec("b/10@1", True, 0), rec("b/10@1", True, 1),
    rec("c/10", True, 0),  # no fresh instance: left out
    rec("a/10@2", False, 2, error="call_failed"),  # an infrastructure error: left out
]  # fmt: skip


def test_shipped_and_fresh_completion_the_spread_and_the_fragile_scenarios() -> None:
    [row] = robustness_rows(RECORDS)
    assert (row["model"], row["method"], row["k"]) == ("m", "j+h", 1)
    assert row["shipped"] == 0.5 and row["fresh"] == 2 / 6
    assert row["instances"] == [1, 2]
    assert row["by_instance"] == {"shipped": 0.5, "1": 0.5, "2": 0.0}
    assert abs(row["spread_std"] - (2 / 9) ** 0.5 / 2) < 1e-9  # pstdev of 0.5, 0.5, 0
    assert row["fragile"] == ["a"]
    assert row["by_scenario"]["a"]["shipped"] == 1.0 and row["by_scenario"]["a"]["fresh"] == 0.0
    assert row["by_scenario"]["b"]["fresh"] == 1.0
    assert row["by_scenario"]["a"]["by_instance"] == {"shipped": 1.0, "1": 0.0, "2": 0.0}
    assert row["by_scenario"]["b"]["by_instance"] == {"shipped": 0.0, "1": 1.0}  # no seed 2
    assert "c" not in row["by_scenario"]
    low, high = row["fresh_ci95"]
    assert 0 <= low <= row["fresh"] <= high <= 1


def test_no_fresh_instance_no_rows_and_no_tables() -> None:
    shipped_only = [r for r in RECORDS if "@" not in r["case"]]
    assert robustness_rows(shipped_only) == [] and robustness_tables(shipped_only) == []


def test_the_tables_show_each_group_and_each_scenario() -> None:
    overall, by_scenario = robustness_tables(RECORDS)
    assert overall.rows == [
        ["m", "j+h", "1", "50.0", overall.rows[0][4], "33.3", overall.rows[0][6], "1,2",
         "0.0-50.0", "23.6", "a"],
    ]  # fmt: skip
    assert [r[3] for r in by_scenario.rows] == ["a", "b"]
    assert by_scenario.rows[0][4:6] == ["100.0", "0.0"] and by_scenario.rows[0][-1] == "0.0-100.0"


@given(
    st.lists(
        st.tuples(st.sampled_from("xyz"), st.sampled_from([None, 1, 2]), st.booleans()),
        min_size=1,
        max_size=30,
    ),
    st.randoms(),
)
def test_rows_do_not_depend_on_record_order_and_rates_are_shares(
    draws: list[tuple[str, int | None, bool]], rng: random.Random
) -> None:
    records = [
        rec(f"{s}/10" if seed is None else f"{s}/10@{seed}", done, i)
        for i, (s, seed, done) in enumerate(draws)
    ]
    rows = robustness_rows(records)
    shuffled = list(records)
    rng.shuffle(shuffled)
    assert robustness_rows(shuffled) == rows
    for row in rows:
        for rate in [row["shipped"], row["fresh"], *row["by_instance"].values()]:
            assert rate is None or 0 <= rate <= 1
        assert set(row["fragile"]) <= set(row["by_scenario"])
