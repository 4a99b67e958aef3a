"""Revision chains through the plugin, run for real with pytester and the fake server: the
options' usage errors, chain items and their names, the reference solvers, a model that gets
one turn wrong (its failure turn by turn and its rerun line), ``-k`` by protocol, the cache
across protocols, the estimate, and an ``off`` run unchanged by case files gaining follow-ups."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from helpers.child_pytest import TWO_WORKERS
from helpers.handmade_cases import invoice_case, write_cases
from helpers.order_chains import REQUESTS, order_chain, wrong_turn_rules
from helpers.runs import run_results, run_revprop

FAKE = "--revprop-model=openai/fake"


@pytest.fixture
def cases_dir(tmp_path: Path) -> Path:
    return write_cases(tmp_path / "cases", [order_chain(), invoice_case()])


def _run(pytester: pytest.Pytester, cases: Path, *args: str, report: str = "reports") -> Any:
    return run_revprop(pytester, cases, "--revprop-seeds=0", *args, report=report)


def _rows(pytester: pytest.Pytester, report: str = "reports") -> dict[str, dict[str, Any]]:
    data = run_results(pytester, report)
    return {f"{r['case']}[{r['model']}-{r['method']}-k{r['k']}]": r for r in data["results"]}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--revprop-chain=loop"], "argument --revprop-chain: chain protocol must be off, teacher or free, got 'loop'"),
        (["--revprop-turns=-1"], "argument --revprop-turns: turns must be >= 0, got -1"),
        (["-o", "revprop_chain=both"], "-o revprop_chain: chain protocol must be off, teacher or free, got 'both'"),
    ],
)  # fmt: skip
def test_bad_chain_options_are_one_line_usage_errors(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    result = pytester.runpytest("--revprop-model=gold", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])
    assert "Traceback" not in result.stderr.str()


def test_a_chain_run_without_follow_ups_is_a_usage_error_naming_the_option(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    plain = write_cases(tmp_path / "plain", [invoice_case()])
    result = _run(pytester, plain, "--revprop-model=gold", "--revprop-chain=free")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--revprop-chain=free: none of the 1 selected cases has follow-ups*"]
    )


@pytest.mark.parametrize("chain", ["teacher", "free"])
def test_gold_passes_every_chain_and_noop_and_direct_only_none(
    pytester: pytest.Pytester, cases_dir: Path, chain: str
) -> None:
    result = _run(pytester, cases_dir, "--revprop-model=gold,noop,direct-only",
                  "--revprop-method=j+h,med", "--revprop-k=3", f"--revprop-chain={chain}")  # fmt: skip
    result.assert_outcomes(passed=2, failed=4)
    result.stdout.fnmatch_lines(
        [
            f"revprop chains: {chain}, follow-ups per chain all; one item per chain; "
            "1 selected cases without follow-ups left out",
            f"order-chain/10?gold-med-k3-s0-{chain}? .*",
        ]
    )
    rows = _rows(pytester)
    assert len(rows) == 6 and all(r["chain"] == chain for r in rows.values())
    for key, row in rows.items():
        gold = key.startswith("order-chain/10[gold-")
        assert row["completed"] is gold and len(row["turns"]) == 3
        assert row["turns_completed"] == (3 if gold else 0)
        assert [t["completed"] for t in row["turns"]] == [gold] * 3
    meta = json.loads((pytester.path / "reports" / "results.json").read_text())["meta"]
    assert meta["chain"] == {"protocol": chain, "turns": None}


def _failure_blocks(text: str) -> dict[str, list[str]]:
    """Each failure's lines, by the heading pytest prints above it."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        heading = re.match(r"^_+ (\S+) _+$", line)
        if heading:
            current = blocks[heading.group(1)] = []
        elif line.startswith("=") and current is not None:
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def test_a_wrong_turn_fails_only_itself_in_teacher_and_what_it_governs_later_in_free(
    pytester: pytest.Pytester, cases_dir: Path, fake_server: Any
) -> None:
    server = fake_server(rules=wrong_turn_rules(1), default={"content": "[]"})
    base = [FAKE, f"--revprop-api-base={server.base_url}"]
    teacher = _run(pytester, cases_dir, *base, "--revprop-chain=teacher")
    teacher.assert_outcomes(failed=1)
    row = _rows(pytester)["order-chain/10[openai/fake-j+h-k1]"]
    assert [t["completed"] for t in row["turns"]] == [True, False, True]
    assert row["reason"] == "turn 1: miss 2, over edit 0, wrong value 0"
    assert server.stats()["count"] == 3  # one call per turn
    [block] = _failure_blocks(teacher.stdout.str()).values()
    assert block[0] == "order-chain/10 [openai/fake-j+h-k1-s0-teacher]: not completed"
    assert block[1].startswith("teacher chain: 1 of 3 turns run completed before the first failure")
    assert block[2:5] == [
        "turn 0: completed",
        "turn 1: not completed",
        f"  request: {REQUESTS[1]}",
    ]
    assert "  miss 2, over edit 0, wrong value 0" in block and "turn 2: completed" in block
    assert any(line.strip().startswith("miss        /lines/1/amount") for line in block)

    free = _run(pytester, cases_dir, *base, "--revprop-chain=free")
    free.assert_outcomes(failed=1)
    row = _rows(pytester)["order-chain/10[openai/fake-j+h-k1]"]
    assert [t["completed"] for t in row["turns"]] == [True, False, False]
    assert "/lines/1/amount" in {f["path"] for f in row["turns"][2]["findings"]}
    # turns 0 and 1 show the same conversation as in teacher (the model's turn 0 is the
    # teacher's patch): the cache answers them; turn 2 shows the model's wrong turn 1
    assert server.stats()["count"] == 4
    [block] = _failure_blocks(free.stdout.str()).values()
    rerun = block[-1]
    assert rerun.startswith("rerun: pytest --revprop-model=openai/fake ")
    assert "--revprop-chain=free" in rerun and "--revprop-case=order-chain/10" in rerun
    args = shlex.split(rerun.removeprefix("rerun: "))[1:]
    again = pytester.runpytest(*args, f"--revprop-report={pytester.path / 'again'}",
                               "--revprop-no-figures", "-v")  # fmt: skip
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(["*order-chain/10?openai/fake-j+h-k1-s0-free? FAILED*"])
    assert server.stats()["count"] == 4  # the rerun makes no call


