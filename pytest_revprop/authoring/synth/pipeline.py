"""One draft from start to file: a card's case (writer, tentative gold, case file), or one
reworded variant of an existing case.

Each ends in an ``Outcome`` and a file, whatever happens: ``draft`` (a valid case file),
``rejected`` (a step failed its checks after the re-asks, the gold could not be drafted, or
the case broke a loading rule), ``stopped`` (the budget ran out before the draft was done)
or ``failed`` (a model call failed for good): these write the rejected record, so nothing
made is lost, and a rerun answers the steps already made from the cache. ``skipped``: the
draft's case file holds a person's work (``drafts.persons_work``), so nothing is written.
A card that asks for follow-ups drafts them after the case's own gold (``followups``); a
follow-up that fails ends the chain there, and the draft is kept with the ones before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pytest_revprop.authoring.synth.asking import (
    Asker,
    Attempt,
    Event,
    Tally,
    checked_step,
)
from pytest_revprop.authoring.synth.cards import Card
from pytest_revprop.authoring.synth.drafts import (
    KeptWork,
    annotation,
    case_data,
    check_not_persons_work,
    context_case,
    file_for,
    rejected_record,
    write_case,
    write_rejected,
)
from pytest_revprop.authoring.synth.followups import ChainAskers, ChainMade, draft_chain
from pytest_revprop.authoring.synth.generate import Rejected, Written
from pytest_revprop.authoring.synth.generate import write_case as write_turns
from pytest_revprop.authoring.synth.gold_draft import GoldDraft, GoldFailed
from pytest_revprop.authoring.synth.paraphrase import (
    check_paraphrase,
    paraphrase_messages,
    variant_data,
    variant_id,
)
from pytest_revprop.core.askers import Completer
from pytest_revprop.core.cases import ANNOTATION_FIELD, Case, CaseError
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.llm.budget import BudgetReached
from pytest_revprop.llm.types import CallFailed

Status = Literal["draft", "rejected", "stopped", "failed", "skipped"]


@dataclass(frozen=True)
class Role:
    """A model in a role: its client and the name drafts record."""

    client: Completer
    name: str


@dataclass(frozen=True)
class Settings:
    """What every draft of a run shares."""

    out: Path
    prompts: Prompts
    writer: Role
    gold: Role
    max_reasks: int = 2
    gold_rule: str = "maj"
    gold_k: int = 3
    gold_seed: int = 0


@dataclass
class Outcome:
    """How one draft ended, for its progress line and the exit status."""

    id: str
    status: Status
    path: Path | None
    tally: Tally
    turns: int = 0
    reason: str = ""
    chain: ChainMade | None = None
    """A chained draft's follow-ups: asked, made, the one that failed (None: not a chain)."""


def card_case_id(card: Card, number: int) -> str:
    """The id of draft ``number`` (1-based) of ``card``."""
    return f"{card.id}/{card.size}-{number}"


async def card_draft(
    card: Card,
    number: int,
    settings: Settings,
    event: Event | None = None,
    *,
    priority: int = 0,
) -> Outcome:
    """Draft ``number`` of ``card``: writer seed ``number - 1``; its file is always written.
    ``priority``: its calls' (a run gives earlier drafts more, so that a budget finishes
    drafts rather than starting them all)."""
    draft = _CardDraft(card, number, settings)
    writer = Asker(settings.writer.client, draft.tally, seed=draft.seed, priority=priority)
    try:
        check_not_persons_work(file_for(settings.out, draft.id))
        await write_turns(
            card,
            writer,
            settings.prompts,
            max_reasks=settings.max_reasks,
            written=draft.written,
            event=_with_tally(event, draft.tally),
        )
        context = draft.context()
        request = draft.written.request
        assert request is not None
        askers = ChainAskers(
            writer,
            Asker(settings.gold.client, draft.tally, seed=settings.gold_seed, priority=priority),
            draft.written.chat,
            settings.prompts,
            settings.max_reasks,
            settings.gold_rule,
            settings.gold_k,
            settings.gold_seed,
        )
        gold = await askers.gold_for(context, request.edit)
        data = case_data(context, gold.gold)
        if card.followup_count:
            data = await draft_chain(
                card,
                data,
                draft.written.dependencies,
                askers,
                draft.chain,
                attempts=draft.written.attempts,
                event=_with_tally(event, draft.tally),
            )
        data[ANNOTATION_FIELD] = draft.annotation(gold)
        path = write_case(settings.out, data)
        return draft.outcome("draft", path)
    except KeptWork as kept:
        return _skipped(draft.id, kept, draft.tally)
    except FAILURES as exc:
        status, step, reasons = _failure(exc)
        if _not_started(status, draft.tally):
            return Outcome(draft.id, status, None, draft.tally, reason=f"not started: {reasons[0]}")
        samples = exc.samples if isinstance(exc, GoldFailed) else []
        return draft.rejected(status, step, reasons, samples)


