"""The nine revision methods of docs/protocol.md, as small async functions over one ``ask``
callable.

Every method returns a ``MethodRun``: the final patch (or why there is none), the calls it
made with their usage, and its cost (the sum) and latency (the critical path: parallel calls
count as the slowest, sequential calls add up). Seeds follow the protocol exactly, so the
``j+h`` call at seed s is the first sample of every parallel method and the cache shares it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_revprop.cases import Case
from pytest_revprop.jsonutil import json_equal
from pytest_revprop.llm.types import CallFailed, Reply, Request
from pytest_revprop.merge import merge_patches, sample_artifacts
from pytest_revprop.patching import PatchError, apply_operations, check_operations, copy_json, diff
from pytest_revprop.prompts import Prompts, default_prompts
from pytest_revprop.scoring import (
    InvalidReply,
    Score,
    extract_patch,
    literal_gold_patch,
    score_patch,
)
from pytest_revprop.vocabulary import (
    K_METHODS,
    MERGE_RULES,
    MIN_K,
    SINGLE_CALL_METHODS,
    CallRole,
    FailedCall,
)

Message = dict[str, str]


class Completer(Protocol):
    """What methods need from a model: Client satisfies it."""

    def make_request(
        self, messages: Sequence[dict[str, str]], seed: int, structured: bool = False
    ) -> Request: ...

    async def complete(self, request: Request, *, priority: int = 0) -> Reply: ...


# ask(messages, seed, purpose, priority) -> Reply ; purpose: "revise" | "select" | "reflect"
Ask = Callable[[list[Message], int, str, int], Awaitable[Reply]]


@dataclass
class Call:
    role: CallRole
    seed: int
    reply: Reply

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "seed": self.seed, **self.reply.to_dict()}


@dataclass
class MethodRun:
    method: str
    k: int
    seed: int
    patch: list[dict[str, Any]] | None = None
    error: str | None = None  # an invalid category, "truncated" or "call_failed"
    reason: str | None = None
    calls: list[Call] = field(default_factory=list)
    latency_s: float = 0.0
    selection_fallback: bool | None = None
    failed_call: FailedCall | None = None
    """The call that failed for good, when ``error`` is ``call_failed``."""

    @property
    def cost_usd(self) -> float:
        return sum(c.reply.cost_usd for c in self.calls)

    def score(self, case: Case) -> Score:
        if self.patch is None:
            return Score(completed=False, valid=False, error=self.error, reason=self.reason)
        return score_patch(case, self.patch)


_PURPOSES: dict[CallRole, str] = {"sample": "revise", "select": "select", "reflect": "reflect"}
_PRIORITIES: dict[CallRole, int] = {"sample": 0, "select": 1}
"""Later calls of a method go first: a selection, and each reflect round by its number."""


async def _asked(
    ask: Ask, messages: list[Message], seed: int, role: CallRole, round_: int | None = None
) -> Reply:
    """The reply to one call of a method; a CallFailed names the call (role, seed, round)."""
    priority = round_ if round_ is not None else _PRIORITIES[role]
    try:
        return await ask(messages, seed, _PURPOSES[role], priority)
    except CallFailed as exc:
        raise exc.during(role, seed, round_) from None


class _Answer:
    """One reply turned into a patch, or the reason it yields none."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.patch: list[dict[str, Any]] | None = None
        self.error: str | None = None
        self.reason: str | None = None
        if reply.finish_reason == "length":
            self.error, self.reason = "truncated", "the reply was cut off at the output limit"
            return
        patch, self.error, self.reason = _extracted(reply.content)
        self.patch = None if patch is None else copy_json(patch)


@functools.lru_cache(maxsize=4096)
def _extracted(content: str) -> tuple[list[dict[str, Any]] | None, str | None, str | None]:
    """The patch in a reply, or why there is none; remembered, as the items of a run read
    the same replies many times (callers copy the patch)."""
    try:
        return extract_patch(content), None, None
    except InvalidReply as exc:
        return None, exc.category, exc.reason


