"""The spending ceiling (``llm/budget.py``): worst cases held while calls are in flight, the
client sending nothing past it, the ordered ceiling (higher priorities first, room kept for
the lanes ahead, a stop that takes the lanes behind) and the usage error for an unpriced
model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.llm.budget import (
    BudgetReached,
    Ceiling,
    OrderedCeiling,
    input_token_bound,
    require_prices,
    worst_case_usd,
)
from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.llm.types import Request, RetryPolicy
from pytest_revprop.testing.fakeserver import FakeServer

MODEL = ModelConfig(name="m", litellm_model="openai/m", max_tokens=100, price_in=1e6, price_out=1e6)
"""A dollar a token in and out: worst cases are easy to count."""


def _request(text: str, model: ModelConfig = MODEL) -> Request:
    return Request.build(model, [{"role": "user", "content": text}], seed=0)


def test_the_worst_case_is_the_prompt_bound_plus_max_tokens_at_the_prices() -> None:
    request = _request("héllo")  # 6 UTF-8 bytes
    assert input_token_bound(request) == 6 + 16 * 2
    assert worst_case_usd(MODEL, request) == pytest.approx(6 + 32 + 100)


def test_reserve_refuses_a_call_that_cannot_fit_and_counts_what_is_spent() -> None:
    async def go() -> Ceiling:
        ceiling = Ceiling(10.0)
        hold = await ceiling.reserve(6.0)
        assert ceiling.held_usd == 6.0
        ceiling.settle(hold, 2.5)
        assert (ceiling.spent_usd, ceiling.held_usd) == (2.5, 0.0)
        ceiling.settle(hold, 2.5)  # a second settle of the same hold changes nothing
        assert ceiling.spent_usd == 2.5
        second = await ceiling.reserve(7.5)  # 2.5 + 7.5 = 10: exactly at the limit is allowed
        ceiling.release(second)
        with pytest.raises(BudgetReached, match=r"\$10.0000 leaves no room"):
            await ceiling.reserve(7.6)
        return ceiling

    ceiling = asyncio.run(go())
    assert (ceiling.spent_usd, ceiling.refused) == (2.5, 1)


def test_a_call_waits_while_calls_in_flight_hold_its_room_then_goes() -> None:
    order: list[str] = []

    async def go() -> None:
        ceiling = Ceiling(10.0)
        first = await ceiling.reserve(6.0)

        async def second() -> None:
            hold = await ceiling.reserve(6.0)  # 6 + 6 > 10 while the first is in flight
            order.append("second holds")
            ceiling.settle(hold, 1.0)

        task = asyncio.ensure_future(second())
        await asyncio.sleep(0.01)
        order.append("first settles")
        ceiling.settle(first, 1.0)  # its worst case was 6; it cost 1
        await task
        assert ceiling.spent_usd == 2.0

    asyncio.run(go())
    assert order == ["first settles", "second holds"]


def test_a_waiting_call_is_refused_once_what_was_spent_leaves_no_room() -> None:
    async def go() -> None:
        ceiling = Ceiling(10.0)
        first = await ceiling.reserve(6.0)
        task = asyncio.ensure_future(ceiling.reserve(6.0))
        await asyncio.sleep(0.01)
        assert not task.done()
        ceiling.settle(first, 5.0)  # 5 + 6 > 10 with nothing in flight: never fits
        with pytest.raises(BudgetReached):
            await task

    asyncio.run(go())


def test_no_limit_counts_but_never_refuses() -> None:
    async def go() -> Ceiling:
        ceiling = Ceiling(None)
        for _ in range(3):
            ceiling.settle(await ceiling.reserve(1e9), 4.0)
        return ceiling

    assert asyncio.run(go()).spent_usd == 12.0


def test_an_unpriced_model_under_a_budget_is_a_usage_error_naming_the_prices_table() -> None:
    with pytest.raises(
        UserError, match=r"--max-cost needs the prices of free.*\[tool\.revprop\.prices\]"
    ):
        require_prices(MODEL.replace(name="free", price_in=0.0, price_out=0.0), "--max-cost")
    require_prices(MODEL, "--max-cost")


def test_the_client_never_sends_past_its_ceiling_and_cached_replies_are_free(
    fake_server: Callable[..., FakeServer], tmp_path: Path, fast_retry: RetryPolicy
) -> None:
    server = fake_server(default={"content": "x" * 40}, latency_s=0.02)
    model = MODEL.replace(api_bases=(server.base_url,), price_in=1.0, price_out=1000.0)
    requests = [_request(f"question {n}", model) for n in range(8)]
    worst = worst_case_usd(model, requests[0])
    limit = 3.5 * worst  # room for three calls at their worst case, not four

    def run(ceiling: Ceiling) -> list[BaseException | object]:
        client = Client(
            model, cache_dir=tmp_path / "cache", concurrency=8, retry=fast_retry, ceiling=ceiling
        )

        async def go() -> list[BaseException | object]:
            calls = [client.complete(r) for r in requests]
            return list(await asyncio.gather(*calls, return_exceptions=True))

        return asyncio.run(go())

    ceiling = Ceiling(limit)
    results = run(ceiling)
    sent = server.stats()["count"]
    refused = [r for r in results if isinstance(r, BudgetReached)]
    # each call costs far less than its worst case, so calls in flight make room as they end
    assert sent == 8 - len(refused) and sent > 3
    assert ceiling.spent_usd <= limit
    assert ceiling.held_usd == 0.0
    # a second run: what the first made comes from the cache at no cost, the rest is sent
    again = Ceiling(limit)
    assert not any(isinstance(r, BaseException) for r in run(again))
    assert server.stats()["count"] == 8
    assert again.spent_usd <= limit


def test_an_ordered_ceiling_gives_the_room_to_the_waiting_call_of_highest_priority() -> None:
    granted: list[int] = []

    async def go() -> None:
        ceiling = OrderedCeiling(10.0)
        first = await ceiling.reserve(6.0)

        async def call(priority: int) -> None:
            hold = await ceiling.reserve(6.0, priority=priority)
            granted.append(priority)
            await asyncio.sleep(0.01)
            ceiling.settle(hold, 1.0)

        tasks = []
        for priority in (-3, -1, -2):  # they come lowest first
            tasks.append(asyncio.ensure_future(call(priority)))
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        assert not granted  # 6 + 6 > 10 while the first is in flight
        ceiling.settle(first, 1.0)
        await asyncio.gather(*tasks)

    asyncio.run(go())
    assert granted == [-1, -2, -3]


def test_a_plain_ceiling_serves_waiting_calls_as_they_came_whatever_their_priority() -> None:
    """What synth's budget did before drafts were ordered: the first to come went first."""
    granted: list[int] = []

    async def go() -> None:
        ceiling = Ceiling(10.0)
        first = await ceiling.reserve(6.0)

        async def call(priority: int) -> None:
            hold = await ceiling.reserve(6.0, priority=priority)
            granted.append(priority)
            await asyncio.sleep(0.01)
            ceiling.settle(hold, 1.0)

        tasks = []
        for priority in (-3, -1, -2):
            tasks.append(asyncio.ensure_future(call(priority)))
            await asyncio.sleep(0)
        ceiling.settle(first, 1.0)
        await asyncio.gather(*tasks)

    asyncio.run(go())
    assert granted == [-3, -1, -2]


