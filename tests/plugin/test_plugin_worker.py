"""An xdist worker's role object (plugin/worker.py) and the item hooks a process that runs items
registers (plugin/item_hooks.py), with a fake config, fake reports and a fake runner; no run."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from plugin_fakes import FakeConfig, carrying, record, report, small_plan, through

from pytest_revprop.plugin.failures import CallFailedError, ItemReport, RevpropFailure
from pytest_revprop.plugin.interruption import HANDOVER_KEY
from pytest_revprop.plugin.item_hooks import ItemHooks
from pytest_revprop.plugin.reports import RECORD_ATTR
from pytest_revprop.plugin.worker import SPENT_KEY, RevpropWorker

BASES = {"gold": ["http://127.0.0.1:9/v1"]}


def _worker(tmp_path: Path, count: int = 4, **given: Any) -> tuple[RevpropWorker, FakeConfig]:
    workerinput = {"workerid": "gw1", "workercount": count, "revprop_api_bases": BASES}
    config = FakeConfig(workerinput)
    return RevpropWorker(config, small_plan(tmp_path, **given)), config  # type: ignore[arg-type]


class FakeRunner:
    """What a worker asks of its runner at the end: stop, what it spent, what finished."""

    def __init__(self, finished: list[dict[str, Any]]) -> None:
        self.ceiling = SimpleNamespace(spent_usd=0.125)
        self.finished = finished
        self.closed: list[bool] = []

    def close(self, *, finish_in_flight: bool = False) -> None:
        self.closed.append(finish_in_flight)

    def done(self) -> list[dict[str, Any]]:
        return self.finished


def _finish(worker: RevpropWorker, status: int) -> None:
    through(worker.pytest_sessionfinish(SimpleNamespace(exitstatus=status), status))  # type: ignore[arg-type]


def test_a_worker_calls_the_controllers_servers_under_its_share_of_the_ceiling(
    tmp_path: Path,
) -> None:
    worker, _ = _worker(tmp_path, count=4, revprop_max_cost=1.0)
    worker.pytest_sessionstart(SimpleNamespace())  # type: ignore[arg-type]
    assert worker.runner is not None
    assert worker.runner.ceiling.limit_usd == 0.25
    assert worker.runner.models["gold"].api_bases == ("http://127.0.0.1:9/v1",)
    assert worker.plan.models[0].api_bases == ()  # the plan stays as the options made it
    assert worker.plan.scope.max_cost_usd == 1.0
    worker.stop_runner(leaving=False)


def test_an_estimate_makes_no_runner(tmp_path: Path) -> None:
    worker, _ = _worker(tmp_path, revprop_plan=True)
    worker.pytest_sessionstart(SimpleNamespace())  # type: ignore[arg-type]
    assert worker.runner is None


def test_a_reply_text_goes_out_once(tmp_path: Path) -> None:
    worker, _ = _worker(tmp_path)
    reply = {"content": "[]", "seed": 0, "role": "sample", "finish_reason": "stop"}
    first = worker.outgoing(record(0, replies=[reply]))
    again = worker.outgoing(record(1, replies=[reply]))
    assert first["replies"][0]["content"] == "[]"
    assert "content" not in again["replies"][0] and "key" in again["replies"][0]


def test_a_sent_report_leaves_the_worker_record_and_all(tmp_path: Path) -> None:
    worker, config = _worker(tmp_path)
    sent = carrying(record(0))
    config.terminal.stats["passed"] = [sent]
    through(worker.pytest_runtest_logreport(sent))
    assert config.terminal.stats["passed"] == [] and not hasattr(sent, RECORD_ATTR)


def test_at_the_end_it_says_what_it_spent_and_leaves_finishing_its_requests(
    tmp_path: Path,
) -> None:
    worker, config = _worker(tmp_path)
    runner = FakeRunner([record(0)])
    worker.runner = runner  # type: ignore[assignment]
    _finish(worker, pytest.ExitCode.OK)
    assert config.workeroutput == {SPENT_KEY: 0.125}
    assert runner.closed == [True]  # others may wait for its requests in flight


def test_after_a_ctrl_c_it_hands_its_finished_records_over(tmp_path: Path) -> None:
    worker, config = _worker(tmp_path)
    runner = FakeRunner([record(0), record(1)])
    worker.runner = runner  # type: ignore[assignment]
    _finish(worker, pytest.ExitCode.INTERRUPTED)
    assert [r["seed"] for r in config.workeroutput[HANDOVER_KEY]] == [0, 1]
    assert runner.closed == [False]  # interrupted: no waiting


class FakeRole:
    """A role as the item hooks see it: its plan, config, runner and record's way out."""

    def __init__(self, tmp_path: Path) -> None:
        self.plan = small_plan(tmp_path)
        self.config = FakeConfig()
        self.runner = None
        self.begun: list[Any] = []

    def begin_items(self, specs: Any) -> None:
        self.begun.append(list(specs))

    def outgoing(self, rec: dict[str, Any]) -> dict[str, Any]:
        return {**rec, "out": True}


def test_without_a_runner_no_item_is_added_and_a_file_is_not_collected(tmp_path: Path) -> None:
    hooks = ItemHooks(FakeRole(tmp_path))  # type: ignore[arg-type]
    items: list[Any] = []
    hooks.pytest_collection_modifyitems(None, None, items)  # type: ignore[arg-type]
    assert items == []
    test_file = tmp_path / "test_x.py"
    test_file.write_text("")
    assert hooks.pytest_ignore_collect(test_file, None) is True  # type: ignore[arg-type]
    assert hooks.pytest_ignore_collect(tmp_path, None) is None  # type: ignore[arg-type]


def test_the_items_that_survived_deselection_are_begun_by_the_role(tmp_path: Path) -> None:
    role = FakeRole(tmp_path)
    hooks = ItemHooks(role)  # type: ignore[arg-type]
    hooks.pytest_collection_finish(SimpleNamespace(items=[object()]))  # type: ignore[arg-type]
    assert role.begun == [[]]  # another test's item is not ours


def test_our_failures_report_their_text_and_other_exceptions_are_pytests(tmp_path: Path) -> None:
    hooks = ItemHooks(FakeRole(tmp_path))  # type: ignore[arg-type]
    item = SimpleNamespace(
        nodeid="c[x]", location=("c", None, "c[x]"), keywords={}, user_properties=[]
    )
    for exc in (RevpropFailure("c [x]: not completed\nmore"), CallFailedError("model call failed")):
        call = pytest.CallInfo.from_call(lambda e=exc: _raise(e), "call")  # type: ignore[misc]
        made = hooks.pytest_runtest_makereport_ours(item, call)  # type: ignore[arg-type]
        assert made is not None and isinstance(made.longrepr, ItemReport)
        assert str(made.longrepr) == str(exc) and made.failed
    other = pytest.CallInfo.from_call(lambda: _raise(ValueError("x")), "call")
    assert hooks.pytest_runtest_makereport_ours(item, other) is None  # type: ignore[arg-type]


def test_a_report_of_another_test_carries_nothing(tmp_path: Path) -> None:
    hooks = ItemHooks(FakeRole(tmp_path))  # type: ignore[arg-type]
    made = report()
    call = pytest.CallInfo.from_call(lambda: None, "call")
    assert through(hooks.pytest_runtest_makereport(object(), call), made) is made  # type: ignore[arg-type]
    assert not hasattr(made, RECORD_ATTR)


def _raise(exc: BaseException) -> None:
    raise exc
