"""The pytest plugin, run for real with pytester: options, items, markers, summary, reports,
JUnit, the baseline gate, and identical results with and without xdist."""

from __future__ import annotations

import fnmatch
import json
import platform
import re
import shlex
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers.child_pytest import TWO_WORKERS
from helpers.handmade_cases import invoice_case, travel_case, write_cases
from helpers.runs import run_results, run_revprop

from pytest_revprop import __version__, cli
from pytest_revprop.run.options import PLUGIN_OPTIONS
from pytest_revprop.vocabulary import REGRESSION_EXIT

# xdist's variants start two worker processes each: those are slow; the rest run in-process.
XDIST = [[], pytest.param(TWO_WORKERS, marks=pytest.mark.slow)]
XDIST_IDS = ["single", "xdist"]


@pytest.fixture
def cases_dir(tmp_path: Path) -> Path:
    return write_cases(tmp_path / "cases", [invoice_case(), travel_case()])


_run = run_revprop


def _results(pytester: pytest.Pytester) -> dict:
    return run_results(pytester)


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
        (
            ["--revprop-method=select", "--revprop-k=2"],
            "no item: min_k of select is 3, --revprop-k gives 2",
        ),
    ],
)
def test_bad_option_values_are_clean_usage_errors(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    result = pytester.runpytest("--revprop-model=gold", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])
    assert "Traceback" not in result.stderr.str()


def test_unknown_model_is_a_usage_error(pytester: pytest.Pytester, cases_dir: Path) -> None:
    result = _run(pytester, cases_dir, "--revprop-model=nonsense")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown model 'nonsense'*"])


def _files(folder: Path) -> set[str]:
    """Everything under ``folder`` but pytester's own temporary folders."""
    paths = (path.relative_to(folder) for path in folder.rglob("*"))
    return {str(path) for path in paths if not path.parts[0].startswith("runpytest-")}


def _same_run(result: pytest.RunResult) -> list[str]:
    """A run's output without what differs between two identical runs (timings) and pytest's
    list of loaded plugins, which names every installed plugin."""
    lines = [line for line in result.outlines if not line.startswith("plugins:")]
    return [re.sub(r"in \d+\.\d+s", "in Ns", line).strip("= ") for line in lines]


