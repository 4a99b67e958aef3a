"""The places a chain's gold fixes: every gold operation of turns 0..i as a step on the
canonical document before it, followed forward through the later steps (docs/protocol.md,
"Revision chains": free judging and regressions).

A step's place moves with the array insertions and removals after it; a later step at or
above it replaces its requirement (*superseded*), a removal at or above it ends it (*gone*).
A place that survives keeps its own requirement (its matcher, optional flag, removal or
value), judged on its value with the later steps inside it put back: undone, last first, each
in the coordinates it was made in. Nothing here reads a model's document except through
``put_back`` and ``own_holds``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.geometry import ArrayAt, GoldPlace, array_parent, shift_pointer
from pytest_revprop.core.judged import JudgedCase
from pytest_revprop.core.judged import JudgedOp as GoldOp
from pytest_revprop.core.patching import PatchError, apply_operations
from pytest_revprop.core.scoring import regex_passes
from pytest_revprop.util.jsonutil import MISSING, is_within, json_equal, resolve

__all__ = [
    "SUPERSEDED",
    "ChainPlace",
    "Step",
    "TurnGold",
    "chain_places",
    "follow",
    "make_steps",
    "own_holds",
    "put_back",
]

TurnGold = tuple[int, JudgedCase, Sequence[dict[str, Any]] | None]
"""One turn as the places need it: its index, its revision (the canonical document before it
and its gold), and its concrete operations (one per gold operation, values read from the
canonical document after it), or None when those do not make that document (the gold's stored
values serve then)."""

SUPERSEDED = "superseded"
"""``follow``'s answer for a place that a later step replaces as a whole."""


@dataclass(frozen=True)
class Step:
    """One gold operation as applied to the canonical document before it."""

    number: int
    """Its position among every step of the chain."""
    turn: int
    op: GoldOp
    path: str
    """Where it acts in ``state`` (an insertion's ``-`` resolved to its index)."""
    state: Any
    """The document before it: its turn's canonical document, the turn's earlier steps applied."""
    array: ArrayAt
    """For an insertion or a removal of an array element: the array and the index."""
    before: Any
    """The value at ``path`` before it (MISSING: none, always so for an insertion)."""
    after: Any
    """The value at ``path`` after it (MISSING for a removal)."""

    @property
    def inserts(self) -> bool:
        """Whether it adds an array element (moving the ones after it)."""
        return self.op.op == "add" and self.array is not None


def make_steps(turns: Sequence[TurnGold]) -> list[Step]:
    """Every gold operation of ``turns``, in order, on the document it applies to."""
    steps: list[Step] = []
    for turn, revision, concrete in turns:
        state = revision.artifact
        for k, g in enumerate(revision.gold):
            array = array_parent(state, g.path) if g.op in {"add", "remove"} else None
            path = f"{array[0]}/{array[1]}" if array is not None and g.op == "add" else g.path
            inserts = g.op == "add" and array is not None
            plain: dict[str, Any] = {"op": g.op, "path": path}
            if g.op != "remove":
                use = concrete is not None and g.match != "strict"
                plain["value"] = concrete[k].get("value") if concrete and use else g.value
            after_state = apply_operations(state, [plain])
            steps.append(
                Step(
                    len(steps),
                    turn,
                    g,
                    path,
                    state,
                    array,
                    MISSING if inserts else resolve(state, path),
                    MISSING if g.op == "remove" else resolve(after_state, path),
                )
            )
            state = after_state
    return steps


def follow(pointer: str, step: Step) -> str | None:
    """Where the place at ``pointer`` (of ``step.state``) sits once ``step`` is made: moved by
    its insertion or removal, None when it removes the place, ``SUPERSEDED`` when it replaces
    the place or something above it."""
    if step.op.op == "remove":
        if is_within(pointer, step.path):
            return None
        if step.array is not None:
            return shift_pointer(pointer, step.array[0], step.array[1], -1, inclusive=False)
        return pointer
    if step.array is not None and step.op.op == "add":
        return shift_pointer(pointer, step.array[0], step.array[1], 1, inclusive=True)
    return SUPERSEDED if is_within(pointer, step.path) else pointer


@dataclass
class ChainPlace:
    """A step's place, followed through the steps after it."""

    step: Step
    at: str
    """Its pointer after the last step followed (an array element's removal: the array's)."""
    anchor: str
    """The pointer that decides which units it governs (an array removal: where the removed
    element was, moved like an insertion point)."""
    ended: int | None = None
    """The number of the step that superseded it or made it gone (None: it lives)."""
    inner: list[tuple[Step, str]] = field(default_factory=list)
    """The later steps inside it, each with the place's pointer before that step."""
    positions: dict[int, str] = field(default_factory=dict)
    """By step number: its pointer (``at``) before that step."""
    ref: str | None = None
    """A ``ref_equal`` place's pointer, moved by the array edits of later turns."""

    @property
    def removes_element(self) -> bool:
        """Whether its step removes an array element (its requirement is on the array)."""
        return self.step.op.op == "remove" and self.step.array is not None

    @property
    def special(self) -> bool:
        """Whether its own requirement is more than its value: a matcher, optional, a removal
        of an object member."""
        op = self.step.op
        if self.removes_element:
            return False
        return op.match != "strict" or op.optional or op.op == "remove"

    def gold_place(self) -> GoldPlace:
        """The place as ``scoring.Judge`` reads it, its pointers in the last document."""
        op = _Moved(self.step.op, self.anchor)
        e_path = None if self.step.op.op == "remove" else self.at
        return GoldPlace(op, e_path, None, self.anchor)

    def inner_until(self, last_turn: int) -> list[tuple[Step, str]]:
        """The steps inside it of turns up to ``last_turn``."""
        return [(s, at) for s, at in self.inner if s.turn <= last_turn]


