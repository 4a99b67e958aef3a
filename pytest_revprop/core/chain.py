"""Revision chains: a case's own revision and its follow-ups as turns, what a method sees at
each turn, and how a turn is judged in the two protocols of docs/protocol.md ("Revision
chains").

Turn 0 is the case's own revision; turn ``i >= 1`` is ``case.followups[i - 1]``. ``teacher``
starts every turn from the canonical document before it and scores it as a single revision
(``scoring.score_patch`` on ``turn_view``); ``free`` starts each turn from the model's own
document and judges it with ``judge_free``: every place some revision so far governs must meet
the latest requirement on it, every other place must keep its original value.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_revprop.core.cases import Case, GoldOp, Revision, Turn
from pytest_revprop.core.chain_judge import ChainPlan, chain_plan, judge_chain, regressions
from pytest_revprop.core.chain_places import chain_places, make_steps
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.core.patching import PatchError, apply_operations, copy_json, diff
from pytest_revprop.core.scoring import Score
from pytest_revprop.util.jsonutil import MISSING, json_equal, resolve
from pytest_revprop.util.memo import Memo

__all__ = [
    "ChainTurn",
    "TurnView",
    "canonical_after",
    "chain_turns",
    "judge_free",
    "next_view",
    "reference_patch",
    "teacher_patch",
    "teacher_view",
    "turn_regressions",
    "turn_view",
    "view_identity",
]


@dataclass(frozen=True)
class ChainTurn:
    """One turn of a chain: its index and the case's revision it runs."""

    index: int
    revision: Revision

    @property
    def request(self) -> str:
        """The revision's request."""
        return self.revision.request

    @property
    def reference(self) -> Any:
        """The revision's reference data."""
        return self.revision.reference

    @property
    def gold(self) -> list[GoldOp]:
        """The revision's gold, relative to ``artifact``."""
        return self.revision.gold

    @property
    def artifact(self) -> Any:
        """The canonical document before the turn."""
        return self.revision.artifact


def chain_turns(case: Case, turns: int | None = None) -> list[ChainTurn]:
    """The turns of ``case``'s chain: its own revision, then at most ``turns`` follow-ups
    (None: all of them), so ``1 + min(turns, len(case.followups))`` turns."""
    if turns is not None and turns < 0:
        raise ValueError(f"turns must be at least 0, not {turns}")
    count = len(case.revisions) if turns is None else min(turns + 1, len(case.revisions))
    return [ChainTurn(i, revision) for i, revision in enumerate(case.revisions[:count])]


def _turn(case: Case, index: int) -> ChainTurn:
    return ChainTurn(index, case.revision(index))


def canonical_after(case: Case, index: int) -> Any:
    """The canonical document after turn ``index``: the artifact of the next follow-up, or
    for the last turn its literal gold (regex places by an example) applied. Shared: callers
    must not modify it."""
    return _canonical(case, index)[1]


_CANONICAL: Memo[tuple[int, int], tuple[Case, Any, list[dict[str, Any]] | None]] = Memo(4096)
"""By ``(id(case), index)``: the case, the document after the turn and the turn's concrete
gold operations (None: they do not make it); an entry holds its case, so its id stays."""


def _canonical(case: Case, index: int) -> tuple[Case, Any, list[dict[str, Any]] | None]:
    def make() -> tuple[Case, Any, list[dict[str, Any]] | None]:
        turn = _turn(case, index)
        if index < len(case.followups):
            after = case.followups[index].artifact
        else:
            single = case.only(index)
            after = apply_operations(turn.artifact, literal_gold_patch(single) or single.gold_patch)
        return case, after, _concrete(turn, after)

    return _CANONICAL.get((id(case), index), make)


def teacher_patch(case: Case, index: int) -> list[dict[str, Any]]:
    """The concrete patch that takes the canonical document before turn ``index`` to the one
    after it: the turn's gold operations with each value read from the document after (never
    a matcher's pattern), or ``patching.diff`` of the two documents when those do not make it
    exactly."""
    _, after, concrete = _canonical(case, index)
    if concrete is not None:
        return copy_json(concrete)  # type: ignore[no-any-return]
    return diff(_turn(case, index).artifact, after)


def _concrete(turn: ChainTurn, after: Any) -> list[dict[str, Any]] | None:
    """The turn's gold operations, one for one, with a matcher's or an optional operation's
    value read from ``after``, the canonical document after it, where its place ends up (a
    strict one keeps its value); None when they do not make that document exactly."""
    try:
        steps = make_steps([(turn.index, turn.revision, None)])
    except PatchError:
        return None
    patch: list[dict[str, Any]] = []
    for step, place in zip(steps, chain_places(steps), strict=True):
        op: dict[str, Any] = {"op": step.op.op, "path": step.path}
        if step.op.op != "remove":
            value = step.op.value
            if (step.op.match != "strict" or step.op.optional) and place.ended is None:
                value = resolve(after, place.at)
                if value is MISSING:
                    return None
            op["value"] = copy.deepcopy(value)
        patch.append(op)
    try:
        made = apply_operations(turn.artifact, patch)
    except PatchError:
        return None
    return patch if json_equal(made, after) else None


def reference_patch(case: Case, index: int, solver: str) -> list[dict[str, Any]]:
    """What a reference solver (``methods.REFERENCE_SOLVERS``) answers at turn ``index`` of a
    chain, whichever document it starts from: ``gold`` the teacher patch, ``noop`` ``[]``,
    ``direct-only`` the turn's direct operations with the teacher patch's values (the gold's
    own values, regex ones by an example, when the teacher patch is a diff)."""
    if solver == "noop":
        return []
    if solver == "gold":
        return teacher_patch(case, index)
    if solver != "direct-only":
        raise ValueError(f"unknown reference solver {solver!r}")
    turn = _turn(case, index)
    concrete = _canonical(case, index)[2]
    if concrete is None:
        single = case.only(index)
        concrete = literal_gold_patch(single) or single.gold_patch
    direct = [op for op, gold in zip(concrete, turn.gold, strict=True) if gold.kind == "direct"]
    return copy_json(direct)  # type: ignore[no-any-return]


