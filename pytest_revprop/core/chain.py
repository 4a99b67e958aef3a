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
import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_revprop.core.cases import Case, GoldOp, Turn
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.core.patching import (
    PatchError,
    apply_operations,
    check_operations,
    copy_json,
    diff,
)
from pytest_revprop.core.scoring import (
    GoldPlace,
    Judge,
    Score,
    Unit,
    array_parent,
    gold_geometry,
    gold_places,
    shift_pointer,
)
from pytest_revprop.util.jsonutil import MISSING, child_pointer, is_within, json_equal, resolve
from pytest_revprop.util.memo import Memo
from pytest_revprop.util.regexguard import regex_budget

__all__ = [
    "ChainTurn",
    "TurnView",
    "canonical_after",
    "chain_turns",
    "judge_free",
    "map_pointer",
    "reference_patch",
    "teacher_patch",
    "teacher_view",
    "turn_regressions",
    "turn_view",
    "view_identity",
]


@dataclass(frozen=True)
class ChainTurn:
    """One turn of a chain: its index, request, reference data, gold (relative to ``artifact``)
    and ``artifact``, the canonical document before it."""

    index: int
    request: str
    reference: Any
    gold: list[GoldOp]
    artifact: Any


def chain_turns(case: Case, turns: int | None = None) -> list[ChainTurn]:
    """The turns of ``case``'s chain: its own revision, then at most ``turns`` follow-ups
    (None: all of them), so ``1 + min(turns, len(case.followups))`` turns."""
    if turns is not None and turns < 0:
        raise ValueError(f"turns must be at least 0, not {turns}")
    count = len(case.followups) if turns is None else min(turns, len(case.followups))
    out = [ChainTurn(0, case.request, case.reference, case.gold, case.artifact)]
    for i, followup in enumerate(case.followups[:count], start=1):
        out.append(
            ChainTurn(i, followup.request, followup.reference, followup.gold, followup.artifact)
        )
    return out


def _turn(case: Case, index: int) -> ChainTurn:
    if not 0 <= index <= len(case.followups):
        raise IndexError(
            f"case {case.id} has turns 0..{len(case.followups)}; there is no turn {index}"
        )
    return chain_turns(case)[index]


def _single(case: Case, turn: ChainTurn) -> Case:
    """``case`` reduced to the single revision of ``turn`` on its canonical document."""
    return dataclasses.replace(
        case,
        artifact=turn.artifact,
        request=turn.request,
        reference=turn.reference,
        gold=list(turn.gold),
        followups=(),
    )


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
            single = _single(case, turn)
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
    """The turn's gold operations, one for one, with values read from ``after``, the
    canonical document after it; None when they do not make that document exactly."""
    patch: list[dict[str, Any]] = []
    state = turn.artifact
    try:
        for gold in turn.gold:
            path = gold.path
            arr = array_parent(state, path) if gold.op == "add" else None
            if arr is not None:
                path = f"{arr[0]}/{arr[1]}"
            op: dict[str, Any] = {"op": gold.op, "path": path}
            if gold.op != "remove":
                value = resolve(after, path)
                if value is MISSING:
                    return None
                op["value"] = copy.deepcopy(value)
            state = apply_operations(state, [op])
            patch.append(op)
    except PatchError:
        return None
    return patch if json_equal(state, after) else None


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
        single = _single(case, turn)
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
    single = _single(case, turn)
    fields = {f.name: getattr(single, f.name) for f in dataclasses.fields(Case)}
    return TurnView(
        **{**fields, "conversation": conversation, "artifact": start},
        turn=index,
        shows=view_identity(case, index, start, history),
    )


def teacher_view(case: Case, index: int) -> TurnView:
    """Turn ``index`` as the ``teacher`` protocol shows it: from the canonical document before
    it, each earlier turn answered by its teacher patch (what a teacher turn is scored on)."""
    start = _turn(case, index).artifact
    return turn_view(case, index, start, [teacher_patch(case, j) for j in range(index)])


# ---------------------------------------------------------------------------- free judging


