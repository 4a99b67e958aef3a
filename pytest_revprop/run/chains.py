"""Revision chains in a run (docs/interfaces.md, "Revision chains"): the turns of one item run
one after another, as its protocol (``core.protocols``) says. No pytest here.

Every item runs through ``run_chain``: an ``off`` item is a chain of one turn, a chain item of
a case with follow-ups runs turn 0 (the case's own revision), then turn i (its follow-up i).
Each turn's method runs unchanged on the case as ``core.chain.turn_view`` makes it, from the
document the protocol starts it from, after the history entries of the turns before:

- ``teacher``: the canonical document before the turn, the teacher's patches before it;
  scored like a single revision;
- ``free``: the model's own document after the turn before (an invalid turn leaves it as it
  was, and the conversation shows ``[]`` for it), its own patches before it; judged by
  ``core.chain.judge_free``, so an early miss shows in later turns and a repair counts.

``run_chain`` makes the calls on the runner's event loop (it only applies patches to go on);
``records.score_chain`` and the records judge the turns in the thread that asks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.cases import Case
from pytest_revprop.core.chain import turn_view
from pytest_revprop.core.extraction import InvalidReply
from pytest_revprop.core.method_context import MethodRun
from pytest_revprop.core.outcome import Outcome
from pytest_revprop.core.protocols import Protocol
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
    """An item as it ran: its protocol, its turns in order (fewer than its chain's when a turn
    failed for good, or when the spending ceiling stopped it: ``cut``, the ceiling's words)."""

    protocol: Protocol
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


async def run_chain(
    case: Case, protocol: Protocol, turns: int | None, run_turn: RunTurn
) -> ChainRun:
    """Run the turns of an item of ``case`` in order (``turns``: ``--revprop-turns``). A turn
    that failed for good (``call_failed``, ``method_failed``) ends the chain; the spending
    ceiling ends it after its first turn (``cut``) and leaves it unrun before (BudgetReached)."""
    steps = protocol.steps(case, turns)
    chain = ChainRun(protocol, [])
    history: list[list[dict[str, Any]]] = []
    document = case.artifact
    for step in steps:
        start = protocol.start(step, document)
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
        if run.outcome.error in INFRASTRUCTURE_ERRORS or step is steps[-1]:
            break
        history.append(protocol.history_entry(case, step, run.outcome.patch, after))
        if after is not MISSING:
            document = after
    return chain


__all__ = [
    "ChainCut",
    "ChainRun",
    "RunTurn",
    "TurnRun",
    "made_document",
    "run_chain",
]