def test_a_later_lane_waits_while_its_call_would_take_what_a_lane_ahead_needs_to_finish() -> None:
    order: list[str] = []

    async def go() -> None:
        ceiling = OrderedCeiling(9.5)

        async def ahead() -> None:
            with ceiling.lane(0, calls=3):
                for _ in range(3):
                    hold = await ceiling.reserve(2.0, priority=0)
                    await asyncio.sleep(0.01)  # in flight, then between calls
                    ceiling.settle(hold, 1.0)
                    order.append("ahead")
                    await asyncio.sleep(0.01)

        async def behind() -> None:
            await asyncio.sleep(0.005)  # the lane ahead has sent its first call
            with ceiling.lane(-1, calls=1):
                # it needs 6, and room stays kept for the calls ahead still plans at 2 each:
                # after two of them, 2 spent + 6 + 2 > 9.5; after the last, 3 + 6 <= 9.5
                hold = await ceiling.reserve(6.0, priority=-1)
                order.append("behind")
                ceiling.settle(hold, 1.0)

        await asyncio.gather(ahead(), behind())
        assert ceiling.spent_usd == 4.0

    asyncio.run(go())
    assert order == ["ahead", "ahead", "ahead", "behind"]


def test_once_a_lane_finished_the_room_kept_ahead_is_what_one_cost_not_every_worst_case() -> None:
    async def go() -> list[bool]:
        ceiling = OrderedCeiling(10.0)
        fits: list[bool] = []
        for learned in (False, True):
            if learned:
                with ceiling.lane(5, calls=1) as done:
                    ceiling.settle(await ceiling.reserve(1.0, priority=5), 0.5)
                    done.finished(0.5)
            with ceiling.lane(0, calls=8):
                ceiling.settle(await ceiling.reserve(1.0, priority=0), 0.25)
                # kept for lane 0: 7 calls of 1 (7), or, once a lane finished at 0.5,
                # 0.5 - 0.25 + 1 = 1.25; lane -1 asks for 4 on what is spent
                waiting = asyncio.ensure_future(ceiling.reserve(4.0, priority=-1))
                await asyncio.sleep(0.01)
                fits.append(waiting.done())
            ceiling.release(await waiting)
        return fits

    assert asyncio.run(go()) == [False, True]