@dataclass(frozen=True)
class _Plan:
    """What judging after turn ``index`` in ``free`` needs, fixed before any document is read."""

    gold: list[GoldOp]
    """The gold operations of turns 0..index, in order."""
    owners: list[int]
    """The turn of each of them."""
    states: list[Any]
    """The document each applies to: its turn's canonical document, with the earlier
    operations of its turn applied."""
    places: list[GoldPlace]
    """Where each acts, in the original artifact and in the canonical document after turn
    ``index`` (``expected``)."""
    expected: Any
    special: dict[str, GoldPlace]
    """By pointer: the latest matcher, optional or removal requirement on a place (a later
    operation at or above it lifts it)."""
    inner: dict[str, list[tuple[str, int]]]
    """By a ``special`` pointer: the later operations inside that place (pointer, index)."""
    kept: dict[str, Any]
    """By pointer: the value an optional place may keep (its value before its operation)."""
    refs: dict[str, str]
    """By pointer: a ``ref_equal`` place's pointer, moved by later turns' array edits."""


_PLANS: Memo[tuple[int, int], tuple[Case, _Plan]] = Memo(4096)
"""By ``(id(case), index)``: an entry holds its case, so the id is not reused meanwhile."""


def _plan(case: Case, index: int) -> _Plan:
    return _PLANS.get((id(case), index), lambda: (case, _make_plan(case, index)))[1]


def _key(place: GoldPlace) -> str:
    return place.e_path if place.e_path is not None else place.anchor


def _make_plan(case: Case, index: int) -> _Plan:
    _turn(case, index)
    turns = chain_turns(case)[: index + 1]
    gold = [g for t in turns for g in t.gold]
    owners = [t.index for t in turns for _ in t.gold]
    states: list[Any] = []
    for turn in turns:
        state = turn.artifact
        for g in turn.gold:
            states.append(state)
            plain = {"op": g.op, "path": g.path}
            state = apply_operations(
                state, [plain if g.op == "remove" else {**plain, "value": g.value}]
            )
    places = gold_places(gold, [array_parent(states[k], g.path) for k, g in enumerate(gold)])
    special: dict[str, GoldPlace] = {}
    inner: dict[str, list[tuple[str, int]]] = {}
    kept: dict[str, Any] = {}
    refs: dict[str, str] = {}
    for k, place in enumerate(places):
        key = _key(place)
        for old in [p for p in special if is_within(p, key)]:
            del special[old]
            inner.pop(old, None)
        for outer in [p for p in special if is_within(key, p)]:
            inner.setdefault(outer, []).append((key, k))
        op = place.op
        if op.match == "strict" and not op.optional and op.op != "remove":
            continue
        special[key] = place
        added = op.op == "add" and array_parent(states[k], op.path) is not None
        kept[key] = MISSING if added else resolve(states[k], op.path)
        if op.match == "ref_equal":
            refs[key] = _moved(str(op.value), gold, owners, states, after_turn=owners[k])
    expected = canonical_after(case, index)
    return _Plan(gold, owners, states, places, expected, special, inner, kept, refs)


def _moved(
    pointer: str, gold: list[GoldOp], owners: list[int], states: list[Any], *, after_turn: int
) -> str:
    """``pointer`` (in the document after turn ``after_turn``) moved by the array insertions
    and removals of the later turns' gold."""
    for j, later in enumerate(gold):
        if owners[j] <= after_turn or later.op not in {"add", "remove"}:
            continue
        arr = array_parent(states[j], later.path)
        if arr is not None:
            delta = 1 if later.op == "add" else -1
            pointer = shift_pointer(pointer, arr[0], arr[1], delta, inclusive=delta > 0) or pointer
    return pointer


