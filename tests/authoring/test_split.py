"""The frozen dev/test split: split.json, new scenarios, the balance check and the re-draw."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from helpers.scenarios import SHIPPED, scenario_package

from pytest_revprop.authoring.split import (
    choose_dev,
    frozen_split,
    imbalance,
    moves,
    propagation_buckets,
    read_split,
    redrawn_split,
    split_text,
)
from pytest_revprop.cli.cases import cases_main
from pytest_revprop.core.cases import BENCHMARK_DIR, SPLIT_FILE, load_cases
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import BENCHMARK_SIZES as SIZES


def _attributes(n: int, domains: int = 9, patterns: int = 6) -> dict[str, dict[str, str]]:
    return {
        f"s{i:02d}": {
            "domain": f"d{i % domains}",
            "pattern": f"p{(i // domains) % patterns}",
            "bucket": ("low", "mid", "high")[i * 3 // n],
        }
        for i in range(n)
    }


def test_choose_dev_is_deterministic_and_balanced() -> None:
    attrs = _attributes(50)
    first, again = choose_dev(attrs), choose_dev(attrs)
    assert first == again
    assert first.violations == 0 and len(first.dev) == 10
    for name, lo, hi in (("domain", 1, 2), ("pattern", 1, 2), ("bucket", 3, 4)):
        counts = Counter(attrs[s][name] for s in first.dev)
        assert len(counts) == len({a[name] for a in attrs.values()}), name
        assert lo <= min(counts.values()) and max(counts.values()) <= hi, name


def test_choose_dev_scales_to_a_partial_set_and_skips_tiny_ones() -> None:
    assert choose_dev(_attributes(9)).dev == ()
    partial = choose_dev(_attributes(20, domains=4, patterns=3))
    assert len(partial.dev) == 10 and partial.violations == 0
    counts = Counter(_attributes(20, domains=4, patterns=3)[s]["domain"] for s in partial.dev)
    assert sorted(counts.values()) == [2, 2, 3, 3]


def test_propagation_buckets_are_rank_terciles_with_ties_broken_by_id() -> None:
    counts = {"a": 5, "b": 1, "c": 5, "d": 9, "e": 2, "f": 7}
    assert propagation_buckets(counts) == {
        "b": "low",
        "e": "low",
        "a": "mid",
        "c": "mid",
        "f": "high",
        "d": "high",
    }


def test_imbalance_names_each_band_dev_misses() -> None:
    attrs = _attributes(50)  # s00..s09: domains d0..d8 and d0, patterns p0 x9 and p1, all low
    assert imbalance([f"s{i:02d}" for i in range(10)], attrs) == [
        "bucket high has 0 in dev, wants 3-4",
        "bucket low has 10 in dev, wants 3-4",
        "bucket mid has 0 in dev, wants 3-4",
        "pattern p0 has 9 in dev, wants 1-2",
        "pattern p2 has 0 in dev, wants 1-2",
        "pattern p3 has 0 in dev, wants 1-2",
        "pattern p4 has 0 in dev, wants 1-2",
        "pattern p5 has 0 in dev, wants 1-2",
    ]
    assert imbalance(list(choose_dev(attrs).dev), attrs) == []
    assert imbalance(list(choose_dev(attrs).dev)[1:], attrs)[0] == "dev has 9 scenarios, wants 10"
    assert imbalance([], _attributes(9)) == []
    assert imbalance(["s00"], _attributes(9)) == ["dev has 1 scenarios, wants 0"]


def test_frozen_split_keeps_every_listed_scenario_and_sends_new_ones_to_test() -> None:
    attrs = _attributes(50)
    committed = redrawn_split(attrs).assigned
    grown = {**attrs, "zz-new": {"domain": "d0", "pattern": "p0", "bucket": "high"}}
    split = frozen_split(committed, grown, complete=True)
    assert {s: split.assigned[s] for s in committed} == committed
    assert split.assigned["zz-new"] == "test" and split.added == ("zz-new",)
    assert list(split.assigned) == sorted(split.assigned)


def test_frozen_split_drops_gone_scenarios_only_from_a_complete_build() -> None:
    attrs = _attributes(50)
    committed = redrawn_split(attrs).assigned
    gone = next(s for s, where in committed.items() if where == "dev")
    rest = {s: a for s, a in attrs.items() if s != gone}
    complete = frozen_split(committed, rest, complete=True)
    assert gone not in complete.assigned and complete.dropped == (gone,)
    assert complete.imbalance[0] == "dev has 9 scenarios, wants 10"
    partial = frozen_split(committed, rest, complete=False)
    assert partial.assigned == committed and partial.imbalance == ()


def test_split_file_round_trips_sorted_with_how_it_was_drawn(tmp_path: Path) -> None:
    (tmp_path / SPLIT_FILE).write_text(split_text({"b-x": "test", "a-y": "dev"}))
    assert list(read_split(tmp_path).items()) == [("a-y", "dev"), ("b-x", "test")]
    assert read_split(tmp_path / "nowhere") == {}
    (tmp_path / SPLIT_FILE).write_text('{"scenarios": {"a-y": "train"}}')
    with pytest.raises(UserError, match=re.escape('expected {"drawn"')):
        read_split(tmp_path)


def test_moves_lists_scenarios_that_changed_split_by_direction() -> None:
    before = {"a": "dev", "b": "test", "c": "test", "gone": "dev"}
    after = {"a": "test", "b": "dev", "c": "test", "new": "dev"}
    assert moves(before, after) == {"dev -> test": ["a"], "test -> dev": ["b"]}


# --------------------------------------------------------------------------- the commands


def test_adding_a_scenario_leaves_every_existing_scenarios_split_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = (
        "import dataclasses\n"
        "from pytest_revprop.benchmark_cases.scenarios.org_access import SCENARIOS as ORG\n"
        "SCENARIOS = [dataclasses.replace(ORG[0], id='garden-role-change', domain='garden_plan')]\n"
    )
    scenario_package(tmp_path, monkeypatch, {"shipped": SHIPPED, "garden": extra})
    out = tmp_path / "cases"
    out.mkdir()
    (out / SPLIT_FILE).write_bytes((BENCHMARK_DIR / SPLIT_FILE).read_bytes())

    assert cases_main(["build", "--out", str(out)]) == 0

    shipped = {c.id: c.split for c in load_cases([BENCHMARK_DIR]).cases}
    built = {c.id: c.split for c in load_cases([out]).cases}
    assert {case: built[case] for case in shipped} == shipped
    assert {built[f"garden-role-change/{size}"] for size in SIZES} == {"test"}
    assert read_split(out) == {**read_split(BENCHMARK_DIR), "garden-role-change": "test"}
    for case in BENCHMARK_DIR.glob("*/*.json"):
        assert (out / case.relative_to(BENCHMARK_DIR)).read_bytes() == case.read_bytes()
    err = capsys.readouterr().err
    assert f"note: not in {SPLIT_FILE}, assigned test: garden-role-change" in err
    assert "note: the dev split is out of balance: " in err
    assert "domain garden_plan has 0 in dev, wants 1" in err


def test_redraw_prints_what_moved_and_draws_the_shipped_split_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    committed = read_split(BENCHMARK_DIR)
    to_test = min(s for s, where in committed.items() if where == "dev")
    to_dev = min(s for s, where in committed.items() if where == "test")
    out = tmp_path / "cases"
    out.mkdir()
    (out / SPLIT_FILE).write_text(split_text({**committed, to_test: "test", to_dev: "dev"}))

    assert cases_main(["split", "--redraw", "--out", str(out)]) == 0

    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines[:2]) == [f"moved dev -> test: {to_dev}", f"moved test -> dev: {to_test}"]
    assert lines[2].startswith(f"150 case files in {out} (150 written, 0 stale removed")
    assert (out / SPLIT_FILE).read_text() == (BENCHMARK_DIR / SPLIT_FILE).read_text()
    assert cases_main(["build", "--check", "--out", str(out)]) == 0


def test_split_shows_the_dev_scenarios_and_the_balance_without_writing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = (BENCHMARK_DIR / SPLIT_FILE).read_bytes()
    assert cases_main(["split", "--out", str(BENCHMARK_DIR)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{BENCHMARK_DIR / SPLIT_FILE}: 50 scenarios, 10 dev, 40 test"
    assert len([line for line in lines if line.startswith("  dev  ")]) == 10
    assert lines[-1] == "balance: ok"
    assert (BENCHMARK_DIR / SPLIT_FILE).read_bytes() == before
