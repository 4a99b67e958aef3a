"""Fresh instances and long chains: the input space (``Draw``), the moves, and the cases
``revprop cases generate`` writes from them."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import datetime as dt
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers.scenarios import scenario_package
from hypothesis import given
from hypothesis import strategies as st

from pytest_revprop.authoring.build import discover, shipped_annotation
from pytest_revprop.authoring.counts import chain_interactions
from pytest_revprop.authoring.instances import (
    MAX_TURNS,
    check_moves,
    drawn_inputs,
    generate_all,
    generate_case,
)
from pytest_revprop.authoring.scenario import (
    SHIPPED,
    Draw,
    Move,
    Revision,
    Scenario,
    ScenarioError,
)
from pytest_revprop.authoring.split import read_split
from pytest_revprop.cli.cases import cases_main
from pytest_revprop.core.cases import BENCHMARK_DIR, Case, dump_case, load_cases
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import BENCHMARK_SIZES as SIZES
from pytest_revprop.vocabulary import PATTERNS

GENERATING = [s for s in discover() if s.generates]


@pytest.fixture(scope="module")
def long_chains() -> dict[tuple[str, int], dict[str, Any]]:
    """Seed 1 of every scenario that generates, at every size, with 20 follow-ups."""
    return {
        (s.id, size): generate_case(s, size, 1, MAX_TURNS, strict=True)
        for s in GENERATING
        for size in SIZES
    }


# --------------------------------------------------------------------------- the input space


@given(st.integers(0, 10**6), st.integers(-50, 50), st.integers(0, 60), st.integers(1, 7))
def test_draws_stay_in_their_range_and_on_their_grid(
    seed: int, lo: int, span: int, step: int
) -> None:
    d = Draw(seed, "salt")
    n = d.int(lo, lo + span, step=step)
    assert lo <= n <= lo + span and (n - lo) % step == 0
    x = d.money(lo, lo + span, step=0.25)
    assert lo <= x <= lo + span and round((x - lo) * 4, 6) == int(round((x - lo) * 4, 6))
    day = d.date("2025-03-01", "2025-03-31", weekdays="01234")
    assert "2025-03-01" <= day <= "2025-03-31" and dt.date.fromisoformat(day).weekday() < 5
    assert d.pick("abc") in "abc" and sorted(d.sample("abcd", 2))[0] in "abcd"


def test_the_same_seed_and_salt_draw_the_same_and_the_shipped_instance_draws_nothing() -> None:
    def draws(d: Draw) -> list[Any]:
        return [d.int(1, 100, shipped=7), d.money(1, 50, shipped=9.99), d.pick([3, 4, 5])]

    assert draws(Draw(3, "a")) == draws(Draw(3, "a"))
    assert len({json.dumps(draws(Draw(seed, "a"))) for seed in range(20)}) > 10
    assert draws(Draw(3, "a")) != draws(Draw(3, "b"))
    assert draws(SHIPPED) == [7, 9.99, 3]
    with pytest.raises(ScenarioError, match="needs a shipped value"):
        SHIPPED.int(1, 5)


@pytest.mark.parametrize("scenario", GENERATING, ids=lambda s: s.id)
def test_the_shipped_inputs_are_the_instance_of_no_seed(scenario: Scenario) -> None:
    assert scenario.inputs is not None
    for size in SIZES:
        assert scenario.inputs(size, SHIPPED) == scenario.params(size)


@pytest.mark.parametrize("scenario", GENERATING, ids=lambda s: s.id)
def test_fresh_inputs_differ_from_the_shipped_ones_and_from_each_other(scenario: Scenario) -> None:
    for size in SIZES:
        drawn = [json.dumps(drawn_inputs(scenario, size, seed)) for seed in (1, 2, 3)]
        assert len(set(drawn)) == 3
        assert json.dumps(scenario.params(size)) not in drawn


# --------------------------------------------------------------------------- the moves


@pytest.mark.parametrize("scenario", GENERATING, ids=lambda s: s.id)
def test_each_generating_scenario_declares_four_moves_well(scenario: Scenario) -> None:
    check_moves(scenario)
    assert len(scenario.moves) >= 4


def test_at_least_40_scenarios_generate_in_every_domain_with_every_pattern_among_their_moves() -> (
    None
):
    assert len(GENERATING) >= 40
    assert {s.domain for s in GENERATING} == {s.domain for s in discover()}
    assert {m.pattern for s in GENERATING for m in s.moves} == set(PATTERNS)


def test_a_move_whose_revision_claims_another_pattern_is_refused() -> None:
    cart = GENERATING[0]
    move = cart.moves[0]
    wrong = next(p for p in PATTERNS if p != move.pattern)

    def make(p: Any, d: Draw) -> Revision | None:
        made = move.make(p, d)
        return None if made is None else dataclasses.replace(made, pattern=wrong)

    broken = dataclasses.replace(
        cart, moves=[dataclasses.replace(m, make=make) for m in cart.moves]
    )
    with pytest.raises(ScenarioError, match=f"says pattern {wrong}"):
        generate_case(broken, 10, 1, 0)


def test_moves_must_have_distinct_names_and_one_of_the_scenarios_pattern() -> None:
    cart = GENERATING[0]
    with pytest.raises(ScenarioError, match="share a name"):
        check_moves(dataclasses.replace(cart, moves=[cart.moves[0], cart.moves[0]]))
    others = [m for m in cart.moves if m.pattern != cart.pattern]
    with pytest.raises(ScenarioError, match="no move has the scenario's pattern"):
        check_moves(dataclasses.replace(cart, moves=others))


# --------------------------------------------------------------------------- generated cases


def test_every_20_turn_chain_loads_interacts_and_uses_several_moves(
    long_chains: dict[tuple[str, int], dict[str, Any]],
) -> None:
    """Seed 1 of every generating scenario at every size (one test: the chains take the most
    time of this file, and a fixture is made again on every worker that runs a test of it):
    each loads with every rule, at least half its follow-ups interact with an earlier
    revision, it uses at least three moves and none more than half the time, and a scenario
    uses at least four of its own across its sizes."""
    across: dict[str, set[str]] = {}
    for (sid, size), case in long_chains.items():
        parsed = Case.from_dict(json.loads(dump_case(case)))
        assert parsed.id == f"{sid}/{size}@1" and len(parsed.followups) == MAX_TURNS
        hits = chain_interactions(case)
        assert 2 * sum(hits) >= len(hits), (sid, size)
        scenario = next(s for s in GENERATING if s.id == sid)
        used = Counter(case["notes"].split(": ", 1)[1].rstrip(".").split(", "))
        assert len(used) >= 3 and max(used.values()) <= MAX_TURNS // 2, (sid, size, used)
        assert set(used) <= {m.name for m in scenario.moves}
        across.setdefault(sid, set()).update(used)
    assert all(len(names) >= 4 for names in across.values()), across


def test_the_same_seed_gives_byte_identical_files_and_another_seed_other_cases() -> None:
    splits = read_split(BENCHMARK_DIR)
    one = generate_all(GENERATING, 5, splits, shipped_annotation(), 4, (10, 50))
    again = generate_all(GENERATING, 5, splits, shipped_annotation(), 4, (10, 50))
    other = generate_all(GENERATING, 6, splits, shipped_annotation(), 4, (10, 50))
    assert one.errors == [] and one.files == again.files
    assert sorted(one.files) == sorted(p.replace("@6", "@5") for p in other.files)
    for path, text in one.files.items():
        case = json.loads(text)
        assert case["split"] == splits[case["scenario"]]
        assert case["id"] + ".json" == path
        fresh = json.loads(other.files[path.replace("@5", "@6")])
        assert fresh["artifact"] != case["artifact"] or fresh["request"] != case["request"]


def test_turns_are_bounded() -> None:
    with pytest.raises(ScenarioError, match="turns must be 0 to 20"):
        generate_case(GENERATING[0], 10, 1, MAX_TURNS + 1)
    assert "followups" not in generate_case(GENERATING[0], 10, 1, 0)


def _idle(p: Any, d: Draw) -> Revision:
    return Revision(request="Leave it as it is.", mutate=lambda q: None, direct="/items/0/price")


def test_a_scenario_that_cannot_build_is_one_line_naming_its_move_and_reason() -> None:
    cart = GENERATING[0]
    broken = dataclasses.replace(cart, id="cart-idle", moves=[Move("idle", cart.pattern, _idle)])
    result = generate_all([broken, cart], 1, {}, {}, 1, (10,))
    assert list(result.files) == [f"{cart.id}/10@1.json"]
    assert result.errors == [
        "scenario cart-idle size 10 seed 1 turn 0: no move builds (last: move idle: the revision"
        " changes nothing in the artifact)"
    ]
    with pytest.raises(ScenarioError, match="turn 0: move idle: the revision changes nothing"):
        generate_case(broken, 10, 1, 1, strict=True)


def test_a_move_edits_a_copy_of_the_inputs() -> None:
    cart = GENERATING[0]
    seen: list[Any] = []

    def make(p: Any, d: Draw) -> Revision | None:
        seen.append(copy.deepcopy(p))
        p.clear()
        return None

    inputs = drawn_inputs(cart, 10, 1)
    touchy = dataclasses.replace(cart, moves=[Move("touchy", cart.pattern, make)])
    with pytest.raises(ScenarioError, match="no move builds"):
        generate_case(touchy, 10, 1, 0)
    assert seen == [inputs]


# --------------------------------------------------------------------------- the command

CART = "from pytest_revprop.benchmark_cases.scenarios.shopping_cart import SCENARIOS\n"


def _with_idle(keep: str) -> str:
    """A scenario module: the cart scenarios ``keep`` selects (a Python expression over
    SCENARIOS) and ``cart-idle``, whose only move changes nothing."""
    return (
        CART
        + "import dataclasses\n"
        + "from pytest_revprop.authoring.scenario import Move, Revision\n"
        + "def _idle(p, d):\n"
        + "    return Revision(request='Leave it.', mutate=lambda q: None, direct='/items/0/price')\n"
        + f"SCENARIOS = {keep} + [dataclasses.replace(SCENARIOS[0], id='cart-idle',"
        + " moves=[Move('idle', SCENARIOS[0].pattern, _idle)])]\n"
    )


def test_generate_writes_every_generating_scenario_and_reports_one_that_cannot_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _with_idle("SCENARIOS")
    scenario_package(tmp_path, monkeypatch, {"cart": source})
    out = tmp_path / "fresh"
    args = ["generate", "--seed", "7", "--out", str(out), "--turns", "2", "--sizes", "10", "50"]
    assert cases_main(args) == 1
    printed = capsys.readouterr()
    errors = [line for line in printed.err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 2 and all("cart-idle" in e and "move idle" in e for e in errors)
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
    expected = sorted(
        f"{s.id}/{size}@7.json"
        for s in discover()
        if s.generates and s.id != "cart-idle"
        for size in (10, 50)
    )
    assert written == expected
    assert load_cases([out]).errors == []
    before = {p: p.read_bytes() for p in out.rglob("*.json")}
    assert cases_main([*args, "--scenarios", "cart-price"]) == 0
    assert "(0 written)" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in out.rglob("*.json")} == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--turns", "21"], "--turns must be 0 to 20, got 21"),
        (["--seed", "-1"], "--seed must be 0 or more"),
        (["--sizes", "20"], "--sizes: no size 20"),
        (["--scenarios", "nothing-like-this"], "no scenario matches nothing-like-this"),
    ],
)
def test_generate_refuses_bad_arguments_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    argv = ["generate", "--seed", "1", "--out", str(tmp_path), *args]
    with pytest.raises(UserError, match=message.replace("(", r"\(")):
        cases_main(argv)


def test_check_with_seeds_generates_each_scenario_that_can_and_fails_on_a_broken_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _with_idle("[SCENARIOS[0]]")
    scenario_package(tmp_path, monkeypatch, {"cart": source})
    assert cases_main(["check", "--seeds", "1"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("gen  cart-price-drop ") for line in out)
    assert any(line.startswith("FAIL scenario cart-idle size 10 seed 1 turn 0") for line in out)
    assert out[-1] == "1 ok, 1 failed"


def test_in_free_a_double_wrong_at_one_turn_of_a_20_turn_chain_fails_there_not_before() -> None:
    from pytest_revprop.core.chain import judge_free, reference_patch
    from pytest_revprop.core.patching import PatchError, apply_operations

    scenario = next(s for s in GENERATING if s.id == "cart-price-drop")
    case = Case.from_dict(json.loads(dump_case(generate_case(scenario, 50, 1, MAX_TURNS))))
    wrong = (
        7  # the double answers the gold everywhere but here, where it makes the direct edit only
    )
    document, completed = case.artifact, []
    for turn in range(MAX_TURNS + 1):
        patch = reference_patch(case, turn, "direct-only" if turn == wrong else "gold")
        with contextlib.suppress(PatchError):  # an invalid turn leaves the document as it was
            document = apply_operations(document, patch)
        completed.append(judge_free(case, turn, document, patch=patch).completed)
    assert completed[:wrong] == [True] * wrong
    assert completed[wrong] is False