def test_without_a_model_the_plugin_adds_no_output_no_files_and_no_environment(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LITELLM_LOCAL_MODEL_COST_MAP", raising=False)
    pytester.makepyfile(
        "import os\n\n"
        "def test_plain():\n"
        "    assert 'LITELLM_LOCAL_MODEL_COST_MAP' not in os.environ\n"
    )
    before = _files(pytester.path)
    without = pytester.runpytest("-p", "no:revprop")
    made_without = _files(pytester.path) - before
    for name in made_without:
        path = pytester.path / name
        if path.exists() and path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    loaded = pytester.runpytest()
    loaded.assert_outcomes(passed=1)  # and the plugin set no environment variable
    assert _same_run(loaded) == _same_run(without)
    assert loaded.errlines == without.errlines
    assert _files(pytester.path) - before == made_without
    assert not (pytester.path / ".revprop-cache").exists()
    assert not (pytester.path / "reports").exists()
    markers = pytester.runpytest("--markers")
    assert markers.outlines == pytester.runpytest("--markers", "-p", "no:revprop").outlines


def test_help_adds_only_the_revprop_group_and_its_ini_keys(pytester: pytest.Pytester) -> None:
    loaded, without = (
        [
            re.sub(r"\d{8}_\d{6}", "DATE_TIME", line) for line in result.outlines
        ]  # pytest-benchmark's
        for result in (
            pytester.runpytest("--help"),
            pytester.runpytest("--help", "-p", "no:revprop"),
        )
    )
    start = loaded.index("revision-propagation evaluation (RevPropBench):")
    group = set(loaded[start : loaded.index("", start) + 1])  # with its blank line
    ini_key = re.compile(
        r"\s+(revprop_\w+ \((string|bool|linelist)\):)?\s*(default for --revprop-[\w-]+)?"
    )
    added = Counter(loaded) - Counter(without)
    assert not Counter(without) - Counter(loaded)  # nothing of pytest's or others' changed
    outside = [line for line in added if line not in group and not ini_key.fullmatch(line)]
    assert outside == []
    assert sum(1 for line in added if line.startswith("  revprop_")) == len(PLUGIN_OPTIONS)


def test_help_shows_the_group_with_defaults(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        ["*revision-propagation evaluation*", "*--revprop-k=K*", "*sweep k (default: 5)*"]
    )
    result.stdout.fnmatch_lines(["*revprop_model (linelist):*", "*default for --revprop-model*"])
    assert "--no-revprop-figures" not in result.stdout.str()  # the deprecated alias is hidden


def test_the_plugin_runs_without_xdist(pytester: pytest.Pytester, cases_dir: Path) -> None:
    result = _run(
        pytester, cases_dir, "--revprop-model=gold", "--revprop-seeds=0", "-p", "no:xdist"
    )
    result.assert_outcomes(passed=2)
    assert len(_results(pytester)["results"]) == 2


# --- options from the ini file -----------------------------------------------------------------


@pytest.fixture
def project_cases(pytester: pytest.Pytester) -> Path:
    """The two hand-made cases in the project's own ``cases/`` folder, beside its ini file."""
    return write_cases(pytester.path / "cases", [invoice_case(), travel_case()])


INI_RUN = """
revprop_model = gold
revprop_cases = cases
revprop_split = all
revprop_seeds = 0,1
revprop_cache = cache
revprop_report = out
revprop_no_figures = true
"""


@pytest.mark.parametrize("ini_file", ["pytest.ini", "pyproject.toml"])
def test_revprop_model_in_the_ini_file_runs_the_benchmark_with_the_ini_settings(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, project_cases: Path, ini_file: str
) -> None:
    if ini_file == "pytest.ini":
        pytester.makefile(".ini", pytest="[pytest]" + INI_RUN)
    else:  # TOML strings, and a list for a comma-separated option
        pairs = [line.split(" = ") for line in INI_RUN.strip().splitlines()]
        toml = "\n".join(f'{key} = "{value}"' for key, value in pairs)
        toml = toml.replace('revprop_seeds = "0,1"', "revprop_seeds = ['0', '1']")
        pytester.makepyprojecttoml("[tool.pytest.ini_options]\n" + toml)
    pytester.makepyfile("def test_plain():\n    assert False\n")  # not collected in a run
    monkeypatch.chdir(pytester.mkdir("sub"))  # relative paths are the ini file's folder's
    result = pytester.runpytest()
    result.assert_outcomes(passed=4)  # two cases, two seeds, gold
    cache = pytester.path / "cache"
    result.stdout.fnmatch_lines(
        [
            f"revprop run: methods j+h; k 1; seeds 0,1; split all: 2 cases from *; 4 items; cache {cache}"
        ]
    )
    doc = json.loads((pytester.path / "out" / "results.json").read_text())
    assert {(r["case"], r["seed"]) for r in doc["results"]} == {
        (case, seed) for case in ("unit/10", "travel-shift/10") for seed in (0, 1)
    }
    assert not (pytester.path / "out" / "report.html").exists()
    assert not (pytester.path / "sub" / "out").exists()


def test_the_command_line_overrides_the_ini_file(
    pytester: pytest.Pytester, project_cases: Path
) -> None:
    pytester.makefile(".ini", pytest="[pytest]" + INI_RUN)
    pytester.makepyfile("def test_plain():\n    assert True\n")
    noop = pytester.runpytest("--revprop-model=noop", "--revprop-seeds=0")
    noop.assert_outcomes(failed=2)
    assert {
        r["model"]
        for r in json.loads((pytester.path / "out" / "results.json").read_text())["results"]
    } == {"noop"}
    off = pytester.runpytest("-o", "revprop_model=")  # an empty value: plugin off
    off.assert_outcomes(passed=1)
    # a flag the ini file sets is turned off on the command line by its positive spelling
    figures = pytester.runpytest("--revprop-figures", "--revprop-seeds=0", "-q")
    figures.assert_outcomes(passed=2)
    assert (pytester.path / "out" / "report.html").exists()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("revprop_sizes = 0", "revprop_sizes in pytest.ini: sizes must be >= 1, got 0"),
        ("revprop_k = 5,x", "revprop_k in pytest.ini: k must be whole numbers, got 'x'"),
        ("revprop_split = train", "revprop_split in pytest.ini: split must be dev, test or all, got 'train'"),
        ("revprop_no_cache = maybe", "revprop_no_cache in pytest.ini: must be true or false, got 'maybe'"),
        ("revprop_cases = nowhere", "revprop_cases in pytest.ini: no such file or folder: */nowhere"),
        ("revprop_update_baseline = true", "revprop_update_baseline in pytest.ini needs a baseline file: *"),
    ],
)  # fmt: skip
def test_a_bad_ini_value_is_a_one_line_usage_error_naming_the_key(
    pytester: pytest.Pytester, line: str, message: str
) -> None:
    pytester.makefile(".ini", pytest=f"[pytest]\nrevprop_model = gold\n{line}\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    [error] = [text for text in result.errlines if text.strip()]
    assert fnmatch.fnmatch(error, f"ERROR: {message}"), error
    assert result.outlines == []


@pytest.mark.skipif(
    int(pytest.__version__.split(".")[0]) < 9, reason="[tool.pytest] (native TOML) is pytest 9's"
)
@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('revprop_no_cache = "maybe"', "revprop_no_cache in pyproject.toml: expects a bool, got str: 'maybe'"),
        ("revprop_no_figures = 3", "revprop_no_figures in pyproject.toml: expects a bool, got int: 3"),
    ],
)  # fmt: skip
def test_a_native_toml_value_of_the_wrong_type_is_a_usage_error_naming_the_key(
    pytester: pytest.Pytester, line: str, message: str
) -> None:
    pytester.makefile(".toml", pyproject=f'[tool.pytest]\nrevprop_model = "gold"\n{line}\n')
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    [error] = [text for text in result.errlines if text.strip()]
    assert error == f"ERROR: {message}"
    assert result.outlines == []


