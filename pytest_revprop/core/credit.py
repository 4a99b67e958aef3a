"""Partial credit of one scored reply, beyond the paper's all-or-nothing completion
(docs/protocol.md, "Beyond the paper"):

- ``cascade_recall``: the share of the gold's required (non-optional) cascade places that the
  reply got right. A place is right when none of the judge's findings falls on it (a miss or
  a wrong value at the place, inside it or around it). None when the gold has no such place.
- ``preservation``: one minus the share of the original artifact's places outside every gold
  path that the reply changed. Those places are the leaves of the original artifact A that
  lie in no unit a gold operation governs (walking A and the expected artifact E together,
  as the judge does); a leaf is changed when the predicted artifact differs from A at its
  pointer (or lacks it). In an array whose length the gold changes, the elements the gold
  neither removes, adds nor edits are kept whole (aligned by the gold's removals and
  additions), and such an element is changed when the reply's array holds no equal element
  (in any order). 1 when A has no such place (nothing could be spoiled).

An invalid reply (no usable patch, or cut off) earns 0 for both: it propagated and preserved
nothing usable. A result whose call or method failed (an infrastructure error) earns None
for both, as it earns no completion either. Both are computed from the score's findings and
predicted artifact, so they cost a walk of the artifact and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_revprop.core.geometry import GoldPlace, gold_geometry
from pytest_revprop.core.scoring import Judge, Score
from pytest_revprop.util.jsonutil import (
    MISSING,
    child_pointer,
    is_within,
    iter_leaves,
    json_equal,
    resolve,
)
from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS

if TYPE_CHECKING:
    from pytest_revprop.core.cases import Case

__all__ = ["Credit", "partial_credit", "preserved_places", "required_cascades"]


@dataclass(frozen=True)
class Credit:
    """A sample's partial credit (each in [0, 1], or None where it is undefined)."""

    cascade_recall: float | None
    preservation: float | None

    def to_dict(self) -> dict[str, float | None]:
        """The credit in builtin types, as the record's fields."""
        return {"cascade_recall": self.cascade_recall, "preservation": self.preservation}


@dataclass(frozen=True)
class _Kept:
    """Places of A outside every gold path: leaves compared at their pointer, and whole
    elements of arrays whose length the gold changes, each looked for in the reply's array."""

    leaves: tuple[str, ...]
    elements: tuple[tuple[str, int, Any, int], ...]  # (array pointer, index in A, element, leaves)

    @property
    def count(self) -> int:
        return len(self.leaves) + sum(n for *_, n in self.elements)


_PLACES: dict[int, tuple[Case, int, _Kept]] = {}
"""Per case object: (case, required cascade places, the places of A outside every gold path)."""


def _case_places(case: Case) -> tuple[int, _Kept]:
    entry = _PLACES.get(id(case))
    if entry is None or entry[0] is not case:
        geometry = gold_geometry(case)
        places = geometry.places
        cascades = sum(1 for p in places if p.op.kind == "cascade" and not p.op.optional)
        walk = _Walk(Judge(case, case.artifact, geometry.expected), places)
        walk.visit(case.artifact, geometry.expected, "")
        entry = (case, cascades, _Kept(tuple(walk.leaves), tuple(walk.elements)))
        if len(_PLACES) > 10_000:
            _PLACES.clear()
        _PLACES[id(case)] = entry
    return entry[1], entry[2]


def required_cascades(case: Case) -> int:
    """How many required (non-optional) cascade operations the case's gold holds."""
    return _case_places(case)[0]


def preserved_places(case: Case) -> tuple[str, ...]:
    """The pointers of the original artifact's leaves outside every gold path (those inside
    kept elements of arrays whose length the gold changes included)."""
    kept = _case_places(case)[1]
    return kept.leaves + tuple(
        pointer
        for path, index, element, _ in kept.elements
        for pointer, _ in iter_leaves(element, child_pointer(path, index))
    )


def _index_in(pointer: str | None, array: str) -> int | None:
    """The index of the element of ``array`` that ``pointer`` names, if it names one."""
    if pointer is None or not pointer.startswith(array + "/"):
        return None
    token = pointer[len(array) + 1 :]
    return int(token) if token.isdigit() else None