FAILURES = (Rejected, GoldFailed, CaseError, BudgetReached, CallFailed)
"""How a draft can end without a case: each is recorded, never raised to the command."""


def _failure(exc: Exception) -> tuple[Status, str, list[str]]:
    """The status, the step and the reasons of a draft that ended with ``exc``."""
    if isinstance(exc, Rejected):
        return "rejected", exc.step, exc.reasons
    if isinstance(exc, GoldFailed):
        return "rejected", "gold", exc.reasons
    if isinstance(exc, CaseError):
        return "rejected", "case", [str(exc)]
    if isinstance(exc, BudgetReached):
        return "stopped", "budget", [str(exc)]
    if isinstance(exc, CallFailed):
        return "failed", "call", [f"a model call failed: {exc.reason}"]
    raise exc


def _skipped(case_id: str, kept: KeptWork, tally: Tally) -> Outcome:
    """A draft whose case file holds a person's work: nothing written, and why."""
    reason = f"{kept}; move it away (or use another --out) to draft it again"
    return Outcome(case_id, "skipped", kept.path, tally, reason=reason)


def _with_tally(event: Event | None, tally: Tally) -> Event | None:
    """``event`` with the draft's failed checks and cost so far appended to each line."""
    if event is None:
        return None

    def report(line: str) -> None:
        event(f"{line} · checks failed {tally.checks_failed} · cost ${tally.cost_usd:.4f}")

    return report


def _not_started(status: Status, tally: Tally) -> bool:
    """A draft the budget stopped before its first call: nothing to keep, no file."""
    return status == "stopped" and tally.calls == 0


@dataclass
class _CardDraft:
    """One draft of a card as it is being made: what the writer accepted, and its calls."""

    card: Card
    number: int
    settings: Settings
    tally: Tally = field(default_factory=Tally)
    written: Written = field(default_factory=Written)
    chain: ChainMade = field(init=False)

    def __post_init__(self) -> None:
        self.chain = ChainMade(asked=self.card.followup_count)

    @property
    def id(self) -> str:
        return card_case_id(self.card, self.number)

    @property
    def seed(self) -> int:
        return self.number - 1

    @property
    def models(self) -> dict[str, str]:
        return {"writer": self.settings.writer.name, "gold": self.settings.gold.name}

    def context(self) -> Case:
        """The finished draft as a case without gold (what the gold model is shown)."""
        card, written = self.card, self.written
        assert written.request is not None
        return context_case(
            case_id=self.id,
            scenario=card.id,
            domain=card.domain,
            pattern=card.pattern,
            split=card.split,
            theme=card.theme,
            conversation=written.conversation(),
            artifact=written.artifact,
            request=written.request.request,
            notes=self.case_notes(),
        )

    def case_notes(self) -> str:
        settings = self.settings
        rules = "; ".join(
            f"{d.path} from {', '.join(d.sources)}" + (f" ({d.rule})" if d.rule else "")
            for d in self.written.dependencies
        )
        return (
            f"Drafted by revprop synth from the card {self.card.label} (writer "
            f"{settings.writer.name}, seed {self.seed}; gold: {settings.gold_rule} of "
            f"{settings.gold_k} {settings.gold.name} samples). "
            f"Dependencies the writer declared: {rules or 'none'}."
        )

    def outcome(self, status: Status, path: Path | None, reason: str = "") -> Outcome:
        """How the draft ended (its follow-ups included, when the card asks for some)."""
        chain = self.chain if self.card.followup_count else None
        return Outcome(
            self.id, status, path, self.tally, len(self.written.turns), reason, chain=chain
        )

    def annotation(self, gold: GoldDraft) -> dict[str, Any]:
        """The draft case's ``annotation``: models, gold seeds, cost, flags, provenance (and
        each follow-up's gold flags, and the one that failed)."""
        return annotation(
            models=self.models,
            seeds=gold.seeds,
            cost_usd=self.tally.cost_usd,
            card=self.card.label,
            source=None,
            flags=gold.flags,
            notes=" ".join([_gold_notes(gold, self.settings), *self.chain_notes()]),
            extra={
                "writer_seed": self.seed,
                "gold_rule": gold.rule,
                "checks_failed": self.tally.checks_failed,
                "calls": self.tally.calls,
                "dependencies": [d.to_dict() for d in self.written.dependencies],
                "left_out": gold.left_out,
                **self.chain_record(),
            },
        )

    def chain_record(self) -> dict[str, Any]:
        """The chain's members of ``annotation.draft`` (none for a card without follow-ups)."""
        chain = self.chain
        if not self.card.followup_count:
            return {}
        out: dict[str, Any] = {"followups_asked": chain.asked, "followups": chain.drafts}
        if chain.failed is not None:
            out["followups_failed"] = chain.failed.to_dict()
        return out

    def chain_notes(self) -> list[str]:
        """What the annotation's notes say of the chain: the follow-up that failed, if any."""
        failed = self.chain.failed
        if failed is None:
            return []
        ends = f"after follow-up {failed.number - 1}" if failed.number > 1 else "before it starts"
        return [
            f"Follow-up {failed.number} of {self.chain.asked} failed at its {failed.step} "
            f"({failed.reasons[0]}): the chain ends {ends}."
        ]

    def rejected(
        self,
        status: Status,
        step: str,
        reasons: list[str],
        gold_samples: list[dict[str, Any]] | None = None,
    ) -> Outcome:
        """Write the rejected record (what was accepted, every failed attempt, and the gold
        samples' replies when the gold failed)."""
        written = self.written
        made = {
            "card": self.card.label,
            "conversation": written.conversation(),
            "artifact": written.artifact,
            "dependencies": [d.to_dict() for d in written.dependencies],
            "request": None if written.request is None else written.request.request,
            "edit": None if written.request is None else written.request.edit,
        }
        if gold_samples:
            made["gold_samples"] = gold_samples
        made |= {k: v for k, v in self.chain_record().items() if k != "followups"}
        if self.chain.followups:
            made["followups"] = self.chain.followups
        note = annotation(
            models=self.models,
            seeds=[self.seed],
            cost_usd=self.tally.cost_usd,
            card=self.card.label,
            source=None,
            extra={
                "writer_seed": self.seed,
                "checks_failed": self.tally.checks_failed,
                "calls": self.tally.calls,
            },
        )
        record = rejected_record(
            case_id=self.id,
            step=step,
            reasons=reasons,
            made=made,
            attempts=[a.to_dict() for a in written.attempts],
            note=note,
        )
        path = write_rejected(self.settings.out, self.id, record)
        return self.outcome(status, path, f"{step}: {reasons[0]}")


