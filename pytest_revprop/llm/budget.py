"""A spending ceiling: a call is sent only if it cannot take the spending past the limit.

A call's cost is known only once it has been answered, so a ceiling counts each call at its
worst case while it is in flight (``worst_case_usd``: its input at most one token per UTF-8
byte of the prompt, plus its ``max_tokens`` of output, at the model's prices) and at its
actual cost once it is answered. A call may start only while

    spent so far + worst cases of the calls in flight + its own worst case <= limit,

so the spending never passes the limit, however many calls run at once. Cached replies cost
nothing and never reach the ceiling. The API, for any budget of the project (``revprop synth
--max-cost``, a run's budget)::

    ceiling = Ceiling(limit_usd)                  # None: no limit (still counts the spending)
    hold = await ceiling.reserve(worst_case_usd(model, request))   # or raises BudgetReached
    ... send the call ...
    ceiling.settle(hold, reply.cost_usd)          # answered: its actual cost is spent
    ceiling.release(hold)                         # not answered (failed, cancelled): nothing spent

``reserve`` waits while calls in flight hold the room it needs (they may cost less than
their worst case) and raises ``BudgetReached`` once it cannot fit even if they cost nothing
more than what is spent. ``require_prices`` refuses a ceiling on a model with no prices,
which it could never enforce. ``llm.client.Client(ceiling=...)`` applies a ceiling to every
call the client sends. One ceiling serves the coroutines of one process (not threads, not
other processes).

``OrderedCeiling`` spends in priority order, for work that is worth something only when it
is finished (``revprop synth``'s drafts: each draft's calls run in a *lane* of its own
priority, earlier drafts higher)::

    ceiling = OrderedCeiling(limit_usd, unit="draft")
    with ceiling.lane(priority, calls=9) as lane:  # while this draft runs; the calls it plans
        ... its calls: client.complete(request, priority=priority) ...
        lane.finished(cost_usd)                    # done in full: what a draft costs

A call waits while a call of a higher priority waits for room, and it leaves room for every
running lane ahead of it to finish: the worst case of that lane's latest call for each call
it still plans, or, once some lane finished, what the costliest finished one cost beyond what
that lane spent, plus one worst case, if that is less. So later lanes do not take what an
earlier one needs. A call that could not fit even with nothing in flight stops its lane and
every lane after it: their calls are refused from then on, while the lanes ahead go on.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.llm.types import Request

TOKENS_PER_MESSAGE = 16
"""Template tokens a chat message may add around its text (role markers, separators)."""


class BudgetReached(Exception):
    """The ceiling leaves no room for a call: it was not sent."""


@dataclass(eq=False)
class Hold:
    """The room one call in flight holds under a ceiling (its worst-case cost)."""

    usd: float
    open: bool = True
    priority: int = 0


class Ceiling:
    """What may be spent (``limit_usd``; None: no limit), what was spent on answered calls
    (``spent_usd``) and what the calls in flight may still cost (``held_usd``)."""

    def __init__(self, limit_usd: float | None = None, *, name: str = "--max-cost") -> None:
        if limit_usd is not None and not limit_usd >= 0:
            raise ValueError(f"a ceiling must be >= 0, got {limit_usd}")
        self.limit_usd = limit_usd
        self.name = name
        self.spent_usd = 0.0
        self.held_usd = 0.0
        self.refused = 0
        """Calls refused for want of room (not sent)."""
        self.largest_usd = 0.0
        """The largest worst case of a call asked for: the room that may stay unspent (a call
        is not sent once less than its worst case is left)."""
        self._holds = 0
        self._waiters: list[asyncio.Future[None]] = []

    def fits(self, worst_case_usd: float) -> bool:
        """Whether a call of this worst case may start now."""
        if self.limit_usd is None:
            return True
        return self.spent_usd + self.held_usd + worst_case_usd <= self.limit_usd + 1e-12

    async def reserve(self, worst_case_usd: float, *, priority: int = 0) -> Hold:
        """Hold room for a call of this worst case, waiting for calls in flight to settle
        while they hold the room; BudgetReached when it can never fit. ``priority``: the
        call's (an ``OrderedCeiling`` serves higher first; this one does not use it)."""
        self.largest_usd = max(self.largest_usd, worst_case_usd)
        while not self.fits(worst_case_usd):
            if self._holds == 0 or self._hopeless(worst_case_usd):
                self.refused += 1
                raise BudgetReached(self.reason(worst_case_usd))
            await self._wait()
        return self._take(worst_case_usd)

    def asks_anew(self, priority: int) -> bool:
        """Whether a call of ``priority`` whose twin (the same request, asked first by another
        call) this ceiling refused may be asked on its own: never here, the same worst case
        meets the same room."""
        return False

    @contextmanager
    def joined(self, priority: int) -> Iterator[None]:
        """A call of ``priority`` waits for the same request made by another call (the
        client's de-duplication): nothing for this ceiling."""
        yield

    async def _wait(self) -> None:
        """Until the room changes (a call settles or is released, or, for an ordered
        ceiling, the lanes change)."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def _take(self, worst_case_usd: float) -> Hold:
        self._holds += 1
        self.held_usd += worst_case_usd
        return Hold(worst_case_usd)

    def settle(self, hold: Hold, actual_usd: float) -> None:
        """The call of ``hold`` was answered at ``actual_usd``: spend it, free the rest."""
        if self._close(hold):
            self.spent_usd += actual_usd
            self._wake()

    def release(self, hold: Hold) -> None:
        """The call of ``hold`` was not answered (it failed or was cancelled): free it all."""
        if self._close(hold):
            self._wake()

    def reason(self, worst_case_usd: float) -> str:
        """Why a call of this worst case is not sent (the line a user sees)."""
        return (
            f"the {self.name} budget of ${self.limit_usd or 0.0:.4f} leaves no room for another "
            f"call: ${self.spent_usd:.4f} spent, ${self.held_usd:.4f} held by calls in flight, "
            f"and the next call may cost up to ${worst_case_usd:.4f} (its worst case: its whole "
            "prompt and all its output tokens)"
        )

    def _hopeless(self, worst_case_usd: float) -> bool:
        """Whether the call could not fit even if the calls in flight cost nothing more."""
        assert self.limit_usd is not None
        return self.spent_usd + worst_case_usd > self.limit_usd + 1e-12

    def _close(self, hold: Hold) -> bool:
        if not hold.open:
            return False
        hold.open = False
        self._holds -= 1
        self.held_usd = max(self.held_usd - hold.usd, 0.0) if self._holds else 0.0
        return True

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)


@dataclass
class Lane:
    """One running lane of an ``OrderedCeiling`` (what ``OrderedCeiling.lane`` gives)."""

    calls_left: int
    """The calls it still plans (at least one is always counted: re-asks add calls)."""
    next_usd: float = 0.0
    """The worst case of its latest call, the estimate of each of its next ones (growing
    prompts make them a little larger; a short fall waits for calls in flight to settle)."""
    joined: int = 0
    """Its calls waiting for the same request made by another lane's call: while it waits on
    another lane, no room is kept for it (that call may need the room)."""
    spent_usd: float = 0.0
    """What its answered calls cost (new spending)."""
    cost_usd: float | None = None
    """What its work cost in full, as if no call were cached (``finished``), or None."""

    def finished(self, cost_usd: float) -> None:
        """Its work was done in full, at ``cost_usd`` as if no call were cached: the ceiling
        learns what a unit of work costs."""
        self.cost_usd = cost_usd


class OrderedCeiling(Ceiling):
    """A ceiling that spends in priority order: what comes first is finished first.

    Each unit of work (``unit``: a ``"draft"``) runs its calls in a lane of its own priority,
    higher first (``lane``). A call is sent only when (1) no call of a higher priority is
    waiting for room, (2) the spending so far, the worst cases in flight, its own worst case
    and the room kept for every running lane ahead of it to finish (``_kept_for``) stay within
    the limit. A call that could not fit even with nothing in flight is refused, and so is
    every later call of its priority or a lower one (``stopped_at``): the lanes after it stop
    cleanly, the ones ahead go on. Without a limit it is a plain ``Ceiling`` (it counts)."""

    def __init__(
        self, limit_usd: float | None = None, *, name: str = "--max-cost", unit: str = "draft"
    ) -> None:
        super().__init__(limit_usd, name=name)
        self.unit = unit
        self.stopped_at: int | None = None
        """The highest priority whose call found no room: calls at it and below are refused."""
        self.unit_usd: float | None = None
        """The most a unit of work that finished cost in full (None before one finished)."""
        self._stop_reason = ""
        self._lanes: dict[int, Lane] = {}
        self._queued: Counter[int] = Counter()

    @contextmanager
    def lane(self, priority: int, *, calls: int = 1) -> Iterator[Lane]:
        """While the unit of work of ``priority`` runs, planning ``calls`` calls: the lanes
        behind it keep room for it to finish. Say ``finished`` on it when it was done in full."""
        lane = self._lanes[priority] = Lane(calls_left=calls)
        try:
            yield lane
        finally:
            del self._lanes[priority]
            if lane.cost_usd is not None:
                self.unit_usd = max(self.unit_usd or 0.0, lane.cost_usd)
            self._wake()

    def settle(self, hold: Hold, actual_usd: float) -> None:
        """As ``Ceiling.settle``; the spending is also counted to the call's lane."""
        lane = self._lanes.get(hold.priority) if hold.open else None
        if lane is not None:
            lane.spent_usd += actual_usd
        super().settle(hold, actual_usd)

    @contextmanager
    def joined(self, priority: int) -> Iterator[None]:
        """The lane of ``priority`` waits for another lane's call of the same request."""
        lane = self._lanes.get(priority)
        if lane is None:
            yield
            return
        lane.joined += 1
        self._wake()  # the call it waits for may need the room kept for it
        try:
            yield
        finally:
            lane.joined -= 1

    def admits(self, priority: int) -> bool:
        """Whether calls of ``priority`` may still be sent (no call at or above it was
        refused)."""
        return self.stopped_at is None or priority > self.stopped_at

    def asks_anew(self, priority: int) -> bool:
        """A twin asked first by a lane behind may have been refused as that lane stopped:
        a call of a lane ahead that is still admitted asks on its own."""
        return self.admits(priority)

    async def reserve(self, worst_case_usd: float, *, priority: int = 0) -> Hold:
        """Hold room for a call of ``priority`` in order; BudgetReached when it can never
        fit, or when a call at or above its priority could not (its lane stopped)."""
        if self.limit_usd is None:
            return await super().reserve(worst_case_usd, priority=priority)
        self.largest_usd = max(self.largest_usd, worst_case_usd)
        lane = self._lanes.get(priority)
        if lane is not None:
            lane.next_usd = worst_case_usd
            lane.calls_left -= 1
        self._queued[priority] += 1
        try:
            while True:
                if not self.admits(priority):
                    self.refused += 1
                    raise BudgetReached(self._stop_reason)
                if self._hopeless(worst_case_usd):
                    self.refused += 1
                    self._stop(priority, worst_case_usd)
                    raise BudgetReached(self.reason(worst_case_usd))
                if self._first_in_line(priority) and self.fits(
                    worst_case_usd + self._kept_ahead_of(priority)
                ):
                    hold = self._take(worst_case_usd)
                    hold.priority = priority
                    return hold
                await self._wait()
        finally:
            self._queued[priority] -= 1
            if not self._queued[priority]:
                del self._queued[priority]
            self._wake()  # the calls behind it may go now (or be refused after it)

    def _first_in_line(self, priority: int) -> bool:
        return not any(other > priority for other in self._queued)

    def _kept_ahead_of(self, priority: int) -> float:
        """The room kept for the running lanes ahead of ``priority`` to finish."""
        return sum(
            self._kept_for(lane)
            for other, lane in self._lanes.items()
            if other > priority and not lane.joined
        )

    def _kept_for(self, lane: Lane) -> float:
        """Each call the lane still plans at the worst case of its latest (before its first
        call, at the largest worst case so far); once a unit of work has finished, at most
        what the costliest one cost beyond what this lane spent, plus one worst case."""
        worst = lane.next_usd or self.largest_usd
        planned = worst * max(lane.calls_left, 1)
        if self.unit_usd is None:
            return planned
        return min(planned, max(self.unit_usd - lane.spent_usd, 0.0) + worst)

    def _stop(self, priority: int, worst_case_usd: float) -> None:
        """No call of ``priority`` or below is sent from now on; the reason they are given."""
        if self.stopped_at is None or priority > self.stopped_at:
            self.stopped_at = priority
            self._stop_reason = (
                f"the {self.name} budget of ${self.limit_usd or 0.0:.4f} stopped an earlier "
                f"{self.unit}, whose next call may cost up to ${worst_case_usd:.4f} with "
                f"${self.spent_usd:.4f} spent: the {self.unit}s after it stop too, so that the "
                "ones ahead of it finish first"
            )


