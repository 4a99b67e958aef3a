"""The pytest plugin, run for real with pytester: options, items, markers, summary, reports,
JUnit, the baseline gate, and identical results with and without xdist."""

from __future__ import annotations

import json
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

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
        (["--revprop-case=nope/10"], "no case 'nope/10'"),
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
    result.assert_outcomes(passed=2 * 9 * 2)
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
    assert len(doc["summary"]) == 9 and all(summary_keys <= set(row) for row in doc["summary"])
    assert all(
        row["completion_rate"] == 1.0 and row["runs"] == 2 and row["n_cases"] == 2
        for row in doc["summary"]
    )
    assert len(doc["results"]) == 36 and all(result_keys <= set(r) for r in doc["results"])
    select = next(r for r in doc["summary"] if r["method"] == "select")
    assert select["calls"] == 2 * 2 * 5  # k-1 samples + 1 selection, per item
    samples = (pytester.path / "reports" / "samples.jsonl").read_text().splitlines()
    assert len(samples) == 36 and "replies" in json.loads(samples[0])
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


# ------------------------------------------------------------------------------ error reports

ERROR_HEADLINE = re.compile(r"^_+ ERROR at setup of (\S+) _+$", re.MULTILINE)
KEY_VARIABLE = "REVPROP_TEST_KEY"
PLANTED_KEY = "sk-planted-0a1b2c3d4e5f6789"


def _error_blocks(output: str) -> dict[str, list[str]]:
    """Each errored item's report in the ERRORS section: node id -> its lines."""
    section = output.split(" ERRORS ", 1)[1].split("\n=", 1)[0]
    parts = ERROR_HEADLINE.split(section)[1:]
    return {
        node: text.strip("\n").splitlines()
        for node, text in zip(parts[::2], parts[1::2], strict=True)
    }


