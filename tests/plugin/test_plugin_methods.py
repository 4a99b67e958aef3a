"""Methods registered from a conftest.py through ``pytest_revprop_methods``, run for real with
pytester: items, cache sharing with the built-ins (requests the server receives), summary,
results.json, the gate; each kind of bad registration; model presets registered through
``pytest_revprop_models``; and ``pytest_revprop_results`` with and without xdist."""

from __future__ import annotations

import json
import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.child_pytest import TWO_WORKERS
from helpers.handmade_cases import invoice_case, travel_case, write_cases
from helpers.runs import run_results, run_revprop

from pytest_revprop.testing.fakeserver import FakeServer
from pytest_revprop.testing.responder import ORACLE_CASES_ENV

ROOT_CONFTEST = Path(__file__).resolve().parents[2] / "conftest.py"
XDIST = [[], pytest.param(TWO_WORKERS, marks=pytest.mark.slow)]
XDIST_IDS = ["single", "xdist"]


@pytest.fixture
def cases_dir(tmp_path: Path) -> Path:
    return write_cases(tmp_path / "cases", [invoice_case(), travel_case()])


_run = run_revprop


def _results(pytester: pytest.Pytester) -> dict:
    return run_results(pytester)


@pytest.mark.parametrize("xdist", XDIST, ids=XDIST_IDS)
def test_the_worked_example_runs_as_items_and_shares_every_call_with_the_built_ins(
    pytester: pytest.Pytester,
    cases_dir: Path,
    fake_server: Callable[..., FakeServer],
    monkeypatch: pytest.MonkeyPatch,
    xdist: list[str],
) -> None:
    monkeypatch.setenv(ORACLE_CASES_ENV, str(cases_dir))
    server = fake_server(responder="pytest_revprop.testing.responder:respond")
    pytester.makeconftest(ROOT_CONFTEST.read_text())
    base = [f"--revprop-api-base={server.base_url}", "--revprop-model=openai/fake",
            "--revprop-seeds=0,1"]  # fmt: skip
    listed = _run(pytester, cases_dir, *base, "--revprop-method=jh-med", "--collect-only", "-q")
    listed.stdout.fnmatch_lines(["unit/10[[]openai/fake-jh-med-k1-s0[]]", "*4 tests collected*"])
    builtins_only = _run(pytester, cases_dir, *base, "--revprop-method=j,h,j+h",
                         f"--revprop-cache={pytester.path / 'other-cache'}")  # fmt: skip
    assert builtins_only.ret in (0, 1)
    alone = server.stats()["count"]
    server.reset()
    result = _run(pytester, cases_dir, *base, "--revprop-method=j,h,j+h,jh-med", *xdist)
    assert server.stats()["count"] == alone == 2 * 2 * 3  # jh-med sent no request of its own
    result.stdout.fnmatch_lines(["*revprop summary*", "*openai/fake*jh-med*"])
    doc = _results(pytester)
    mine = [r for r in doc["results"] if r["method"] == "jh-med"]
    assert len(mine) == 4 and all(r["calls"] == 3 and r["k"] == 1 for r in mine)
    (row,) = [r for r in doc["summary"] if r["method"] == "jh-med"]
    assert (row["n_items"], row["calls"]) == (4, 12)
    assert [r["method"] for r in doc["summary"]] == ["j", "h", "j+h", "jh-med"]
    assert doc["meta"]["method_info"]["jh-med"]["uses_k"] is False


BROKEN_LATER = """
from pytest_revprop.api import Outcome

async def jh_med(ctx):
    await ctx.revise("j+h")
    return Outcome(patch=[])

def pytest_revprop_methods(register):
    register("jh-med", jh_med)
"""