def test_an_off_run_then_teacher_and_free_share_their_calls_and_k_selects_by_protocol(
    pytester: pytest.Pytester, cases_dir: Path, fake_server: Any
) -> None:
    server = fake_server(rules=wrong_turn_rules(-1), default={"content": "[]"})
    base = [FAKE, f"--revprop-api-base={server.base_url}"]
    _run(pytester, cases_dir, *base).assert_outcomes(passed=1, failed=1)  # invoice: []
    assert server.stats()["count"] == 2
    plan = _run(pytester, cases_dir, *base, "--revprop-chain=teacher", "--revprop-plan")
    plan.stdout.fnmatch_lines(
        [
            "chains (teacher): 1 cases, 3 turns in all; every turn's calls are counted",
            "openai/fake: 1 items; calls needed 3, answered by the cache 1, to send 2",
        ]
    )
    _run(pytester, cases_dir, *base, "--revprop-chain=teacher").assert_outcomes(passed=1)
    assert server.stats()["count"] == 4  # turn 0 came from the off run
    _run(pytester, cases_dir, *base, "--revprop-chain=teacher").assert_outcomes(passed=1)
    free = _run(pytester, cases_dir, *base, "--revprop-chain=free", "-k", "free", "-v")
    free.assert_outcomes(passed=1)
    assert server.stats()["count"] == 4  # a rerun, and free turns as the teacher's: no call
    none = _run(pytester, cases_dir, *base, "--revprop-chain=free", "-k", "teacher")
    assert none.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    none.stdout.fnmatch_lines(["*1 deselected*"])


def _stable_files(folder: Path) -> dict[str, str]:
    """results.json, summary.md and the JUnit file of a run, without their times."""
    results = json.loads((folder / "results.json").read_text())
    results["meta"].pop("created", None)
    junit = (folder / "junit.xml").read_text()
    junit = re.sub(r' (time|timestamp|hostname)="[^"]*"', "", junit)
    return {
        "results.json": json.dumps(results, indent=1),
        "summary.md": (folder / "summary.md").read_text(),
        "junit.xml": junit,
    }


def test_an_off_run_is_byte_identical_when_its_case_files_gain_follow_ups(
    pytester: pytest.Pytester, tmp_path: Path, fake_server: Any
) -> None:
    server = fake_server(rules=wrong_turn_rules(1), default={"content": "[]"})
    cases = tmp_path / "same"
    outputs = []
    for followups in (0, 2):
        write_cases(cases, [order_chain(followups=followups), invoice_case()])
        report = f"off{followups}"
        result = _run(pytester, cases, FAKE, f"--revprop-api-base={server.base_url}",
                      "--revprop-method=j+h,med", "--revprop-k=3",
                      f"--junitxml={pytester.path / report / 'junit.xml'}", report=report)  # fmt: skip
        result.assert_outcomes(passed=2, failed=2)
        outputs.append(_stable_files(pytester.path / report))
    assert "followups" in (cases / "order-chain-10.json").read_text()
    assert outputs[0] == outputs[1]
    assert '"chain":' not in outputs[1]["results.json"]


