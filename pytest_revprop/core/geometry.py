"""The gold's geometry: where each gold operation acts in the expected artifact E and in the
original A, and the pointer arithmetic of array insertions and removals that moves places
(``scoring`` judges on it; ``chain_places`` follows places through a chain; the annotation
page's checks reuse it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_revprop.core.judged import JudgedCase as Case
from pytest_revprop.core.judged import JudgedOp as GoldOp
from pytest_revprop.core.patching import apply_operations, copy_json
from pytest_revprop.util.jsonutil import resolve, split_pointer
from pytest_revprop.util.memo import Memo

__all__ = [
    "ArrayAt",
    "GoldGeometry",
    "GoldPlace",
    "array_parent",
    "array_parents",
    "expected_artifact",
    "gold_geometry",
    "gold_places",
    "shift_pointer",
]

ArrayAt = tuple[str, int] | None  # where a path is an array element: (the array, the index)


def expected_artifact(case: Case) -> Any:
    """The gold artifact E: the gold ops applied in order (with their stored values)."""
    return gold_geometry(case).expected


@dataclass(frozen=True)
class GoldPlace:
    """Where one gold operation acts, in the expected artifact E and in the original A.

    The pointers differ from the operation's own path when earlier or later operations insert
    into or remove from the same array; the judge and the partial credit compare by them.
    """

    op: GoldOp
    e_path: str | None
    """Where the op's result sits in E (None: the op removes the place)."""
    a_path: str | None
    """Where that place sits in A (None: it did not exist there)."""
    anchor: str
    """The pointer that decides which units the op governs."""


@dataclass(frozen=True)
class GoldGeometry:
    """What a case's gold fixes before any reply is read: the expected artifact E and the
    place of each gold operation (in the gold's order). Shared: callers must not modify E."""

    expected: Any
    places: list[GoldPlace]


_GEOMETRY: Memo[int, tuple[Case, GoldGeometry]] = Memo(10_000)
"""By ``id(case)``: an entry holds its case, so the id is not reused while it is remembered."""


def gold_geometry(case: Case) -> GoldGeometry:
    """The expected artifact and the gold places of ``case``, computed once per case object
    (they do not depend on replies, and every reply of the case is judged against them)."""
    entry = _GEOMETRY.get(
        id(case),
        lambda: (
            case,
            GoldGeometry(apply_operations(case.artifact, case.gold_patch), _gold_places(case)),
        ),
    )
    return entry[1]


def array_parent(state: Any, path: str) -> tuple[str, int] | None:
    """(parent pointer, index) when ``path`` names an element of an array in ``state`` (``-``:
    the end), else None."""
    tokens = split_pointer(path)
    if not tokens:
        return None
    parent_ptr = path[: path.rfind("/")]
    parent = resolve(state, parent_ptr)
    if not isinstance(parent, list):
        return None
    last = tokens[-1]
    index = len(parent) if last == "-" else int(last) if last.isdigit() else None
    return None if index is None else (parent_ptr, index)


def shift_pointer(path: str, parent: str, index: int, delta: int, inclusive: bool) -> str | None:
    """Move ``path`` when an element is inserted (delta +1) or removed (-1) at parent/index:
    None when it lies in the removed element; ``inclusive``: an element at ``index`` itself
    moves too (an insertion before it)."""
    if not path.startswith(parent + "/"):
        return path
    rest = path[len(parent) + 1 :]
    token, sep, tail = rest.partition("/")
    if not token.isdigit():
        return path
    position = int(token)
    if delta < 0 and position == index:
        return None
    if position > index or (inclusive and position == index):
        return f"{parent}/{position + delta}{sep}{tail}"
    return path


def _gold_places(case: Case) -> list[GoldPlace]:
    return gold_places(case.gold, array_parents(case.artifact, case.gold_patch))


def array_parents(doc: Any, patch: Sequence[dict[str, Any]]) -> list[ArrayAt]:
    """``array_parent`` of each op's path in the document it applies to (``patch`` applied in
    order to one copy of ``doc``); PatchError when the patch does not apply."""
    state = copy_json(doc)
    out = []
    for op in patch:
        out.append(array_parent(state, op["path"]))
        state = apply_operations(state, [copy_json(op)], in_place=True)
    return out


def gold_places(gold_ops: Sequence[GoldOp], arrays: Sequence[ArrayAt]) -> list[GoldPlace]:
    """The place of each of ``gold_ops``, given ``arrays[i]``: ``array_parent`` of operation
    ``i``'s path in the document it applies to (``array_parents``)."""
    places = []
    ops = list(gold_ops)
    for i, gold in enumerate(ops):
        path: str | None = gold.path
        if gold.op == "add":
            arr = arrays[i]
            if arr is not None:
                path = f"{arr[0]}/{arr[1]}"
        e_path: str | None = None if gold.op == "remove" else path
        anchor = path or gold.path
        for j in range(i + 1, len(ops)):
            later = ops[j]
            arr = arrays[j] if later.op in {"add", "remove"} else None
            if arr is None:
                continue
            delta = 1 if later.op == "add" else -1
            if e_path is not None:
                e_path = shift_pointer(e_path, arr[0], arr[1], delta, inclusive=delta > 0)
            anchor = shift_pointer(anchor, arr[0], arr[1], delta, inclusive=delta > 0) or arr[0]
        a_path: str | None = path
        if gold.op == "add" and arrays[i] is not None:
            a_path = None
        for j in range(i - 1, -1, -1):
            if a_path is None:
                break
            earlier = ops[j]
            arr = arrays[j] if earlier.op in {"add", "remove"} else None
            if arr is None:
                continue
            if earlier.op == "add":  # None inside the inserted element, else moved back
                a_path = shift_pointer(a_path, arr[0], arr[1], -1, inclusive=False)
            else:
                a_path = shift_pointer(a_path, arr[0], arr[1] - 1, +1, inclusive=False)
        places.append(GoldPlace(gold, e_path, a_path, anchor))
    return places
