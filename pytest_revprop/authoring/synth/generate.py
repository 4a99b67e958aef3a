"""The writer: a card's conversation, one turn at a time, then the revision request.

One chat per draft, kept as it grows: the system prompt (the card), then for each turn the
turn prompt and the accepted reply (a failed attempt and its re-ask are dropped once a reply
passes). Each turn's reply is one JSON object: the user's message, the assistant's ``add``
patch, and the values it declares as depending on others. The turns stop once the document
holds the target's leaves, or after the card's ``max_turns``; then the size is checked, and
the request is asked. A step that still fails after its re-asks ends the draft as rejected.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pytest_revprop.authoring.synth.asking import Asker, Attempt, Event, checked_step
from pytest_revprop.authoring.synth.cards import Card
from pytest_revprop.authoring.synth.checks import (
    Dependency,
    Limits,
    RequestStep,
    TurnStep,
    check_request,
    check_size,
    check_turn,
)
from pytest_revprop.core.patching import apply_operations
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.util.jsonutil import leaf_count

SYNTH_TEMPLATES = (
    "synth_system", "synth_first_turn", "synth_next_turn", "synth_request", "synth_reask",
    "synth_followup", "synth_paraphrase_system", "synth_paraphrase",
)  # fmt: skip
"""The prompt templates of `revprop synth` (files in ``prompts/``, overridable one by one)."""


class Rejected(Exception):
    """A draft that failed a step for good: the step, and the reasons of its last attempt."""

    def __init__(self, step: str, reasons: list[str]) -> None:
        self.step = step
        self.reasons = reasons
        super().__init__(f"{step}: {'; '.join(reasons)}")


@dataclass
class Written:
    """What the writer has produced so far (all of it once the request is accepted)."""

    turns: list[TurnStep] = field(default_factory=list)
    artifact: Any = field(default_factory=dict)
    request: RequestStep | None = None
    attempts: list[Attempt] = field(default_factory=list)
    chat: list[dict[str, str]] = field(default_factory=list)
    """The writer's chat as accepted so far (the follow-ups go on in it)."""

    @property
    def dependencies(self) -> list[Dependency]:
        """Every turn's declared dependencies, in turn order."""
        return [dep for turn in self.turns for dep in turn.dependencies]

    def conversation(self) -> list[dict[str, Any]]:
        """The turns as a case file's ``conversation``."""
        return [{"user": t.user, "assistant": t.patch} for t in self.turns]


def check_templates(prompts: Prompts) -> None:
    """Fail now (UserError) on a broken user template of synth, not in the middle of a run."""
    for name in SYNTH_TEMPLATES:
        prompts.template(name)


def limits_of(card: Card) -> Limits:
    """How the card's document is to grow: its target leaf count, per-turn limit and tolerance."""
    return Limits(target=card.size, per_turn=card.leaves_per_turn, tolerance=card.tolerance)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)


def system_message(card: Card, prompts: Prompts) -> dict[str, str]:
    """The writer's system prompt: the card."""
    notes = f"- Notes from the person who asked for it: {card.notes}" if card.notes else ""
    text = prompts.render(
        "synth_system",
        domain=card.domain,
        theme=card.theme,
        conversation=" ".join(card.conversation.split()),
        edit=card.edit,
        cascade=card.cascade_text,
        notes=notes,
    )
    return {"role": "system", "content": text}


def turn_message(card: Card, prompts: Prompts, turn: int, artifact: Any) -> dict[str, str]:
    """The prompt for turn number ``turn`` (1-based) given the document so far."""
    values = {
        "turn": str(turn),
        "max_turns": str(card.max_turns),
        "target": str(card.size),
        "per_turn": str(card.leaves_per_turn),
    }
    if turn == 1:
        return {"role": "user", "content": prompts.render("synth_first_turn", **values)}
    so_far = leaf_count(artifact)
    text = prompts.render(
        "synth_next_turn",
        **values,
        so_far=str(so_far),
        remaining=str(max(card.size - so_far, 0)),
        artifact=_json(artifact),
    )
    return {"role": "user", "content": text}


def request_message(card: Card, prompts: Prompts, artifact: Any) -> dict[str, str]:
    """The user message that asks the writer for the revision request of ``card``'s edit."""
    text = prompts.render("synth_request", artifact=_json(artifact), edit=card.edit)
    return {"role": "user", "content": text}


async def write_case(
    card: Card,
    asker: Asker,
    prompts: Prompts,
    *,
    max_reasks: int,
    written: Written,
    event: Event | None = None,
) -> Written:
    """Fill ``written`` with the card's conversation and request; raises Rejected when a
    step fails for good (``written`` then holds what was accepted before it)."""
    limits = limits_of(card)
    chat = written.chat
    chat.append(system_message(card, prompts))
    for turn in range(1, card.max_turns + 1):
        if leaf_count(written.artifact) >= card.size:
            break
        chat.append(turn_message(card, prompts, turn, written.artifact))
        check = partial(
            check_turn,
            artifact=written.artifact,
            earlier=written.dependencies,
            limits=limits,
            turn=turn,
        )
        step = f"turn {turn}"
        outcome = await checked_step(
            asker,
            chat,
            check,
            step=step,
            prompts=prompts,
            max_reasks=max_reasks,
            attempts=written.attempts,
            event=event,
        )
        if outcome.value is None:
            raise Rejected(step, outcome.reasons)
        written.turns.append(outcome.value)
        written.artifact = apply_operations(written.artifact, outcome.value.patch)
        chat.append({"role": "assistant", "content": outcome.reply})
        if event is not None:
            event(f"{step}: {leaf_count(written.artifact)} of {card.size} leaves")
    reasons = check_size(written.artifact, limits, len(written.turns))
    if reasons:
        raise Rejected("size", reasons)
    chat.append(request_message(card, prompts, written.artifact))
    check_final = partial(
        check_request, artifact=written.artifact, dependencies=written.dependencies
    )
    outcome_request = await checked_step(
        asker,
        chat,
        check_final,
        step="request",
        prompts=prompts,
        max_reasks=max_reasks,
        attempts=written.attempts,
        event=event,
    )
    if outcome_request.value is None:
        raise Rejected("request", outcome_request.reasons)
    written.request = outcome_request.value
    chat.append({"role": "assistant", "content": outcome_request.reply})
    return written
