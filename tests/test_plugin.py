"""The pytest plugin, run for real with pytester: options, items, markers, summary, reports,
JUnit, the baseline gate, and identical results with and without xdist."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from handmade_cases import invoice_case, travel_case, write_cases

pytestmark = pytest.mark.slow

XDIST = [[], ["-n", "2"]]
XDIST_IDS = ["single", "xdist"]


@pytest.fixture
def cases_dir(tmp_path: Path) -> Path:
    return write_cases(tmp_path / "cases", [invoice_case(), travel_case()])


def _run(pytester: pytest.Pytester, cases_dir: Path, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        f"--revprop-cases={cases_dir}", "--revprop-split=all", f"--revprop-cache={pytester.path / 'cache'}",
        f"--revprop-report={pytester.path / 'reports'}", "--no-revprop-figures", *args,
    )  # fmt: skip


def _results(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "reports" / "results.json").read_text())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--revprop-method=fast"], "unknown method 'fast'"),
        (["--revprop-k=0"], "k must be >= 1"),
        (["--revprop-sizes=0"], "argument --revprop-sizes: sizes must be >= 1, got 0"),
        (["--revprop-seeds=1,x"], "seeds must be whole numbers"),
        (["--revprop-cases=/no/such/place"], "no such file or folder"),
        (["--revprop-split=train"], "split must be dev, test or all"),
        (["--revprop-concurrency=-3"], ">= 1"),
    ],
)
def test_bad_option_values_are_clean_usage_errors(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    result = pytester.runpytest_subprocess("--revprop-model=gold", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])
    assert "Traceback" not in result.stderr.str()


def test_unknown_model_is_a_usage_error(pytester: pytest.Pytester, cases_dir: Path) -> None:
    result = _run(pytester, cases_dir, "--revprop-model=nonsense")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown model 'nonsense'*"])


def test_without_a_model_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    assert True\n")
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    assert "revprop summary" not in result.stdout.str()


def test_help_shows_the_group_with_defaults(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(
        ["*revision-propagation evaluation*", "*--revprop-k=K*", "*sweep k (default: 5)*"]
    )


@pytest.mark.parametrize("xdist", XDIST, ids=XDIST_IDS)
def test_item_ids_name_model_method_k_and_seed_and_markers_and_keywords_select_items(
    pytester: pytest.Pytester, cases_dir: Path, xdist: list[str]
) -> None:
    result = _run(
        pytester,
        cases_dir,
        "--revprop-model=gold",
        "--revprop-method=j+h,med",
        "--revprop-seeds=0,42",
        "--collect-only",
        "-q",
        *xdist,
    )
    assert [line for line in result.stdout.lines if "[gold-" in line] == [
        f"{case}[gold-{method}-s{seed}]"
        for case in ("travel-shift/10", "unit/10")
        for method in ("j+h-k1", "med-k5")
        for seed in (0, 42)
    ]
    marked = _run(
        pytester,
        cases_dir,
        "--revprop-model=gold",
        "-m",
        "temporal and size6 and test",
        "--collect-only",
        "-q",
        *xdist,
    )
    assert marked.stdout.str().count("[gold-") == 5  # one case, five seeds
    keyword = _run(
        pytester,
        cases_dir,
        "--revprop-model=gold",
        "-k",
        "invoice and s42",
        "--collect-only",
        "-q",
        *xdist,
    )
    assert keyword.stdout.str().count("[gold-") == 1


@pytest.mark.parametrize("xdist", XDIST, ids=XDIST_IDS)
def test_gold_completes_everything_and_results_json_has_the_fixed_shape(
    pytester: pytest.Pytester, cases_dir: Path, xdist: list[str]
) -> None:
    result = _run(
        pytester,
        cases_dir,
        "--revprop-model=gold",
        "--revprop-method=all",
        "--revprop-seeds=0,42",
        *xdist,
    )
    result.assert_outcomes(passed=2 * 10 * 2)  # the nine and dep
    result.stdout.fnmatch_lines(["*revprop summary*", "*gold*select*100.0*"])
    doc = _results(pytester)
    summary_keys = {
        "model",
        "method",
        "k",
        "n_cases",
        "runs",
        "completion_rate",
        "completion_std",
        "miss",
        "over_edit",
        "wrong_value",
        "invalid",
        "cost_usd",
        "latency_s",
        "calls",
    }
    result_keys = {
        "case",
        "model",
        "method",
        "k",
        "seed",
        "completed",
        "valid",
        "error",
        "miss",
        "over_edit",
        "wrong_value",
        "cost_usd",
        "latency_s",
        "calls",
        "patch",
    }
    assert len(doc["summary"]) == 10 and all(summary_keys <= set(row) for row in doc["summary"])
    assert all(
        row["completion_rate"] == 1.0 and row["runs"] == 2 and row["n_cases"] == 2
        for row in doc["summary"]
    )
    assert len(doc["results"]) == 40 and all(result_keys <= set(r) for r in doc["results"])
    select = next(r for r in doc["summary"] if r["method"] == "select")
    assert select["calls"] == 2 * 2 * 5  # k-1 samples + 1 selection, per item
    samples = (pytester.path / "reports" / "samples.jsonl").read_text().splitlines()
    assert len(samples) == 40 and "replies" in json.loads(samples[0])
    assert (
        (pytester.path / "reports" / "summary.md").read_text().startswith("# RevPropBench results")
    )


@pytest.mark.parametrize("xdist", XDIST, ids=XDIST_IDS)
def test_noop_fails_every_item_with_every_gold_op_a_miss(
    pytester: pytest.Pytester, cases_dir: Path, xdist: list[str]
) -> None:
    result = _run(
        pytester,
        cases_dir,
        "--revprop-model=noop",
        "--revprop-method=j+h",
        "--revprop-seeds=0",
        *xdist,
    )
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        ["*request: Change it.*", "*miss*/lines/0/amount*[cascade]*expected 24.0, got 36.0*"]
    )
    doc = _results(pytester)
    assert {r["case"]: r["miss"] for r in doc["results"]} == {"unit/10": 3, "travel-shift/10": 3}


@pytest.mark.parametrize("xdist", XDIST, ids=XDIST_IDS)
def test_failure_listing_skips_our_empty_phase_reports_and_keeps_everything_it_printed(
    pytester: pytest.Pytester, cases_dir: Path, xdist: list[str]
) -> None:
    pytester.makeconftest(
        """
