"""A draft's chain: its follow-ups, one at a time, after the case's own revision.

For follow-up ``i`` (1-based) of a card that asks for N (listed, or N the writer proposes):

1. the **document before it** is the canonical one after the revision before it, as
   ``core.chain.canonical_after`` derives it for any case (the previous gold applied, with
   concrete values where a matcher stands); the declared dependencies' places move with
   each revision's array insertions and removals (``core.chain_judge.map_pointer``);
2. the **request**: the writer, in the same chat, is shown that document and what the
   follow-up changes (``synth_followup``) and answers ``{"request", "edit", "theme"}``,
   checked as the case's own request is (``checks.check_followup``) and re-asked likewise;
3. the **gold**: the gold model answers the turn as a run's ``teacher`` protocol shows it
   (``core.chain.teacher_view``: the conversation, each earlier revision answered by its
   concrete patch, the document before it), merged and checked as the first gold is
   (``gold_draft.draft_gold``);
4. the case with the follow-up must pass every loading rule, the chain's included.

A follow-up that fails its request checks after the re-asks, its gold, or the loading rules
**ends the chain**: the draft keeps the follow-ups before it (the later ones were to start
from the document after it, so none is tried), and ``ChainMade.failed`` says which one
failed, at which step and why. The budget or a failed call end the whole draft instead
(``BudgetReached``, ``CallFailed`` are raised): its record keeps what was made.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pytest_revprop.authoring.synth.asking import Asker, Attempt, Event, checked_step
from pytest_revprop.authoring.synth.cards import Card
from pytest_revprop.authoring.synth.checks import Dependency, RequestStep, check_followup
from pytest_revprop.authoring.synth.gold_draft import GoldDraft, GoldFailed, draft_gold
from pytest_revprop.core.cases import FOLLOWUPS_FIELD, Case, CaseError, Revision, dump_case
from pytest_revprop.core.chain import canonical_after, next_view, teacher_patch
from pytest_revprop.core.chain_judge import map_pointer
from pytest_revprop.core.patching import copy_json
from pytest_revprop.core.prompts import Prompts

FOLLOWUP_TEMPLATE = "synth_followup"
PROPOSED_CHANGE = (
    "one you choose, that a person working on this {domain} document would plausibly ask for next."
)
"""What a proposed follow-up changes, in the words the writer is shown."""


@dataclass(frozen=True)
class FollowupFailure:
    """The follow-up that ended the chain: its number (1-based), the step and the reasons."""

    number: int
    step: str
    reasons: list[str]

    def to_dict(self) -> dict[str, Any]:
        """As a draft's ``annotation.draft.followups_failed`` holds it."""
        return {"followup": self.number, "step": self.step, "reasons": self.reasons}


@dataclass
class ChainMade:
    """The follow-ups asked for, those made so far (file form), what each one's gold draft
    says for the annotator, and the follow-up that failed, if one did."""

    asked: int = 0
    followups: list[dict[str, Any]] = field(default_factory=list)
    drafts: list[dict[str, Any]] = field(default_factory=list)
    failed: FollowupFailure | None = None

    @property
    def untried(self) -> int:
        """The follow-ups asked for that were not tried (they came after a failed one)."""
        return self.asked - len(self.followups) - (self.failed is not None)


@dataclass(frozen=True)
class ChainAskers:
    """How a draft's golds and chain are drafted: the writer (going on in its accepted chat)
    and the gold model, with the run's prompts, re-asks and gold settings."""

    writer: Asker
    gold: Asker
    chat: list[dict[str, str]]
    prompts: Prompts
    max_reasks: int
    gold_rule: str
    gold_k: int
    gold_seed: int

    async def gold_for(self, case: Case, edit: dict[str, Any], turn: int = 0) -> GoldDraft:
        """The tentative gold of ``case`` (the view of chain turn ``turn``) for ``edit``."""
        return await draft_gold(
            case,
            edit,
            self.gold.method_ask(),
            rule=self.gold_rule,
            k=self.gold_k,
            seed=self.gold_seed,
            prompts=self.prompts,
            turn=turn,
        )


def change_text(card: Card, number: int) -> str:
    """What follow-up ``number`` (1-based) changes, as the writer reads it."""
    if card.followups:
        return card.followups[number - 1]
    return PROPOSED_CHANGE.format(domain=card.domain.replace("_", " "))


def followup_message(card: Card, prompts: Prompts, number: int, artifact: Any) -> dict[str, str]:
    """The user message asking the writer for follow-up ``number``'s request, on the
    canonical document before it."""
    text = prompts.render(
        FOLLOWUP_TEMPLATE,
        artifact=json.dumps(artifact, ensure_ascii=False, indent=1),
        number=str(number),
        count=str(card.followup_count),
        change=change_text(card, number),
    )
    return {"role": "user", "content": text}