class _Walk:
    """Walks A and E together (objects key by key, arrays of one length index by index, as
    the judge does) and collects the places of A that no gold operation governs. An array
    whose length the gold changes is aligned by the gold's own removals and additions; its
    other elements are kept whole when no gold place lies in or around them (in E)."""

    def __init__(self, judge: Judge, places: list[GoldPlace]) -> None:
        self.judge = judge
        self.places = places
        self.leaves: list[str] = []
        self.elements: list[tuple[str, int, Any, int]] = []

    def visit(self, a: Any, e: Any, path: str) -> None:
        if path and path in self.judge.special:
            return
        if isinstance(a, dict) and a and isinstance(e, dict):
            for key, value in a.items():
                self.visit(value, e.get(key, MISSING), child_pointer(path, key))
        elif isinstance(a, list) and a and isinstance(e, list) and len(a) == len(e):
            for index, (x, y) in enumerate(zip(a, e, strict=True)):
                self.visit(x, y, child_pointer(path, index))
        elif isinstance(a, list) and isinstance(e, list):
            self._align(a, e, path)
        elif not self.judge.is_governed(path):
            self.leaves.extend(pointer for pointer, _ in iter_leaves(a, path))

    def _align(self, a: list[Any], e: list[Any], path: str) -> None:
        removed = {
            i
            for p in self.places
            if p.op.op == "remove" and (i := _index_in(p.a_path, path)) is not None
        }
        added = {
            j
            for p in self.places
            if p.op.op == "add"
            and p.a_path is None
            and (j := _index_in(p.e_path, path)) is not None
        }
        kept_a = [i for i in range(len(a)) if i not in removed]
        kept_e = [j for j in range(len(e)) if j not in added]
        if len(kept_a) != len(kept_e):
            return  # the gold does not say how the elements line up: the array is governed
        for i, j in zip(kept_a, kept_e, strict=True):
            element = child_pointer(path, j)
            if any(
                p.e_path is not None
                and (is_within(p.e_path, element) or is_within(element, p.e_path))
                for p in self.places
            ):
                continue
            self.elements.append((path, i, a[i], sum(1 for _ in iter_leaves(a[i]))))


def _changed(kept: _Kept, original: Any, predicted: Any) -> int:
    """How many of the kept places the predicted artifact changed: a leaf when it differs at
    its pointer; each leaf of a kept element when no equal element, not matched already, is
    in the predicted array at that pointer (order does not matter there)."""
    changed = sum(
        1
        for pointer in kept.leaves
        if not json_equal(resolve(predicted, pointer), resolve(original, pointer))
    )
    unused: dict[str, list[Any]] = {}
    for path, _, element, leaves in kept.elements:
        if path not in unused:
            found = resolve(predicted, path)
            unused[path] = list(found) if isinstance(found, list) else []
        pool = unused[path]
        match = next((n for n, value in enumerate(pool) if json_equal(value, element)), None)
        if match is None:
            changed += leaves
        else:
            del pool[match]
    return changed


def partial_credit(case: Case, score: Score) -> Credit:
    """``cascade_recall`` and ``preservation`` of ``score``, a reply's score on ``case``."""
    if score.outcome.error in INFRASTRUCTURE_ERRORS:
        return Credit(None, None)
    cascades, kept = _case_places(case)
    if not score.valid:
        return Credit(0.0 if cascades else None, 0.0)
    recall: float | None = None
    if cascades:
        geometry = gold_geometry(case)
        places = geometry.places
        judge = Judge(case, score.outcome.artifact, geometry.expected)
        wrong: set[int] = set()
        for finding in score.findings:
            if finding.kind != "over_edit":
                wrong.update(id(place) for place in judge.governing(finding.path))
        right = sum(
            1
            for place in places
            if place.op.kind == "cascade" and not place.op.optional and id(place) not in wrong
        )
        recall = right / cascades
    preservation = (
        1.0 - _changed(kept, case.artifact, score.outcome.artifact) / kept.count
        if kept.count
        else 1.0
    )
    return Credit(recall, preservation)
