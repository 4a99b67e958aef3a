"""The revision methods of docs/protocol.md, written against the method-author API alone
(``method_context.MethodContext``), as any method a ``conftest.py`` registers is
(``registry.py``): the nine of the paper; ``dep`` is ``dep.py``'s. Seeds follow the protocol
exactly, so the ``j+h`` call at seed s is the first sample of every parallel method and the
cache shares it.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from pytest_revprop.core.cases import Case
from pytest_revprop.core.method_context import (
    Answer,
    MethodContext,
    all_invalid,
)
from pytest_revprop.core.outcome import Outcome, Patch
from pytest_revprop.core.patching import (
    PatchError,
    apply_operations,
    check_operations,
    diff,
)
from pytest_revprop.util.jsonutil import json_equal
from pytest_revprop.vocabulary import (
    MergeRule,
    RevisionContext,
)

# ------------------------------------------------------------------------------ the nine


def revision_in(context: RevisionContext) -> Callable[[MethodContext], Awaitable[Answer]]:
    """The single-call method of ``context``: one revision call at the base seed."""

    async def single(ctx: MethodContext) -> Answer:
        return await ctx.revise(context)

    single.__name__ = f"revision_in_{context}"
    return single


def merged_by(rule: MergeRule) -> Callable[[MethodContext], Awaitable[Outcome]]:
    """The parallel method of ``rule``: k samples of j+h, merged."""

    async def parallel(ctx: MethodContext) -> Outcome:
        return ctx.merge(await ctx.samples(ctx.k), rule)

    parallel.__name__ = f"merged_by_{rule}"
    return parallel


SELECTION_ANSWER = re.compile(r"^\W*(?:attempt|candidate|option)?\s*#?\s*(\d+)\W*$", re.IGNORECASE)


def parse_selection(text: str, n_candidates: int) -> int | None:
    """0-based index of the chosen candidate, or None when the answer is not one number in range."""
    match = SELECTION_ANSWER.match(text.strip()) if len(text) < 200 else None
    if match is None:
        return None
    number = int(match.group(1))
    return number - 1 if 1 <= number <= n_candidates else None


async def select(ctx: MethodContext) -> Outcome:
    """k-1 samples, then the model picks one of the valid ones (the first when its answer is
    not a candidate number)."""
    answers = await ctx.samples(ctx.k - 1)
    candidates = [a for a in answers if a.patch is not None]
    if not candidates:
        return all_invalid(answers)
    messages = ctx.prompts.selection_messages(ctx.case, [c.patch or [] for c in candidates])
    reply = await ctx.ask(messages, role="select", priority=1)
    index = (
        None if reply.finish_reason == "length" else parse_selection(reply.content, len(candidates))
    )
    return Outcome(
        candidates[0 if index is None else index].patch, selection_fallback=index is None
    )


async def reflect(ctx: MethodContext) -> Outcome:
    """One j+h revision, then k-1 rounds that show the model the patched document."""
    messages = ctx.prompts.revision_messages(ctx.case, "j+h")
    first = Answer(await ctx.ask(messages))
    last_reply = first.reply
    artifact = ctx.case.artifact
    any_valid = False
    if first.patch is not None:
        try:
            artifact = apply_operations(artifact, check_operations(first.patch))
            any_valid = True
        except PatchError:
            pass
    for round_ in range(1, ctx.k):
        messages = [
            *messages,
            {"role": "assistant", "content": last_reply.content},
            ctx.prompts.reflection_message(artifact),
        ]
        correction = Answer(await ctx.ask(messages, role="reflect", priority=round_))
        last_reply = correction.reply
        if correction.patch is None:
            continue
        try:
            artifact = apply_operations(artifact, check_operations(correction.patch))
            any_valid = True
        except PatchError:
            continue
    if not any_valid:
        return first.outcome()
    first_artifact = None if first.patch is None else _artifact_of(ctx.case, first.patch)
    if first_artifact is not None and json_equal(first_artifact, artifact):
        return Outcome(first.patch)
    return Outcome(diff(ctx.case.artifact, artifact))


def _artifact_of(case: Case, patch: Patch) -> Any:
    try:
        return apply_operations(case.artifact, check_operations(patch))
    except PatchError:
        return None
