"""The chain protocols of docs/protocol.md ("Revision chains") as objects: ``off`` (the case's
own revision alone), ``teacher`` and ``free``, one class each behind ``Protocol``'s small
interface. The run layer asks a protocol, never its name: the turns an item runs, the document
a turn starts from, the history entry a turn adds, how a turn is scored, which calls its items
share, and which call to probe to know whether an item makes calls. A new protocol is one more
class here (and its tests).

A turn's view (``core.chain.TurnView``) names itself by what it shows, so memos, the response
cache and shared scores key on the view: turn 0 is the same view in every protocol.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from pytest_revprop.core.cases import Case
from pytest_revprop.core.chain import (
    ChainTurn,
    chain_turns,
    judge_free,
    reference_patch,
    teacher_patch,
    teacher_view,
)
from pytest_revprop.core.extraction import InvalidReply
from pytest_revprop.core.outcome import Outcome
from pytest_revprop.core.scoring import Score, apply_patch, score_outcome
from pytest_revprop.util.jsonutil import MISSING
from pytest_revprop.vocabulary import CHAIN_OFF

Patch = list[dict[str, Any]]


class Protocol:
    """How the turns of an item run and are judged. ``chained``: the item is a chain (its
    record a chain record; ``off``: a single revision's). ``scoring``: the name of how a turn is
    scored; protocols that score alike share their scores of one view and patch.
    ``shares_calls``: the methods of one call group make the same calls on an item (so
    ``runner.calls_cover`` keeps one of them)."""

    name: ClassVar[str]
    chained: ClassVar[bool] = True
    scoring: ClassVar[str] = "single"
    shares_calls: ClassVar[bool] = True

    def steps(self, case: Case, turns: int | None) -> list[ChainTurn]:
        """The turns an item of ``case`` runs (``turns``: the follow-ups at most)."""
        return chain_turns(case, turns)

    def start(self, step: ChainTurn, document: Any) -> Any:
        """The document turn ``step`` starts from; ``document``: the model's own so far."""
        raise NotImplementedError

    def history_entry(self, case: Case, step: ChainTurn, patch: Patch | None, after: Any) -> Patch:
        """What turn ``step`` adds to the later turns' conversation as the assistant's patch
        (``patch``: the model's, ``after``: the document it made, MISSING when none)."""
        raise NotImplementedError

    def score(self, case: Case, view: Case, index: int, outcome: Outcome, after: Any) -> Score:
        """Turn ``index``'s score: the model's ``outcome`` on ``view``, the document it made
        ``after`` (MISSING: none)."""
        return score_outcome(view, outcome)

    def reference_patch(self, case: Case, index: int, solver: str) -> Patch | None:
        """What a reference solver answers at turn ``index``; None: the case's own answer."""
        return reference_patch(case, index, solver)

    def probe(self, case: Case, turns: int | None) -> Case | None:
        """The view whose first call, cached, says that an item's calls were made; None when
        no view can say it before the run (an item then counts as making calls)."""
        raise NotImplementedError


class Off(Protocol):
    """One revision: the case's own, scored as the paper scores it."""

    name = CHAIN_OFF
    chained = False

    def steps(self, case: Case, turns: int | None) -> list[ChainTurn]:
        """Turn 0 only."""
        return chain_turns(case, 0)

    def start(self, step: ChainTurn, document: Any) -> Any:
        """The case's artifact."""
        return step.artifact

    def history_entry(self, case: Case, step: ChainTurn, patch: Patch | None, after: Any) -> Patch:
        """Nothing: no turn follows."""
        return []

    def reference_patch(self, case: Case, index: int, solver: str) -> Patch | None:
        """The case's own answer (``askers.reference_ask``)."""
        return None

    def probe(self, case: Case, turns: int | None) -> Case | None:
        """The case's own revision."""
        return case


class Teacher(Protocol):
    """Every turn from the canonical document before it, after the teacher's patches, scored
    as a single revision."""

    name = "teacher"

    def start(self, step: ChainTurn, document: Any) -> Any:
        """The canonical document before the turn."""
        return step.artifact

    def history_entry(self, case: Case, step: ChainTurn, patch: Patch | None, after: Any) -> Patch:
        """The teacher's patch of the turn."""
        return teacher_patch(case, step.index)

    def probe(self, case: Case, turns: int | None) -> Case | None:
        """The last turn's view: its prompts depend on no reply."""
        return teacher_view(case, chain_turns(case, turns)[-1].index)


class Free(Protocol):
    """Every turn from the model's own document, after its own patches, judged against
    everything asked so far (``chain.judge_free``)."""

    name = "free"
    scoring = "free"
    shares_calls = False

    def start(self, step: ChainTurn, document: Any) -> Any:
        """The model's own document after the turn before."""
        return document

    def history_entry(self, case: Case, step: ChainTurn, patch: Patch | None, after: Any) -> Patch:
        """The model's patch, ``[]`` for one that made no document."""
        return [] if after is MISSING else copy.deepcopy(patch or [])

    def score(self, case: Case, view: Case, index: int, outcome: Outcome, after: Any) -> Score:
        """``judge_free`` of the document made; an invalid reply's own score when none."""
        if after is not MISSING:
            return judge_free(case, index, after)
        return _invalid(view, outcome)  # never on the view: its gold need not apply here

    def probe(self, case: Case, turns: int | None) -> Case | None:
        """None: the later turns show the model's own replies, which the run has not read."""
        return None


def _invalid(view: Case, outcome: Outcome) -> Score:
    """The score of a ``free`` turn whose reply gave no patch, or one that does not apply to
    the document the turn started from."""
    if outcome.patch is not None:
        try:
            apply_patch(view.artifact, outcome.patch)
        except InvalidReply as exc:
            return Score.invalid(exc, outcome.patch)
    judged = Outcome(error=outcome.error or "apply_error", reason=outcome.reason)
    return Score(completed=False, valid=False, outcome=judged)


PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (Off(), Teacher(), Free())}
"""Every protocol by its name (``--revprop-chain``'s values)."""


def protocol(name: str) -> Protocol:
    """The protocol named ``name``; ValueError for an unknown one."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise ValueError(f"unknown chain protocol {name!r}") from None


__all__ = ["PROTOCOLS", "Free", "Off", "Protocol", "Teacher", "protocol"]
