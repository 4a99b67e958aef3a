"""What our items' test reports carry and what pytest keeps of them, and their JUnit names.

An item's record (builtin data) rides on its call report (``RECORD_ATTR``; on the setup report
when the setup failed) to the process that writes the reports; an xdist worker's report
carries each reply's text only the first time the worker sends it. ``slim_report`` then empties
the report of what pytest never reads again. Every JUnit testcase of ours is named
``revprop.MODEL.METHOD-kK`` (its classname) and its node id, and the run's completion rates
become JUnit global properties.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from pytest_revprop.plugin.failures import RevpropFailure
from pytest_revprop.plugin.items import RevpropItem
from pytest_revprop.run.items import ItemSpec
from pytest_revprop.vocabulary import ResultRecord

JUNIT_CLASSNAME = "revprop.{model}.{method}-k{k}"
"""The JUnit ``classname`` of an item: CI viewers group testcases by it (and split it at the
last dot into package and class); the testcase ``name`` is the item's node id."""
RECORD_ATTR = "revprop_record"
"""Set on the report that carries an item's record: the one channel by which a reported
record reaches the process that writes the reports (xdist sends it with the report)."""
NOT_COMPLETED_ATTR = "revprop_not_completed"
"""Set on the call report of an item whose sample did not complete: the only failure that a
baseline gate may waive (a call error, or any other test's failure, never is)."""
CUT_ATTR = "revprop_cut"
"""Set on the setup report of an item the run's spending ceiling left unrun (skipped)."""
OURS_ATTR = "revprop_item"
"""Set on every report of our items (xdist carries it to the controller), so that
``slim_report`` tells them from other tests' reports without a table of node ids."""


def carry_record(
    report: pytest.TestReport,
    item: RevpropItem,
    call: pytest.CallInfo[None],
    outgoing: Callable[[ResultRecord], ResultRecord],
) -> None:
    """Mark ``report`` as ours (and its setup report as cut when the spending ceiling left
    the item unrun) and, on the call report (or a failed or cut setup's: a chain the ceiling
    cut after its first turn has the record of the turns it ran), move the item's record onto
    it as ``outgoing`` makes it (an xdist worker's ``SentTexts.strip`` drops the reply texts
    sent before). The item lets go of its record."""
    setattr(report, OURS_ATTR, True)
    if call.when == "setup" and item.cut:
        setattr(report, CUT_ATTR, True)
    if call.when == "teardown":
        item.user_properties.clear()  # the report has its own copy
    wanted = call.when == "call" or (call.when == "setup" and (report.failed or item.cut))
    if item.record is not None and wanted:
        setattr(report, RECORD_ATTR, outgoing(item.record))
        if call.excinfo is not None and isinstance(call.excinfo.value, RevpropFailure):
            setattr(report, NOT_COMPLETED_ATTR, True)
        item.record = None


def take_record(report: pytest.TestReport) -> ResultRecord | None:
    """The record a report carries, taken off it (None for a report without one)."""
    record: ResultRecord | None = getattr(report, RECORD_ATTR, None)
    if record is not None:
        delattr(report, RECORD_ATTR)
    return record


def was_cut(report: pytest.TestReport) -> bool:
    """Whether ``report`` is the setup of an item the spending ceiling left unrun."""
    return bool(getattr(report, CUT_ATTR, False))


def not_completed(report: pytest.TestReport) -> bool:
    """Whether ``report`` is the failure of an item whose sample did not complete."""
    return bool(getattr(report, NOT_COMPLETED_ATTR, False)) and report.failed


def slim_report(
    report: pytest.TestReport, stats: Mapping[str, list[Any]] | None, *, keep_phases: bool
) -> None:
    """Keep of a report of ours, once every plugin saw it (the terminal, junitxml), only what
    pytest reads at the end of the run, in the process that prints the run; pytest keeps every
    report to the end, which made memory grow with the items.

    Its keywords and JUnit properties go (junitxml took the properties from the teardown
    report already). A passed setup or teardown without captured output leaves the terminal's
    ``stats[""]``, where only ``--durations`` would read it (``keep_phases``); the call report
    stays, counted in the summary line and listed by ``-rA``, a failure with its few lines."""
    if not _emptied(report) or stats is None:
        return
    if keep_phases or report.when == "call" or not report.passed or report.sections:
        _share_strings(report)
        return
    _forget(report, [stats.get("", [])])


def drop_report(report: pytest.TestReport, stats: Mapping[str, list[Any]] | None) -> None:
    """Keep no report of ours in an xdist worker, once xdist sent it: the controller prints
    the run (``slim_report`` there)."""
    if _emptied(report) and stats is not None:
        _forget(report, list(stats.values()))


def _emptied(report: pytest.TestReport) -> bool:
    """Empty a report of ours of its keywords and JUnit properties; False for another one."""
    if not getattr(report, OURS_ATTR, False):
        return False
    delattr(report, OURS_ATTR)
    if isinstance(report.keywords, dict):
        report.keywords.clear()  # emptied in place: a new empty one would cost as much
    report.user_properties.clear()
    return True


def _forget(report: pytest.TestReport, lists: list[list[Any]]) -> None:
    """Take ``report`` out of the terminal's stats lists, where it was appended just now."""
    for reports in lists:
        if reports and reports[-1] is report:
            reports.pop()
            return


def _share_strings(report: pytest.TestReport) -> None:
    """A report xdist carried to the controller has its own copy of every string: the same
    few values (phase, outcome, worker, run id, case file) become shared ones, the item's name
    in its location the node id itself, and the leftover of its transport goes."""
    fields = report.__dict__
    fields.pop("$report_type", None)  # read when the report was rebuilt, never again
    for name in ("when", "outcome", "worker_id", "testrun_uid"):
        if isinstance(value := fields.get(name), str):
            fields[name] = sys.intern(value)
    path, line, name = report.location
    report.location = (sys.intern(path), line, report.nodeid if name == report.nodeid else name)


def name_junit_testcase(config: pytest.Config, report: pytest.TestReport, spec: ItemSpec) -> None:
    """Give our testcase its classname and name before junitxml opens it (junitxml keeps
    attributes set before it records a report: record_xml_attribute's way)."""
    from _pytest.junitxml import xml_key

    xml = config.stash.get(xml_key, None)
    if xml is None or not (report.when == "call" or report.failed):
        return  # junitxml opens a testcase for a call or a failure only
    reporter = xml.node_reporter(report)
    reporter.add_attribute(
        "classname", JUNIT_CLASSNAME.format(model=spec.model, method=spec.method, k=spec.k)
    )
    reporter.add_attribute("name", report.nodeid)


def add_junit_rates(config: pytest.Config, summary: list[dict[str, Any]]) -> None:
    """Each (model, method, k)'s completion rate as a JUnit global property (``null`` when
    every item of it errored: JSON's word for the rate that is not there)."""
    from _pytest.junitxml import xml_key

    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    for row in summary:
        name = f"revprop_completion_rate[{row['model']}|{row['method']}|k{row['k']}]"
        rate = row["completion_rate"]
        xml.add_global_property(name, "null" if rate is None else f"{rate:.4f}")


__all__ = [
    "CUT_ATTR",
    "JUNIT_CLASSNAME",
    "add_junit_rates",
    "carry_record",
    "drop_report",
    "name_junit_testcase",
    "not_completed",
    "slim_report",
    "take_record",
    "was_cut",
]
