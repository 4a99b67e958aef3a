"""Judging a chain in the ``free`` protocol and counting a turn's regressions (docs/protocol.md,
"Revision chains"), on the places of ``chain_places``.

``judge_chain`` judges a document after turn ``i`` as one revision of the original artifact
whose gold is the gold of turns 0..i: every living place meets its own requirement with the
later steps inside it put back, and those inner places meet theirs; every other unit equals
the canonical document after turn ``i``. ``regressions`` finds the earlier places that held in
the document a turn started from and fail once its patch is applied.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_revprop.core.chain_places import (
    ChainPlace,
    Step,
    TurnGold,
    chain_places,
    follow,
    make_steps,
    own_holds,
)
from pytest_revprop.core.geometry import (
    GoldPlace,
    array_parent,
    array_parents,
    gold_places,
    shift_pointer,
)
from pytest_revprop.core.judged import JudgedCase
from pytest_revprop.core.patching import PatchError, apply_operations, check_operations
from pytest_revprop.core.scoring import Judge, Score, Unit
from pytest_revprop.util.jsonutil import MISSING, child_pointer, is_within, json_equal, resolve
from pytest_revprop.util.regexguard import regex_budget

__all__ = ["ChainPlan", "chain_plan", "judge_chain", "map_pointer", "regressions"]


@dataclass(frozen=True)
class ChainPlan:
    """What judging after a turn needs, fixed before any document is read."""

    steps: list[Step]
    places: list[ChainPlace]
    """Every step's place, in step order (ended ones included)."""
    expected: Any
    """The canonical document after the last turn."""

    @functools.cached_property
    def live(self) -> list[ChainPlace]:
        """The places still standing after the last turn."""
        return [p for p in self.places if p.ended is None]


def chain_plan(turns: Sequence[TurnGold], expected: Any) -> ChainPlan:
    """The plan of ``turns`` (each turn's gold on its canonical document), judged against
    ``expected``, the canonical document after the last of them."""
    steps = make_steps(turns)
    return ChainPlan(steps, chain_places(steps), expected)


def _strictly_within(pointer: str, ancestor: str) -> bool:
    return pointer != ancestor and is_within(pointer, ancestor)


class _ChainJudge(Judge):
    """A Judge of the living places of a plan against its canonical document: a special place
    (matcher, optional, removal) with later steps inside it meets its own requirement on its
    value with them put back, and each living place inside it meets its own."""

    def __init__(self, case: JudgedCase, plan: ChainPlan, predicted: Any) -> None:
        shown = [(place, place.gold_place()) for place in plan.live]
        super().__init__(case, predicted, plan.expected, places=[g for _, g in shown])
        self.plan = plan
        self.owner = {_key(g): place for place, g in shown if not place.removes_element}
        """By pointer: the place whose requirement stands there (an array removal's anchor is
        where the next element moved, whose own place decides)."""
        self.special = {_key(g): g for place, g in shown if place.special}

    def agree(self, p: Any, e: Any, path: str) -> bool:
        """As a single revision's; a special place with later steps inside it meets its own
        requirement with them put back, and every living place inside it its own."""
        place = self.owner.get(path)
        if place is None or not place.special or not place.inner:
            return super().agree(p, e, path)
        if not own_holds(place, p, place.inner, self._ref_value(place)):
            return False
        return all(
            self.agree(_inside(p, path, q.at), resolve(self.expected, q.at), q.at)
            for q in self.plan.live
            if q is not place and _strictly_within(q.at, path)
        )

    def _ref_value(self, place: ChainPlace) -> Any:
        return resolve(self.predicted, place.ref) if place.ref is not None else MISSING

    def place_agrees(self, place: GoldPlace, p: Any, e: Any) -> bool | None:
        """As a single revision's; an optional strict place may also take its step's value
        (the canonical document, ``e``, may have kept the old one)."""
        verdict = super().place_agrees(place, p, e)
        owner = self.owner[_key(place)]
        if verdict is None and place.op.optional and place.op.op != "remove":
            return json_equal(p, e) or json_equal(p, owner.step.after)
        return verdict

    def walked(self) -> list[Unit]:
        """The units judged: where the model's document and the canonical one stop having the
        same shape, or a special place. Their values in A are not read."""
        out: list[Unit] = []
        self._walk(self.expected, self.predicted, self.expected, "", out)
        return out

    def unchanged(self, unit: str, a: Any, e: Any) -> Any:
        """An ungoverned unit holds its original value where the revisions moved it: its value
        in the canonical document ``e``."""
        return e

    def previous(self, unit: str, a: Any) -> Any:
        """The value before the latest step whose place holds ``unit`` (A's value when none
        does: the unit holds places)."""
        latest = None
        for place in self.plan.live:
            if is_within(unit, place.at):
                latest = place
        if latest is None:
            return resolve(self.before, unit)
        step = latest.step
        if step.inserts:
            return MISSING
        base = step.array[0] if latest.removes_element and step.array else step.path
        return resolve(step.state, base + unit[len(latest.at) :])

    def kept_value(self, place: GoldPlace) -> Any:
        """The value the place had before the step that governs it."""
        return self.owner[_key(place)].step.before

    def reference(self, place: GoldPlace) -> str:
        """The place's ``ref_equal`` pointer, moved by the later turns' array edits."""
        ref = self.owner[_key(place)].ref
        return str(place.op.value) if ref is None else ref


