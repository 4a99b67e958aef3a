"""The method-author API of docs/hooks.md: a revision method is an async function of one
:class:`MethodContext`, which asks the model (``ask``, ``revise``, ``samples``), turns replies
into patches (``answer``), combines them (``merge``, ``gather``) and records every call in the
order it was made, with its usage; a run's cost is the sum of its calls' costs and its latency
the critical path (calls awaited one after another add up, calls run together through
``gather`` or ``samples`` count as the slowest). The built-in methods are ``methods.py``'s; how
calls reach a model (``client_ask``, ``reference_ask``) is ``askers.py``'s.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pytest_revprop.core.cases import Case
from pytest_revprop.core.extraction import InvalidReply, extract_patch
from pytest_revprop.core.merge import merge_patches, sample_artifacts
from pytest_revprop.core.outcome import Outcome, Patch
from pytest_revprop.core.patching import (
    copy_json,
)
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.core.scoring import Score, score_outcome
from pytest_revprop.llm.types import CallFailed, Reply
from pytest_revprop.util.jsonutil import is_finite_json
from pytest_revprop.util.memo import Memo
from pytest_revprop.vocabulary import (
    CALL_ROLES,
    OUTCOME_ERRORS,
    CallRole,
    FailedCall,
    MergeRule,
    RevisionContext,
)

Message = dict[str, str]
T = TypeVar("T")


Ask = Callable[[list[Message], int, CallRole, int], Awaitable[Reply]]
"""How a method's calls reach a model: ``ask(messages, seed, role, priority) -> Reply``."""


@dataclass
class Call:
    """One model call a method made: what it was for (``role``), its seed and its reply."""

    role: CallRole
    seed: int
    reply: Reply

    def to_dict(self) -> dict[str, Any]:
        """The call in builtin types, as a record's ``replies`` hold it."""
        return {"role": self.role, "seed": self.seed, **self.reply.to_dict()}


@dataclass
class MethodRun:
    """One method's run on one case at one k and base seed: the :class:`Outcome` its method
    returned (or the runner's, when a call or the method failed), every call it made in order,
    and its critical-path latency.

    Made by ``MethodContext.finish`` and by ``registry.run_method``; ``score`` judges it.
    """

    method: str
    k: int
    seed: int
    outcome: Outcome = field(default_factory=Outcome)
    calls: list[Call] = field(default_factory=list)
    latency_s: float = 0.0
    failed_call: FailedCall | None = None
    """The call that failed for good, when the outcome's ``error`` is ``call_failed``."""

    @property
    def cost_usd(self) -> float:
        """The run's cost: the sum of its calls' costs."""
        return sum(c.reply.cost_usd for c in self.calls)

    def score(self, case: Case) -> Score:
        """The run's outcome judged against ``case`` (scoring.score_outcome)."""
        return score_outcome(case, self.outcome)


class Answer:
    """One reply turned into a patch, or the reason it yields none."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.patch: Patch | None = None
        self.error: str | None = None
        self.reason: str | None = None
        if reply.finish_reason == "length":
            self.error, self.reason = "truncated", "the reply was cut off at the output limit"
            return
        patch, self.error, self.reason = _extracted(reply.content)
        self.patch = None if patch is None else copy_json(patch)

    def outcome(self) -> Outcome:
        """The answer as a method's outcome: its patch, or its error and reason."""
        return Outcome(self.patch, self.error, self.reason)


_EXTRACTED: Memo[str, tuple[Patch | None, str | None, str | None]] = Memo(4096)
"""Replies' patches, as the items of a run read the same replies many times."""


def _extracted(content: str) -> tuple[Patch | None, str | None, str | None]:
    """The patch in a reply, or why there is none (remembered; callers copy the patch)."""

    def extract() -> tuple[Patch | None, str | None, str | None]:
        try:
            return extract_patch(content), None, None
        except InvalidReply as exc:
            return None, exc.category, exc.reason

    return _EXTRACTED.get(content, extract)


def all_invalid(answers: Sequence[Answer]) -> Outcome:
    """The outcome of a method whose every sample is invalid: the first sample's error."""
    first = answers[0]
    return Outcome(
        error=first.error, reason=f"all {len(answers)} samples invalid; the first: {first.reason}"
    )


class SampleArtifacts:
    """The artifacts of a run's samples, remembered: the parallel rules of one case and seed
    merge the same samples, so each sample's artifact is computed once for all of them.
    Artifacts handed out are read, never changed. Recent ones only: the rules of one case and
    seed merge at about the same time."""

    def __init__(self, size: int = 256) -> None:
        self._memo: Memo[tuple[str, str], Any] = Memo(size)

    def of(self, case: Case, patches: Sequence[Patch | None]) -> list[Any]:
        """Each patch's artifact (MISSING for one that is None or does not apply)."""
        return [
            self._memo.get(
                (case.view_id, json.dumps(patch, sort_keys=True, ensure_ascii=False)),
                functools.partial(_sample_artifact, case, patch),
            )
            for patch in patches
        ]


def _sample_artifact(case: Case, patch: Patch | None) -> Any:
    return sample_artifacts(case.artifact, [patch])[0]


_CLOCK: contextvars.ContextVar[float] = contextvars.ContextVar("revprop_clock", default=0.0)
"""Model time on the critical path so far, in the task running a method (or a branch of it)."""


