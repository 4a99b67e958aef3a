"""Random small revision chains for the judging laws, with an oracle of their own.

A chain is drawn turn by turn on a small document (scalars, an array of items, a nested
object): strict edits, regex places over leaves and whole objects, ``any``, ``ref_equal`` and
optional places, insertions and removals of items, removed and added members, undos of an
earlier value and an item put back after its removal. Beside the canonical documents the
drawer keeps a *tag tree* of the same shape, edited by the same operations through the patch
applier (so it moves with every insertion and removal without any pointer arithmetic of the
judge's): each leaf says which turn's operation last fixed it and whether a matcher or an
optional flag governs it, or that no operation touched it.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from helpers.chain_cases import chain_case
from pytest_revprop.core.cases import Case
from pytest_revprop.core.geometry import array_parent, shift_pointer
from pytest_revprop.core.patching import apply_operations
from pytest_revprop.util.jsonutil import MISSING, iter_leaves, resolve

UNTOUCHED = "-"
"""The tag of a leaf no operation fixed: it must keep its original value."""


def tag_of(turn: int, special: bool) -> str:
    """A leaf's tag: ``S<turn>`` under a matcher or optional flag, ``T<turn>`` strict."""
    return f"{'S' if special else 'T'}{turn}"


def _tags(value: Any, tag: str) -> Any:
    if isinstance(value, dict):
        return {k: _tags(v, tag) for k, v in value.items()}
    if isinstance(value, list):
        return [_tags(v, tag) for v in value]
    return tag


@dataclass
class DrawnChain:
    """A drawn chain: the case, and after each turn the canonical document's tag tree (a leaf
    a ``ref_equal`` place reads has its tag followed by ``r``)."""

    case: Case
    tags: list[Any] = field(default_factory=list)


def _scalars(turn: _Turn) -> list[str]:
    """The scalar leaves of the turn's document that the turn may still change."""
    return [
        p
        for p, value in iter_leaves(turn.doc)
        if p and not isinstance(value, dict | list) and turn.free(p)
    ]


class _Turn:
    """One turn being drawn: its gold, the concrete patch that makes the next canonical
    document, and the documents and tags as its operations go."""

    def __init__(self, index: int, doc: Any, tags: Any, original: Any) -> None:
        self.index, self.doc, self.tags, self.original = index, doc, tags, original
        self.stored = doc
        """The document with the gold's stored values (a pattern where a regex stands)."""
        self.gold: list[dict[str, Any]] = []
        self.made: list[dict[str, Any]] = []
        self.touched: list[str] = []
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.index}x{self.counter}"

    def free(self, pointer: str) -> bool:
        """Whether no operation of this turn acts at, above or inside ``pointer``, and no
        ``ref_equal`` place reads a leaf there (its value must stay what the place holds)."""
        near = lambda t: t == pointer or t.startswith(pointer + "/") or pointer.startswith(t + "/")  # noqa: E731
        read = [p for p, tag in iter_leaves(self.tags) if str(tag).endswith("r")]
        return not any(near(t) for t in [*self.touched, *read])

    def act(self, gold: dict[str, Any], made: dict[str, Any] | None, special: bool) -> None:
        """Add ``gold`` (its ``made`` concrete form: None when the canonical document keeps
        the old value) and apply it to the document and the tags."""
        self.gold.append(gold)
        stored = {k: v for k, v in gold.items() if k in ("op", "path", "value")}
        self.stored = apply_operations(self.stored, [stored])
        array = array_parent(self.doc, gold["path"]) if gold["op"] != "replace" else None
        if array is not None:  # the turn's earlier places move with the insertion or removal
            delta = 1 if gold["op"] == "add" else -1
            moved = [shift_pointer(t, *array, delta, inclusive=delta > 0) for t in self.touched]
            self.touched = [t for t in moved if t is not None]
        if made is not None:
            self.made.append(made)
            self.doc = apply_operations(self.doc, [made])
        plain = {"op": gold["op"], "path": gold["path"]}
        if gold["op"] != "remove":
            value = made["value"] if made is not None else resolve(self.doc, gold["path"])
            plain["value"] = _tags(value, tag_of(self.index, special))
        self.tags = apply_operations(self.tags, [plain])
        if array is None:
            self.touched.append(gold["path"])
        elif gold["op"] == "add":
            self.touched.append(f"{array[0]}/{array[1]}")


def draw_chain(data: st.DataObject, turns: int) -> DrawnChain:
    """A chain of ``turns`` turns (each with a direct strict change, so no follow-up is a
    no-op), drawn with ``data``."""
    original: dict[str, Any] = {
        "title": "alpha",
        "n": data.draw(st.integers(0, 5), label="n"),
        "items": [
            {"name": f"i{k}", "qty": data.draw(st.integers(1, 4), label="qty")}
            for k in range(data.draw(st.integers(2, 3), label="items"))
        ],
        "meta": {"label": "plain", "count": 1},
        "extra": "x",
    }
    doc, tags = copy.deepcopy(original), _tags(original, UNTOUCHED)
    drawn: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]] = []
    out_tags: list[Any] = []
    removed: list[dict[str, Any]] = []
    for index in range(turns):
        turn = _Turn(index, doc, tags, original)
        _direct(turn, data)
        for _ in range(data.draw(st.integers(0, 2), label="more")):
            _draw_op(turn, data)
        _array_op(turn, data, removed)
        _ref_op(turn, data)
        drawn.append((f"Turn {index}.", turn.gold, turn.made))
        doc, tags = turn.doc, turn.tags
        out_tags.append(tags)
    case = chain_case(original, drawn)
    assert isinstance(case, Case)
    return DrawnChain(case, out_tags)