def _keyed_model(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml(
        f'[tool.revprop.models.keyed]\nlitellm_model = "openai/fake"\napi_key_env = "{KEY_VARIABLE}"\n'
    )


@pytest.mark.parametrize("tb", ["auto", "long", "native", "line"])
def test_an_errored_items_report_is_a_few_lines_with_the_servers_answer_and_a_rerun_command(
    pytester: pytest.Pytester, cases_dir: Path, fake_server: Any, tb: str
) -> None:
    server = fake_server(faults={"always_fail": "503"})
    result = _run(pytester, cases_dir, "--revprop-model=openai/fake", f"--revprop-api-base={server.base_url}",
                  "--revprop-method=j+h,reflect", "--revprop-k=2", "--revprop-seeds=0", "--revprop-retries=2",
                  "--revprop-retry-delay=0.01", f"--tb={tb}")  # fmt: skip
    result.assert_outcomes(errors=4)
    output = result.stdout.str()
    blocks = _error_blocks(output)
    assert len(blocks) == 4
    for node, lines in blocks.items():
        assert 3 <= len(lines) <= 20, lines
        assert lines[0].startswith("model call failed: HTTP 503 ")
        assert lines[0].endswith("fault injection: 503")
        assert f"  model:    openai/fake at {server.base_url}" in lines
        assert (
            "  call:     "
            + ("j+h" if "-j+h-" in node else "reflect, k 2")
            + ", base seed 0: the sample call at seed 0"
            in lines
        )
        assert "  attempts: 2, all failed (--revprop-retries)" in lines
        assert lines[-1].startswith("  rerun:    pytest --revprop-model=openai/fake ")
    assert "Traceback" not in output and "_pytest" not in output and "def setup" not in output
    # the short summary shows the first line
    result.stdout.fnmatch_lines(["ERROR *unit/10*j+h* - model call failed: HTTP 503*"])


def test_the_rerun_command_of_a_report_runs_exactly_that_item_with_the_same_result(
    pytester: pytest.Pytester, cases_dir: Path, fake_server: Any
) -> None:
    first = _run(pytester, cases_dir, "--revprop-model=noop", "--revprop-method=j+h,med",
                 "--revprop-k=3", "--revprop-seeds=0,1")  # fmt: skip
    first.assert_outcomes(failed=8)
    before = {(r["case"], r["method"], r["seed"]): r for r in _results(pytester)["results"]}
    commands = re.findall(r"^rerun: (pytest .*)$", first.stdout.str(), re.MULTILINE)
    assert len(commands) == 8
    command = next(c for c in commands if "--revprop-method=med" in c and "travel-shift" in c)
    assert "--revprop-seeds=1" in command or "--revprop-seeds=0" in command
    again = pytester.runpytest_subprocess(*shlex.split(command)[1:])
    again.assert_outcomes(failed=1)
    (row,) = _results(pytester)["results"]
    assert row["case"] == "travel-shift/10" and row["method"] == "med" and row["k"] == 3
    same = before[(row["case"], row["method"], row["seed"])]
    assert {**row, "latency_s": 0} == {**same, "latency_s": 0}

    # an errored item's command reruns it too (the server is still down: an error again)
    server = fake_server(faults={"always_fail": "503"})
    errored = _run(pytester, cases_dir, "--revprop-model=openai/fake", f"--revprop-api-base={server.base_url}",
                   "--revprop-seeds=0", "--revprop-retries=1")  # fmt: skip
    errored.assert_outcomes(errors=2)
    rerun = re.findall(r"^  rerun:    (pytest .*)$", errored.stdout.str(), re.MULTILINE)[0]
    pytester.runpytest_subprocess(*shlex.split(rerun)[1:]).assert_outcomes(errors=1)
    assert server.stats()["count"] == 3


def test_a_provider_that_refuses_the_key_stops_the_run_at_its_first_answer(
    pytester: pytest.Pytester, cases_dir: Path, fake_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = fake_server(faults={"always_fail": "401"})
    _keyed_model(pytester)
    monkeypatch.setenv(KEY_VARIABLE, PLANTED_KEY)
    result = _run(pytester, cases_dir, "--revprop-model=keyed", f"--revprop-api-base={server.base_url}",
                  "--revprop-concurrency=1", "--revprop-seeds=0,1")  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert server.stats()["count"] == 1  # one answer, then nothing more is sent
    output = result.stdout.str() + result.stderr.str()
    (line,) = [line for line in output.splitlines() if "refused the credentials (" in line]
    assert KEY_VARIABLE in line and "HTTP 401" in line and server.base_url in line
    assert PLANTED_KEY not in output and "Traceback" not in output


def test_an_unset_key_stops_the_run_before_any_call_unless_the_cache_answers_every_call(
    pytester: pytest.Pytester, cases_dir: Path, fake_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    hosted = _run(pytester, cases_dir, "--revprop-model=gpt-5.4-mini")
    assert hosted.ret == pytest.ExitCode.USAGE_ERROR
    assert "needs an API key in OPENAI_API_KEY, which is not set" in hosted.stderr.str()

    server = fake_server()
    _keyed_model(pytester)
    args = ["--revprop-model=keyed", f"--revprop-api-base={server.base_url}", "--revprop-seeds=0"]
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    stopped = _run(pytester, cases_dir, *args)
    assert stopped.ret == pytest.ExitCode.USAGE_ERROR and server.stats()["count"] == 0
    assert (
        f"model keyed needs an API key in {KEY_VARIABLE}, which is not set" in stopped.stderr.str()
    )
    assert "collected" not in stopped.stdout.str() and "Traceback" not in stopped.stderr.str()
    monkeypatch.setenv(KEY_VARIABLE, PLANTED_KEY)
    _run(pytester, cases_dir, *args).assert_outcomes(failed=2)  # the server answers []
    monkeypatch.delenv(KEY_VARIABLE)
    _run(pytester, cases_dir, *args).assert_outcomes(failed=2)  # from the cache, no key needed
    assert server.stats()["count"] == 2


def test_a_cache_folder_that_cannot_be_written_stops_the_run_and_one_that_fails_later_errors_briefly(
    pytester: pytest.Pytester, cases_dir: Path, fake_server: Any
) -> None:
    server = fake_server()
    cache = pytester.path / "cache"  # the folder _run names
    cache.write_text("a file where the folder should be")
    args = [
        "--revprop-model=openai/fake",
        f"--revprop-api-base={server.base_url}",
        "--revprop-seeds=0",
    ]
    stopped = _run(pytester, cases_dir, *args)
    assert stopped.ret == pytest.ExitCode.USAGE_ERROR and server.stats()["count"] == 0
    assert f"cannot write the response cache folder {cache}" in stopped.stderr.str()
    # the folder is usable at the start, but no reply file can be written in it
    cache.unlink()
    cache.mkdir()
    for shard in range(256):
        (cache / f"{shard:02x}").write_text("")
    failed = _run(pytester, cases_dir, *args)
    failed.assert_outcomes(errors=2)
    for lines in _error_blocks(failed.stdout.str()).values():
        assert lines[0].startswith("infrastructure error: NotADirectoryError: ")
        assert len(lines) == 2 and lines[1].startswith("  rerun:    pytest --revprop-model=")
    assert "Traceback" not in failed.stdout.str()


def test_an_unknown_transport_in_the_environment_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REVPROP_TRANSPORT", "fast")
    result = pytester.runpytest_subprocess("--revprop-model=gold")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*REVPROP_TRANSPORT='fast': choose litellm or direct*"])
    assert "Traceback" not in result.stderr.str()
