"""The run's exit status (plugin/exit_status.py), decided in one module: the gate's bit folded
into pytest's status, an estimate's 0, the cut bit, and the gate's waiver of the model's
failures; with fake sessions, no run."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pytest_revprop.plugin.exit_status import GateVerdict, combined_exit_status, run_exit_status
from pytest_revprop.vocabulary import (
    CUT_EXIT,
    PYTEST_UNFINISHED_EXITS,
    PYTEST_USAGE_EXIT,
    REGRESSION_EXIT,
)

OK, FAILED, NO_TESTS = (
    pytest.ExitCode.OK,
    pytest.ExitCode.TESTS_FAILED,
    pytest.ExitCode.NO_TESTS_COLLECTED,
)


@pytest.mark.parametrize(
    ("status", "gate_status", "combined"),
    [
        (0, REGRESSION_EXIT, 6),  # a regression alone
        (1, REGRESSION_EXIT, 7),  # and a failed test, or another plugin's failure bit
        (16, REGRESSION_EXIT, 22),  # another plugin's own bit survives
        (2, REGRESSION_EXIT, 2),  # interrupted, internal error, usage error, no tests: stand
        (3, REGRESSION_EXIT, 3),
        (4, REGRESSION_EXIT, 4),
        (5, REGRESSION_EXIT, 5),
        (0, PYTEST_USAGE_EXIT, 4),  # a gate that compared nothing is a usage error
        (1, PYTEST_USAGE_EXIT, 4),
        (2, PYTEST_USAGE_EXIT, 2),
    ],
)
def test_the_gates_verdict_is_combined_with_the_status_never_overwriting_it(
    status: int, gate_status: int, combined: int
) -> None:
    assert combined_exit_status(status, gate_status) == combined


def test_the_pytest_statuses_the_gate_knows_are_pytests_own() -> None:
    assert PYTEST_USAGE_EXIT == pytest.ExitCode.USAGE_ERROR
    assert {
        pytest.ExitCode.INTERRUPTED,
        pytest.ExitCode.INTERNAL_ERROR,
        pytest.ExitCode.USAGE_ERROR,
        pytest.ExitCode.NO_TESTS_COLLECTED,
    } == PYTEST_UNFINISHED_EXITS


def _status(status: int, *, gate: int | None = None, estimate: bool = False, cut: int = 0) -> int:
    return run_exit_status(status, gate_status=gate, estimate_only=estimate, cut_items=cut)


def test_without_a_verdict_an_estimate_or_a_cut_pytests_status_stands_as_it_is() -> None:
    for status in pytest.ExitCode:
        assert _status(status) is status


def test_cut_exit_is_ored_in_and_pytest_statuses_stand() -> None:
    assert [_status(s, cut=2) for s in (0, 1, 6, 2, 4, 5)] == [CUT_EXIT, CUT_EXIT | 1, 14, 2, 4, 5]


def test_an_estimate_collects_nothing_by_design_and_exits_0() -> None:
    assert _status(NO_TESTS, estimate=True) == OK
    assert _status(NO_TESTS) == NO_TESTS  # a run that collected nothing is pytest's 5
    assert _status(pytest.ExitCode.USAGE_ERROR, estimate=True) == pytest.ExitCode.USAGE_ERROR


def test_the_gate_then_the_cut_both_bits_survive() -> None:
    assert _status(FAILED, gate=REGRESSION_EXIT, cut=1) == 1 | REGRESSION_EXIT | CUT_EXIT
    assert _status(OK, gate=PYTEST_USAGE_EXIT, cut=1) == PYTEST_USAGE_EXIT  # usage stands


def _session(failed: int) -> Any:
    return SimpleNamespace(testsfailed=failed)


def test_under_a_baseline_the_gate_waives_the_items_that_did_not_complete() -> None:
    verdict = GateVerdict({"results": []})
    for _ in range(3):
        verdict.count_not_completed()
    session = _session(5)  # 3 of ours that did not complete, 2 other failures
    verdict.waive(session)
    assert session.testsfailed == 2
    alone = _session(1)
    verdict.waive(alone)
    assert alone.testsfailed == 0  # never below 0


def test_without_a_baseline_nothing_is_waived_or_judged() -> None:
    verdict = GateVerdict(None)
    verdict.count_not_completed()
    session = _session(1)
    verdict.waive(session)
    assert session.testsfailed == 1
    verdict.judge([], 2.0, "base.json", "completion")
    assert verdict.status is None and verdict.section(2.0) == []


def _row(case: str, completed: bool) -> dict[str, Any]:
    return {"case": case, "model": "m", "method": "j+h", "k": 1, "seed": 0, "completed": completed,
            "error": None}  # fmt: skip


def test_a_regression_is_the_gates_bit_and_a_gate_that_compares_nothing_a_usage_error() -> None:
    cases = [f"c{i}" for i in range(12)]
    verdict = GateVerdict({"results": [_row(c, True) for c in cases]})
    verdict.judge([_row(c, False) for c in cases], 2.0, "base.json", "completion")
    assert verdict.status == REGRESSION_EXIT
    assert any("REGRESSION" in line for line, _ in verdict.section(2.0))
    other = GateVerdict({"results": [_row(c, True) for c in cases]})
    other.judge([{**_row("c0", True), "model": "x"}], 2.0, "base.json", "completion")
    assert other.status == PYTEST_USAGE_EXIT and other.error is not None
