"""The client: ``Client.complete(request)`` is the one path of every model call.

Around the HTTP call (litellm's ``acompletion``, or with ``transport="direct"`` a plain POST to
a self-hosted OpenAI-compatible server: ``llm/transports.py``) it adds the content-addressed
response cache (the only thing that makes reruns reproducible: servers are not deterministic
under batching), in-process de-duplication of identical requests, cross-process claims so
xdist workers never make the same call twice, a priority-ordered concurrency bound, replica
routing, retries, and usage/cost/latency accounting.
"""

from __future__ import annotations

import asyncio
import dataclasses
import heapq
import itertools
import logging
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_revprop.llm.budget import BudgetReached, Ceiling, worst_case_usd
from pytest_revprop.llm.cache import ResponseCache
from pytest_revprop.llm.failures import describe, is_refusal, is_retryable, retry_after_s
from pytest_revprop.llm.litellm_setup import load_litellm, register_prices, warm_up_litellm
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.llm.redact import redact, remember_secret
from pytest_revprop.llm.responses import parse_response
from pytest_revprop.llm.transports import (
    TRANSPORT_ENV,
    TRANSPORTS,
    DirectTransport,
    api_key_for,
    direct_body,
    direct_headers,
    is_direct,
    litellm_kwargs,
)
from pytest_revprop.llm.types import (
    CallFailed,
    ClientStats,
    Reply,
    Request,
    RetryPolicy,
)
from pytest_revprop.util.memo import Memo

if TYPE_CHECKING:
    from pytest_revprop.vocabulary import FailedCall

log = logging.getLogger(__name__)

KEY_MEMO_SIZE = 4096
"""Cache keys the process remembers (requests in flight at once, and their repeats), for all
its clients together: a memo per client held 4,096 requests (prompts of some kilobytes each)
per model, so a worker's memory grew with the number of models."""
_KEY_MEMO: Memo[Request, str] = Memo(KEY_MEMO_SIZE)


