"""The shipped benchmark as a whole, and the build / split / stats machinery behind it."""

from __future__ import annotations

import ast
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from helpers.scenarios import scenario_package

from pytest_revprop.authoring.assembly import FORBIDDEN_WORDS
from pytest_revprop.authoring.build import (
    BuildResult,
    build_all,
    differences,
    discover,
    write_files,
)
from pytest_revprop.authoring.checkout import cases_folder, find_checkout
from pytest_revprop.authoring.split import propagation_buckets, read_split
from pytest_revprop.cli.cases import cases_main
from pytest_revprop.core.cases import BENCHMARK_DIR, SPLIT_FILE, Case, iter_case_files, load_cases
from pytest_revprop.core.scoring import score_patch
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import BENCHMARK_SIZES as SIZES
from pytest_revprop.vocabulary import DOMAINS, PATTERNS


@pytest.fixture(scope="module")
def fresh() -> BuildResult:
    return build_all(discover(), read_split(BENCHMARK_DIR))


@pytest.fixture(scope="module")
def shipped() -> list[Case]:
    loaded = load_cases([BENCHMARK_DIR])
    assert loaded.errors == []
    return loaded.cases


def _by_scenario(cases: list[Case]) -> dict[str, dict[int, Case]]:
    out: dict[str, dict[int, Case]] = defaultdict(dict)
    for case in cases:
        out[case.scenario][case.size] = case
    return out


def _ops(case: Case, keep: Any) -> list[dict[str, Any]]:
    return [
        {"op": g.op, "path": g.path, **({"value": g.value} if g.op != "remove" else {})}
        for g in case.gold
        if keep(g)
    ]


# --------------------------------------------------------------------------- the shipped set


def test_every_scenario_builds(fresh: BuildResult) -> None:
    assert fresh.errors == []


def test_committed_files_equal_a_fresh_build(fresh: BuildResult) -> None:
    assert differences(BENCHMARK_DIR, {**fresh.files, SPLIT_FILE: fresh.split_file}) == []


def test_every_scenario_has_all_three_sizes_with_matching_ids(shipped: list[Case]) -> None:
    for scenario, sizes in _by_scenario(shipped).items():
        assert sorted(sizes) == list(SIZES), scenario
        for size, case in sizes.items():
            assert case.id == f"{scenario}/{size}"
            assert case.source == BENCHMARK_DIR / scenario / f"{size}.json"


def test_the_benchmark_is_complete(shipped: list[Case]) -> None:
    scenarios = {c.scenario: (c.domain, c.pattern) for c in shipped}
    assert len(scenarios) == 50, f"{len(scenarios)} scenarios so far"
    assert {d for d, _ in scenarios.values()} == set(DOMAINS)
    assert {p for _, p in scenarios.values()} == set(PATTERNS)


def test_literal_gold_completes_where_matchers_allow_it(shipped: list[Case]) -> None:
    checked = 0
    for case in shipped:
        literal_free = [g for g in case.gold if g.match != "strict" and not g.optional]
        if literal_free:
            continue
        reply = _ops(case, lambda g: g.match == "strict")
        assert score_patch(case, reply).completed, case.id
        checked += 1
    assert checked >= len(shipped) // 2


def test_direct_ops_alone_never_complete(shipped: list[Case]) -> None:
    for case in shipped:
        assert not score_patch(case, _ops(case, lambda g: g.kind == "direct")).completed, case.id


def test_every_case_has_one_direct_op_and_a_non_optional_cascade(shipped: list[Case]) -> None:
    for case in shipped:
        assert sum(g.kind == "direct" for g in case.gold) == 1, case.id
        assert any(g.kind == "cascade" and not g.optional for g in case.gold), case.id


def test_cascades_grow_with_size(shipped: list[Case]) -> None:
    for scenario, sizes in _by_scenario(shipped).items():
        counts = [sum(g.kind == "cascade" for g in sizes[s].gold) for s in SIZES]
        assert counts[0] <= counts[1] <= counts[2] and counts[2] > counts[0], (scenario, counts)


def test_users_never_say_key_field_or_json(shipped: list[Case]) -> None:
    for case in shipped:
        for text in [case.request, *(t.user for t in case.conversation)]:
            assert not FORBIDDEN_WORDS.search(text), (case.id, text)


AUTHORING_IMPORTS = {"pytest_revprop.authoring.helpers", "pytest_revprop.authoring.scenario"}