import pytest

@pytest.fixture
def noisy():
    yield
    print("USER-TEARDOWN-OUTPUT")

def pytest_unconfigure(config):
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    with open("phase-reports.txt", "w") as out:
        out.write(str(len(reporter.stats.get("", []))))
"""
    )
    pytester.makepyfile("def test_user(noisy):\n    assert False, 'USER-FAILURE'\n")
    result = _run(pytester, cases_dir, "--revprop-model=noop", "--revprop-method=j+h", "--revprop-seeds=0",
                  "--revprop-with-tests", *xdist)  # fmt: skip
    result.assert_outcomes(failed=3)
    out = result.stdout.str()
    # both revprop failures and the user's failure are listed, with the user's teardown output
    for headline in ("*_ unit/10*", "*_ travel-shift/10*", "*_ test_user _*", "*USER-FAILURE*"):
        result.stdout.fnmatch_lines([headline])
    assert "Captured stdout teardown" in out and "USER-TEARDOWN-OUTPUT" in out
    # set aside only while the summary is written: three setups and three teardowns after it
    assert (pytester.path / "phase-reports.txt").read_text() == "6"


def test_junit_carries_item_properties_and_run_rates(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    xml = pytester.path / "junit.xml"
    _run(
        pytester, cases_dir, "--revprop-model=direct-only", "--revprop-seeds=0", f"--junitxml={xml}"
    )
    root = ET.parse(xml).getroot()
    cases = root.findall(".//testcase")
    assert len(cases) == 2
    props = {p.get("name"): p.get("value") for p in cases[0].findall("./properties/property")}
    assert (
        props["revprop_completed"] == "False"
        and props["revprop_miss"] == "2"
        and "revprop_cost_usd" in props
    )
    suite = {p.get("name"): p.get("value") for p in root.findall("./testsuite/properties/property")}
    assert suite["revprop_completion_rate[direct-only|j+h|k1]"] == "0.0000"


def test_baseline_gate_passes_then_fails_on_a_regression(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    baseline = pytester.path / "baseline.json"
    seeds = "--revprop-seeds=0,1,2,3"
    written = _run(
        pytester,
        cases_dir,
        "--revprop-model=gold",
        seeds,
        f"--revprop-baseline={baseline}",
        "--revprop-update-baseline",
    )
    assert written.ret == 0 and baseline.exists()
    same = _run(
        pytester, cases_dir, "--revprop-model=gold", seeds, f"--revprop-baseline={baseline}"
    )
    assert same.ret == 0
    same.stdout.fnmatch_lines(["*baseline gate*", "*ok*gold j+h k1: 100.0% -> 100.0%*"])
    # noop is not the baseline's model: nothing pairs, so no regression, and with a baseline
    # the gate decides the exit status, not the failed items
    other = _run(
        pytester, cases_dir, "--revprop-model=noop", seeds, f"--revprop-baseline={baseline}"
    )
    other.assert_outcomes(failed=8)
    assert other.ret == pytest.ExitCode.OK
    # The baseline's results renamed to noop's: every sample pairs, and flips to failed.
    doc = json.loads(baseline.read_text())
    for r in doc["results"]:
        r["model"] = "noop"
    baseline.write_text(json.dumps(doc))
    regressed = _run(
        pytester, cases_dir, "--revprop-model=noop", seeds, f"--revprop-baseline={baseline}"
    )
    assert regressed.ret == 6
    regressed.stdout.fnmatch_lines(
        ["*REGRESSION*noop j+h k1: 100.0% -> 0.0%*flips 8 down*", "*unit/10 seed 0*"]
    )
    assert "Traceback" not in regressed.stdout.str() + regressed.stderr.str()


def test_k_sweep_evaluates_parallel_methods_at_each_k_sharing_samples(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    result = _run(
        pytester,
        cases_dir,
        "--revprop-model=gold",
        "--revprop-method=med,select,j+h",
        "--revprop-k=1,2,3",
        "--revprop-seeds=0",
    )
    # per case: j+h once, med at k=1,2,3, select only from k=3 -> 5 items x 2 cases
    result.assert_outcomes(passed=10)
    rows = {(r["method"], r["k"]) for r in _results(pytester)["summary"]}
    assert rows == {("j+h", 1), ("med", 1), ("med", 2), ("med", 3), ("select", 3)}