def _gold_notes(gold: GoldDraft, settings: Settings) -> str:
    parts = [
        f"Tentative gold: {gold.rule} of {len(gold.seeds)} j+h samples of {settings.gold.name} "
        f"({gold.valid_samples} valid); check every operation, the flagged ones first."
    ]
    if gold.left_out:
        shown = ", ".join(
            f"{e['path']} ({e['samples']} of {len(gold.seeds)})" for e in gold.left_out[:5]
        )
        parts.append(f"Changes some samples proposed but the merge left out: {shown}.")
    parts += [note[0].upper() + note[1:] + "." for note in gold.notes]
    return " ".join(parts)


async def paraphrase_draft(
    case: Case,
    number: int,
    settings: Settings,
    event: Event | None = None,
    *,
    priority: int = 0,
) -> Outcome:
    """Reworded variant ``number`` of ``case`` (writer seed ``number - 1``; ``priority`` as
    ``card_draft``'s)."""
    new_id = variant_id(case, number)
    tally = Tally()
    seed = number - 1
    writer = Asker(settings.writer.client, tally, seed=seed, priority=priority)
    attempts: list[Attempt] = []
    note_args: dict[str, Any] = {
        "models": {"writer": settings.writer.name},
        "seeds": [seed],
        "card": None,
        "source": case.id,
    }
    try:
        check_not_persons_work(file_for(settings.out, new_id))
        outcome = await checked_step(
            writer,
            paraphrase_messages(case, settings.prompts),
            lambda reply: check_paraphrase(reply, case),
            step="rewording",
            prompts=settings.prompts,
            max_reasks=settings.max_reasks,
            attempts=attempts,
            event=_with_tally(event, tally),
        )
        if outcome.value is None:
            raise Rejected("rewording", outcome.reasons)
        turns, request = outcome.value
        data = variant_data(case, number, turns, request)
        data["annotation"] = annotation(
            **note_args,
            cost_usd=tally.cost_usd,
            extra={"writer_seed": seed, "checks_failed": tally.checks_failed},
        )
        path = write_case(settings.out, data)
        return Outcome(new_id, "draft", path, tally, len(turns))
    except KeptWork as kept:
        return _skipped(new_id, kept, tally)
    except FAILURES as exc:
        status, step, reasons = _failure(exc)
        if _not_started(status, tally):
            return Outcome(new_id, status, None, tally, reason=f"not started: {reasons[0]}")
        record = rejected_record(
            case_id=new_id,
            step=step,
            reasons=reasons,
            made={"source": case.id},
            attempts=[a.to_dict() for a in attempts],
            note=annotation(**note_args, cost_usd=tally.cost_usd),
        )
        path = write_rejected(settings.out, new_id, record)
        return Outcome(new_id, status, path, tally, reason=f"{step}: {reasons[0]}")