@pytest.mark.slow  # xdist starts two worker processes
def test_a_chain_run_under_xdist_gives_the_records_of_a_run_without_it(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    cases = write_cases(
        tmp_path / "cases", [order_chain("order-a/10"), order_chain("order-b/10"), invoice_case()]
    )
    args = ["--revprop-model=gold,noop", "--revprop-method=j+h,med", "--revprop-k=3",
            "--revprop-chain=free", "--revprop-turns=1"]  # fmt: skip
    _run(pytester, cases, *args, report="single").assert_outcomes(passed=4, failed=4)
    _run(pytester, cases, *args, "-p", "xdist", *TWO_WORKERS, report="xdist").assert_outcomes(
        passed=4, failed=4
    )
    single, xdist = _rows(pytester, "single"), _rows(pytester, "xdist")
    assert single == xdist and all(len(row["turns"]) == 2 for row in single.values())


def test_a_chain_the_ceiling_stops_mid_way_is_skipped_as_cut_with_a_row_saying_so(
    pytester: pytest.Pytester, tmp_path: Path, fake_server: Any
) -> None:
    from pytest_revprop.core.chain import teacher_view
    from pytest_revprop.core.prompts import Prompts
    from pytest_revprop.llm.budget import worst_case_usd
    from pytest_revprop.llm.presets import resolve_model
    from pytest_revprop.llm.types import Request

    pytester.makefile(".toml", pyproject='[tool.revprop.prices]\n"openai/fake" = [1.0, 0.0]\n')
    server = fake_server(rules=wrong_turn_rules(-1), default={"content": "[]"})
    cases = write_cases(tmp_path / "cases", [order_chain()])
    base = [FAKE, f"--revprop-api-base={server.base_url}", "--revprop-chain=teacher"]
    _run(pytester, cases, *base, report="whole").assert_outcomes(passed=1)
    spent = [
        t["cost_usd"]
        for t in _rows(pytester, "whole")["order-chain/10[openai/fake-j+h-k1]"]["turns"]
    ]
    model = resolve_model("openai/fake").replace(price_in=1.0, price_out=0.0)
    case = order_chain()
    view = teacher_view(case, 1)
    worst = worst_case_usd(
        model, Request.for_model(model, Prompts().revision_messages(view, "j+h"), 0)
    )
    ceiling = spent[0] + worst + 1e-9  # turns 0 and 1 fit, turn 2 does not
    cut = pytester.runpytest(
        f"--revprop-cases={cases}", "--revprop-split=all", "--revprop-no-cache",
        f"--revprop-report={pytester.path / 'cut'}", "--revprop-no-figures", "--revprop-seeds=0",
        f"--revprop-max-cost={ceiling!r}", *base, "-rs",
    )  # fmt: skip
    assert cut.ret == 8
    cut.assert_outcomes(skipped=1)
    cut.stdout.fnmatch_lines(["*not run: turn 2: not run: *"])
    results = json.loads((pytester.path / "cut" / "results.json").read_text())
    assert results["meta"]["cut"]["items_not_run"] == 1
    [row] = results["results"]
    assert row["error"] == "call_failed" and row["reason"].startswith("turn 2: not run: ")
    assert [t["completed"] for t in row["turns"]] == [True, True]


def test_a_chain_s_call_failure_names_the_turn_it_failed_at() -> None:
    from pytest_revprop.plugin.failures import describe_call_failure

    failed = {"error": "HTTP 503", "attempts": 5, "role": "sample", "seed": 0, "url": "http://x/v1"}
    turns = [{"turn": 0, "error": None}, {"turn": 1, "error": "call_failed"}]
    record = {"model": "m", "method": "j+h", "k": 1, "seed": 0, "reason": "turn 1: HTTP 503",
              "failed_call": failed, "chain": "free", "turns": turns}  # fmt: skip
    lines = describe_call_failure(record, uses_k=False).splitlines()  # type: ignore[arg-type]
    assert lines[:3] == [
        "model call failed: HTTP 503",
        "  turn:     1 of the free chain",
        "  model:    m at http://x/v1",
    ]


LATE_FAILURE = """
from pytest_revprop.api import MethodContext, Outcome, RegisterMethod


async def late_failure(ctx: MethodContext) -> Outcome:
    # turn 0 right, turn 1 no patch (the model's failure), turn 2 the method's code fails
    answer = await ctx.revise()
    if ctx.turn == 1:
        return Outcome(None, error="no_patch", reason="no patch in the reply")
    if ctx.turn == 2:
        raise RuntimeError("the method broke")
    return answer


def pytest_revprop_methods(register: RegisterMethod) -> None:
    register("late-failure", late_failure)
"""


def test_a_chain_whose_later_turn_failed_for_good_is_an_error_no_baseline_waives(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    pytester.makeconftest(LATE_FAILURE)
    run = [cases_dir, "--revprop-model=gold", "--revprop-method=late-failure", "--revprop-chain=free",
           f"--revprop-baseline={pytester.path / 'baseline.json'}"]  # fmt: skip
    for gate in (["--revprop-update-baseline"], []):  # written, then compared with
        result = _run(pytester, *run, *gate)  # type: ignore[arg-type]
        result.assert_outcomes(errors=1)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        [row] = _rows(pytester).values()
        assert row["error"] == "method_failed" and row["reason"].startswith("turn 2: ")
