"""The method registry and the method interface, without pytest's machinery: names and
their groups, registration rules, critical-path latency from how a method awaits its calls,
and the guarded run of a broken method."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case

from pytest_revprop.api import MethodContext, Outcome
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.core.registry import MethodRegistry, builtin_registry, run_method
from pytest_revprop.errors import UserError
from pytest_revprop.llm.types import Reply
from pytest_revprop.run.cover import calls_cover
from pytest_revprop.run.items import ItemSpec
from pytest_revprop.vocabulary import BUILTIN_METHODS, METHODS

CASE = invoice_case()
GOLD = literal_gold_patch(CASE) or CASE.gold_patch


def _timed_ask(latencies: dict[str, float]) -> Any:
    """Answers the gold patch; a call's latency is looked up by a word of its prompt."""

    async def ask(messages: list[dict[str, str]], seed: int, purpose: str, priority: int) -> Reply:
        text = messages[-1]["content"]
        latency = next((v for k, v in latencies.items() if k in text), 1.0)
        await asyncio.sleep(0)
        import json

        return Reply(content=json.dumps(GOLD), finish_reason="stop", latency_s=latency)

    return ask


def _registry_with(name: str, function: Any, **kw: Any) -> MethodRegistry:
    registry = MethodRegistry()
    for spec in builtin_registry().names():
        registry.register(builtin_registry().get(spec))
    registry.register(name, function, **kw)
    return registry


async def _two_then_one(ctx: MethodContext) -> Outcome:
    first = await ctx.gather(ctx.ask([{"role": "user", "content": "A"}]),
                             ctx.ask([{"role": "user", "content": "B"}]))  # fmt: skip
    await ctx.ask([{"role": "user", "content": "C"}])
    return Outcome(ctx.answer(first[0]).patch)


def test_the_built_ins_are_the_nine_then_dep_and_all_and_paper_expand_to_them() -> None:
    registry = builtin_registry()
    assert registry.names() == BUILTIN_METHODS == (*METHODS, "dep")
    assert registry.expand(["all"]) == list(BUILTIN_METHODS)
    assert registry.expand(["med", "paper"]) == ["med", *[m for m in METHODS if m != "med"]]


def test_a_registered_method_joins_all_after_the_built_ins() -> None:
    registry = _registry_with("mine", _two_then_one)
    assert registry.expand(["all"])[-2:] == ["dep", "mine"]


@pytest.mark.parametrize(
    ("name", "function", "message"),
    [
        ("j+h", _two_then_one, r"method 'j\+h' is already registered as a built-in method"),
        ("two words", _two_then_one, "method name 'two words'"),
        ("paper", _two_then_one, "method name 'paper'"),
        ("sync", lambda ctx: [], "method 'sync': .* is not an async function"),
    ],
)
def test_a_bad_registration_is_a_user_error_naming_the_method(
    name: str, function: Any, message: str
) -> None:
    with pytest.raises(UserError, match=message):
        _registry_with(name, function)


def test_an_unknown_name_lists_the_choices() -> None:
    with pytest.raises(
        UserError, match=r"unknown method 'fast' \(choose from j, h, .*, dep, all, paper\)"
    ):
        builtin_registry().expand(["fast"])


def test_latency_is_the_critical_path_gathered_calls_count_as_the_slowest() -> None:
    registry = _registry_with("mine", _two_then_one)
    ask = _timed_ask({"A": 2.0, "B": 5.0, "C": 0.5})
    run = asyncio.run(run_method("mine", CASE, ask, k=1, seed=3, registry=registry))
    assert run.latency_s == 5.5
    assert [c.seed for c in run.calls] == [3, 3, 3] and run.outcome.error is None
    assert run.score(CASE).completed


def test_two_runs_awaited_in_one_task_each_start_their_clock_at_zero() -> None:
    async def both() -> list[float]:
        ask = _timed_ask({})
        first = await run_method("reflect", CASE, ask, k=3, seed=0)
        second = await run_method("j+h", CASE, ask, k=1, seed=0)
        return [first.latency_s, second.latency_s]

    assert asyncio.run(both()) == [3.0, 1.0]


@pytest.mark.parametrize(
    ("returned", "reason"),
    [
        ("hello", "returned 'hello': not a patch, an Answer or an Outcome"),
        ([1, 2], r"returned the patch \[1, 2\]: not a list of JSON objects \(operations\)"),
        (
            Outcome(error="bogus"),
            r"returned an Outcome with the unknown error 'bogus' "
            r"\(one of no_patch, not_a_patch, apply_error, truncated\)$",
        ),
    ],
)
def test_a_method_returning_garbage_fails_with_a_reason_naming_it(
    returned: Any, reason: str
) -> None:
    async def method(ctx: MethodContext) -> Any:
        await ctx.revise()
        return returned

    registry = _registry_with("odd", method)
    run = asyncio.run(run_method("odd", CASE, _timed_ask({}), k=1, seed=0, registry=registry))
    assert run.outcome.error == "method_failed" and run.outcome.patch is None
    assert run.outcome.reason is not None and run.outcome.reason.startswith("method 'odd' ")
    import re

    assert re.search(reason, run.outcome.reason)
    assert len(run.calls) == 1  # the calls it made still count for cost


