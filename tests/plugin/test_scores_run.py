"""A whole run of the test double with scripted partial answers (cascades missed, places
over-edited, a reply in prose), its scores beyond the paper counted by hand, and the pass^S
gate through the plugin's option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case, task_drop_case, travel_case, write_cases
from helpers.runs import run_revprop

from pytest_revprop.core.cases import BENCHMARK_DIR, load_cases
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.testing.responder import find_case

INVOICE_MARK = "3 widgets and 7 bolts"
TRAVEL_MARK = "Old town walk"
TASKS_MARK = "Apollo"


def _op(op: str, path: str, value: Any = None) -> dict[str, Any]:
    return {"op": op, "path": path} | ({} if op == "remove" else {"value": value})


INVOICE_GOLD = [
    _op("replace", "/lines/0/qty", 2),
    _op("replace", "/lines/0/amount", 24.0),
    _op("replace", "/total", 38.0),
]
TRAVEL_GOLD = [
    _op("replace", "/trip/start", "2026-05-03"),
    _op("replace", "/tour/date", "2026-05-05"),
    _op("replace", "/checkout", "2026-05-07"),
]
# What the scripted model answers, per case and seed:
#   invoice s0: the gold                                   -> completed, recall 1,   kept 1
#   invoice s1: qty and amount, the total missed, paid set -> failed,    recall 1/2, kept 7/8
#   travel  s0, s1: the gold                               -> completed, recall 1,   kept 1
#   tasks   s0: removes B and fixes the count, C not relinked (the list is one wrong unit)
#                                                          -> failed,    recall 1/2, kept 1
#   tasks   s1: prose                                      -> invalid,   recall 0,   kept 0
SCRIPT = [
    (INVOICE_MARK, 0, json.dumps(INVOICE_GOLD)),
    (INVOICE_MARK, 1, json.dumps([*INVOICE_GOLD[:2], _op("replace", "/paid", True)])),
    (TRAVEL_MARK, None, json.dumps(TRAVEL_GOLD)),
    (TASKS_MARK, 0, json.dumps([_op("remove", "/tasks/1"), _op("replace", "/count", 2)])),
    (TASKS_MARK, 1, "I would drop task B and renumber the rest."),
]


def _run(pytester: pytest.Pytester, server: Any, cases: Path, *args: str) -> pytest.RunResult:
    return run_revprop(
        pytester, cases, "--revprop-model=openai/fake", f"--revprop-api-base={server.base_url}",
        "--revprop-method=j+h", "--revprop-seeds=0,1", *args, cache=False, figures=None,
    )  # fmt: skip


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    return write_cases(tmp_path / "cases", [invoice_case(), travel_case(), task_drop_case()])


def test_a_scripted_run_scores_beyond_the_paper_as_counted_by_hand(
    pytester: pytest.Pytester, fake_server: Any, cases: Path
) -> None:
    rules = [{"contains": mark, "seed": seed, "content": text} for mark, seed, text in SCRIPT]
    server = fake_server(rules=rules, default={"content": "no rule matched"})
    result = _run(pytester, server, cases)
    result.assert_outcomes(passed=3, failed=3)
    doc = json.loads((pytester.path / "reports" / "results.json").read_text())
    credit = {
        (r["case"], r["seed"]): (r["cascade_recall"], r["preservation"]) for r in doc["results"]
    }
    assert credit == {
        ("unit/10", 0): (1.0, 1.0),
        ("unit/10", 1): (0.5, 0.875),
        ("travel-shift/10", 0): (1.0, 1.0),
        ("travel-shift/10", 1): (1.0, 1.0),
        ("tasks-drop/8", 0): (0.5, 1.0),
        ("tasks-drop/8", 1): (0.0, 0.0),
    }
    (row,) = doc["summary"]
    # completion: seed 0 2/3 (invoice, travel), seed 1 1/3 (travel): 0.5
    assert row["completion_rate"] == pytest.approx(0.5)
    assert row["pass_all_seeds"] == pytest.approx(1 / 3)  # travel
    assert row["pass_any_seed"] == pytest.approx(2 / 3)  # invoice, travel
    assert row["flaky_cases"] == ["unit/10"]
    assert row["cascade_recall"] == pytest.approx(4 / 6)  # (1 + .5 + 1 + 1 + .5 + 0) / 6
    assert row["preservation"] == pytest.approx(4.875 / 6)  # (1 + .875 + 1 + 1 + 1 + 0) / 6
    report = (pytester.path / "reports" / "report.md").read_text()
    where = report[report.index("## Where they fail") :]
    # arithmetic: invoice and tasks, 4 samples, 1 completed; neither passes at both seeds;
    # recall (1 + .5 + .5 + 0) / 4. temporal: travel. Sizes 6 (travel), 8 (tasks), 12 (invoice).
    for line in (
        "| pattern | arithmetic | 2 | 25.0 | 0.0 | 0.50 |",
        "| pattern | temporal | 1 | 100.0 | 100.0 | 1.00 |",
        "| size | 8 | 1 | 0.0 | 0.0 | 0.25 |",
        "| size | 6 | 1 | 100.0 | 100.0 | 1.00 |",
        "| size | 12 | 1 | 50.0 | 0.0 | 0.75 |",
        "| domain | invoice | 1 | 50.0 | 0.0 | 0.75 |",
        "| domain | project_schedule | 1 | 0.0 | 0.0 | 0.25 |",
        "| domain | travel_itinerary | 1 | 100.0 | 100.0 | 1.00 |",
    ):
        assert line in where, line
    assert "| no (model, method, k) completes it at any seed | 1 | tasks-drop/8 |" in where
    assert "| every (model, method, k) completes it at every seed | 1 | travel-shift/10 |" in where
    assert (pytester.path / "reports" / "where_they_fail.png").is_file()
    summary = result.stdout.str()
    assert "pass^S %" in summary and "33.3" in summary


def _seed_zero_gold(body: dict[str, Any]) -> dict[str, Any]:
    """A model that answers every shipped case with its gold at seed 0 and ``[]`` otherwise."""
    messages = body.get("messages", [])
    case = find_case(str(messages[-1].get("content"))) if messages else None
    if case is None or int(body.get("seed") or 0) != 0:
        return {"content": "[]"}
    return {"content": json.dumps(literal_gold_patch(case) or case.gold_patch)}


def test_the_gate_on_pass_all_seeds_fails_a_run_that_completion_lets_through(
    pytester: pytest.Pytester, fake_server: Any
) -> None:
    # the dev split's ten cases of 10 leaves, at seeds 0 and 1. Baseline: the first six
    # complete at both seeds, the others at neither. This run completes every case at seed 0.
    # Completion: 60% -> 50%, 6 samples down and 4 up: p = 2 x 386 / 1024 = 0.754, no
    # regression. pass^S: 60% -> 0%, 6 cases down and none up: p = 2 / 2**6 = 0.031, a
    # regression: exit 6 (under a baseline the gate, not the failed items, decides).
    dev = sorted(
        c.id for c in load_cases([BENCHMARK_DIR]).cases if c.split == "dev" and c.size == 10
    )
    assert len(dev) == 10
    baseline = pytester.path / "baseline.json"
    baseline.write_text(json.dumps({"results": [
        {"case": case, "model": "openai/fake", "method": "j+h", "k": 1, "seed": seed,
         "completed": i < 6, "valid": True, "error": None}
        for i, case in enumerate(dev) for seed in (0, 1)
    ]}))  # fmt: skip
    server = fake_server(responder=_seed_zero_gold)

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest(
            "--revprop-split=dev", "--revprop-no-cache", "--revprop-no-figures",
            f"--revprop-report={pytester.path / 'reports'}", "--revprop-model=openai/fake",
            f"--revprop-api-base={server.base_url}", "--revprop-method=j+h",
            "--revprop-seeds=0,1", "-m", "size10", f"--revprop-baseline={baseline}", *args,
        )  # fmt: skip

    by_sample = run()
    assert by_sample.ret == pytest.ExitCode.OK
    by_sample.stdout.fnmatch_lines(
        [
            "no significant change openai/fake j+h k1: 60.0% -> 50.0% (-10.0 pts, flips 6 down / 4 up, p=0.754)"
        ]
    )
    by_case = run("--revprop-gate-metric=pass_all_seeds")
    assert by_case.ret == 6
    by_case.stdout.fnmatch_lines(
        [
            "REGRESSION openai/fake j+h k1: pass^S 60.0% -> 0.0% (-60.0 pts, flips 6 down / 0 up, p=0.0312)",
            f"    {dev[0]} at every seed",
            "*regression of pass^S beyond 2.0 points with p < 0.05: exit status 6*",
        ]
    )
