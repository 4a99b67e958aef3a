"""Revision chains in a run (docs/interfaces.md, "Revision chains"): the two options' values, the
turns of one chain run one after another, and the chain's record. No pytest here.

A chain item is one (case, model, method, k, seed) of a case with follow-ups, run under the
run's protocol (``--revprop-chain``): turn 0 is the case's own revision, turn i its follow-up
i. Each turn's method runs unchanged on the case as ``core.chain.turn_view`` makes it:

- ``teacher``: the turn starts from the canonical document before it, and the conversation
  shows the teacher's patches of the turns before; it is scored like a single revision;
- ``free``: the turn starts from the model's own document after the turn before (an invalid
  turn leaves it as it was, and the conversation shows ``[]`` for it); it is judged by
  ``core.chain.judge_free``, so an early miss shows in later turns and a repair counts.

``run_chain`` makes the calls on the runner's event loop (it only applies patches to go on);
``score_chain`` and ``chain_record`` judge the turns and build the record in the thread that
asks, as the runner does for single revisions.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.cases import Case
from pytest_revprop.core.chain import (
    chain_turns,
    teacher_patch,
    teacher_view,
    turn_view,
)
from pytest_revprop.core.extraction import InvalidReply
from pytest_revprop.core.methods import MethodRun
from pytest_revprop.core.outcome import Outcome
from pytest_revprop.core.scoring import apply_patch
from pytest_revprop.llm.budget import BudgetReached
from pytest_revprop.util.jsonutil import MISSING
from pytest_revprop.vocabulary import (
    INFRASTRUCTURE_ERRORS,
)


class ChainCut(BudgetReached):
    """The spending ceiling stopped a chain after its first turn: the item is not run (cut),
    and ``record`` is the chain's record of the turns it ran (its reason says so)."""

    def __init__(self, message: str, record: Any) -> None:
        super().__init__(message)
        self.record = record


RunTurn = Callable[[Case, int], Awaitable[MethodRun]]
"""How a chain runs one turn's method: ``run_turn(view, index)``, on the turn's view."""


# ------------------------------------------------------------------------------ running


@dataclass
class TurnRun:
    """One turn of a chain as it ran: the case its method saw (``view``: the turn's request,
    gold and starting document), the method's run, and the document after it (``after``:
    MISSING when the turn gave no patch that applies)."""

    index: int
    view: Case
    run: MethodRun
    after: Any = field(default=MISSING, repr=False)


@dataclass
class ChainRun:
    """A chain as it ran: its protocol, its turns in order (fewer than its chain's when a turn
    failed for good, or when the spending ceiling stopped it: ``cut``, the ceiling's words)."""

    protocol: str
    turns: list[TurnRun]
    cut: str | None = None

    @property
    def cost_usd(self) -> float:
        """What the chain's calls cost."""
        return sum(turn.run.cost_usd for turn in self.turns)


def made_document(start: Any, outcome: Outcome) -> Any:
    """The document ``outcome``'s patch makes of ``start`` (the artifact the method has
    already, else the patch applied); MISSING when there is no patch or it does not apply."""
    if outcome.patch is None:
        return MISSING
    if outcome.artifact is not MISSING:
        return outcome.artifact
    try:
        return apply_patch(start, outcome.patch)
    except InvalidReply:
        return MISSING


def last_teacher_view(case: Case, turns: int | None) -> Case:
    """The view of the last turn of ``case``'s ``teacher`` chain: its prompts depend on no
    reply, so the cache holding its first call says the chain's calls were made."""
    return teacher_view(case, chain_turns(case, turns)[-1].index)


async def run_chain(case: Case, protocol: str, turns: int | None, run_turn: RunTurn) -> ChainRun:
    """Run the turns of ``case``'s chain in order (``turns``: ``--revprop-turns``). A turn that
    failed for good (``call_failed``, ``method_failed``) ends the chain; the spending ceiling
    ends it after its first turn (``cut``) and leaves it unrun before (BudgetReached)."""
    steps = chain_turns(case, turns)
    chain = ChainRun(protocol, [])
    history: list[list[dict[str, Any]]] = []
    document = case.artifact
    for step in steps:
        start = step.artifact if protocol == "teacher" else document
        view = turn_view(case, step.index, start, history)
        try:
            run = await run_turn(view, step.index)
        except BudgetReached as exc:
            if not chain.turns:
                raise
            chain.cut = str(exc)
            break
        after = made_document(start, run.outcome)
        chain.turns.append(TurnRun(step.index, view, run, after))
        if run.outcome.error in INFRASTRUCTURE_ERRORS:
            break
        if protocol == "teacher":
            history.append(teacher_patch(case, step.index) if step.index < len(steps) - 1 else [])
        elif after is MISSING:
            history.append([])
        else:
            history.append(copy.deepcopy(run.outcome.patch or []))
            document = after
    return chain


__all__ = [
    "ChainCut",
    "ChainRun",
    "RunTurn",
    "TurnRun",
    "last_teacher_view",
    "made_document",
    "run_chain",
]