class MethodContext:
    """Everything a method may use: the case, k, the base seed, the prompts, and the model
    (through ``ask``), plus the merge rules. One context per method run. ``turn`` is the
    turn of a revision chain the run is for (0: the case's own revision, as in every run
    without ``--revprop-chain``; i: the chain's follow-up i, whose request, document and
    conversation the case shows)."""

    def __init__(
        self,
        method: str,
        case: Case,
        ask: Ask,
        *,
        k: int,
        seed: int,
        prompts: Prompts,
        artifacts: SampleArtifacts | None = None,
        turn: int = 0,
    ) -> None:
        self.method = method
        self.case = case.for_methods()
        self.k = k
        self.seed = seed
        self.turn = turn
        self.prompts = prompts
        self.artifacts = artifacts
        self._ask = ask
        self._calls: list[Call | None] = []
        self._latest = 0.0

    @property
    def calls(self) -> list[Call]:
        """The calls answered so far, in the order they were made."""
        return [c for c in self._calls if c is not None]

    @property
    def latency_s(self) -> float:
        """The critical path of the calls made so far."""
        return self._latest

    async def perform(self, method: Callable[[MethodContext], Awaitable[T]]) -> T:
        """Run ``method`` on this context, its critical path starting at zero."""
        token = _CLOCK.set(0.0)
        try:
            return await method(self)
        finally:
            _CLOCK.reset(token)

    async def ask(
        self,
        messages: list[Message],
        *,
        seed: int | None = None,
        role: CallRole = "sample",
        priority: int = 0,
    ) -> Reply:
        """Ask the model once (cached and de-duplicated like every call) at ``seed`` (default:
        the base seed). ``role``, one of ``CALL_ROLES``, says what the call is for: ``sample``
        (a revision), ``select``, ``reflect`` or ``map`` (docs/hooks.md, Call roles)."""
        if role not in CALL_ROLES:
            raise ValueError(f"role {role!r} of ctx.ask: one of {', '.join(CALL_ROLES)}")
        seed = self.seed if seed is None else seed
        slot = len(self._calls)
        self._calls.append(None)
        start = _CLOCK.get()
        try:
            reply = await self._ask(messages, seed, role, priority)
        except CallFailed as exc:  # name the call inside its method (role, seed, reflect round)
            raise exc.during(role, seed, priority if role == "reflect" else None) from None
        self._calls[slot] = Call(role, seed, reply)
        end = start + reply.latency_s
        _CLOCK.set(end)
        self._latest = max(self._latest, end)
        return reply

    async def revise(
        self, context: RevisionContext = "j+h", *, seed: int | None = None, priority: int = 0
    ) -> Answer:
        """One revision call with the built-in prompt of ``context`` (``j``, ``h`` or ``j+h``)."""
        messages = self.prompts.revision_messages(self.case, context)
        return Answer(await self.ask(messages, seed=seed, priority=priority))

    async def samples(self, n: int, *, context: RevisionContext = "j+h") -> list[Answer]:
        """``n`` revision calls in parallel at seeds s, s+1, ..., s+n-1 (the protocol's samples)."""
        messages = self.prompts.revision_messages(self.case, context)
        replies = await self.gather(*(self.ask(messages, seed=self.seed + i) for i in range(n)))
        return [Answer(r) for r in replies]

    async def gather(self, *calls: Awaitable[T]) -> list[T]:
        """Await ``calls`` together; on the critical path they count as the slowest."""
        start = _CLOCK.get()

        async def branch(call: Awaitable[T]) -> tuple[T, float]:
            result = await call
            return result, _CLOCK.get()

        done = await asyncio.gather(*(branch(c) for c in calls))
        _CLOCK.set(max((end for _, end in done), default=start))
        return [result for result, _ in done]

    @staticmethod
    def answer(reply: Reply) -> Answer:
        """A reply turned into a patch, or the reason it yields none."""
        return Answer(reply)

    def merge(self, answers: Sequence[Answer], rule: MergeRule) -> Outcome:
        """The samples combined by ``or``, ``and``, ``maj`` or ``med`` (merge.py)."""
        patches = [a.patch for a in answers]
        memo = self.artifacts
        base = self.case.artifact
        artifacts = sample_artifacts(base, patches) if memo is None else memo.of(self.case, patches)
        merged = merge_patches(base, patches, rule, artifacts=artifacts)
        if merged.patch is None:
            return all_invalid(answers)
        # the artifact its patch makes, for the score: the chosen sample's, or the merged one
        # (whose diff the patch is)
        made = merged.artifact if merged.chosen is None else artifacts[merged.chosen]
        return Outcome(merged.patch, artifact=made)

    def finish(self, outcome: Outcome) -> MethodRun:
        """The method run of this context, ending with ``outcome``."""
        return MethodRun(self.method, self.k, self.seed, outcome, self.calls, self.latency_s)


class NotAResult(Exception):
    """A method returned something that is no result; the message says what and why."""


def as_outcome(value: object) -> Outcome:
    """A method's return value (a patch, an Answer or an Outcome) as an Outcome; NotAResult
    names what is wrong with anything else: not one of those, a patch that is not a list of
    JSON objects, an error that is not one of ``OUTCOME_ERRORS``."""
    if isinstance(value, Answer):
        value = value.outcome()
    elif isinstance(value, list):
        value = Outcome(value)
    if not isinstance(value, Outcome):
        raise NotAResult(f"{_shown(value)}: not a patch, an Answer or an Outcome")
    if value.patch is not None:
        patch = value.patch
        ops_ok = isinstance(patch, list) and all(isinstance(op, dict) for op in patch)
        if ops_ok and is_finite_json(patch):
            return value
        raise NotAResult(f"the patch {_shown(patch)}: not a list of JSON objects (operations)")
    if value.error is None:
        value.error = "no_patch"
        value.reason = value.reason or "the method gave no patch"
    if value.error not in OUTCOME_ERRORS:
        raise NotAResult(
            f"an Outcome with the unknown error {value.error!r}"
            f" (one of {', '.join(OUTCOME_ERRORS)})"
        )
    return value


def _shown(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."