async def _single(ask: Ask, prompts: Prompts, case: Case, context: str, seed: int) -> MethodRun:
    reply = await _asked(ask, prompts.revision_messages(case, context), seed, "sample")
    answer = _Answer(reply)
    run = MethodRun(
        context, 1, seed, calls=[Call("sample", seed, reply)], latency_s=reply.latency_s
    )
    run.patch, run.error, run.reason = answer.patch, answer.error, answer.reason
    return run


async def _samples(ask: Ask, prompts: Prompts, case: Case, seed: int, n: int) -> list[_Answer]:
    messages = prompts.revision_messages(case, "j+h")
    replies = await asyncio.gather(*(_asked(ask, messages, seed + i, "sample") for i in range(n)))
    return [_Answer(r) for r in replies]


def _all_invalid(run: MethodRun, answers: Sequence[_Answer]) -> MethodRun:
    first = answers[0]
    run.error = first.error
    run.reason = f"all {len(answers)} samples invalid; the first: {first.reason}"
    return run


class SharedWork:
    """Work that the items of one run share: the parallel rules of one case and seed merge
    the same samples, so each sample's artifact is computed once. Artifacts handed out are
    read, never changed. Recent entries only: the rules of one case and seed merge at about
    the same time."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._artifacts: dict[tuple[str, str], Any] = {}

    def sample_artifacts(
        self, case: Case, patches: Sequence[list[dict[str, Any]] | None]
    ) -> list[Any]:
        out = []
        for patch in patches:
            key = (case.id, json.dumps(patch, sort_keys=True, ensure_ascii=False))
            artifact = self._artifacts.get(key, _UNSET)
            if artifact is _UNSET:
                if len(self._artifacts) >= self.size:
                    del self._artifacts[next(iter(self._artifacts))]
                artifact = self._artifacts[key] = sample_artifacts(case.artifact, [patch])[0]
            out.append(artifact)
        return out


_UNSET = object()


async def _parallel(
    ask: Ask, prompts: Prompts, case: Case, rule: str, k: int, seed: int, shared: SharedWork | None
) -> MethodRun:
    answers = await _samples(ask, prompts, case, seed, k)
    run = MethodRun(
        rule, k, seed, calls=[Call("sample", seed + i, a.reply) for i, a in enumerate(answers)]
    )
    run.latency_s = max(a.reply.latency_s for a in answers)
    patches = [a.patch for a in answers]
    artifacts = None if shared is None else shared.sample_artifacts(case, patches)
    merged = merge_patches(case.artifact, patches, rule, artifacts=artifacts)
    if merged.patch is None:
        return _all_invalid(run, answers)
    run.patch = merged.patch
    return run


SELECTION_ANSWER = re.compile(r"^\W*(?:attempt|candidate|option)?\s*#?\s*(\d+)\W*$", re.IGNORECASE)


def parse_selection(text: str, n_candidates: int) -> int | None:
    """0-based index of the chosen candidate, or None when the answer is not one number in range."""
    match = SELECTION_ANSWER.match(text.strip()) if len(text) < 200 else None
    if match is None:
        return None
    number = int(match.group(1))
    return number - 1 if 1 <= number <= n_candidates else None


async def _select(ask: Ask, prompts: Prompts, case: Case, k: int, seed: int) -> MethodRun:
    answers = await _samples(ask, prompts, case, seed, k - 1)
    run = MethodRun(
        "select", k, seed, calls=[Call("sample", seed + i, a.reply) for i, a in enumerate(answers)]
    )
    sampling_latency = max(a.reply.latency_s for a in answers)
    candidates = [a for a in answers if a.patch is not None]
    if not candidates:
        run.latency_s = sampling_latency
        return _all_invalid(run, answers)
    messages = prompts.selection_messages(case, [c.patch or [] for c in candidates])
    reply = await _asked(ask, messages, seed, "select")
    run.calls.append(Call("select", seed, reply))
    run.latency_s = sampling_latency + reply.latency_s
    index = (
        None if reply.finish_reason == "length" else parse_selection(reply.content, len(candidates))
    )
    run.selection_fallback = index is None
    run.patch = candidates[0 if index is None else index].patch
    return run


async def _reflect(ask: Ask, prompts: Prompts, case: Case, k: int, seed: int) -> MethodRun:
    messages = prompts.revision_messages(case, "j+h")
    first = _Answer(await _asked(ask, messages, seed, "sample"))
    run = MethodRun(
        "reflect",
        k,
        seed,
        calls=[Call("sample", seed, first.reply)],
        latency_s=first.reply.latency_s,
    )
    artifact = case.artifact
    any_valid = False
    if first.patch is not None:
        try:
            artifact = apply_operations(artifact, check_operations(first.patch))
            any_valid = True
        except PatchError:
            pass
    for round_ in range(1, k):
        messages = [
            *messages,
            {"role": "assistant", "content": run.calls[-1].reply.content},
            prompts.reflection_message(artifact),
        ]
        correction = _Answer(await _asked(ask, messages, seed, "reflect", round_))
        run.calls.append(Call("reflect", seed, correction.reply))
        run.latency_s += correction.reply.latency_s
        if correction.patch is None:
            continue
        try:
            artifact = apply_operations(artifact, check_operations(correction.patch))
            any_valid = True
        except PatchError:
            continue
    if not any_valid:
        run.patch, run.error, run.reason = first.patch, first.error, first.reason
        return run
    if (
        first.patch is not None
        and _artifact_of(case, first.patch) is not None
        and json_equal(_artifact_of(case, first.patch), artifact)
    ):
        run.patch = first.patch
    else:
        run.patch = diff(case.artifact, artifact)
    return run


def _artifact_of(case: Case, patch: list[dict[str, Any]]) -> Any:
    try:
        return apply_operations(case.artifact, check_operations(patch))
    except PatchError:
        return None


async def run_method(
    method: str,
    case: Case,
    ask: Ask,
    *,
    k: int,
    seed: int,
    prompts: Prompts | None = None,
    shared: SharedWork | None = None,
) -> MethodRun:
    """Run one method on one case at base seed ``seed``. A call that fails for good gives a run
    with ``error="call_failed"`` (an infrastructure error, not the model's). ``shared``: work
    shared with the other items of a run (see SharedWork)."""
    prompts = prompts or default_prompts()
    try:
        if method in SINGLE_CALL_METHODS:
            return await _single(ask, prompts, case, method, seed)
        if method in MERGE_RULES:
            return await _parallel(ask, prompts, case, method, k, seed, shared)
        if method == "select":
            if k < MIN_K["select"]:
                raise ValueError("select needs k >= 3")
            return await _select(ask, prompts, case, k, seed)
        if method == "reflect":
            return await _reflect(ask, prompts, case, k, seed)
    except CallFailed as exc:
        return MethodRun(
            method,
            k if method in K_METHODS else 1,
            seed,
            error="call_failed",
            reason=exc.reason,
            failed_call=exc.details,
        )
    raise ValueError(f"unknown method {method!r}")


# ------------------------------------------------------------------------------ askers


def client_ask(completer: Completer, *, structured: bool = False) -> Ask:
    """An Ask that sends every call through ``completer`` (a Client): cached, de-duplicated."""

    async def ask(messages: list[Message], seed: int, purpose: str, priority: int) -> Reply:
        return await completer.complete(
            completer.make_request(messages, seed, structured), priority=priority
        )

    return ask


REFERENCE_SOLVERS = ("gold", "noop", "direct-only")


def reference_ask(case: Case, solver: str) -> Ask:
    """An Ask that answers without any network call: the gold patch, ``[]``, or the direct ops.

    Selection calls answer ``1``; reflection rounds answer ``[]``.
    """
    if solver not in REFERENCE_SOLVERS:
        raise ValueError(f"unknown reference solver {solver!r}")
    literal = literal_gold_patch(case) or case.gold_patch
    direct = [op for op, gold in zip(literal, case.gold, strict=True) if gold.kind == "direct"]
    patch = {"gold": literal, "noop": [], "direct-only": direct}[solver]

    async def ask(messages: list[Message], seed: int, purpose: str, priority: int) -> Reply:
        content = {"revise": json.dumps(patch), "select": "1", "reflect": "[]"}[purpose]
        return Reply(content=content, finish_reason="stop")

    return ask