def test_calls_cover_keeps_a_registered_method_that_declares_nothing() -> None:
    registry = _registry_with("mine", _two_then_one)
    specs = [ItemSpec("c", "m", method, k, 0)
             for method, k in [("j+h", 1), ("or", 3), ("med", 3), ("mine", 1)]]  # fmt: skip
    assert [s.method for s in calls_cover(specs, registry)] == ["or", "mine"]


def _helper_that_raises() -> None:
    raise KeyError("total")


async def _raises_in_a_helper(ctx: MethodContext) -> Outcome:
    await ctx.revise()
    _helper_that_raises()  # the line a user's report points at: in the method's own file
    return Outcome(patch=[])


async def _asks_with_an_unknown_role(ctx: MethodContext) -> Outcome:
    await ctx.ask([{"role": "user", "content": "check"}], role="check")  # type: ignore[arg-type]
    return Outcome(patch=[])


def test_a_method_that_raises_is_reported_with_the_file_and_line_of_its_own_code() -> None:
    registry = _registry_with("raiser", _raises_in_a_helper)
    run = asyncio.run(run_method("raiser", CASE, _timed_ask({}), k=1, seed=0, registry=registry))
    line = inspect.getsourcelines(_helper_that_raises)[1] + 1  # the raise itself
    where = f"{Path(__file__).name}:{line}, in _helper_that_raises)"
    assert run.outcome.error == "method_failed" and run.outcome.reason is not None
    assert run.outcome.reason.startswith("method 'raiser' raised KeyError: 'total' (at ")
    assert run.outcome.reason.endswith(where), run.outcome.reason


def test_an_unknown_call_role_fails_the_method_naming_the_roles() -> None:
    registry = _registry_with("odd-role", _asks_with_an_unknown_role)
    run = asyncio.run(run_method("odd-role", CASE, _timed_ask({}), k=1, seed=0, registry=registry))
    assert run.outcome.error == "method_failed" and run.outcome.reason is not None
    assert run.outcome.reason.startswith(
        "method 'odd-role' raised ValueError: role 'check' of ctx.ask: one of sample, select,"
        " reflect, map (at "
    )


def _ask_by_seed(patches: dict[int, Any]) -> Any:
    async def ask(messages: list[dict[str, str]], seed: int, role: str, priority: int) -> Reply:
        import json

        return Reply(content=json.dumps(patches[seed]), finish_reason="stop")

    return ask


@pytest.mark.parametrize("rule", ["or", "and", "maj", "med"])
def test_a_merge_rule_hands_its_artifact_to_the_score_which_applies_nothing_again(
    rule: str,
) -> None:
    from pytest_revprop.core.patching import apply_operations
    from pytest_revprop.core.scoring import score_patch
    from pytest_revprop.util.jsonutil import MISSING

    direct = [op for op, gold in zip(GOLD, CASE.gold, strict=True) if gold.kind == "direct"]
    ask = _ask_by_seed({0: direct, 1: GOLD, 2: GOLD})
    run = asyncio.run(run_method(rule, CASE, ask, k=3, seed=0))
    assert run.outcome.patch is not None and run.outcome.artifact is not MISSING
    assert run.outcome.artifact == apply_operations(CASE.artifact, run.outcome.patch)
    assert run.score(CASE) == score_patch(CASE, run.outcome.patch)


def test_a_method_sees_the_case_without_its_gold() -> None:
    """The five-line cheat (answer ``ctx.case.gold``) and an innocent ``to_dict()`` in a prompt
    both fail the method with a reason; what prompts show stays readable."""
    seen: dict[str, Any] = {}

    async def cheat(ctx: MethodContext) -> Outcome:
        await ctx.revise()
        seen.update(request=ctx.case.request, artifact=ctx.case.artifact, source=ctx.case.source)
        return Outcome([{"op": g.op, "path": g.path, "value": g.value} for g in ctx.case.gold])

    async def dumps_the_case(ctx: MethodContext) -> Outcome:
        import json

        await ctx.ask([{"role": "user", "content": json.dumps(ctx.case.to_dict())}])
        return Outcome([])

    for name, method in [("cheat", cheat), ("dumps", dumps_the_case)]:
        registry = _registry_with(name, method)
        run = asyncio.run(run_method(name, CASE, _timed_ask({}), k=1, seed=0, registry=registry))
        assert run.outcome.error == "method_failed", name
        assert run.outcome.reason is not None and "not shown the gold" in run.outcome.reason
    assert seen == {"request": CASE.request, "artifact": CASE.artifact, "source": None}
    assert CASE.gold and CASE.gold_patch  # the runner's own case keeps it, for scoring