def test_a_registered_method_reaches_junit_figures_html_and_the_gate(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    pytester.makeconftest(ROOT_CONFTEST.read_text())
    baseline = pytester.path / "baseline.json"
    args = ["--revprop-model=gold", "--revprop-method=jh-med", "--revprop-seeds=0,1,2,3",
            f"--revprop-baseline={baseline}"]  # fmt: skip
    xml = pytester.path / "junit.xml"
    written = _run(pytester, cases_dir, *args, "--revprop-update-baseline", "--revprop-figures",
                   f"--junitxml={xml}")  # fmt: skip
    assert written.ret == 0
    suite = ET.parse(xml).getroot().find("./testsuite/properties")
    assert suite is not None
    names = {p.get("name"): p.get("value") for p in suite.findall("property")}
    assert names["revprop_completion_rate[gold|jh-med|k1]"] == "1.0000"
    figure_data = (pytester.path / "reports" / "completion_by_method.csv").read_text()
    assert "gold,jh-med,1," in figure_data
    assert '"jh-med"' in (pytester.path / "reports" / "report.html").read_text()
    same = _run(pytester, cases_dir, *args)
    assert same.ret == 0
    same.stdout.fnmatch_lines(["no significant change gold jh-med k1: 100.0% -> 100.0%*"])
    pytester.makeconftest(BROKEN_LATER)
    regressed = _run(pytester, cases_dir, *args)
    assert regressed.ret == 6
    regressed.stdout.fnmatch_lines(["*REGRESSION*gold jh-med k1: 100.0% -> 0.0%*flips 8 down*"])


@pytest.mark.parametrize(
    ("conftest", "message"),
    [
        (
            "async def mine(ctx):\n    return []\n\n"
            "def pytest_revprop_methods(register):\n    register('med', mine)\n",
            "*pytest_revprop_methods in *conftest.py: method 'med' is already registered as a built-in method*",
        ),
        (
            "def mine(ctx):\n    return []\n\n"
            "def pytest_revprop_methods(register):\n    register('plain', mine)\n",
            "*method 'plain': <function mine at *> is not an async function (async def)*",
        ),
        (
            "def pytest_revprop_methods(register):\n    raise RuntimeError('no config file')\n",
            "*pytest_revprop_methods in *conftest.py raised RuntimeError: no config file*",
        ),
        (
            "async def mine(ctx):\n    return []\n\n"
            "def pytest_revprop_methods(register):\n    register('all', mine)\n",
            "*method name 'all': use letters, digits and _ . + - (and not 'all' or 'paper')*",
        ),
    ],
    ids=["clash", "not-async", "hook-raises", "reserved-name"],
)
def test_a_bad_registration_is_a_one_line_usage_error_naming_it(
    pytester: pytest.Pytester, cases_dir: Path, conftest: str, message: str
) -> None:
    pytester.makeconftest(conftest)
    result = _run(pytester, cases_dir, "--revprop-model=gold")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_an_unknown_method_names_the_registered_ones(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    pytester.makeconftest(ROOT_CONFTEST.read_text())
    result = _run(pytester, cases_dir, "--revprop-model=gold", "--revprop-method=fast")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*unknown method 'fast' (choose from j, h, *, select, dep, jh-med, all, paper)*"]
    )


BROKEN_AT_RUN_TIME = """
async def boom(ctx):
    await ctx.revise("j+h")
    raise ValueError("the parser broke")

async def garbage(ctx):
    await ctx.revise("j+h")
    return "hello"

async def lazy(ctx):
    return []

def pytest_revprop_methods(register):
    register("boom", boom)
    register("garbage", garbage)
    register("lazy", lazy)
"""


@pytest.mark.parametrize("xdist", XDIST, ids=XDIST_IDS)
def test_a_method_that_fails_at_run_time_errors_its_own_items_only(
    pytester: pytest.Pytester, cases_dir: Path, xdist: list[str]
) -> None:
    pytester.makeconftest(BROKEN_AT_RUN_TIME)
    result = _run(pytester, cases_dir, "--revprop-model=gold", "--revprop-seeds=0",
                  "--revprop-method=j+h,boom,garbage,lazy", *xdist)  # fmt: skip
    result.assert_outcomes(passed=2, errors=6)
    result.stdout.fnmatch_lines_random([
        "*method 'boom' raised ValueError: the parser broke*",
        "*method 'garbage' returned 'hello': not a patch, an Answer or an Outcome*",
        "*method 'lazy' made no model call*",
    ])  # fmt: skip
    doc = _results(pytester)
    by_method = {row["method"]: row for row in doc["summary"]}
    assert by_method["j+h"]["completion_rate"] == 1.0
    assert all(by_method[m]["errors"] == 2 for m in ("boom", "garbage", "lazy"))
    # every item of boom errored: no rate (null, a dash in the tables), not a measured 0.0
    assert (by_method["boom"]["completion_rate"], by_method["boom"]["completion_std"]) == (
        None,
        None,
    )
    summary_md = (pytester.path / "reports" / "summary.md").read_text()
    assert "| gold | boom | 1 | – | – |" in summary_md
    result.stdout.re_match_lines([r"^gold\s+boom\s+1\s+–\s+–\s"])
    result.stdout.fnmatch_lines(
        ["*method 'boom' raised ValueError: the parser broke (at conftest.py:3, in boom)*"]
    )
    assert {r["error"] for r in doc["results"] if r["method"] != "j+h"} == {"method_failed"}


def test_a_registered_model_preset_is_used_by_name(
    pytester: pytest.Pytester, cases_dir: Path, fake_server: Callable[..., FakeServer]
) -> None:
    server = fake_server(default={"content": "[]"})
    pytester.makeconftest(
        "from pytest_revprop.api import ModelConfig\n\n"
        "def pytest_revprop_models(register):\n"
        f"    register(ModelConfig(name='team-model', litellm_model='openai/fake', api_bases=('{server.base_url}',)))\n"
    )
    result = _run(pytester, cases_dir, "--revprop-model=team-model", "--revprop-seeds=0")
    result.assert_outcomes(failed=2)
    assert server.stats()["count"] == 2
    assert {r["model"] for r in _results(pytester)["results"]} == {"team-model"}


RESULTS_HOOK = """
import json
import re
import shlex

def pytest_revprop_results(summary, records, config):
    with open(config.rootpath / "received.jsonl", "a") as out:
        out.write(json.dumps({
            "summary": [[r["method"], r["n_items"]] for r in summary],
            "records": sorted([r["case"], r["method"], r["seed"]] for r in records),
            "report": str(config.getoption("revprop_report")),
        }) + "\\n")
"""


@pytest.mark.parametrize("xdist", XDIST, ids=XDIST_IDS)
def test_the_results_hook_receives_every_record_once_in_the_controller(
    pytester: pytest.Pytester, cases_dir: Path, xdist: list[str]
) -> None:
    pytester.makeconftest(RESULTS_HOOK)
    result = _run(pytester, cases_dir, "--revprop-model=gold", "--revprop-method=j+h,med",
                  "--revprop-k=3", "--revprop-seeds=0,1", *xdist)  # fmt: skip
    result.assert_outcomes(passed=8)
    (line,) = (pytester.path / "received.jsonl").read_text().splitlines()
    received = json.loads(line)
    assert received["summary"] == [["j+h", 4], ["med", 4]]
    expected = sorted([case, method, seed] for case in ("travel-shift/10", "unit/10")
                      for method in ("j+h", "med") for seed in (0, 1))  # fmt: skip
    assert received["records"] == expected
    assert received["report"] == str(pytester.path / "reports")


def test_a_results_hook_that_raises_costs_no_result(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    pytester.makeconftest("def pytest_revprop_results(summary, records, config):\n    1 / 0\n")
    result = _run(pytester, cases_dir, "--revprop-model=gold", "--revprop-seeds=0")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*pytest_revprop_results failed: ZeroDivisionError*"])
    assert len(_results(pytester)["results"]) == 2


USES_K = """
from pytest_revprop.api import MethodContext, Outcome, RegisterMethod


async def union_of_k(ctx: MethodContext) -> Outcome:
    return ctx.merge(await ctx.samples(ctx.k), "or")


def pytest_revprop_methods(register: RegisterMethod) -> None:
    register("union-of-k", union_of_k, uses_k=True, min_k=2)
"""


def test_the_rerun_command_of_a_registered_method_that_uses_k_names_its_k(
    pytester: pytest.Pytester, cases_dir: Path
) -> None:
    pytester.makeconftest(USES_K)
    first = _run(pytester, cases_dir, "--revprop-model=noop", "--revprop-method=union-of-k",
                 "--revprop-k=3", "--revprop-seeds=0")  # fmt: skip
    first.assert_outcomes(failed=2)
    (before,) = [r for r in _results(pytester)["results"] if r["case"] == "unit/10"]
    commands = re.findall(r"^rerun: (pytest .*)$", first.stdout.str(), re.MULTILINE)
    (command,) = [c for c in commands if "--revprop-case=unit/10" in c]
    assert "--revprop-k=3" in shlex.split(command)
    again = pytester.runpytest(*shlex.split(command)[1:])
    again.assert_outcomes(failed=1)
    (row,) = _results(pytester)["results"]
    assert (row["k"], row["calls"]) == (3, 3)
    assert {**row, "latency_s": 0} == {**before, "latency_s": 0}