class _ChainJudge(Judge):
    """A Judge of the gold of turns 0..index together, against the canonical document after
    turn ``index``: the latest requirement on a place decides (a matcher's place must also meet
    the later requirements inside it), an optional place may keep its value from before its
    operation, and a ``ref_equal`` pointer follows later turns' array edits."""

    def __init__(
        self,
        case: Case,
        plan: _Plan,
        predicted: Any,
        where: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__(case, predicted, plan.expected, places=plan.places)
        self.special = plan.special
        self.plan = plan
        self.where = where
        """Maps a pointer of the canonical document to ``predicted``'s, when they differ by
        array edits (a turn's patch applied after the turns the plan covers)."""

    def agree(self, p: Any, e: Any, path: str) -> bool:
        """As a single revision's; a place with later operations inside it meets their
        requirements, and its own matcher on its value as it was before them (the model's
        value with those parts put back as they were)."""
        inner = self.plan.inner.get(path)
        if not inner:
            return super().agree(p, e, path)
        place = self.special[path]
        own = self._restored(p, path, inner) if place.op.match == "regex_match" else p
        if not super().agree(own, e, path):
            return False
        return all(
            Judge.agree(self, _inside(p, path, sub), resolve(self.expected, sub), sub)
            for sub, _ in inner
        )

    def _restored(self, p: Any, path: str, inner: list[tuple[str, int]]) -> Any:
        """``p`` (the value at ``path``) with each place of ``inner`` set back to its value
        before the operation there (the earliest one's, when several)."""
        doc = copy_json(p)
        for sub, k in sorted(inner, key=lambda item: -item[1]):
            op, state = self.plan.places[k].op, self.plan.states[k]
            added = op.op == "add" and array_parent(state, op.path) is not None
            doc = _set_back(doc, sub[len(path) :], MISSING if added else resolve(state, op.path))
        return doc

    def place_agrees(self, place: GoldPlace, p: Any, e: Any) -> bool | None:
        """As a single revision's; an optional strict place may also take the gold's value
        (the canonical document, ``e``, may have kept the old one)."""
        verdict = super().place_agrees(place, p, e)
        if verdict is None and place.op.optional and place.op.op != "remove":
            return json_equal(p, e) or json_equal(p, place.op.value)
        return verdict

    def walked(self) -> list[Unit]:
        """The units judged: where the model's document and the canonical one stop having the
        same shape (the original artifact's shape does not split them: the revisions moved its
        places), or a matcher's, an optional or a removal's place. Their values in A are not
        read (the canonical document's stand there)."""
        out: list[Unit] = []
        self._walk(self.expected, self.predicted, self.expected, "", out)
        return out

    def unchanged(self, unit: str, a: Any, e: Any) -> Any:
        """An ungoverned unit holds its original value where the revisions' array edits moved
        it: its value in the canonical document ``e``."""
        return e

    def previous(self, unit: str, a: Any) -> Any:
        """The value before the latest operation whose place holds ``unit`` (A's value when
        none does: the unit holds places)."""
        latest = None
        for k, place in enumerate(self.plan.places):
            if is_within(unit, _key(place)):
                latest = k
        if latest is None:
            return resolve(self.before, unit)
        place, state = self.plan.places[latest], self.plan.states[latest]
        path = place.op.path
        arr = array_parent(state, path) if place.op.op == "add" else None
        if arr is not None:
            return MISSING
        return resolve(state, path + unit[len(_key(place)) :])

    def kept_value(self, place: GoldPlace) -> Any:
        """The value the place had before the operation that governs it."""
        return self.plan.kept.get(_key(place), MISSING)

    def reference(self, place: GoldPlace) -> str:
        """The place's ``ref_equal`` pointer in the coordinates of the last turn judged."""
        pointer = self.plan.refs.get(_key(place), str(place.op.value))
        moved = pointer if self.where is None else self.where(pointer)
        return pointer if moved is None else moved


def _inside(value: Any, at: str, sub: str) -> Any:
    """The value at pointer ``sub`` (inside ``at``) of ``value``, the value at ``at``."""
    return resolve(value, sub[len(at) :]) if value is not MISSING else MISSING


def judge_free(
    case: Case, index: int, document: Any, *, patch: list[dict[str, Any]] | None = None
) -> Score:
    """Judge ``document``, the model's document after turn ``index`` in ``free``: completed
    iff every place some revision 0..index governs meets the latest gold operation on it (its
    matcher; ``ref_equal`` resolved in ``document``; an optional one may also keep its value
    from before its turn) and every other place keeps its value in ``case.artifact`` (moved
    by the revisions' array insertions and removals). Findings are a single revision's
    (``scoring.Judge``), at pointers of ``document``. ``patch``: the turn's patch, kept in
    the score's outcome."""
    judge = _ChainJudge(case, _plan(case, index), document)
    with regex_budget():
        findings = judge.findings()
    return Score.judged(findings, patch, document)


# ---------------------------------------------------------------------------- regressions


def map_pointer(pointer: str, doc: Any, patch: Sequence[dict[str, Any]]) -> str | None:
    """Where the place at ``pointer`` of ``doc`` sits once ``patch`` is applied: moved by the
    patch's array insertions and removals (a ``move`` counts as both, a ``copy`` as an
    insertion); None when the patch removes it (or moves it away) or does not apply."""
    state = doc
    current: str | None = pointer
    try:
        for op in check_operations(list(patch)):
            kind = op["op"]
            if kind in {"remove", "move"} and current is not None:
                source = op["path"] if kind == "remove" else op["from"]
                arr = array_parent(state, source)
                if is_within(current, source):
                    current = None
                elif arr is not None:
                    current = shift_pointer(current, arr[0], arr[1], -1, inclusive=False)
            if kind in {"add", "move", "copy"} and current is not None:
                target = state
                if kind == "move":
                    target = apply_operations(state, [{"op": "remove", "path": op["from"]}])
                arr = array_parent(target, op["path"])
                if arr is not None:
                    current = shift_pointer(current, arr[0], arr[1], 1, inclusive=True)
            state = apply_operations(state, [op])
    except PatchError:
        return None
    return current


def turn_regressions(
    case: Case, index: int, before: Any, patch: Sequence[dict[str, Any]]
) -> list[str]:
    """The places an earlier turn governs that met their requirement in ``before`` (the
    document turn ``index`` started from) and no longer do once ``patch`` (the turn's patch)
    is applied, at their pointers in the document after it (a removed place: its pointer
    before). A place is an earlier gold operation's (the latest on it); one holding other such
    places is judged without them (they count on their own), and so are the parts of it this
    turn's gold governs; a place at or inside one of this turn's is left out (its requirement
    changes). In ``teacher``, ``before`` is the canonical document (which meets every
    requirement), so these are the earlier places the turn's patch breaks; in ``free``, the
    model's own document. Turn 0 has none; a patch that does not apply breaks nothing."""
    if index == 0:
        return []
    try:
        after = apply_operations(before, check_operations(list(patch)))
    except PatchError:
        return []
    plan = _plan(case, index - 1)
    expected = plan.expected
    judge_before = _ChainJudge(case, plan, before)
    now = {
        p
        for place in gold_geometry(_single(case, _turn(case, index))).places
        for p in (place.op.path, place.anchor, place.a_path)
        if p is not None
    }
    keys = sorted({p.e_path for p in plan.places if p.e_path is not None})
    broken: list[str] = []

    @functools.cache
    def moving(pointer: str) -> str | None:  # the patch replayed once per pointer
        return map_pointer(pointer, before, patch)

    judge_after = _ChainJudge(case, plan, after, moving)

    with regex_budget():
        for key in keys:
            if any(is_within(key, g) for g in now):
                continue
            e = resolve(expected, key)
            # a place holding other places is judged without them: each counts on its own
            skip = now | {o for o in keys if o != key and is_within(o, key)}
            if not _holds(judge_before, before, e, key, skip, lambda sub: sub, before):
                continue
            if not _holds(judge_after, after, e, key, skip, moving, before):
                moved = moving(key)
                broken.append(key if moved is None else moved)
    return broken


def _holds(
    judge: Judge,
    doc: Any,
    e: Any,
    key: str,
    now: set[str],
    where: Callable[[str], str | None],
    base: Any,
) -> bool:
    """Whether ``doc`` meets the requirement on ``key`` (``e``: its expected value), leaving out
    the parts inside the places ``now`` governs; ``where`` maps a pointer of ``base`` (the
    document the turn started from) to ``doc``'s. A matcher's place with such parts is judged
    on its value with them put back as they were in ``base``."""
    if any(is_within(key, g) for g in now):
        return True
    inside = [g for g in now if is_within(g, key)]
    if key in judge.special or not inside or not isinstance(e, dict | list):
        at = where(key)
        value = MISSING if at is None else resolve(doc, at)
        if inside and value is not MISSING:
            value = copy_json(value)
            for g in inside:
                value = _set_back(value, g[len(key) :], resolve(base, g))
        return judge.agree(value, e, key)
    items = e.items() if isinstance(e, dict) else enumerate(e)
    return all(_holds(judge, doc, v, child_pointer(key, k), now, where, base) for k, v in items)


def _set_back(doc: Any, rel: str, old: Any) -> Any:
    """``doc`` with the place at ``rel`` set to ``old`` (removed when ``old`` is MISSING)."""
    there = resolve(doc, rel) is not MISSING
    if old is MISSING:
        change = [{"op": "remove", "path": rel}] if there else []
    else:
        change = [{"op": "replace" if there else "add", "path": rel, "value": old}]
    try:
        return apply_operations(doc, change)
    except PatchError:
        return doc
