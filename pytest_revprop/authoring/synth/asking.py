"""Asking the model one step of a draft: through the project's client, re-asked with the
reason a bounded number of times.

Every call goes through ``llm.client.Client`` (the response cache, de-duplication, retries,
the concurrency bound, cost, and the run's ``--max-cost`` ceiling: ``llm/budget.py``), so
rerunning a synth resumes from the cache: the chat of a draft is rebuilt from cached replies,
and only steps never answered are sent. A call the ceiling has no room for is not sent: it
raises ``BudgetReached`` and the draft ends ``stopped``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pytest_revprop.authoring.synth.replies import NoObject, reply_object
from pytest_revprop.core.askers import Completer
from pytest_revprop.core.method_context import Ask
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.llm.types import Reply
from pytest_revprop.vocabulary import CallRole

T = TypeVar("T")
Message = dict[str, str]
Check = Callable[[dict[str, Any]], tuple[T | None, list[str]]]
"""A step's check: the reply's JSON object -> (the step's value, or None; the reasons)."""
Event = Callable[[str], None]
"""Where a draft reports what it is doing (a progress line)."""

REASK_TEMPLATE = "synth_reask"


@dataclass
class Tally:
    """One draft's calls: their cost as if made alone (cached replies priced again), how
    many were answered from the cache, and the checks that failed."""

    cost_usd: float = 0.0
    calls: int = 0
    cached: int = 0
    checks_failed: int = 0

    def add(self, reply: Reply) -> None:
        """Count one reply's cost and whether it came from the cache."""
        self.cost_usd += reply.cost_usd
        self.calls += 1
        self.cached += int(reply.cached)


@dataclass
class Attempt:
    """A reply that failed its step's check, kept for the rejected-draft record."""

    step: str
    reply: str
    reasons: list[str]

    def to_dict(self) -> dict[str, Any]:
        """The attempt as the rejected-draft record holds it."""
        return {"step": self.step, "reasons": self.reasons, "reply": self.reply}


@dataclass
class StepOutcome(Generic[T]):
    """A step's accepted value and reply, or (value None) the reasons of its last attempt."""

    value: T | None
    reply: str = ""
    reasons: list[str] = field(default_factory=list)


class Asker:
    """The calls of one draft to one model: cached client calls, tally, seed, and the
    draft's priority (higher first, when calls wait for a free slot)."""

    def __init__(self, client: Completer, tally: Tally, *, seed: int, priority: int = 0) -> None:
        self.client = client
        self.tally = tally
        self.priority = priority
        self.seed = seed

    async def reply(self, messages: Sequence[Message], seed: int | None = None) -> Reply:
        """The model's reply to ``messages`` (at the draft's seed unless given)."""
        request = self.client.make_request(list(messages), self.seed if seed is None else seed)
        reply = await self.client.complete(request, priority=self.priority)
        self.tally.add(reply)
        return reply

    def method_ask(self) -> Ask:
        """This asker as the ``ask`` callable of ``pytest_revprop.core.method_context``."""

        async def ask(messages: list[Message], seed: int, role: CallRole, priority: int) -> Reply:
            return await self.reply(messages, seed)

        return ask


async def checked_step(
    asker: Asker,
    messages: Sequence[Message],
    check: Check[T],
    *,
    step: str,
    prompts: Prompts,
    max_reasks: int,
    attempts: list[Attempt],
    event: Event | None = None,
) -> StepOutcome[T]:
    """Ask ``messages``; while the reply fails ``check`` and re-asks remain, send the failed
    reply back with the reasons (``synth_reask`` template: ``$reasons``, and ``$attempt`` of
    ``$attempts``, the number of the attempt it asks for) and ask again. Each failed attempt
    is appended to ``attempts`` and counted in the tally."""
    chat = list(messages)
    reasons: list[str] = []
    for attempt in range(max_reasks + 1):
        reply = await asker.reply(chat)
        try:
            value, reasons = check(reply_object(reply))
        except NoObject as exc:
            value, reasons = None, [str(exc)]
        if value is not None and not reasons:
            return StepOutcome(value, reply.content)
        asker.tally.checks_failed += 1
        attempts.append(Attempt(step, reply.content, reasons))
        if event is not None:
            shown = "; ".join(reasons)
            event(f"{step}: check failed ({attempt + 1} of {max_reasks + 1}): {shown}")
        # the attempt's number makes each re-ask a new request, even when the model gave
        # the same wrong answer again (the cache would answer a repeated one the same way)
        reask = prompts.render(
            REASK_TEMPLATE,
            reasons="\n".join(f"- {r}" for r in reasons),
            attempt=str(attempt + 2),
            attempts=str(max_reasks + 1),
        )
        chat = [*messages, {"role": "assistant", "content": reply.content}]
        chat.append({"role": "user", "content": reask})
    return StepOutcome(None, reasons=reasons)
