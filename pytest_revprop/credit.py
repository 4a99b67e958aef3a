"""Partial credit of one scored reply, beyond the paper's all-or-nothing completion
(docs/protocol.md, "Beyond the paper"):

- ``cascade_recall``: the share of the gold's required (non-optional) cascade places that the
  reply got right. A place is right when none of the judge's findings falls on it (a miss or
  a wrong value at the place, inside it or around it). None when the gold has no such place.
- ``preservation``: one minus the share of the original artifact's places outside every gold
  path that the reply changed. Those places are the leaves of the original artifact A that
  lie in no unit a gold operation governs (walking A and the expected artifact E together,
  as the judge does); a leaf is changed when the predicted artifact differs from A at its
  pointer (or lacks it). None when every place of A lies under some gold path.

An invalid reply (no usable patch, or cut off) earns 0 for both: it propagated and preserved
nothing usable. A result whose call or method failed (an infrastructure error) earns None
for both, as it earns no completion either. Both are computed from the score's findings and
predicted artifact, so they cost a walk of the artifact and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_revprop.jsonutil import MISSING, child_pointer, iter_leaves, json_equal, resolve
from pytest_revprop.scoring import Score, _gold_geometry, _Judge
from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS

if TYPE_CHECKING:
    from pytest_revprop.cases import Case

__all__ = ["Credit", "partial_credit", "preserved_places", "required_cascades"]


@dataclass(frozen=True)
class Credit:
    """A sample's partial credit (each in [0, 1], or None where it is undefined)."""

    cascade_recall: float | None
    preservation: float | None

    def to_dict(self) -> dict[str, float | None]:
        return {"cascade_recall": self.cascade_recall, "preservation": self.preservation}


_PLACES: dict[int, tuple[Case, int, tuple[str, ...]]] = {}
"""Per case object: (case, required cascade places, the leaves of A outside every gold path)."""


def _case_places(case: Case) -> tuple[int, tuple[str, ...]]:
    entry = _PLACES.get(id(case))
    if entry is None or entry[0] is not case:
        _, expected, places = _gold_geometry(case)
        cascades = sum(1 for p in places if p.op.kind == "cascade" and not p.op.optional)
        judge = _Judge(case, case.artifact, expected)
        kept: list[str] = []
        _ungoverned_leaves(judge, case.artifact, expected, "", kept)
        entry = (case, cascades, tuple(kept))
        if len(_PLACES) > 10_000:
            _PLACES.clear()
        _PLACES[id(case)] = entry
    return entry[1], entry[2]


def required_cascades(case: Case) -> int:
    """How many required (non-optional) cascade operations the case's gold holds."""
    return _case_places(case)[0]


def preserved_places(case: Case) -> tuple[str, ...]:
    """The pointers of the original artifact's leaves outside every gold path."""
    return _case_places(case)[1]


def _ungoverned_leaves(judge: _Judge, a: Any, e: Any, path: str, out: list[str]) -> None:
    """Walk A and E together (objects key by key, arrays of one length index by index, as the
    judge does) and collect the leaves of A under every unit no gold operation governs."""
    if path and path in judge.special:
        return
    if isinstance(a, dict) and a and isinstance(e, dict):
        for key, value in a.items():
            _ungoverned_leaves(judge, value, e.get(key, MISSING), child_pointer(path, key), out)
    elif isinstance(a, list) and a and isinstance(e, list) and len(a) == len(e):
        for index, (x, y) in enumerate(zip(a, e, strict=True)):
            _ungoverned_leaves(judge, x, y, child_pointer(path, index), out)
    elif not judge.is_governed(path):
        out.extend(pointer for pointer, _ in iter_leaves(a, path))


def partial_credit(case: Case, score: Score) -> Credit:
    """``cascade_recall`` and ``preservation`` of ``score``, a reply's score on ``case``."""
    if score.error in INFRASTRUCTURE_ERRORS:
        return Credit(None, None)
    cascades, kept = _case_places(case)
    if not score.valid:
        return Credit(0.0 if cascades else None, 0.0 if kept else None)
    recall: float | None = None
    if cascades:
        _, expected, places = _gold_geometry(case)
        judge = _Judge(case, score.artifact, expected)
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
    preservation: float | None = None
    if kept:
        changed = sum(
            1
            for pointer in kept
            if not json_equal(resolve(score.artifact, pointer), resolve(case.artifact, pointer))
        )
        preservation = 1.0 - changed / len(kept)
    return Credit(recall, preservation)
