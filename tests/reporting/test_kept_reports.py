"""What pytest keeps of our items' reports once every plugin saw them
(``plugin.reports.slim_report``): the controller keeps one call report per item, without keywords or JUnit properties, and no passed
setup or teardown of ours; an xdist worker keeps none of ours; other tests' reports stay whole;
the summary line, JUnit properties and ``--durations`` are as before."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers.child_pytest import TWO_WORKERS
from helpers.handmade_cases import invoice_case, travel_case, write_cases

PROBE = """
import json
import pytest

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    stats = session.config.pluginmanager.get_plugin("terminalreporter").stats
    def ours(report):
        return "[" in report.nodeid and not report.nodeid.startswith("test_")
    kept = {
        category: {
            "ours": sum(ours(r) for r in reports),
            "others": sum(not ours(r) for r in reports),
            "ours_keywords": sum(len(r.keywords) for r in reports if ours(r)),
            "ours_properties": sum(len(r.user_properties) for r in reports if ours(r)),
            "others_keywords": min([len(r.keywords) for r in reports if not ours(r)] or [0]),
        }
        for category, reports in stats.items()
    }
    worker = getattr(session.config, "workerinput", None)  # not the environment: an outer
    name = worker["workerid"] if worker else "controller"  # xdist run sets it for us too
    with open(f"kept-{name}.json", "w") as out:
        json.dump(kept, out)

@pytest.fixture
def noisy():
    yield
"""


@pytest.mark.parametrize(
    "xdist", [[], pytest.param(TWO_WORKERS, marks=pytest.mark.slow)], ids=["single", "xdist"]
)
def test_pytest_keeps_one_slim_call_report_per_item_and_workers_keep_none(
    pytester: pytest.Pytester, tmp_path: Path, xdist: list[str]
) -> None:
    cases = write_cases(tmp_path / "cases", [invoice_case(), travel_case()])
    pytester.makeconftest(PROBE)
    pytester.makepyfile(
        "def test_user_passes(noisy):\n    pass\n\ndef test_user_fails():\n    assert False\n"
    )
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest(
        f"--revprop-cases={cases}", "--revprop-split=all", f"--revprop-cache={pytester.path / 'cache'}",
        f"--revprop-report={pytester.path / 'reports'}", "--revprop-no-figures",
        "--revprop-model=noop,gold", "--revprop-method=j+h", "--revprop-seeds=0,1",
        "--revprop-with-tests", f"--junitxml={junit}", *xdist,
    )  # fmt: skip
    # 2 cases x 2 models x 2 seeds: noop's 4 fail, gold's 4 pass; and the user's two tests
    result.assert_outcomes(passed=5, failed=5)
    controller = json.loads((pytester.path / "kept-controller.json").read_text())
    assert controller[""]["ours"] == 0  # our passed setups and teardowns are let go
    assert controller[""]["others"] == 4  # the user's, kept: they may carry output
    assert controller["passed"]["ours"] == 4 and controller["failed"]["ours"] == 4
    for category in ("passed", "failed"):
        assert controller[category]["ours_keywords"] == 0
        assert controller[category]["ours_properties"] == 0
        assert controller[category]["others_keywords"] > 0  # other tests' reports stay whole
    workers = sorted(pytester.path.glob("kept-gw*.json"))
    assert len(workers) == (2 if xdist else 0)
    for path in workers:
        kept = json.loads(path.read_text())
        assert sum(category["ours"] for category in kept.values()) == 0, path.name
    # junitxml read the properties before they went
    root = ET.parse(junit).getroot()
    completed = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}.get(
            "revprop_completed"
        )
        for case in root.iter("testcase")
        if "[" in (case.get("name") or "")
    }
    assert len(completed) == 8
    assert sorted(completed.values()) == ["false"] * 4 + ["true"] * 4