def _direct(turn: _Turn, data: st.DataObject) -> None:
    pointer = data.draw(st.sampled_from(_scalars(turn)), label="direct")
    old = resolve(turn.doc, pointer)
    value: Any = old + 7 if isinstance(old, int) else f"{old}!"
    first = resolve(turn.original, pointer)
    if data.draw(st.booleans(), label="undo") and first is not MISSING and first != old:
        value = first  # an undo of an earlier change
    op = {"op": "replace", "path": pointer, "value": value}
    turn.act({**op, "kind": "direct"}, op, special=False)


def _draw_op(turn: _Turn, data: st.DataObject) -> None:
    kind = data.draw(
        st.sampled_from(["strict", "regex", "regex_object", "any", "optional", "member"]),
        label="kind",
    )
    if kind == "regex_object":
        objects = ["/meta", *(f"/items/{k}" for k in range(len(turn.doc["items"])))]
        pointer = data.draw(st.sampled_from(objects), label="object")
        if not turn.free(pointer):
            return
        value = copy.deepcopy(resolve(turn.doc, pointer))
        first = next(iter(value))
        value[first] = turn.fresh("r")
        pattern = re.escape(f'"{first}":"{value[first]}"')
        gold = {"op": "replace", "path": pointer, "value": pattern, "kind": "cascade"}
        made = {"op": "replace", "path": pointer, "value": value}
        turn.act({**gold, "match": "regex_match"}, made, special=True)
        return
    if kind == "member":
        if "extra" in turn.doc and turn.free("/extra") and data.draw(st.booleans(), label="rm"):
            op = {"op": "remove", "path": "/extra"}
            turn.act({**op, "kind": "cascade"}, op, special=False)
        elif turn.free("/meta"):
            key = turn.fresh("k")
            op = {"op": "add", "path": f"/meta/{key}", "value": turn.index}
            turn.act({**op, "kind": "cascade"}, op, special=False)
        return
    pointers = _scalars(turn)
    if not pointers:
        return
    pointer = data.draw(st.sampled_from(pointers), label="leaf")
    old = resolve(turn.doc, pointer)
    new: Any = old + 3 if isinstance(old, int) else turn.fresh("v")
    concrete = {"op": "replace", "path": pointer, "value": new}
    if kind == "strict":
        turn.act({**concrete, "kind": "cascade"}, concrete, special=False)
    elif kind == "regex":
        text = turn.fresh("v")
        pattern = "^" + re.escape(text[:2])
        gold = {"op": "replace", "path": pointer, "value": pattern, "kind": "cascade"}
        made = {"op": "replace", "path": pointer, "value": text}
        turn.act({**gold, "match": "regex_match"}, made, special=True)
    elif kind == "any":
        gold = {"op": "replace", "path": pointer, "value": None, "kind": "cascade"}
        turn.act({**gold, "match": "any"}, concrete, special=True)
    else:
        taken = data.draw(st.booleans(), label="taken")
        gold = {**concrete, "kind": "cascade", "optional": True}
        turn.act(gold, concrete if taken else None, special=True)


def _array_op(turn: _Turn, data: st.DataObject, removed: list[dict[str, Any]]) -> None:
    """At most one insertion or removal of an item, after the turn's other edits."""
    items = turn.doc["items"]
    choice = data.draw(st.sampled_from(["none", "insert", "remove", "back"]), label="array")
    if choice == "remove" and len(items) > 1:
        k = data.draw(st.integers(0, len(items) - 1), label="at")
        if turn.free(f"/items/{k}"):
            removed.append(copy.deepcopy(items[k]))
            op = {"op": "remove", "path": f"/items/{k}"}
            turn.act({**op, "kind": "cascade"}, op, special=False)
    elif choice in {"insert", "back"}:
        value = removed.pop() if choice == "back" and removed else None
        if value is None:
            value = {"name": turn.fresh("n"), "qty": 1}
        k = data.draw(st.integers(0, len(items)), label="at")
        path = "/items/-" if k == len(items) else f"/items/{k}"
        op = {"op": "add", "path": path, "value": value}
        concrete = {"op": "add", "path": f"/items/{k}", "value": value}
        turn.act({**op, "kind": "cascade"}, concrete, special=False)


def _ref_op(turn: _Turn, data: st.DataObject) -> None:
    """Maybe a ``ref_equal`` place, last: a leaf equal to another scalar leaf after the turn."""
    if not data.draw(st.booleans(), label="ref"):
        return
    leaves = _scalars(turn)
    if len(leaves) < 2:
        return
    place = data.draw(st.sampled_from(leaves), label="ref place")
    target = data.draw(st.sampled_from([p for p in leaves if p != place]), label="ref target")
    value = resolve(turn.doc, target)
    primitive = not isinstance(resolve(turn.stored, target), dict | list | type(MISSING))
    if value == resolve(turn.doc, place) or not primitive:
        return
    gold = {"op": "replace", "path": place, "value": target, "kind": "cascade"}
    made = {"op": "replace", "path": place, "value": value}
    turn.act({**gold, "match": "ref_equal"}, made, special=True)
    turn.tags = apply_operations(
        turn.tags, [{"op": "replace", "path": target, "value": resolve(turn.tags, target) + "r"}]
    )