def _key(place: GoldPlace) -> str:
    return place.e_path if place.e_path is not None else place.anchor


def _inside(value: Any, at: str, sub: str) -> Any:
    """The value at pointer ``sub`` (inside ``at``) of ``value``, the value at ``at``."""
    return resolve(value, sub[len(at) :]) if value is not MISSING else MISSING


def judge_chain(
    case: JudgedCase, plan: ChainPlan, document: Any, patch: list[dict[str, Any]] | None
) -> Score:
    """The score of ``document`` against ``plan``: findings as a single revision's, at
    pointers of ``document``; ``patch`` is kept in the score's outcome."""
    judge = _ChainJudge(case, plan, document)
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


def regressions(
    plan: ChainPlan, turn: int, before: Any, patch: Sequence[dict[str, Any]]
) -> list[str]:
    """The places of turns before ``turn`` (``plan`` covers turns 0..turn) that met their
    requirement in ``before`` (the document the turn started from) and fail it once ``patch``
    is applied, at their pointers after it (a removed place: its pointer before), sorted. A
    place the turn's own gold supersedes or removes is left out (its requirement changes); a
    place holding later places, or parts the turn governs, is judged without them (those
    parts as they were in ``before``). A patch that does not apply breaks nothing."""
    try:
        after = apply_operations(before, check_operations(list(patch)))
    except PatchError:
        return []
    first = next((s.number for s in plan.steps if s.turn == turn), len(plan.steps))
    standing = [p for p in plan.places if p.step.turn < turn and p.ended is None]
    now = _turn_places_before(plan, turn)
    canonical = plan.steps[first].state if first < len(plan.steps) else plan.expected

    @functools.cache
    def moving(pointer: str) -> str | None:  # the patch replayed once per pointer
        return map_pointer(pointer, before, patch)

    check = _Check(plan, turn, before, after, moving, canonical, now)
    broken: list[str] = []
    with regex_budget():
        for place in standing:
            at = place.positions.get(first, place.at)
            later = {
                q.positions.get(first, q.at)
                for q in standing
                if q.step.number > place.step.number and _strictly_within(q.at, place.at)
            }
            if check.broken(place, at, later):
                moved = moving(at)
                broken.append(at if moved is None else moved)
    return sorted(broken)