def moved(dependencies: list[Dependency], case: Case, turn: int) -> list[Dependency]:
    """The dependencies with their places (in the document before revision ``turn`` of
    ``case``) moved by that revision's array insertions and removals
    (``core.chain_judge.map_pointer`` over its concrete patch); one whose place or every
    source it removes goes."""
    doc, patch = case.revision(turn).artifact, teacher_patch(case, turn)
    out = []
    for dep in dependencies:
        path = map_pointer(dep.path, doc, patch)
        sources = tuple(s for s in (map_pointer(s, doc, patch) for s in dep.sources) if s)
        if path is not None and sources:
            out.append(dataclasses.replace(dep, path=path, sources=sources))
    return out


async def draft_chain(
    card: Card,
    data: dict[str, Any],
    dependencies: list[Dependency],
    askers: ChainAskers,
    made: ChainMade,
    *,
    attempts: list[Attempt],
    event: Event | None = None,
) -> dict[str, Any]:
    """``data`` (the case's file data, turn 0's gold included) with the card's follow-ups,
    filled into ``made`` as they are accepted; stops at the first that fails (``made.failed``).
    Failed attempts of the writer go to ``attempts``."""
    case = Case.from_dict(data)
    deps = moved(dependencies, case, 0)
    for number in range(1, card.followup_count + 1):
        before = copy_json(canonical_after(case, number - 1))  # shared: the file gets a copy
        try:
            step = await _request(card, number, before, deps, askers, attempts, event)
            gold = await _gold(case, number, before, step, askers)
            followup = {
                "request": step.request,
                "reference": None,
                "gold": gold.gold,
                "artifact": before,
                "theme": step.theme,
            }
            case = _checked(data | {FOLLOWUPS_FIELD: [*made.followups, followup]})
        except _Ended as ended:
            made.failed = FollowupFailure(number, ended.step, ended.reasons)
            if event is not None:
                event(f"follow-up {number}: {ended.step} failed; the chain ends after {number - 1}")
            break
        made.followups.append(followup)
        made.drafts.append(_draft_note(step, gold))
        deps = moved(deps, case, number)
        if event is not None:
            event(f"follow-up {number}: {len(gold.gold)} gold operation(s)")
    if not made.followups:
        return data
    return data | {FOLLOWUPS_FIELD: list(made.followups)}


class _Ended(Exception):
    """A follow-up failed for good: the step and its reasons."""

    def __init__(self, step: str, reasons: list[str]) -> None:
        self.step = step
        self.reasons = reasons
        super().__init__(f"{step}: {'; '.join(reasons)}")


async def _request(
    card: Card,
    number: int,
    before: Any,
    deps: list[Dependency],
    askers: ChainAskers,
    attempts: list[Attempt],
    event: Event | None,
) -> RequestStep:
    """Follow-up ``number``'s request, asked in the writer's chat and checked."""
    chat = askers.chat
    chat.append(followup_message(card, askers.prompts, number, before))
    outcome = await checked_step(
        askers.writer,
        chat,
        partial(check_followup, artifact=before, dependencies=deps),
        step=f"follow-up {number}",
        prompts=askers.prompts,
        max_reasks=askers.max_reasks,
        attempts=attempts,
        event=event,
    )
    if outcome.value is None:
        raise _Ended("request", outcome.reasons)
    chat.append({"role": "assistant", "content": outcome.reply})
    return outcome.value


async def _gold(
    case: Case, number: int, before: Any, step: RequestStep, askers: ChainAskers
) -> GoldDraft:
    """Follow-up ``number``'s tentative gold, drafted on the turn as a run shows it."""
    view = next_view(case, Revision(step.request, None, [], before, step.theme))
    try:
        return await askers.gold_for(view, step.edit, number)
    except GoldFailed as exc:
        raise _Ended("gold", exc.reasons) from None


def _checked(data: dict[str, Any]) -> Case:
    """The case of ``data`` as its file would load, every rule of the chain included."""
    try:
        return Case.from_dict(json.loads(dump_case(data)))
    except CaseError as exc:
        raise _Ended("case", [str(exc)]) from None


def _draft_note(step: RequestStep, gold: GoldDraft) -> dict[str, Any]:
    """What the annotator is told about one follow-up's gold (``annotation.draft.followups``)."""
    return {
        "edit": step.edit,
        "seeds": gold.seeds,
        "gold_rule": gold.rule,
        "valid_samples": gold.valid_samples,
        "flags": gold.flags,
        "left_out": gold.left_out,
    }