@pytest.mark.parametrize(
    "module", sorted(p.name for p in (BENCHMARK_DIR / "scenarios").glob("[!_]*.py"))
)
def test_scenario_modules_import_only_the_authoring_layer_and_end_with_a_scenarios_list(
    module: str,
) -> None:
    tree = ast.parse((BENCHMARK_DIR / "scenarios" / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{module} imports a sibling"
            name = node.module or ""
            assert not name.startswith("pytest_revprop") or name in AUTHORING_IMPORTS, name
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith("pytest_revprop") for a in node.names), module
    last = tree.body[-1]
    assert isinstance(last, ast.Assign) and ast.unparse(last.targets[0]) == "SCENARIOS"
    assert isinstance(last.value, ast.List) and last.value.elts
    for item in last.value.elts:
        assert isinstance(item, ast.Call) and ast.unparse(item.func) == "Scenario", module


def test_split_is_per_scenario_with_ten_balanced_dev_scenarios(shipped: list[Case]) -> None:
    scenarios = _by_scenario(shipped)
    splits = {s: {c.split for c in sizes.values()} for s, sizes in scenarios.items()}
    assert all(len(v) == 1 for v in splits.values())
    dev = sorted(s for s, v in splits.items() if v == {"dev"})
    assert len(dev) == (10 if len(scenarios) >= 10 else 0)
    if len(scenarios) < 50:
        return
    assert len(scenarios) - len(dev) == 40
    domains = Counter(scenarios[s][100].domain for s in dev)
    patterns = Counter(scenarios[s][100].pattern for s in dev)
    buckets = propagation_buckets({s: len(sizes[100].gold) for s, sizes in scenarios.items()})
    assert max(domains.values()) <= 2 and len(domains) >= 9
    assert set(patterns) == set(PATTERNS) and max(patterns.values()) <= 2
    assert sorted(Counter(buckets[s] for s in dev).values()) == [3, 3, 4]


def test_split_json_holds_every_scenario_in_order_as_its_case_files_say(
    shipped: list[Case],
) -> None:
    committed = read_split(BENCHMARK_DIR)
    assert list(committed) == sorted(committed)
    assert committed == {c.scenario: c.split for c in shipped}
    assert json.loads((BENCHMARK_DIR / SPLIT_FILE).read_text())["drawn"].startswith("Drawn by")


def test_the_split_file_is_never_read_as_a_case() -> None:
    assert BENCHMARK_DIR / SPLIT_FILE not in iter_case_files([BENCHMARK_DIR])


# --------------------------------------------------------------------------- files and commands


def test_write_files_removes_stale_generated_folders_but_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "old-scenario").mkdir()
    (tmp_path / "old-scenario" / "10.json").write_text("{}")
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "10.json").write_text("{}")
    (tmp_path / "keep" / "notes.txt").write_text("mine")
    (tmp_path / "README.md").write_text("mine")
    files = {"new-scenario/10.json": "{\n}\n", "new-scenario/50.json": "[]\n"}
    assert differences(tmp_path, files) == [
        "missing: new-scenario/10.json",
        "missing: new-scenario/50.json",
        "stale: old-scenario/10.json",
    ]
    assert write_files(tmp_path, files) == (2, 1)
    assert not (tmp_path / "old-scenario").exists()
    assert (tmp_path / "keep" / "10.json").exists() and (tmp_path / "README.md").exists()
    assert (tmp_path / "new-scenario" / "10.json").read_bytes() == b"{\n}\n"
    assert differences(tmp_path, files) == []
    assert write_files(tmp_path, files) == (0, 0)


ORG = "from pytest_revprop.benchmark_cases.scenarios.org_access import SCENARIOS\n"


