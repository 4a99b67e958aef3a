"""Scores beyond the paper, every expected figure worked out by hand: the samples'
cascade recall and preservation (credit.py), the groups' pass^S, pass@S, flaky cases, means
and completion interval (reporting/metrics.py), where they fail, and the pass^S gate."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case, make_case, task_drop_case
from helpers.records import a_record

from pytest_revprop.api import Outcome
from pytest_revprop.core.askers import REFERENCE_SOLVERS, reference_ask
from pytest_revprop.core.cases import BENCHMARK_DIR, load_cases
from pytest_revprop.core.credit import partial_credit, preserved_places, required_cascades
from pytest_revprop.core.scoring import Score, score_patch, score_reply
from pytest_revprop.reporting.aggregate import summarize
from pytest_revprop.reporting.gate import gate, gate_lines
from pytest_revprop.reporting.metrics import (
    BOOTSTRAP_RESAMPLES,
    GROUP_FIELDS,
    NO_CREDIT_NOTE,
    OLD_FILE_NOTE,
    breakdown_rows,
    completion_ci95,
    fill_summary,
    solved_cases,
)
from pytest_revprop.reporting.where_tables import where_tables

# ------------------------------------------------------------------------------ per sample


def test_the_invoice_credit_counted_by_hand() -> None:
    case = invoice_case()
    # required cascades: /lines/0/amount and /total (the memo is optional); the 12 leaves of A
    # less the four gold paths (qty, amount, total, memo) leave 8 places to preserve
    assert required_cascades(case) == 2
    assert sorted(preserved_places(case)) == [
        "/client",
        "/lines/0/item",
        "/lines/0/unit_price",
        "/lines/1/amount",
        "/lines/1/item",
        "/lines/1/qty",
        "/lines/1/unit_price",
        "/paid",
    ]
    qty = {"op": "replace", "path": "/lines/0/qty", "value": 2}
    amount = {"op": "replace", "path": "/lines/0/amount", "value": 24.0}
    total = {"op": "replace", "path": "/total", "value": 38.0}
    gold = partial_credit(case, score_patch(case, [qty, amount, total]))
    assert (gold.cascade_recall, gold.preservation) == (1.0, 1.0)
    direct = partial_credit(case, score_patch(case, [qty]))
    assert (direct.cascade_recall, direct.preservation) == (0.0, 1.0)
    # the amount right, the total wrong (a wrong value), paid and a bolt's qty over-edited:
    # recall 1 / 2; 2 of the 8 places changed: 1 - 2 / 8 = 0.75
    partial = [
        qty,
        amount,
        {"op": "replace", "path": "/total", "value": 40.0},
        {"op": "replace", "path": "/paid", "value": True},
        {"op": "replace", "path": "/lines/1/qty", "value": 8},
    ]
    credit = partial_credit(case, score_patch(case, partial))
    assert (credit.cascade_recall, credit.preservation) == (0.5, 0.75)
    # a key added outside the gold changes no original place: preservation stays 1
    added = partial_credit(
        case, score_patch(case, [qty, amount, total, {"op": "add", "path": "/x", "value": 1}])
    )
    assert added.preservation == 1.0


def test_an_invalid_reply_earns_zero_and_a_failed_call_earns_nothing() -> None:
    case = invoice_case()
    invalid = partial_credit(case, score_reply(case, "I would change the quantity."))
    assert (invalid.cascade_recall, invalid.preservation) == (0.0, 0.0)
    failed = Score(completed=False, valid=False, outcome=Outcome(error="call_failed"))
    assert partial_credit(case, failed).to_dict() == {"cascade_recall": None, "preservation": None}


def test_recall_is_none_without_a_required_cascade() -> None:
    case = make_case(
        {"a": 1, "b": 2, "c": 3},
        [
            {"op": "replace", "path": "/a", "value": 5, "kind": "direct"},
            {"op": "replace", "path": "/b", "value": 4, "kind": "cascade", "optional": True},
        ],
    )
    assert required_cascades(case) == 0
    credit = partial_credit(case, score_patch(case, [{"op": "replace", "path": "/a", "value": 5}]))
    assert (credit.cascade_recall, credit.preservation) == (None, 1.0)  # /c kept: 1 of 1
    invalid = partial_credit(case, score_reply(case, "no idea"))
    assert (invalid.cascade_recall, invalid.preservation) == (None, 0.0)


def test_an_array_whose_length_the_gold_changes_keeps_the_elements_the_gold_leaves() -> None:
    case = task_drop_case()
    # B is removed and C edited (its after): of the list only task A is kept, whole
    assert preserved_places(case) == ("/project", "/tasks/0/name", "/tasks/0/after")
    remove, relink, count = (
        {"op": "remove", "path": "/tasks/1"},
        {"op": "replace", "path": "/tasks/1/after", "value": "A"},
        {"op": "replace", "path": "/count", "value": 2},
    )
    # forgetting the relink makes the list (one unit for the judge) wrong: the relink is
    # missed, the count is right: recall 1 of 2; task A is still in the list: preserved
    no_relink = partial_credit(case, score_patch(case, [remove, count]))
    assert (no_relink.cascade_recall, no_relink.preservation) == (0.5, 1.0)
    # doing nothing keeps task A too
    assert partial_credit(case, score_patch(case, [])).preservation == 1.0
    renamed = [remove, relink, count, {"op": "replace", "path": "/project", "value": "Gemini"}]
    assert partial_credit(case, score_patch(case, renamed)).preservation == pytest.approx(2 / 3)
    # renaming task A: no element equal to A is left, so both of its leaves count as changed
    task_a = [remove, relink, count, {"op": "replace", "path": "/tasks/0/name", "value": "Z"}]
    assert partial_credit(case, score_patch(case, task_a)).preservation == pytest.approx(1 / 3)


def test_the_reference_solvers_on_every_shipped_case() -> None:
    cases = load_cases([BENCHMARK_DIR]).cases
    assert len(cases) == 150
    seen = {solver: 0 for solver in REFERENCE_SOLVERS}
    for case in cases:
        has_cascade = required_cascades(case) > 0
        for solver in REFERENCE_SOLVERS:
            reply = asyncio.run(reference_ask(case, solver)([], 0, "sample", 0))
            credit = partial_credit(case, score_reply(case, reply.content))
            assert credit.preservation == 1.0, (case.id, solver)
            if solver == "gold":
                assert credit.cascade_recall in (1.0, None), case.id
            elif has_cascade:
                assert credit.cascade_recall == 0.0, (case.id, solver)
            seen[solver] += credit.cascade_recall is not None
    assert seen["gold"] == seen["noop"] == seen["direct-only"] > 0


# ------------------------------------------------------------------------------ per group


def _record(
    case: str, seed: int, completed: bool, recall: float | None, kept: float | None, **extra: Any
) -> dict[str, Any]:
    fields = {"valid": True, "miss": 0, "latency_s": 1.0, "cascade_recall": recall,
              "preservation": kept, **extra}  # fmt: skip
    return a_record(case, completed, seed=seed, **fields)


# Three cases at seeds 0 and 1:
#   a completes at both seeds (recall 1, preservation 1 each)
#   b completes at seed 0; at seed 1 it misses one of two cascades and over-edits one of four
#     kept places (recall 0.5, preservation 0.75)
#   c fails at seed 0 (misses its one cascade: recall 0, preservation 1) and is invalid at
#     seed 1 (0 and 0)
#   d's call failed at seed 1: left out of everything
HAND = [
    _record("a", 0, True, 1.0, 1.0),
    _record("a", 1, True, 1.0, 1.0),
    _record("b", 0, True, 1.0, 1.0, pattern="temporal", size=50),
    _record("b", 1, False, 0.5, 0.75, pattern="temporal", size=50),
    _record("c", 0, False, 0.0, 1.0, domain="travel_itinerary"),
    _record("c", 1, False, 0.0, 0.0, valid=False, error="no_patch", domain="travel_itinerary"),
    _record("d", 1, False, None, None, valid=False, error="call_failed"),
]


def test_the_three_case_two_seed_example_by_hand() -> None:
    (row,) = summarize(HAND)
    # completion: seed 0 2/3 (a, b), seed 1 1/3 (a): (2/3 + 1/3) / 2 = 0.5
    assert row["completion_rate"] == pytest.approx(0.5)
    assert row["pass_all_seeds"] == pytest.approx(1 / 3)  # a
    assert row["pass_any_seed"] == pytest.approx(2 / 3)  # a, b
    assert row["flaky_cases"] == ["b"]
    # recall (1 + 1 + 1 + 0.5 + 0 + 0) / 6 = 3.5 / 6; preservation (1+1+1+0.75+1+0) / 6
    assert row["cascade_recall"] == pytest.approx(3.5 / 6)
    assert row["preservation"] == pytest.approx(4.75 / 6)
    # cases (done of 2): a 2, b 1, c 0. A resample of three cases is all c (share 0) with
    # probability 1/27 and all a (share 1) with 1/27: about 74 of 2000 resamples each, far
    # more than the 50 the 2.5% and 97.5% ranks leave out, so the interval is [0, 1]
    assert row["completion_ci95"] == [0.0, 1.0]
    # the new fields follow the existing ones, whose order is unchanged
    *before, last = list(row)
    assert last == "invalid_by_reason"
    assert before[-len(GROUP_FIELDS) :] == list(GROUP_FIELDS)
    assert before[: -len(GROUP_FIELDS)][-1] == "completion_by_seed"


def test_the_interval_is_the_same_for_the_same_records_in_any_order_or_names() -> None:
    records = [
        _record(f"c{i}", seed, (i + seed) % 3 != 0, None, None)
        for i in range(30)
        for seed in (0, 1)
    ]
    first = summarize(records)[0]["completion_ci95"]
    shuffled = records[:]
    random.Random(7).shuffle(shuffled)
    renamed = [{**r, "case": "x" + r["case"][::-1]} for r in shuffled]
    assert summarize(shuffled)[0]["completion_ci95"] == first
    assert summarize(renamed)[0]["completion_ci95"] == first


def test_the_interval_of_a_hundred_cases_is_near_the_normal_one() -> None:
    # 50 cases complete at both seeds, 50 at none: rate 0.5, and over cases the share has
    # standard error sqrt(0.25 / 100) = 0.05: the interval is about 0.5 -+ 1.96 x 0.05
    per_case = [(2, 2)] * 50 + [(0, 2)] * 50
    low, high = completion_ci95(per_case) or (0.0, 0.0)
    assert low == pytest.approx(0.402, abs=0.02) and high == pytest.approx(0.598, abs=0.02)
    assert BOOTSTRAP_RESAMPLES == 2000
    assert completion_ci95([]) is None and completion_ci95([(1, 2)] * 5) == [0.5, 0.5]


def test_one_seed_makes_pass_all_and_pass_any_the_completion() -> None:
    (row,) = summarize([r for r in HAND if r["seed"] == 0])
    assert row["pass_all_seeds"] == row["pass_any_seed"] == pytest.approx(2 / 3)
    assert row["flaky_cases"] == []


def test_where_they_fail_by_hand() -> None:
    rows = {(r["by"], r["value"]): r for r in breakdown_rows(HAND)}
    # arithmetic: a and c (4 samples, a's two complete); a passes at every seed, c not
    arithmetic = rows["pattern", "arithmetic"]
    assert (arithmetic["cases"], arithmetic["samples"]) == (2, 4)
    assert arithmetic["completion_rate"] == 0.5 and arithmetic["pass_all_seeds"] == 0.5
    assert arithmetic["cascade_recall"] == pytest.approx(0.5)  # (1 + 1 + 0 + 0) / 4
    temporal = rows["pattern", "temporal"]  # b: 1 of 2, flaky, recall (1 + 0.5) / 2
    assert (temporal["completion_rate"], temporal["pass_all_seeds"]) == (0.5, 0.0)
    assert temporal["cascade_recall"] == pytest.approx(0.75)
    travel = rows["domain", "travel_itinerary"]  # c
    assert (travel["completion_rate"], travel["pass_all_seeds"], travel["cascade_recall"]) == (
        0.0,
        0.0,
        0.0,
    )
    assert [r["value"] for r in breakdown_rows(HAND) if r["by"] == "size"] == ["10", "50"]
    assert solved_cases(HAND) == {"a": "by all", "b": "by some", "c": "by none"}


def test_the_report_tables_list_the_cases_solved_by_none_and_by_all() -> None:
    doc = {"meta": {}, "summary": summarize(HAND), "results": HAND}
    where, solved = where_tables(doc)
    assert where.header[:6] == ["by", "value", "cases", "m completion %", "m pass^S %", "m recall"]
    assert ["pattern", "arithmetic", "2", "50.0", "50.0", "0.50"] in where.rows
    assert [row[1:] for row in solved.rows] == [["1", "c"], ["1", "a"]]


def test_a_summary_written_before_these_figures_gets_them_from_its_records() -> None:
    new = {"meta": {}, "summary": summarize(HAND), "results": HAND}
    old_records = [
        {k: v for k, v in r.items() if k not in ("cascade_recall", "preservation")} for r in HAND
    ]
    old_summary = [
        {k: v for k, v in row.items() if k not in GROUP_FIELDS} for row in new["summary"]
    ]
    filled, notes = fill_summary({"meta": {}, "summary": old_summary, "results": old_records})
    (row,) = filled["summary"]
    expected = {**new["summary"][0], "cascade_recall": None, "preservation": None}
    assert row == expected
    assert notes == [OLD_FILE_NOTE, NO_CREDIT_NOTE]
    assert fill_summary(new) == (new, [])


# ------------------------------------------------------------------------------ the gate


def _gate_record(case: str, seed: int, completed: bool) -> dict[str, Any]:
    return {"case": case, "model": "m", "method": "j+h", "k": 1, "seed": seed,
            "completed": completed, "valid": True, "error": None}  # fmt: skip


def test_the_pass_all_seeds_gate_finds_what_completion_cannot() -> None:
    # baseline: c0..c5 pass at both seeds, c6..c11 at neither. Now: c0..c5 fail at seed 1,
    # c6..c11 pass at seed 0. Completion: 6 samples down, 6 up: 12/24 -> 12/24, p = 1.
    # pass^S: 6/12 -> 0/12, 6 cases down and none up: p = 2 / 2**6 = 0.03125 < 0.05
    cases = [f"c{i}" for i in range(12)]
    base = [_gate_record(c, s, i < 6) for i, c in enumerate(cases) for s in (0, 1)]
    new = [
        _gate_record(c, s, (i < 6 and s == 0) or (i >= 6 and s == 0))
        for i, c in enumerate(cases)
        for s in (0, 1)
    ]
    baseline = {"meta": {}, "summary": [], "results": base}
    by_sample = gate(baseline, new, 2.0)
    assert by_sample["regressions"] == []
    (group,) = by_sample["comparison"].groups
    assert (group.b, group.c, group.p_value) == (6, 6, 1.0)
    by_case = gate(baseline, new, 2.0, metric="pass_all_seeds")
    (group,) = by_case["regressions"]
    assert (group.n_pairs, group.base_rate, group.new_rate) == (12, 0.5, 0.0)
    assert (group.b, group.c, group.p_value) == (6, 0, 0.03125)
    lines = gate_lines(by_case)
    assert lines[0].startswith("REGRESSION m j+h k1: pass^S 50.0% -> 0.0% (-50.0 pts")
    assert lines[1] == "    c0 at every seed"


def test_the_pass_all_seeds_gate_pairs_only_the_seeds_both_runs_scored() -> None:
    # the new run failed c0 at seed 1 only by a failed call: that pair is left out, so c0
    # passes at every paired seed (seed 0) in both runs
    base = [_gate_record("c0", 0, True), _gate_record("c0", 1, True)]
    new = [_gate_record("c0", 0, True), {**_gate_record("c0", 1, False), "error": "call_failed"}]
    result = gate({"results": base}, new, 2.0, metric="pass_all_seeds")
    (group,) = result["comparison"].groups
    assert (group.n_pairs, group.base_rate, group.new_rate) == (1, 1.0, 1.0)
    assert result["comparison"].skipped == 1


def test_compare_tests_pass_all_seeds_and_shows_the_figures_beyond_the_paper(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_revprop.cli.compare import compare_main

    cases = [f"c{i}" for i in range(12)]  # as in the gate test above
    base = [_gate_record(c, s, i < 6) for i, c in enumerate(cases) for s in (0, 1)]
    new = [_gate_record(c, s, s == 0) for c in cases for s in (0, 1)]
    paths = []
    for name, records in (("a.json", base), ("b.json", new)):
        path = tmp_path / name
        summary = [{"model": "m", "method": "j+h", "k": 1, "completion_rate": 0.5}]
        path.write_text(json.dumps({"meta": {}, "summary": summary, "results": records}))
        paths.append(str(path))
    assert compare_main([*paths, "--fail-on-regression"]) == 0
    out = capsys.readouterr().out
    # pass^S 50.0 -> 0.0; no record carries partial credit: shown as –
    assert "Beyond the paper:" in out
    beyond = out.split("Beyond the paper:", 1)[1].splitlines()
    line = next(row for row in beyond if row.startswith("m ") and "–" in row)
    assert line.split()[3:5] == ["50.0", "0.0"] and line.split()[-4:] == ["–"] * 4
    assert compare_main([*paths, "--metric", "pass_all_seeds", "--fail-on-regression"]) == 6
    out = capsys.readouterr().out
    assert "Regression: pass^S (cases passed at every seed) down by more than 2" in out
    assert "A pass → B fail (6): c0, c1, c2, c3, c4, c5" in out
