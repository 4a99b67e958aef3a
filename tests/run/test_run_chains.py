"""Revision chains in the run layer (run/chains.py, run/records.py, the runner and the plan),
without pytest's machinery: the options' values, the items of a chain run, the turns run in
order on their views, the chain's record, a chain the ceiling cuts, and MethodContext.turn."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case, write_cases
from helpers.order_chains import GOLD, REQUESTS, order_chain, plain

from pytest_revprop.api import MethodContext, Outcome
from pytest_revprop.core.method_context import MethodRun
from pytest_revprop.core.protocols import protocol
from pytest_revprop.core.registry import MethodRegistry, register_builtins
from pytest_revprop.errors import UserError
from pytest_revprop.llm.budget import BudgetReached
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.run.chains import ChainRun, run_chain
from pytest_revprop.run.cover import calls_cover
from pytest_revprop.run.items import ItemSpec, RunSettings, item_specs
from pytest_revprop.run.options import parse_chain, parse_turns
from pytest_revprop.run.plan import RunPlan
from pytest_revprop.run.records import item_record
from pytest_revprop.run.runner import Runner


def test_the_options_parse_a_protocol_and_a_number_of_turns() -> None:
    assert [parse_chain(p) for p in ("off", "teacher", "free")] == ["off", "teacher", "free"]
    assert parse_turns("0") == 0 and parse_turns("3") == 3
    with pytest.raises(argparse.ArgumentTypeError) as bad:
        parse_chain("loop")
    assert str(bad.value) == "chain protocol must be off, teacher or free, got 'loop'"
    with pytest.raises(argparse.ArgumentTypeError, match=r"^turns must be >= 0, got -1$"):
        parse_turns("-1")
    with pytest.raises(argparse.ArgumentTypeError, match="turns must be a whole number"):
        parse_turns("two")


def _plan(cases: Path, **given: Any) -> RunPlan:
    values = {"revprop_model": ["gold"], "revprop_cases": cases, "revprop_split": "all", **given}
    return RunPlan.from_options(values, rootdir=Path.cwd())


def test_a_chain_run_has_one_item_per_chain_named_with_its_protocol(tmp_path: Path) -> None:
    cases = write_cases(tmp_path / "cases", [order_chain(), invoice_case()])
    off = _plan(cases, revprop_seeds=[0])
    assert [s.node_name() for s in off.specs] == [
        "order-chain/10[gold-j+h-k1-s0]",
        "unit/10[gold-j+h-k1-s0]",
    ]
    assert "chain" not in off.meta() and "revprop chains" not in off.header()
    free = _plan(cases, revprop_seeds=[0, 42], revprop_chain="free", revprop_turns=1)
    assert [s.node_name() for s in free.specs] == [
        "order-chain/10[gold-j+h-k1-s0-free]",
        "order-chain/10[gold-j+h-k1-s42-free]",
    ]
    assert [c.id for c in free.cases] == ["order-chain/10"] and free.left_out == 1
    assert free.meta()["chain"] == {"protocol": "free", "turns": 1}
    assert (
        "revprop chains: free, follow-ups per chain 1; one item per chain; "
        "1 selected cases without follow-ups left out"
    ) in free.header()
    assert free.spec_of("order-chain/10[gold-j+h-k1-s42-free]") == free.specs[1]
    with pytest.raises(UserError) as none:
        _plan(cases, revprop_case=["unit/10"], revprop_chain="teacher")
    assert str(none.value).startswith(
        "--revprop-chain=teacher: none of the 1 selected cases has follow-ups"
    )


def test_an_off_run_s_case_digest_ignores_follow_ups_and_a_chain_run_s_does_not(
    tmp_path: Path,
) -> None:
    plain_cases = write_cases(tmp_path / "a", [order_chain(followups=0)])
    chained = write_cases(tmp_path / "b", [order_chain()])
    digest = lambda folder, **given: _plan(folder, **given).meta()["cases_sha256"]  # noqa: E731
    assert digest(plain_cases) == digest(chained)
    assert digest(chained, revprop_chain="teacher") != digest(chained)
    assert digest(chained, revprop_chain="teacher") == digest(chained, revprop_chain="free")


def test_calls_cover_keeps_every_free_chain_and_shares_teacher_ones_like_single_ones() -> None:
    def specs(chain: str) -> list[ItemSpec]:
        return [ItemSpec("c", "m", method, 3, 0, chain) for method in ("j+h", "maj", "med")]

    assert [s.method for s in calls_cover(specs("teacher"))] == ["maj"]
    assert [s.method for s in calls_cover(specs("off"))] == ["maj"]
    assert [s.method for s in calls_cover(specs("free"))] == ["j+h", "maj", "med"]


def _run(chain: str, model: str = "gold", **settings: Any) -> list[dict[str, Any]]:
    case = order_chain()
    models = [resolve_model(model)]
    given = {"methods": ["j+h"], "seeds": [0], "cache_dir": None, "chain": chain, **settings}
    run_settings = RunSettings(**given)
    runner = Runner([case], models, run_settings)
    try:
        return [dict(r) for r in runner.run_all(item_specs([case], models, run_settings))]
    finally:
        runner.close()


@pytest.mark.parametrize("chain", ["teacher", "free"])
def test_the_reference_solvers_pass_every_turn_or_none(chain: str) -> None:
    [gold] = _run(chain, "gold", methods=["med"], k_values=[3])
    assert gold["completed"] and gold["turns_completed"] == 3 and gold["chain"] == chain
    assert [t["completed"] for t in gold["turns"]] == [True, True, True]
    assert [t["request"] for t in gold["turns"]] == list(REQUESTS)
    assert gold["patch"] == gold["turns"][2]["patch"] and gold["reason"] is None
    for solver in ("noop", "direct-only"):
        [record] = _run(chain, solver)
        assert not record["completed"] and record["turns_completed"] == 0
        assert not any(t["completed"] for t in record["turns"])
        assert record["reason"].startswith("turn 0: miss ")


def test_turns_limits_the_follow_ups_run() -> None:
    assert [len(_run("teacher", turns=n)[0]["turns"]) for n in (0, 1, 5)] == [1, 2, 3]


def _scripted(answers: dict[int, list[dict[str, Any]]]) -> Any:
    """A run_turn whose method answers turn i with ``answers[i]`` (one call each)."""

    async def run_turn(view: Any, index: int) -> MethodRun:
        return MethodRun("j+h", 1, 0, Outcome(answers[index]))

    return run_turn


def _chain_record(chain: ChainRun) -> dict[str, Any]:
    case = order_chain()
    return dict(item_record(case, ItemSpec(case.id, "m", "j+h", 1, 0, chain.protocol.name), chain))


@pytest.mark.parametrize(
    ("chain", "passed"), [("teacher", [True, False, True]), ("free", [True, False, False])]
)
def test_a_wrong_turn_fails_itself_in_teacher_and_the_places_it_governs_later_in_free(
    chain: str, passed: list[bool]
) -> None:
    # turn 1 changes the bolts' quantity only: its amount and the total are missed
    answers = {0: plain(GOLD[0]), 1: plain(GOLD[1])[:1], 2: plain(GOLD[2])}
    ran = asyncio.run(run_chain(order_chain(), protocol(chain), None, _scripted(answers)))
    record = _chain_record(ran)
    assert [t["completed"] for t in record["turns"]] == passed
    assert record["turns_completed"] == 1 and not record["completed"]
    assert record["reason"] == "turn 1: miss 2, over edit 0, wrong value 0"
    assert {(f["turn"], f["path"]) for f in record["findings"]} == {
        (1, "/lines/1/amount"),
        (1, "/total"),
    }
    assert record["miss"] == sum(t["miss"] for t in record["turns"])
    if chain == "free":  # the bolts' amount is still wrong after turn 2
        assert "/lines/1/amount" in {f["path"] for f in record["turns"][2]["findings"]}
        # turn 2's view shows the model's own turn 1, starting from the document it made
        assert ran.turns[2].view.conversation[-1].assistant == answers[1]
        assert ran.turns[2].view.artifact["lines"][1]["amount"] == 14.0
    else:
        assert ran.turns[2].view.artifact == order_chain().followups[1].artifact


def test_an_invalid_free_turn_leaves_the_document_and_shows_an_empty_patch() -> None:
    answers = {
        0: plain(GOLD[0]),
        1: [{"op": "replace", "path": "/nowhere/x", "value": 1}],
        2: plain(GOLD[2]),
    }
    ran = asyncio.run(run_chain(order_chain(), protocol("free"), None, _scripted(answers)))
    record = _chain_record(ran)
    assert [t["valid"] for t in record["turns"]] == [True, False, True]
    assert record["error"] == "apply_error" and not record["valid"]
    assert ran.turns[2].view.conversation[-1].assistant == []
    assert ran.turns[2].view.artifact == ran.turns[1].view.artifact


@pytest.mark.parametrize("ended", ["call_failed", "method_failed"])
@pytest.mark.parametrize("turn_1", ["valid", "invalid"])
def test_a_later_turn_that_failed_for_good_makes_the_chain_that_error_whatever_came_before(
    ended: str, turn_1: str
) -> None:
    async def run_turn(view: Any, index: int) -> MethodRun:
        if index == 2:
            return MethodRun("j+h", 1, 0, Outcome(error=ended, reason=f"{ended} at turn 2"))
        if index == 1 and turn_1 == "invalid":
            return MethodRun("j+h", 1, 0, Outcome(None, error="no_patch", reason="no patch"))
        return MethodRun("j+h", 1, 0, Outcome(plain(GOLD[index])))

    record = _chain_record(asyncio.run(run_chain(order_chain(), protocol("free"), None, run_turn)))
    assert [t["error"] for t in record["turns"]][2] == ended
    assert record["error"] == ended and not record["completed"]
    assert record["reason"] == f"turn 2: {ended} at turn 2"


def test_the_ceiling_cuts_a_chain_after_its_first_turn_and_the_record_says_so() -> None:
    async def run_turn(view: Any, index: int) -> MethodRun:
        if index == 2:
            raise BudgetReached("the ceiling leaves no room")
        return MethodRun("j+h", 1, 0, Outcome(plain(GOLD[index])))

    ran = asyncio.run(run_chain(order_chain(), protocol("teacher"), None, run_turn))
    assert ran.cut == "the ceiling leaves no room" and len(ran.turns) == 2
    record = _chain_record(ran)
    assert not record["completed"] and record["error"] == "call_failed"
    assert record["reason"] == "turn 2: not run: the ceiling leaves no room"
    assert [t["completed"] for t in record["turns"]] == [True, True]

    async def first_cut(view: Any, index: int) -> MethodRun:
        raise BudgetReached("no room")

    with pytest.raises(BudgetReached):  # nothing ran: the item is not run, no record
        asyncio.run(run_chain(order_chain(), protocol("teacher"), None, first_cut))


def test_a_method_sees_which_turn_it_runs_and_the_turn_s_request() -> None:
    seen: list[tuple[int, str, int]] = []

    async def spy(ctx: MethodContext) -> Any:
        seen.append((ctx.turn, ctx.case.request, len(ctx.case.conversation)))
        return await ctx.revise()

    registry = MethodRegistry()
    register_builtins(registry.register)
    registry.register("spy", spy)
    [record] = _run("teacher", methods=["spy"], registry=registry)
    base = len(order_chain().conversation)
    assert seen == [(0, REQUESTS[0], base), (1, REQUESTS[1], base + 1), (2, REQUESTS[2], base + 2)]
    assert record["completed"]
    assert [r["turn"] for r in record["replies"]] == [0, 1, 2]
    assert json.loads(record["replies"][1]["content"]) == plain(GOLD[1])


def test_a_teacher_turn_that_breaks_an_earlier_turn_s_place_counts_a_regression() -> None:
    # turn 2 also puts the bolts' amount (turn 1's) back to 14
    broken = [*plain(GOLD[2]), {"op": "replace", "path": "/lines/1/amount", "value": 14.0}]
    answers = {0: plain(GOLD[0]), 1: plain(GOLD[1]), 2: broken}
    record = _chain_record(
        asyncio.run(run_chain(order_chain(), protocol("teacher"), None, _scripted(answers)))
    )
    assert [t["regressions"] for t in record["turns"]] == [0, 0, 1]
    assert [t["regressed"] for t in record["turns"]] == [[], [], ["/lines/1/amount"]]
    assert record["regressions"] == 1 and record["turns_completed"] == 2


def test_the_runner_cuts_a_chain_mid_way_at_the_ceiling_and_hands_over_its_record(
    fake_server: Any,
) -> None:
    from helpers.order_chains import wrong_turn_rules

    from pytest_revprop.core.chain import chain_turns, teacher_view
    from pytest_revprop.core.prompts import Prompts
    from pytest_revprop.llm.budget import worst_case_usd
    from pytest_revprop.llm.types import Request
    from pytest_revprop.run.chains import ChainCut

    server = fake_server(rules=wrong_turn_rules(-1), default={"content": "[]"})
    model = resolve_model("openai/fake", api_bases=[server.base_url]).replace(
        price_in=1.0, price_out=0.0
    )
    case = order_chain()
    views = [teacher_view(case, t.index) for t in chain_turns(case)]
    worst = [
        worst_case_usd(model, Request.for_model(model, Prompts().revision_messages(v, "j+h"), 0))
        for v in views
    ]

    def run(ceiling: float | None) -> dict[str, Any]:
        settings = RunSettings(
            methods=["j+h"], seeds=[0], cache_dir=None, chain="teacher", transport="direct"
        )
        runner = Runner([case], [model], settings, max_cost_usd=ceiling)
        try:
            return dict(runner.result(item_specs([case], [model], settings)[0]))
        finally:
            runner.close()

    whole = run(None)
    spent = [t["cost_usd"] for t in whole["turns"]]
    # room for turn 0 and then turn 1's worst case, not for turn 2's after both
    ceiling = spent[0] + worst[1] + 1e-9
    assert spent[0] + spent[1] + worst[2] > ceiling
    with pytest.raises(ChainCut) as cut:
        run(ceiling)
    record = cut.value.record
    assert str(cut.value).startswith("turn 2: not run: ")
    assert record["reason"] == str(cut.value) and record["error"] == "call_failed"
    assert [t["completed"] for t in record["turns"]] == [True, True]
    assert not record["completed"] and record["calls"] == 2


def test_shards_of_a_chain_run_split_its_chains_and_together_make_the_whole_run(
    tmp_path: Path,
) -> None:
    from pytest_revprop.run.sharding import parse_shard

    chains = [order_chain("order-a/10"), order_chain("order-b/10"), order_chain("order-c/10")]
    cases = write_cases(tmp_path / "cases", [*chains, invoice_case()])
    whole = _plan(cases, revprop_chain="free", revprop_seeds=[0])
    parts = [
        _plan(cases, revprop_chain="free", revprop_seeds=[0], revprop_shard=parse_shard(f"{i}/2"))
        for i in (1, 2)
    ]
    assert sorted(s for part in parts for s in part.specs) == sorted(whole.specs)
    assert all(part.specs and part.meta()["chain"]["protocol"] == "free" for part in parts)
    assert {part.meta()["cases_sha256"] for part in parts} == {whole.meta()["cases_sha256"]}


def test_a_missing_key_stops_a_free_run_whose_turn_0_an_off_run_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_revprop.core.prompts import Prompts

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    cases = write_cases(tmp_path / "cases", [order_chain()])
    given = {"revprop_model": ["openai/gpt-4o-mini"], "revprop_cache": tmp_path / "cache"}
    off = _plan(cases, revprop_seeds=[0], **given)
    runner = Runner(off.cases, off.models, off.settings)
    client = runner.clients["openai/gpt-4o-mini"]
    assert client.cache is not None
    messages = Prompts().revision_messages(off.cases[0], "j+h")  # the off run's one call
    cached = client.cache.path(client.make_request(messages, 0).cache_key())
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text("{}")
    off.check_credentials(runner)  # its call is cached: no key needed
    for chain in ("teacher", "free"):  # turn 0 is the off run's; later turns are not cached
        made = _plan(cases, revprop_seeds=[0], revprop_chain=chain, **given)
        with pytest.raises(UserError, match="OPENAI_API_KEY"):
            made.check_credentials(Runner(made.cases, made.models, made.settings))
