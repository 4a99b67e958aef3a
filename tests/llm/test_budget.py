"""The spending ceiling (``llm/budget.py``): worst cases held while calls are in flight, the
client sending nothing past it, and the usage error for an unpriced model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.llm.budget import (
    BudgetReached,
    Ceiling,
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