def test_a_call_that_never_fits_stops_its_lane_and_those_behind_not_those_ahead() -> None:
    async def go() -> OrderedCeiling:
        ceiling = OrderedCeiling(10.0)
        ceiling.settle(await ceiling.reserve(5.0, priority=0), 5.0)
        with pytest.raises(BudgetReached, match=r"\$10.0000 leaves no room.*\$5.0000 spent"):
            await ceiling.reserve(6.0, priority=-1)  # 5 + 6 > 10 even with nothing in flight
        with pytest.raises(BudgetReached, match=r"stopped an earlier draft.*ones ahead of it"):
            await ceiling.reserve(1.0, priority=-2)  # it would fit, but it comes after
        ceiling.settle(await ceiling.reserve(1.0, priority=0), 1.0)  # the lane ahead goes on
        assert (ceiling.admits(0), ceiling.admits(-1), ceiling.admits(-2)) == (True, False, False)
        return ceiling

    ceiling = asyncio.run(go())
    assert (ceiling.spent_usd, ceiling.refused, ceiling.stopped_at) == (6.0, 2, -1)


def test_no_room_is_kept_for_a_lane_that_waits_on_a_twin_call_of_a_lane_behind() -> None:
    async def go() -> None:
        ceiling = OrderedCeiling(10.0)
        with ceiling.lane(0, calls=5), ceiling.lane(-1):
            ceiling.settle(await ceiling.reserve(2.0, priority=0), 1.0)  # 4 calls of 2 kept
            waiting = asyncio.ensure_future(ceiling.reserve(5.0, priority=-1))
            await asyncio.sleep(0.01)
            assert not waiting.done()  # 1 + 5 + 8 > 10: lane 0 may need the room
            with ceiling.joined(0):  # lane 0 now waits for lane -1's call of its request
                ceiling.settle(await asyncio.wait_for(waiting, 1.0), 1.0)

    asyncio.run(go())


def test_the_twin_of_a_call_the_ceiling_stopped_is_asked_anew_for_a_lane_ahead(
    fake_server: Callable[..., FakeServer], fast_retry: RetryPolicy
) -> None:
    server = fake_server(default={"content": "ok"})
    model = MODEL.replace(api_bases=(server.base_url,), price_in=1.0, price_out=1.0)
    ceiling = OrderedCeiling(1.0)
    client = Client(model, cache_dir=None, concurrency=4, retry=fast_retry, ceiling=ceiling)
    request = _request("the same question", model)

    async def go() -> list[BaseException | object]:
        with pytest.raises(BudgetReached):
            await ceiling.reserve(2.0, priority=-1)  # lane -1 found no room: -1 and below stop
        behind = client.complete(request, priority=-2)  # asks first; lane 0 joins it
        return list(
            await asyncio.gather(
                behind, client.complete(request, priority=0), return_exceptions=True
            )
        )

    behind, ahead = asyncio.run(go())
    assert isinstance(behind, BudgetReached)
    assert not isinstance(ahead, BaseException)
    assert server.stats()["count"] == 1


def test_an_ordered_ceiling_without_a_limit_counts_but_never_refuses_nor_waits() -> None:
    async def go() -> OrderedCeiling:
        ceiling = OrderedCeiling(None)
        with ceiling.lane(0, calls=1), ceiling.lane(-1, calls=1):
            holds = [await ceiling.reserve(1e9, priority=p) for p in (-1, 0, -1)]
            for hold in holds:
                ceiling.settle(hold, 4.0)
        return ceiling

    assert asyncio.run(go()).spent_usd == 12.0