class PrioritySlots:
    """At most ``capacity`` holders; waiters are served highest priority first, then FIFO."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.in_use = 0
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def _has_waiters(self) -> bool:
        while self._waiters and self._waiters[0][2].done():
            heapq.heappop(self._waiters)
        return bool(self._waiters)

    async def acquire(self, priority: int = 0) -> None:
        """Take a slot, waiting when all are in use; waiters with a higher ``priority`` get the next
        free slot first, then in the order they came.
        """
        if self.in_use < self.capacity and not self._has_waiters():
            self.in_use += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (-priority, next(self._order), waiter))
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()
            raise

    def release(self) -> None:
        """Hand the slot to the best waiter, or free it."""
        while self._waiters:
            _, _, waiter = heapq.heappop(self._waiters)
            if not waiter.done():
                waiter.set_result(None)
                return
        self.in_use -= 1


class Client:
    """Makes (or finds in the cache) completions for one model. Safe for many coroutines.

    ``concurrency`` bounds requests in flight from this process; under xdist each worker
    has its own bound. The cache folder may be shared by any number of processes. One
    event loop at a time (a new loop, e.g. a second ``asyncio.run``, resets the scheduling
    state); not thread-safe. ``ceiling`` (``llm/budget.py``): every call the cache does not
    answer first holds its worst-case cost under it, and is not sent (BudgetReached) when
    the ceiling has no room; several clients may share one ceiling.
    """

    def __init__(
        self,
        model: ModelConfig,
        *,
        cache_dir: Path | None,
        concurrency: int = 32,
        retry: RetryPolicy | None = None,
        transport: str | None = None,
        ceiling: Ceiling | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if model.kind == "reference":
            raise ValueError(f"{model.name} is a reference solver: it makes no model calls")
        if model.kind == "embedded" and not model.api_bases:
            raise ValueError(f"{model.name}: set api_bases to the embedded server's URL first")
        self.model = model
        remember_secret(model.api_key())
        self.cache = None if cache_dir is None else ResponseCache(Path(cache_dir))
        self.concurrency = concurrency
        self.retry = retry or RetryPolicy()
        self.ceiling = ceiling
        self.stats = ClientStats()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots = PrioritySlots(concurrency)
        self._stopping = False
        self._pending: dict[str, asyncio.Future[Reply]] = {}
        self.transport = transport or os.environ.get(TRANSPORT_ENV) or "litellm"
        if self.transport not in TRANSPORTS:
            raise ValueError(
                f"unknown transport {self.transport!r} (choose from {', '.join(TRANSPORTS)})"
            )
        self._transport = DirectTransport()
        self._base_load: dict[str | None, int] = {}
        self._round_robin = itertools.count()
        self._down_until: dict[str, float] = {}
        self.refusal: CallFailed | None = None
        """The first answer that refused this model's credentials: later calls are not sent."""

    def prepare(self) -> None:
        """Do the one-off work of the first call now, in the calling thread: import litellm,
        if any call of this client goes through it, give it the model's prices
        (``register_prices``) and warm its call path up (``warm_up_litellm``, which swaps the
        process's warning filters for a moment: not from the event loop's thread)."""
        if any(not self._direct(base) for base in self.model.api_bases or (None,)):
            warm_up_litellm(self._litellm(), self.model)

    def _litellm(self) -> Any:
        litellm = load_litellm()
        register_prices(litellm, self.model)
        return litellm

    @property
    def attempt_timeout_s(self) -> float:
        """Seconds one attempt may take: the retry policy's, or else the model's."""
        return self.retry.attempt_timeout_s or self.model.attempt_timeout_s

    @property
    def claim_ttl_s(self) -> float:
        """Age after which a silent claim is presumed abandoned."""
        return (self.attempt_timeout_s + self.retry.max_delay) * self.retry.max_attempts

    def make_request(
        self, messages: Sequence[Mapping[str, str]], seed: int, structured: bool = False
    ) -> Request:
        """A request of this client's model (``Request.for_model``)."""
        return Request.for_model(self.model, messages, seed, structured)

    def _bind_loop(self) -> None:
        """Start fresh scheduling state when used from a new event loop (e.g. asyncio.run)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop = loop
            self._slots = PrioritySlots(self.concurrency)
            self._stopping = False
            self._pending = {}
            self._base_load = {}
            self._transport = DirectTransport()
            self.stats.in_flight = 0

    async def complete(self, request: Request, *, priority: int = 0) -> Reply:
        """The reply to ``request``: from the cache, a concurrent twin, or one real call.

        Raises CallFailed when the call fails for good. ``priority``: higher is served first
        when requests wait for a free slot (and, under an ``OrderedCeiling``, for room).
        """
        self._bind_loop()
        key = self._key(request)
        shared = self._pending.get(key)
        if shared is None:
            shared = asyncio.ensure_future(self._resolve(request, key, priority))
            self._pending[key] = shared
            shared.add_done_callback(lambda done: self._forget(key, done))
            reply = await asyncio.shield(shared)
        else:
            self.stats.dedup_joins += 1
            reply = await self._join(shared, request, key, priority)
        return dataclasses.replace(reply, key=key)

    async def _join(
        self, shared: asyncio.Future[Reply], request: Request, key: str, priority: int
    ) -> Reply:
        """The reply of a twin request already under way. Under an ordered ceiling the twin
        may have come from a call of a lower priority: no room is kept for this one's lane
        while it waits, and when the ceiling refused the twin but still admits this priority,
        this call asks on its own."""
        if self.ceiling is None:
            return await asyncio.shield(shared)
        try:
            with self.ceiling.joined(priority):
                return await asyncio.shield(shared)
        except BudgetReached:
            if not self.ceiling.asks_anew(priority):
                raise
        return await self._resolve(request, key, priority)

    def _key(self, request: Request) -> str:
        """``request.cache_key()``, remembered: items of a run ask the same requests many times,
        and hashing a tuple of already-hashed strings is much cheaper than the SHA-256."""
        return _KEY_MEMO.get(request, request.cache_key)

    async def finish_in_flight(self, timeout: float) -> None:
        """Send nothing more and wait, at most ``timeout`` seconds, for the requests in flight.

        For a process that leaves while others go on (an xdist worker whose last item is done
        but whose calls made ahead are running): a request the server has seen must end with
        its reply in the cache, or whoever needs it would make it again.
        """
        self._bind_loop()
        self._stopping = True
        deadline = time.monotonic() + timeout
        while self.stats.in_flight and time.monotonic() < deadline:
            await asyncio.sleep(0.01)

    def _forget(self, key: str, done: asyncio.Future[Reply]) -> None:
        if self._pending.get(key) is done:
            del self._pending[key]
        if not done.cancelled():
            done.exception()

    def _cached(self, key: str) -> Reply | None:
        if self.cache is None:
            return None
        reply = self.cache.read(key)
        if reply is None:
            return None
        self.stats.cache_hits += 1
        reply.cached = True
        reply.cost_usd = self.model.cost_usd(reply.input_tokens, reply.output_tokens)
        return reply

    async def _resolve(self, request: Request, key: str, priority: int) -> Reply:
        cached = self._cached(key)
        if cached is not None:
            return cached
        cache = self.cache
        if cache is None:
            return await self._within_ceiling(request, priority)
        while True:
            if cache.try_claim(key):
                try:
                    cached = self._cached(key)
                    if cached is not None:
                        return cached
                    reply = await self._within_ceiling(request, priority, key)
                    cache.write(key, request, reply)
                    return reply
                finally:
                    cache.release_claim(key)
            self.stats.claim_waits += 1
            cached = await self._wait_for_claim(key)
            if cached is not None:
                return cached

    async def _wait_for_claim(self, key: str) -> Reply | None:
        """Wait while another process holds the claim; its reply, or None to try claiming."""
        assert self.cache is not None
        delay = 0.01
        while True:
            cached = self._cached(key)
            if cached is not None:
                return cached
            state = self.cache.claim_state(key, self.claim_ttl_s)
            if state == "none":
                return self._cached(key)
            if state == "stale":
                log.warning("breaking a stale claim on cache entry %s", key[:12])
                self.cache.release_claim(key)
                return None
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def _pick_base(self, bases: Sequence[str], avoid: set[str]) -> str | None:
        """The replica to try next: not yet failed for this request, not cooling down after a
        recent failure, and with the fewest requests in flight (ties round-robin)."""
        if not bases:
            return None
        now = time.monotonic()
        untried = [b for b in bases if b not in avoid] or list(bases)
        healthy = [b for b in untried if self._down_until.get(b, 0.0) <= now] or untried
        least = min(self._base_load.get(b, 0) for b in healthy)
        tied = [b for b in healthy if self._base_load.get(b, 0) == least]
        return tied[next(self._round_robin) % len(tied)]

    def _other_replica_ready(self, bases: Sequence[str], failed: set[str]) -> bool:
        now = time.monotonic()
        return any(b not in failed and self._down_until.get(b, 0.0) <= now for b in bases)

    def _direct(self, base: str | None) -> bool:
        """Whether calls to ``base`` skip litellm (``transports.is_direct``)."""
        return is_direct(self.model, self.transport, base)

    async def _attempt(self, request: Request, base: str | None) -> Reply:
        if self._direct(base):
            assert base is not None
            headers = direct_headers(self.model, base)
            started = time.monotonic()
            call = self._transport.post(
                base.rstrip("/") + "/chat/completions",
                direct_body(request),
                headers,
                self.attempt_timeout_s,
            )
        else:
            litellm = self._litellm()
            kwargs = litellm_kwargs(
                request, base, self.attempt_timeout_s, api_key_for(self.model, base)
            )
            started = time.monotonic()
            call = litellm.acompletion(**kwargs)
        response = await asyncio.wait_for(call, timeout=self.attempt_timeout_s + 5.0)
        return parse_response(response, time.monotonic() - started, self.model)

    async def _within_ceiling(
        self, request: Request, priority: int, key: str | None = None
    ) -> Reply:
        """``_call``, holding the request's worst-case cost under the ceiling while it is in
        flight (BudgetReached, unsent, when there is no room); its actual cost is then spent."""
        if self.ceiling is None:
            return await self._call(request, priority, key)
        hold = await self.ceiling.reserve(worst_case_usd(self.model, request), priority=priority)
        try:
            reply = await self._call(request, priority, key)
        except BaseException:
            self.ceiling.release(hold)
            raise
        self.ceiling.settle(hold, reply.cost_usd)
        return reply

    async def _call(self, request: Request, priority: int, key: str | None = None) -> Reply:
        """One reply from the servers, with retries across replicas; CallFailed otherwise.

        A failure that cannot succeed on retry (``failures.is_retryable``) ends the call at
        once; a refusal of the credentials also ends every later call of this client unsent.
        """
        failed: set[str] = set()
        last = "no attempt made"
        wait = 0.0
        base: str | None = None
        for attempt in range(1, self.retry.max_attempts + 1):
            await self._slots.acquire(priority)
            if self._stopping:
                self._slots.release()
                await asyncio.get_running_loop().create_future()  # until the run cancels this call
            base = self._pick_base(request.api_bases, failed)
            if self.refusal is not None:
                self._slots.release()
                raise self._failed(request, base, 0, self.refusal.details.get("error", ""), False)
            self._begin(base)
            if key is not None and self.cache is not None:
                self.cache.touch_claim(key)
            try:
                reply = await self._attempt(request, base)
            except Exception as exc:
                last = describe(exc)
                if not is_retryable(exc):
                    failure = self._failed(request, base, attempt, last, False, is_refusal(exc))
                    if failure.refused and self.refusal is None:
                        self.refusal = failure
                    raise failure from None
                wait = self.retry.delay(attempt, retry_after_s(exc))
                if base:
                    failed.add(base)
                    self._down_until[base] = time.monotonic() + wait
                    if self._other_replica_ready(request.api_bases, failed):
                        wait = 0.0
            else:
                self.stats.calls += 1
                if base:
                    self._down_until.pop(base, None)
                return reply
            finally:
                self._end(base)
                self._slots.release()
            if attempt < self.retry.max_attempts:
                self.stats.retries += 1
                where = _where(request, base)
                log.info(redact(f"retrying {where} in {wait:.2f}s after: {last}"))
                await asyncio.sleep(wait)
        raise self._failed(request, base, self.retry.max_attempts, last, True)

    def _failed(
        self,
        request: Request,
        base: str | None,
        attempts: int,
        last: str,
        retryable: bool,
        refused: bool = False,
    ) -> CallFailed:
        """The CallFailed of a request whose last attempt (to ``base``) ended with ``last``."""
        self.stats.failures += 1
        where = _where(request, base)
        if attempts == 0:
            reason = f"{where}: not sent: the provider refused the credentials: {last}"
        elif retryable:
            reason = f"{where}: gave up after {attempts} attempts: {last}"
        else:
            reason = f"{where}: {last}"
        details: FailedCall = {
            "model": request.litellm_model,
            "url": base,
            "attempts": attempts,
            "retryable": retryable,
            "refused": refused or attempts == 0,
            "error": redact(last),
        }
        return CallFailed(reason, details)

    def _begin(self, base: str | None) -> None:
        self.stats.requests_sent += 1
        self.stats.in_flight += 1
        self.stats.peak_in_flight = max(self.stats.peak_in_flight, self.stats.in_flight)
        self._base_load[base] = self._base_load.get(base, 0) + 1

    def _end(self, base: str | None) -> None:
        self.stats.in_flight -= 1
        self._base_load[base] = self._base_load.get(base, 1) - 1


def _where(request: Request, base: str | None) -> str:
    return f"{request.litellm_model} at {base}" if base else request.litellm_model