@dataclass(frozen=True)
class _Check:
    """What judging one turn's regressions reads: the documents before and after the patch,
    how the patch moves a pointer, the canonical documents and the turn's own places (in the
    coordinates of ``before``)."""

    plan: ChainPlan
    turn: int
    before: Any
    after: Any
    moving: Callable[[str], str | None]
    canonical: Any
    """The canonical document before the turn."""
    now: set[str]

    def broken(self, place: ChainPlace, at: str, later: set[str]) -> bool:
        """Whether ``place`` (at ``at`` before the turn) held in ``before`` and fails after the
        patch; ``later``: the places of later turns inside it, judged on their own."""
        target = self.moving(at)
        if place.removes_element:
            return self._put_back(place, at, target)
        inner = place.inner_until(self.turn - 1)
        if place.special:
            held = own_holds(place, resolve(self.before, at), inner, self._ref(place, False))
            if not held:
                return False
            skip = {g for g in self.now if is_within(g, at)}
            kept = _overlay(resolve(self.before, at), at, self.after, self.moving, skip)
            return not own_holds(place, kept, inner, self._ref(place, True))
        skip = later | {g for g in self.now if _strictly_within(g, at)}
        expected = resolve(self.canonical, at)
        held = _leaves_hold(self.before, _same, at, expected, skip)
        return held and not _leaves_hold(self.after, self.moving, at, expected, skip)

    def _put_back(self, place: ChainPlace, at: str, target: str | None) -> bool:
        """An array removal breaks when the patch brings the removed value back: the array
        then has it more often than before the turn and than the canonical array after it."""
        removed = place.step.before
        then = _count(resolve(self.before, at), removed)
        if target is None or then > _count(resolve(self.canonical, at), removed):
            return False
        now = _count(resolve(self.after, target), removed)
        return now > then and now > _count(resolve(self.plan.expected, place.at), removed)

    def _ref(self, place: ChainPlace, after: bool) -> Any:
        """The value a ``ref_equal`` place must equal, before or after the patch."""
        if place.ref is None:
            return MISSING
        earlier = [s for s in self.plan.steps if s.turn < self.turn]
        start = _ref_at_turn_start(place, earlier)
        pointer = self.moving(start) if after else start
        doc = self.after if after else self.before
        return MISSING if pointer is None else resolve(doc, pointer)


def _same(pointer: str) -> str | None:
    return pointer


def _overlay(
    value: Any, at: str, doc: Any, where: Callable[[str], str | None], keep: set[str]
) -> Any:
    """``value`` (at ``at`` before the patch) with every part outside ``keep`` taken from
    ``doc`` (after the patch, each pointer moved by ``where``): the place as the patch left it,
    but for the parts the turn governs."""
    if any(is_within(at, k) for k in keep):
        return value
    if isinstance(value, dict | list) and any(_strictly_within(k, at) for k in keep):
        if isinstance(value, dict):
            members = {
                k: _overlay(v, child_pointer(at, k), doc, where, keep) for k, v in value.items()
            }
            return {k: v for k, v in members.items() if v is not MISSING}
        items = [_overlay(v, child_pointer(at, i), doc, where, keep) for i, v in enumerate(value)]
        return [v for v in items if v is not MISSING]
    target = where(at)
    return MISSING if target is None else resolve(doc, target)


def _turn_places_before(plan: ChainPlan, turn: int) -> set[str]:
    """Where the turn's own steps act, in the document before the turn (insertions: none)."""
    steps = [s for s in plan.steps if s.turn == turn]
    if not steps:
        return set()
    arrays = array_parents(steps[0].state, [_plain(s) for s in steps])
    return {p.a_path for p in gold_places([s.op for s in steps], arrays) if p.a_path is not None}


def _plain(step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {"op": step.op.op, "path": step.op.path}
    if step.op.op != "remove":
        out["value"] = step.after
    return out


def _count(array: Any, value: Any) -> int:
    return sum(1 for x in array if json_equal(x, value)) if isinstance(array, list) else 0


def _ref_at_turn_start(place: ChainPlace, earlier: Sequence[Step]) -> str:
    pointer = str(place.step.op.value)
    for later in earlier:
        if later.turn > place.step.turn:
            moved = follow(pointer, later)
            if moved is not None and moved != "superseded":
                pointer = moved
    return pointer


def _leaves_hold(
    doc: Any, where: Callable[[str], str | None], at: str, expected: Any, skip: set[str]
) -> bool:
    """Whether ``doc`` holds ``expected`` at ``at`` (each part moved by ``where``), leaving out
    the parts at or inside ``skip``."""
    if at in skip:
        return True
    if isinstance(expected, dict | list) and any(_strictly_within(s, at) for s in skip):
        items = expected.items() if isinstance(expected, dict) else enumerate(expected)
        return all(_leaves_hold(doc, where, child_pointer(at, k), v, skip) for k, v in items)
    target = where(at)
    return target is not None and json_equal(resolve(doc, target), expected)