@dataclass(frozen=True)
class _Moved:
    """A gold operation seen at another pointer (its place moved by later steps)."""

    inner: GoldOp
    path: str

    @property
    def op(self) -> str:
        return self.inner.op

    @property
    def value(self) -> Any:
        return self.inner.value

    @property
    def kind(self) -> Any:
        return self.inner.kind

    @property
    def match(self) -> Any:
        return self.inner.match

    @property
    def optional(self) -> bool:
        return self.inner.optional


def chain_places(steps: Sequence[Step]) -> list[ChainPlace]:
    """The place of every step, followed to the end of ``steps`` (or to the step that ends
    it)."""
    places = []
    for step in steps:
        if step.op.op == "remove" and step.array is not None:
            at, slot = step.array[0], step.array[1]
        else:
            at, slot = step.path, None
        place = ChainPlace(step, at, at if slot is None else f"{at}/{slot}")
        for later in steps[step.number + 1 :]:
            place.positions[later.number] = at
            if slot is None and step.op.op != "remove" and _strictly_within(later.path, at):
                place.inner.append((later, at))
            if slot is not None and later.array is not None and later.array[0] == at:
                slot = _moved_slot(slot, later)
            moved = follow(at, later)
            if moved is None or moved == SUPERSEDED:
                place.ended = later.number
                break
            at = moved
        place.at = at
        place.anchor = at if slot is None else f"{at}/{slot}"
        if step.op.match == "ref_equal":
            place.ref = _moved_ref(str(step.op.value), steps, after_turn=step.turn)
        places.append(place)
    return places


def _moved_slot(slot: int, later: Step) -> int:
    """Where a removed element was (an index of the array) once ``later`` inserts into or
    removes from that array: moved like an insertion point."""
    index = later.array[1] if later.array is not None else slot
    if index < slot or (later.inserts and index == slot):
        return slot + (1 if later.inserts else -1)
    return slot


def _strictly_within(pointer: str, ancestor: str) -> bool:
    return pointer != ancestor and is_within(pointer, ancestor)


def _moved_ref(pointer: str, steps: Sequence[Step], *, after_turn: int) -> str:
    """``pointer`` (of the document after turn ``after_turn``) moved by the array insertions and
    removals of the later turns' steps (kept where one removes or replaces it)."""
    for later in steps:
        if later.turn <= after_turn:
            continue
        moved = follow(pointer, later)
        if moved is not None and moved != SUPERSEDED:
            pointer = moved
    return pointer


def put_back(value: Any, inner: Sequence[tuple[Step, str]], target: Any = MISSING) -> Any:
    """``value`` (a place's value) with the steps ``inner`` undone, last first, each at its
    pointer relative to the place then: an insertion removed, a removal put back where it was,
    a replacement set back. A value set back is ``target``'s at that relative pointer when it
    has one (the value the place is compared with), else the canonical one before the step.
    A step that cannot be undone on ``value`` (a model's document of another shape) is left."""
    if value is MISSING or not inner:
        return value
    doc = value
    for step, at in reversed(inner):
        rel = step.path[len(at) :]
        old = step.before
        if target is not MISSING and not step.inserts:
            there = resolve(target, rel)
            old = old if there is MISSING else there
        if step.inserts or old is MISSING:
            undo: dict[str, Any] = {"op": "remove", "path": rel}
        elif step.op.op == "remove" or resolve(doc, rel) is MISSING:
            undo = {"op": "add", "path": rel, "value": old}
        else:
            undo = {"op": "replace", "path": rel, "value": old}
        try:
            doc = apply_operations(doc, [undo])
        except PatchError:
            continue
        if undo["op"] == "add" and step.array is None:
            doc = _in_order(doc, rel, resolve(step.state, step.path[: step.path.rfind("/")]))
    return doc


def _in_order(doc: Any, rel: str, original: Any) -> Any:
    """``doc`` with the object holding the member at ``rel`` put back in ``original``'s member
    order (a member put back goes where it was, so a pattern over the object's text still
    sees the order it was written for)."""
    parent_rel = rel[: rel.rfind("/")]
    parent = resolve(doc, parent_rel)
    if not isinstance(parent, dict) or not isinstance(original, dict):
        return doc
    order = [k for k in original if k in parent] + [k for k in parent if k not in original]
    if list(parent) == order:
        return doc
    reordered = {k: parent[k] for k in order}
    if parent_rel == "":
        return reordered
    return apply_operations(doc, [{"op": "replace", "path": parent_rel, "value": reordered}])


def own_holds(place: ChainPlace, value: Any, inner: Sequence[tuple[Step, str]], ref: Any) -> bool:
    """Whether ``value`` (at the place, in some document) meets the place's own requirement with
    ``inner`` put back: its matcher, its removal, or its value (an optional one: also the value
    before its step). ``ref``: the value a ``ref_equal`` place must equal."""
    step, op = place.step, place.step.op
    if op.op == "remove":
        return value is MISSING
    if op.match == "any":
        return value is not MISSING
    if op.match == "ref_equal":
        return value is not MISSING and json_equal(value, ref)
    if op.match == "regex_match":
        return value is not MISSING and regex_passes(op.value, put_back(value, inner))
    if op.optional and json_equal(put_back(value, inner, step.before), step.before):
        return True
    return json_equal(put_back(value, inner, step.after), step.after)