def input_token_bound(request: Request) -> int:
    """At most how many tokens the request's prompt is: one per UTF-8 byte of its texts (no
    byte-level tokenizer makes more), plus a chat template's tokens around each message."""
    texts = [content for _, content in request.messages]
    if request.response_format is not None:
        texts.append(request.response_format)
    size = sum(len(text.encode("utf-8")) for text in texts)
    return size + TOKENS_PER_MESSAGE * (len(request.messages) + 1)


def worst_case_usd(model: ModelConfig, request: Request) -> float:
    """The most ``request`` can cost on ``model``: its prompt's token bound and its
    ``max_tokens`` of output, at the model's prices."""
    return model.cost_usd(input_token_bound(request), request.max_tokens)


def is_priced(model: ModelConfig) -> bool:
    """Whether the model has prices (a budget on an unpriced model could not be enforced)."""
    return model.price_in > 0 or model.price_out > 0


def toml_key(name: str) -> str:
    """``name`` as a TOML key: bare when TOML allows it, else quoted (``"openai/fake"``)."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def require_prices(model: ModelConfig, option: str) -> None:
    """UserError unless ``model`` is priced: ``option`` (a budget) cannot be kept without."""
    if not is_priced(model):
        raise UserError(
            f"{option} needs the prices of {model.name}, which has none: set them as "
            f"[tool.revprop.prices] {toml_key(model.name)} = [USD per 1M input tokens, USD per "
            f"1M output tokens] in pyproject.toml (or [prices] in revprop.toml), or drop {option}"
        )


def least_worst_case_usd(model: ModelConfig) -> float:
    """A floor under every call's worst case on ``model``: its ``max_tokens`` of output at
    the model's price (the prompt comes on top)."""
    return model.cost_usd(0, model.max_tokens)


def require_room(
    models: Sequence[ModelConfig], limit_usd: float, option: str, *, workers: int = 1
) -> None:
    """UserError when ``limit_usd`` (shared by ``workers`` processes) is below one call's
    worst case on some calling model: such a ceiling could never send a call."""
    share = limit_usd / max(workers, 1)
    for model in models:
        if model.kind == "reference":
            continue
        floor = least_worst_case_usd(model)
        if share + 1e-12 < floor:
            split = "" if workers <= 1 else f" (${share:.4f} for each of {workers} workers)"
            raise UserError(
                f"{option}={limit_usd:g} USD{split} is below one call's worst case on "
                f"{model.name}, at least ${floor:.4f} ({model.max_tokens:,} output tokens at "
                f"${model.price_out:g} per 1M, before its prompt): no call could be sent; "
                f"raise {option} or lower the model's max_tokens"
            )