@pytest.fixture
def org_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A scenario package holding just the org_access examples (independent of other modules)."""
    package = scenario_package(
        tmp_path,
        monkeypatch,
        {"org": ORG, "_helpers": "raise RuntimeError('private modules are not imported')\n"},
    )
    return package.name


def test_build_and_check_commands_round_trip(
    org_only: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cases"
    assert cases_main(["build", "--check", "--out", str(out)]) == 1
    assert "missing: org-role-change/10.json" in capsys.readouterr().out
    assert cases_main(["build", "--out", str(out)]) == 0
    assert len(list(out.glob("*/*.json"))) == 15
    assert read_split(out) == {s.id: "test" for s in discover()}
    assert cases_main(["build", "--check", "--out", str(out)]) == 0
    target = out / "org-role-change" / "50.json"
    target.write_text(target.read_text().replace('"size"', '"size" ', 1))
    capsys.readouterr()
    assert cases_main(["build", "--check", "--out", str(out)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == "differs: org-role-change/50.json"


def test_discover_rejects_duplicate_ids_and_broken_modules(org_only: str, tmp_path: Path) -> None:
    assert [s.id for s in discover()][:2] == ["org-approval-base", "org-privileged-threshold"]
    (tmp_path / org_only / "again.py").write_text("from .org import SCENARIOS\n")
    with pytest.raises(
        UserError,
        match=f"duplicate scenario id 'org-role-change' in {org_only}.org and {org_only}.again",
    ):
        discover()
    (tmp_path / org_only / "again.py").unlink()
    (tmp_path / org_only / "broken.py").write_text("import nowhere_to_be_found\n")
    with pytest.raises(
        UserError, match=f"scenario module {org_only}.broken does not import: ModuleNotFoundError"
    ):
        discover()
    (tmp_path / org_only / "broken.py").unlink()
    (tmp_path / org_only / "unlisted.py").write_text("SCENARIO = None\n")
    with pytest.raises(
        UserError, match=f"scenario module {org_only}.unlisted has no list SCENARIOS"
    ):
        discover()


def test_check_command_reports_broken_modules_only_when_they_are_asked_for(
    org_only: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / org_only / "shaky.py").write_text("raise ValueError('half written')\n")
    assert cases_main(["check", "org_access"]) == 0
    captured = capsys.readouterr()
    assert "5 ok, 0 failed" in captured.out
    assert (
        f"note: scenario module {org_only}.shaky does not import: ValueError: half written"
        in captured.err
    )
    assert cases_main(["check", "shaky"]) == 1
    assert f"FAIL scenario module {org_only}.shaky" in capsys.readouterr().out
    with pytest.raises(UserError, match="shaky does not import"):
        cases_main(["build", "--out", str(tmp_path / "out")])
    assert cases_main(["build", "--keep-going", "--out", str(tmp_path / "out")]) == 1
    assert len(list((tmp_path / "out").glob("*/*.json"))) == 15


def test_check_command_reports_each_matching_scenario(
    org_only: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cases_main(["check", "org-role-change"]) == 0
    out = capsys.readouterr().out
    assert "ok   org-role-change" in out and "1 ok, 0 failed" in out
    with pytest.raises(UserError, match="no scenario matches nothing-like-this"):
        cases_main(["check", "nothing-like-this"])


# --------------------------------------------------------------------------- where the build writes


def _checkout(root: Path, name: str = "pytest_revprop") -> Path:
    """A folder that looks like a checkout of the project named ``name``."""
    (root / "benchmark_cases" / "scenarios").mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "{name}"\n')
    return root / "benchmark_cases"


def test_the_checkout_is_found_from_any_folder_inside_it(tmp_path: Path) -> None:
    cases = _checkout(tmp_path / "repo")
    assert find_checkout(cases / "scenarios") == cases
    assert find_checkout(tmp_path / "repo") == cases
    assert find_checkout(tmp_path) is None
    assert find_checkout(_checkout(tmp_path / "other", name="someone-else") / "scenarios") is None


def test_build_writes_into_the_checkout_of_the_working_folder(
    org_only: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = _checkout(tmp_path / "repo")
    (cases / "scenarios").rmdir()
    (cases / "scenarios").symlink_to(tmp_path / org_only)  # its programs are the imported ones
    monkeypatch.chdir(cases)
    assert cases_main(["build"]) == 0
    assert len(list(cases.glob("*/*.json"))) == 15 and (cases / SPLIT_FILE).is_file()
    assert cases_main(["build", "--check"]) == 0


def test_build_refuses_a_checkout_whose_scenario_programs_are_not_the_imported_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = _checkout(tmp_path / "repo")
    monkeypatch.chdir(cases)
    with pytest.raises(UserError, match="not this checkout's: install it with `pip install -e"):
        cases_folder(None, True, BENCHMARK_DIR / "scenarios")
    assert cases_folder(None, True, cases / "scenarios") == cases


def test_outside_a_checkout_build_needs_out_and_check_reads_the_shipped_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match=r"no pytest-revprop checkout at or above .*give --out DIR"):
        cases_main(["build"])
    assert cases_folder(None, False, BENCHMARK_DIR / "scenarios") == BENCHMARK_DIR


@pytest.mark.parametrize("installed", ["site-packages", "dist-packages"])
def test_build_refuses_to_write_into_an_installed_package(tmp_path: Path, installed: str) -> None:
    out = tmp_path / "lib" / installed / "pytest_revprop" / "benchmark_cases"
    with pytest.raises(UserError, match="refusing to write into an installed package"):
        cases_main(["build", "--out", str(out)])
    with pytest.raises(UserError, match="refusing to write into an installed package"):
        cases_main(["split", "--redraw", "--out", str(out)])
    assert not out.exists()


def test_stats_counts_cases_and_gold_ops(
    shipped: list[Case], capsys: pytest.CaptureFixture[str]
) -> None:
    org = BENCHMARK_DIR / "org-role-change"
    assert cases_main(["stats", str(org), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    expected = {str(c.size): c for c in shipped if c.scenario == "org-role-change"}
    assert stats["cases"] == 3 and stats["scenarios"] == 1
    assert stats["by_size"] == {"10": 1, "50": 1, "100": 1}
    assert stats["by_domain"] == {"org_access": 3} and stats["by_pattern"] == {"substitution": 3}
    for size, case in expected.items():
        cascade = sum(g.kind == "cascade" for g in case.gold)
        assert stats["gold_ops_by_size"][size] == {
            "cases": 1,
            "direct_total": 1,
            "cascade_total": cascade,
            "direct_mean": 1.0,
            "cascade_mean": cascade,
        }
    followups = sum(len(c.followups) for c in expected.values())
    assert stats["followups"]["total"] == followups >= 9
    assert stats["followups"]["by_size"] == {k: len(c.followups) for k, c in expected.items()}
    assert 0 < stats["followups"]["interacting"] <= followups
    assert cases_main(["stats", str(org)]) == 0
    table = capsys.readouterr().out
    assert table.startswith("3 cases, 1 scenarios") and "substitution" in table
    assert f"follow-ups {followups} (size 10: " in table


def test_stats_on_a_missing_path_is_a_user_error() -> None:
    with pytest.raises(UserError, match="no such file or folder"):
        cases_main(["stats", "/nonexistent/cases"])