def test_the_deprecated_no_figures_spelling_still_works_and_warns_once(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    seeds = "--revprop-seeds=0"
    old = _run(pytester, cases_dir, "--revprop-model=gold", seeds, figures="--no-revprop-figures")
    old.assert_outcomes(passed=2, warnings=1)
    assert (
        old.stdout.str().count(
            "PytestDeprecationWarning: --no-revprop-figures is deprecated and will be removed in "
            "pytest-revprop 0.2; use --revprop-no-figures"
        )
        == 1
    )
    assert not (pytester.path / "reports" / "report.html").exists()
    new = _run(pytester, cases_dir, "--revprop-model=gold", seeds)
    new.assert_outcomes(passed=2)
    assert "PytestDeprecationWarning" not in new.stdout.str()


def test_item_ids_name_model_method_k_and_seed_and_markers_and_keywords_select_items(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    """(Collection only: xdist starts no worker for ``--collect-only``, so one variant.)"""
    xdist: list[str] = []
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


@pytest.mark.parametrize("durations", [False, True], ids=["plain", "durations"])
@pytest.mark.parametrize("xdist", XDIST, ids=XDIST_IDS)
def test_failure_listing_skips_our_empty_phase_reports_and_keeps_everything_it_printed(
    pytester: pytest.Pytester, cases_dir: Path, xdist: list[str], durations: bool
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
    durations_args = ["--durations=0", "--durations-min=0"] if durations else []
    result = _run(pytester, cases_dir, "--revprop-model=noop", "--revprop-method=j+h", "--revprop-seeds=0",
                  "--revprop-with-tests", *durations_args, *xdist)  # fmt: skip
    result.assert_outcomes(failed=3)
    out = result.stdout.str()
    # both revprop failures and the user's failure are listed, with the user's teardown output
    for headline in ("*_ unit/10*", "*_ travel-shift/10*", "*_ test_user _*", "*USER-FAILURE*"):
        result.stdout.fnmatch_lines([headline])
    assert "Captured stdout teardown" in out and "USER-TEARDOWN-OUTPUT" in out
    # pytest keeps the user's passed setup and teardown; ours only for --durations, which lists
    # them (and then they are set aside only while the failures are listed)
    assert (pytester.path / "phase-reports.txt").read_text() == ("6" if durations else "2")
    setup_line = "*s setup    unit/10[[]noop-j+h-k1-s0[]]*"
    if durations:
        result.stdout.fnmatch_lines(["*slowest durations*", setup_line])
    else:
        result.stdout.no_fnmatch_line(setup_line)


def _junit_cases(xml: Path) -> dict[str, dict[str, Any]]:
    """Each testcase the way JUnit consumers read it: Jenkins and GitLab group by classname
    (Jenkins: package and class split at its last dot) and show the name; properties are
    name/value pairs."""
    root = ET.parse(xml).getroot()
    cases = {}
    for case in root.iter("testcase"):
        classname = case.get("classname", "")
        package, _, cls = classname.rpartition(".")
        cases[case.get("name", "")] = {
            "classname": classname,
            "package": package,
            "class": cls,
            "outcome": next((child.tag for child in case if child.tag != "properties"), "passed"),
            "properties": {p.get("name"): p.get("value") for p in case.iter("property")},
        }
    return cases


@pytest.mark.parametrize("xdist", XDIST, ids=XDIST_IDS)
def test_junit_names_each_item_by_model_method_k_with_json_style_properties(
    pytester: pytest.Pytester, cases_dir: Path, xdist: list[str]
) -> None:
    xml = pytester.path / "junit.xml"
    _run(pytester, cases_dir, "--revprop-model=direct-only,gold", "--revprop-method=j+h,med",
         "--revprop-seeds=0", f"--junitxml={xml}", *xdist)  # fmt: skip
    cases = _junit_cases(xml)
    assert len(cases) == 8
    item = cases["unit/10[direct-only-j+h-k1-s0]"]
    assert (item["classname"], item["package"], item["class"], item["outcome"]) == (
        "revprop.direct-only.j+h-k1", "revprop.direct-only", "j+h-k1", "failure",
    )  # fmt: skip
    assert cases["unit/10[gold-med-k5-s0]"]["classname"] == "revprop.gold.med-k5"
    assert item["properties"] == {
        "revprop_completed": "false",
        "revprop_valid": "true",
        "revprop_error": "null",
        "revprop_miss": "2",
        "revprop_over_edit": "0",
        "revprop_wrong_value": "0",
        "revprop_cost_usd": "0.0",
        "revprop_latency_s": "0.0",
        "revprop_calls": "1",
    }
    values = [json.loads(v) for case in cases.values() for v in case["properties"].values()]
    assert {type(v) for v in values} == {bool, int, float, type(None)}
    root = ET.parse(xml).getroot()
    suite = {p.get("name"): p.get("value") for p in root.findall("./testsuite/properties/property")}
    assert suite["revprop_completion_rate[direct-only|j+h|k1]"] == "0.0000"


def test_junit_leaves_ordinary_tests_named_as_pytest_names_them(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    pytester.makepyfile(test_user="def test_plain():\n    assert True\n")
    xml = pytester.path / "junit.xml"
    _run(pytester, cases_dir, "--revprop-model=gold", "--revprop-seeds=0", "--revprop-with-tests",
         f"--junitxml={xml}")  # fmt: skip
    plain = _junit_cases(xml)["test_plain"]
    assert plain["classname"] == "test_user"


def _baseline(pytester: pytest.Pytester, cases_dir: Path, seeds: str, model: str = "noop") -> Path:
    """A baseline in which gold completed every sample, renamed to ``model``'s: ``model``'s
    items then pair with it (noop: every pair flips to failed)."""
    baseline = pytester.path / "baseline.json"
    written = _run(pytester, cases_dir, "--revprop-model=gold", f"--revprop-seeds={seeds}",
                   f"--revprop-baseline={baseline}", "--revprop-update-baseline")  # fmt: skip
    assert written.ret == 0
    written.stdout.fnmatch_lines([f"baseline written: {baseline}"])
    doc = json.loads(baseline.read_text())
    for r in doc["results"]:
        r["model"] = model
    baseline.write_text(json.dumps(doc))
    return baseline


def test_baseline_gate_passes_then_fails_on_a_regression(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    seeds = "--revprop-seeds=0,1,2,3"
    baseline = _baseline(pytester, cases_dir, "0,1,2,3", model="gold")
    same = _run(
        pytester, cases_dir, "--revprop-model=gold", seeds, f"--revprop-baseline={baseline}"
    )
    assert same.ret == 0
    same.stdout.fnmatch_lines(
        [
            "*baseline gate*",
            "no significant change gold j+h k1: 100.0% -> 100.0%*",
            "    8 pairs detect a drop of 80.5 points or more (80% power*",
        ]
    )
    baseline = _baseline(pytester, cases_dir, "0,1,2,3")
    regressed = _run(
        pytester, cases_dir, "--revprop-model=noop", seeds, f"--revprop-baseline={baseline}"
    )
    assert regressed.ret == REGRESSION_EXIT
    regressed.stdout.fnmatch_lines(
        [
            "*REGRESSION*noop j+h k1: 100.0% -> 0.0%*flips 8 down*",
            "*unit/10 seed 0*",
            f"*regression beyond 2.0 points with p < 0.05: exit status {REGRESSION_EXIT}",
        ]
    )
    assert "Traceback" not in regressed.stdout.str() + regressed.stderr.str()


def test_the_plugin_and_revprop_compare_exit_with_the_same_regression_code(
    pytester: pytest.Pytester, cases_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = _baseline(pytester, cases_dir, "0,1,2,3")
    plugin = _run(pytester, cases_dir, "--revprop-model=noop", "--revprop-seeds=0,1,2,3",
                  f"--revprop-baseline={baseline}")  # fmt: skip
    results = pytester.path / "reports" / "results.json"
    compare = cli.main(["compare", str(baseline), str(results), "--fail-on-regression"])
    assert plugin.ret == compare == REGRESSION_EXIT
    assert "1 regression: noop · j+h k=1." in capsys.readouterr().out


def test_both_help_texts_state_the_regression_exit_code(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    result = pytester.runpytest("--help")
    assert f"fail (exit {REGRESSION_EXIT}) on a significant regression" in " ".join(
        result.stdout.str().split()
    )
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        cli.main(["compare", "--help"])
    assert stopped.value.code == 0
    assert f"exit {REGRESSION_EXIT} when any (model, method, k) regressed" in " ".join(
        capsys.readouterr().out.split()
    )


@pytest.mark.parametrize("xdist", XDIST, ids=XDIST_IDS)
def test_under_a_baseline_model_failures_are_waived_but_a_failing_ordinary_test_is_not(
    pytester: pytest.Pytester, cases_dir: Path, xdist: list[str]
) -> None:
    # one seed: two samples flip, p = 0.5, no regression; the gate passes
    baseline = _baseline(pytester, cases_dir, "0")
    args = ["--revprop-model=noop", "--revprop-seeds=0", f"--revprop-baseline={baseline}", *xdist]
    waived = _run(pytester, cases_dir, *args)
    waived.assert_outcomes(failed=2)
    assert waived.ret == pytest.ExitCode.OK
    pytester.makepyfile(test_red="def test_x():\n    assert False\n")
    red = _run(pytester, cases_dir, *args, "--revprop-with-tests")
    red.assert_outcomes(failed=3)
    assert red.ret == pytest.ExitCode.TESTS_FAILED


def test_under_a_baseline_a_failed_model_call_still_fails_the_run(
    pytester: pytest.Pytester, cases_dir: Path, fake_server: Any
) -> None:
    server = fake_server(faults={"always_fail": "500"})
    baseline = _baseline(pytester, cases_dir, "0", model="hosted_vllm/m")
    result = _run(pytester, cases_dir, "--revprop-model=hosted_vllm/m", "--revprop-transport=direct",
                  f"--revprop-api-base={server.base_url}", "--revprop-seeds=0", "--revprop-retries=1",
                  f"--revprop-baseline={baseline}")  # fmt: skip
    result.assert_outcomes(errors=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize(
    ("seeds", "status"),
    [("0", 1 | 16), ("0,1,2,3", REGRESSION_EXIT | 1 | 16)],
    ids=["pass", "regression"],
)
def test_other_plugins_exit_status_bits_survive_the_gate(
    pytester: pytest.Pytester, cases_dir: Path, seeds: str, status: int
) -> None:
    baseline = _baseline(pytester, cases_dir, seeds)
    pytester.makeconftest(
        """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    session.exitstatus |= 1  # as syrupy does for unused snapshots

class Late:
    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        session.exitstatus |= 16

def pytest_configure(config):
    config.pluginmanager.register(Late(), "late-bit")
"""
    )
    result = _run(pytester, cases_dir, "--revprop-model=noop", f"--revprop-seeds={seeds}",
                  f"--revprop-baseline={baseline}")  # fmt: skip
    assert result.ret == status


def test_a_gate_whose_baseline_shares_no_group_with_the_run_stops_it_in_one_line(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    baseline = _baseline(pytester, cases_dir, "0", model="gold")
    result = _run(pytester, cases_dir, "--revprop-model=noop", "--revprop-method=j+h,med",
                  f"--revprop-baseline={baseline}", *TWO_WORKERS)  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines[0] == (
        f"ERROR: the baseline {baseline} shares no (model, method, k) with this run: "
        "the baseline holds gold j+h k1; this run holds noop j+h k1, noop med k5"
    )
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()


def test_a_gate_names_the_groups_it_did_not_compare_and_refuses_when_none_is_left(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    baseline = _baseline(pytester, cases_dir, "0")
    args = ["--revprop-model=noop", "--revprop-method=j+h,med", "--revprop-seeds=0",
            f"--revprop-baseline={baseline}"]  # fmt: skip
    partial = _run(pytester, cases_dir, *args)
    assert partial.ret == pytest.ExitCode.OK
    partial.stdout.fnmatch_lines(
        [
            "no significant change noop j+h k1: 100.0% -> 0.0%*",
            "    2 pairs cannot*",
            "not compared (only in this run): noop med k5",
        ]
    )
    # -k leaves only the group the baseline lacks: the gate compares nothing
    nothing_left = _run(pytester, cases_dir, *args, "-k", "med")
    assert nothing_left.ret == pytest.ExitCode.USAGE_ERROR
    nothing_left.stdout.fnmatch_lines(
        [
            "*revprop baseline gate*",
            f"revprop: the baseline {baseline} shares no (model, method, k) with this run: "
            "the baseline holds noop j+h k1; this run holds noop med k5",
        ]
    )


def test_the_header_names_versions_models_with_their_servers_and_the_run(
    pytester: pytest.Pytester, cases_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REVPROP_TEST_TOKEN", "s3cret-value")
    result = _run(pytester, cases_dir, "--revprop-model=gold,hosted_vllm/org/m",
                  "--revprop-api-base=http://u:s3cret-value@127.0.0.1:9/v1,http://127.0.0.1:10/v1",
                  "--revprop-seeds=0,42", "--collect-only")  # fmt: skip
    result.stdout.fnmatch_lines(
        [
            f"revprop: pytest-revprop {__version__}, litellm *, Python {platform.python_version()}",
            "revprop model gold: reference solver (no model calls)",
            "revprop model hosted_vllm/org/m: hosted_vllm/org/m at http://u:***@127.0.0.1:9/v1, http://127.0.0.1:10/v1",
            f"revprop run: methods j+h; k 1; seeds 0,42; split all: 2 cases from {cases_dir}; 8 items; cache {pytester.path / 'cache'}",
        ]
    )
    assert "s3cret-value" not in result.stdout.str()


def test_the_reports_line_lists_every_file_written(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    result = pytester.runpytest(
        f"--revprop-cases={cases_dir}", "--revprop-split=all", "--revprop-model=gold",
        "--revprop-method=j+h,med", "--revprop-seeds=0", f"--revprop-cache={pytester.path / 'cache'}",
        "--revprop-report=out",
    )  # fmt: skip
    (line,) = [line for line in result.stdout.lines if line.startswith("reports: ")]
    first, *rest = line.removeprefix("reports: ").split(", ")
    assert first == "out/results.json"
    listed = ["results.json", *rest]
    assert sorted(listed) == sorted(p.name for p in (pytester.path / "out").iterdir())
    assert {"samples.jsonl", "summary.md", "report.md", "report.html"} <= set(listed)
    assert {"completion_by_method.png", "completion_by_method.csv"} <= set(listed)


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
    again = pytester.runpytest(*shlex.split(command)[1:])
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
    pytester.runpytest(*shlex.split(rerun)[1:]).assert_outcomes(errors=1)
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
    result = pytester.runpytest("--revprop-model=gold")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*REVPROP_TRANSPORT='fast': choose litellm or direct*"])
    assert "Traceback" not in result.stderr.str()