@dataclass(frozen=True, kw_only=True)
class TurnView(Case):
    """The case a method sees at a chain's turn (``turn_view``): a Case, with the turn it is
    for and its own identity, derived from what it shows."""

    turn: int = 0
    shows: str = ""
    """The view's identity (``view_id``): the case's id for turn 0 on the case's own artifact
    (the same view in every protocol, and an ``off`` run's), else the case's id, the turn and
    a digest of the history and the start document."""

    @property
    def view_id(self) -> str:
        """What names what the view shows (``shows``)."""
        return self.shows


def view_identity(
    case: Case, index: int, start: Any, history: Sequence[Sequence[dict[str, Any]]]
) -> str:
    """The identity of the view of ``case``'s turn ``index`` from ``start`` after ``history``."""
    if index == 0 and not history and (start is case.artifact or json_equal(start, case.artifact)):
        return case.id
    shown = json.dumps([start, list(history)], sort_keys=True, ensure_ascii=False)
    return f"{case.id}#{index}:{hashlib.sha256(shown.encode()).hexdigest()[:20]}"


def turn_view(
    case: Case, index: int, start: Any, history: Sequence[Sequence[dict[str, Any]]]
) -> TurnView:
    """The case a method sees at turn ``index`` (and, in ``teacher``, the one its reply is
    scored on): the conversation with one more turn per earlier chain turn (its request with
    its reference data, as the user gave them, and ``history[j]`` as the assistant's patch),
    ``start`` as the artifact, and turn ``index``'s request, reference data and gold; no
    follow-ups; its identity (``view_identity``). Not replay-checked: in ``free`` the history
    is the model's own patches, which need not make ``start`` from the artifact."""
    turn = _turn(case, index)
    if len(history) != index:
        raise ValueError(
            f"turn {index} needs the patches of {index} earlier turn(s), got {len(history)}"
        )
    earlier = chain_turns(case)[:index]
    conversation = [
        *case.conversation,
        *(
            Turn(t.request, [dict(op) for op in ops], t.reference)
            for t, ops in zip(earlier, history, strict=True)
        ),
    ]
    single = case.only(turn.index, artifact=start)
    fields = {f.name: getattr(single, f.name) for f in dataclasses.fields(Case)}
    return TurnView(
        **{**fields, "conversation": conversation},
        turn=index,
        shows=view_identity(case, index, start, history),
    )


def teacher_view(case: Case, index: int) -> TurnView:
    """Turn ``index`` as the ``teacher`` protocol shows it: from the canonical document before
    it, each earlier turn answered by its teacher patch (what a teacher turn is scored on)."""
    start = _turn(case, index).artifact
    return turn_view(case, index, start, [teacher_patch(case, j) for j in range(index)])


def next_view(case: Case, revision: Revision) -> TurnView:
    """``revision`` as a next turn after ``case``'s last, as ``teacher_view`` shows a turn of the
    chain: its artifact is the document before it (a gold drafted or written for it is not
    needed; an empty gold is fine)."""
    longer = dataclasses.replace(case, revisions=(*case.revisions, revision))
    return teacher_view(longer, len(case.revisions))


# ---------------------------------------------------------------------------- free judging


_PLANS: Memo[tuple[int, int], tuple[Case, ChainPlan]] = Memo(4096)
"""By ``(id(case), index)``: an entry holds its case, so the id is not reused meanwhile."""


def _plan(case: Case, index: int) -> ChainPlan:
    """The places of turns 0..``index`` (``core.chain_places``), judged against the canonical
    document after turn ``index``."""

    def make() -> tuple[Case, ChainPlan]:
        turns = [
            (t.index, t.revision, _canonical(case, t.index)[2])
            for t in chain_turns(case)[: _turn(case, index).index + 1]
        ]
        return case, chain_plan(turns, canonical_after(case, index))

    return _PLANS.get((id(case), index), make)[1]


def judge_free(
    case: Case, index: int, document: Any, *, patch: list[dict[str, Any]] | None = None
) -> Score:
    """Judge ``document``, the model's document after turn ``index`` in ``free``: completed
    iff every place some revision 0..index governs meets the latest gold operation on it (its
    matcher, with the later operations inside it put back; ``ref_equal`` resolved in
    ``document``; an optional one may also keep its value from before its operation) and every
    other place keeps its value in ``case.artifact`` (moved by the revisions' array insertions
    and removals). Findings are a single revision's (``scoring.Judge``), at pointers of
    ``document``. ``patch``: the turn's patch, kept in the score's outcome."""
    return judge_chain(case, _plan(case, index), document, patch)


# ---------------------------------------------------------------------------- regressions


def turn_regressions(
    case: Case, index: int, before: Any, patch: Sequence[dict[str, Any]]
) -> list[str]:
    """The places an earlier turn governs that met their requirement in ``before`` (the
    document turn ``index`` started from) and no longer do once ``patch`` (the turn's patch)
    is applied, at their pointers in the document after it (a removed place: its pointer
    before); ``chain_judge.regressions`` says how. In ``teacher``, ``before`` is the canonical
    document (which meets every requirement), so these are the earlier places the turn's patch
    breaks; in ``free``, the model's own document. Turn 0 has none; a patch that does not
    apply breaks nothing."""
    if index == 0:
        return []
    return regressions(_plan(case, index), index, before, patch)
