"""The controller's role object (plugin/controller.py) with fake reports and worker nodes: what
it takes from each report, what it learns from its workers, and what it leaves at the end
(the plan untouched); no run."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from plugin_fakes import FakeConfig, MockNode, carrying, record, report, small_plan, through

from pytest_revprop.plugin.controller import RevpropController
from pytest_revprop.plugin.interruption import HANDOVER_KEY
from pytest_revprop.plugin.reports import CUT_ATTR, NOT_COMPLETED_ATTR, RECORD_ATTR
from pytest_revprop.plugin.worker import SPENT_KEY
from pytest_revprop.vocabulary import CUT_EXIT


def _controller(tmp_path: Path, **given: Any) -> tuple[RevpropController, FakeConfig]:
    config = FakeConfig()
    controller = RevpropController(config, small_plan(tmp_path, **given), None)  # type: ignore[arg-type]
    return controller, config


def _finish(controller: RevpropController, status: int) -> int:
    session = SimpleNamespace(exitstatus=status)
    through(controller.pytest_sessionfinish(session, status))  # type: ignore[arg-type]
    return int(session.exitstatus)


def test_a_reported_record_goes_to_the_sink_and_leaves_the_report(tmp_path: Path) -> None:
    controller, config = _controller(tmp_path)
    carrier = carrying(record(0))
    config.terminal.stats[""] = [report("setup")]
    through(controller.pytest_runtest_logreport(carrier))
    assert len(controller.sink) == 1 and not hasattr(carrier, RECORD_ATTR)
    assert carrier.keywords == {}  # slimmed: only what pytest reads at the end stays
    setup = report("setup")
    config.terminal.stats[""].append(setup)
    through(controller.pytest_runtest_logreport(setup))
    assert config.terminal.stats[""][-1] is not setup  # a passed setup leaves the stats
    assert controller.verdict.not_completed == 0 and controller.tally.cut_items == 0


def test_it_counts_the_not_completed_and_the_cut_from_their_reports(tmp_path: Path) -> None:
    controller, _ = _controller(tmp_path)
    through(
        controller.pytest_runtest_logreport(report("call", "failed", **{NOT_COMPLETED_ATTR: True}))
    )
    through(controller.pytest_runtest_logreport(report("setup", "skipped", **{CUT_ATTR: True})))
    assert controller.verdict.not_completed == 1 and controller.tally.cut_items == 1


def test_workers_learn_the_servers_and_say_what_they_spent(tmp_path: Path) -> None:
    controller, _ = _controller(tmp_path)
    node = MockNode("gw0", {SPENT_KEY: 0.25})
    controller.pytest_configure_node(node)
    assert node.workerinput["revprop_api_bases"] == {"gold": []}
    controller.pytest_testnodedown(node, None)
    controller.pytest_testnodedown(MockNode("gw1", {SPENT_KEY: 0.5}), None)
    controller.pytest_testnodedown(MockNode("gw2", {}), None)  # crashed: said nothing
    assert controller.tally.spent_usd(None) == 0.75


def test_at_the_end_the_outputs_are_written_and_the_plan_is_untouched(tmp_path: Path) -> None:
    controller, config = _controller(tmp_path)
    plan_before = repr(controller.plan)
    through(controller.pytest_runtest_logreport(carrying(record(0))))
    assert _finish(controller, pytest.ExitCode.OK) == 0
    results = json.loads((tmp_path / "reports" / "results.json").read_text())
    assert [r["seed"] for r in results["results"]] == [0]
    assert len(config.results) == 1  # the results hook, once
    assert repr(controller.plan) == plan_before


def test_after_a_ctrl_c_the_workers_hand_overs_join_the_reported_records(tmp_path: Path) -> None:
    controller, config = _controller(tmp_path)
    through(controller.pytest_runtest_logreport(carrying(record(0))))
    handed = {HANDOVER_KEY: [record(0, completed=False), record(1)]}  # seed 0 was reported
    for node in (MockNode("gw0", handed), MockNode("gw1", None)):  # gw1: closed, no output
        controller.pytest_testnodeready(node)
    assert _finish(controller, pytest.ExitCode.INTERRUPTED) == pytest.ExitCode.INTERRUPTED
    results = json.loads((tmp_path / "reports" / "results.json").read_text())["results"]
    assert [(r["seed"], r["completed"]) for r in results] == [(0, True), (1, True)]
    assert any("interrupted" in line for line in config.terminal.lines)  # the shield's note


def test_a_cut_run_says_so_in_its_summary_meta_and_exit_status(tmp_path: Path) -> None:
    controller, config = _controller(tmp_path, revprop_max_cost=1.0)
    through(controller.pytest_runtest_logreport(carrying(record(0))))
    through(controller.pytest_runtest_logreport(report("setup", "skipped", **{CUT_ATTR: True})))
    assert _finish(controller, pytest.ExitCode.OK) == CUT_EXIT
    meta = json.loads((tmp_path / "reports" / "results.json").read_text())["meta"]
    assert meta["cut"] == {"max_cost_usd": 1.0, "spent_usd": 0.0, "items_not_run": 1}
    controller.pytest_terminal_summary_ours(config.terminal, 0)
    assert config.terminal.lines[:2] == [
        "== revprop summary ==",
        "revprop: run cut by --revprop-max-cost=1.0000 USD: 0.0000 USD spent, 1 items not run "
        "(skipped): a call starts only while what is spent plus its worst case (its whole prompt "
        "and all its output tokens) fits under the ceiling; a rerun goes on from the cache",
    ]


def test_an_estimate_starts_nothing_prints_its_section_and_exits_0(tmp_path: Path) -> None:
    controller, config = _controller(tmp_path, revprop_plan=True)
    controller.pytest_sessionstart(SimpleNamespace())  # type: ignore[arg-type]
    assert controller.runner is None and controller.servers == []
    assert _finish(controller, pytest.ExitCode.NO_TESTS_COLLECTED) == 0
    controller.pytest_terminal_summary_ours(config.terminal, 0)
    assert config.terminal.lines[0] == "== revprop plan =="
    assert config.terminal.lines[1].startswith("revprop plan: no request sent")


def test_without_xdist_the_controller_runs_every_item_under_the_whole_ceiling(
    tmp_path: Path,
) -> None:
    controller, _ = _controller(tmp_path, revprop_max_cost=1.0)
    controller.pytest_sessionstart(SimpleNamespace())  # type: ignore[arg-type]
    runner = controller.runner
    assert runner is not None and runner.ceiling.limit_usd == 1.0
    try:
        controller.begin_items(controller.plan.specs)
        assert [r["seed"] for r in (runner.result(s) for s in controller.plan.specs)] == [0, 1]
    finally:
        controller.stop_runner(leaving=False)
