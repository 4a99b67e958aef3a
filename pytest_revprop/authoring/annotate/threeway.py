"""Three-way merge of two people's edits of one case, against the version both started from.

A save that finds the file changed on disk has three versions: the base (the version the page
opened), theirs (on disk now) and mine (the page's). The fields a save takes from the page
(request, gold, notes, size, annotation notes) are merged against the base; every other field
(conversation, artifact, status, history) is theirs, since the save owns the history.

- A field only one side changed takes that side's value; both changed it alike, that value.
- The gold is merged operation by operation, as diff3 merges lines: the operations are aligned
  by (op, path) along a common subsequence of base and each side. An operation both sides kept
  has each member (value, kind, match, optional) merged as a field. A stretch between aligned
  operations (inserted, deleted or re-pathed operations) that one side left as in the base takes
  the other side's; both changed it differently, it is a conflict.
- Each conflict carries base, theirs and mine; the person saving picks a side per conflict
  (``Merge.result``). Nothing is taken from a side silently: what merged by itself is listed
  (``theirs_changes``, ``mine_changes``) for the page to say.
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.cases import ANNOTATION_FIELD
from pytest_revprop.util.jsonutil import MISSING, json_equal

SIDES = ("mine", "theirs")
OP_MEMBERS = ("op", "path", "value", "kind", "match", "optional")
FIELDS = ("request", "notes", "size", "annotation notes")
"""The merged fields besides the gold, as the page names them."""


@dataclass(frozen=True)
class MergeConflict:
    """One place both sides changed differently: a field, or a stretch of the gold."""

    id: int
    field: str
    label: str
    base: Any
    theirs: Any
    mine: Any

    def to_dict(self) -> dict[str, Any]:
        """The conflict as the editor receives it (a missing value as null)."""

        def shown(value: Any) -> Any:
            return None if value is MISSING else value

        return {
            "id": self.id,
            "field": self.field,
            "label": self.label,
            "base": shown(self.base),
            "theirs": shown(self.theirs),
            "mine": shown(self.mine),
        }


@dataclass(frozen=True)
class _Choice:
    """Where a merged value waits for a side to be chosen (conflict ``id``)."""

    id: int


@dataclass
class Merge:
    """The merged editable fields, with a conflict id wherever a side has to be chosen."""

    theirs: dict[str, Any]
    fields: dict[str, Any] = field(default_factory=dict)
    gold: list[list[dict[str, Any]] | _Choice] = field(default_factory=list)
    conflicts: list[MergeConflict] = field(default_factory=list)
    theirs_changes: list[str] = field(default_factory=list)
    mine_changes: list[str] = field(default_factory=list)

    def _conflict(self, name: str, label: str, base: Any, theirs: Any, mine: Any) -> _Choice:
        self.conflicts.append(MergeConflict(len(self.conflicts), name, label, base, theirs, mine))
        return _Choice(len(self.conflicts) - 1)

    def result(self, choices: Mapping[int, str] | None = None) -> dict[str, Any] | None:
        """Theirs with the merged fields, each conflict resolved by ``choices`` (conflict id ->
        "mine" or "theirs"); None while a conflict has no choice."""
        choices = choices or {}
        if any(choices.get(c.id) not in SIDES for c in self.conflicts):
            return None

        def pick(value: Any) -> Any:
            if isinstance(value, _Choice):
                conflict = self.conflicts[value.id]
                return conflict.mine if choices[value.id] == "mine" else conflict.theirs
            return value

        out = copy.deepcopy(self.theirs)
        for name, value in self.fields.items():
            chosen = pick(value)
            if name == "annotation notes":
                note = out.get(ANNOTATION_FIELD)
                if isinstance(note, dict):
                    note = dict(note)
                    if chosen is MISSING or not chosen:
                        note.pop("notes", None)
                    else:
                        note["notes"] = chosen
                    out[ANNOTATION_FIELD] = note
                elif isinstance(chosen, str) and chosen:
                    out[ANNOTATION_FIELD] = {"status": "annotated", "history": [], "notes": chosen}
            elif chosen is MISSING:
                out.pop(name, None)
            else:
                out[name] = copy.deepcopy(chosen)
        gold: list[dict[str, Any]] = []
        for piece in self.gold:
            gold.extend(copy.deepcopy(pick(piece)))
        out["gold"] = gold
        return out


def _get(data: Any, name: str) -> Any:
    if not isinstance(data, dict):
        return MISSING
    if name == "annotation notes":
        note = data.get(ANNOTATION_FIELD)
        return note.get("notes", MISSING) if isinstance(note, dict) else MISSING
    return data.get(name, MISSING)


def _same(a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING:
        return a is b
    return json_equal(a, b)


def _three(base: Any, theirs: Any, mine: Any) -> tuple[bool, Any]:
    """(merged by itself, value): the side that changed, or False when both did, apart."""
    if _same(mine, base) or _same(mine, theirs):
        return True, theirs
    if _same(theirs, base):
        return True, mine
    return False, None


def new_saves(base: Any, theirs: Any) -> list[dict[str, Any]]:
    """The history entries theirs has and base has not: who saved meanwhile."""

    def history(data: Any) -> list[Any]:
        note = data.get(ANNOTATION_FIELD) if isinstance(data, dict) else None
        entries = note.get("history") if isinstance(note, dict) else None
        return entries if isinstance(entries, list) else []

    old = history(base)
    return [h for h in history(theirs) if isinstance(h, dict) and h not in old]


def merge_case(base: Any, mine: Any, theirs: dict[str, Any]) -> Merge:
    """Merge ``mine`` and ``theirs`` against ``base`` (see the module's rules)."""
    merge = Merge(theirs=theirs)
    for name in FIELDS:
        b, t, m = _get(base, name), _get(theirs, name), _get(mine, name)
        done, value = _three(b, t, m)
        if not _same(t, b):
            merge.theirs_changes.append(name)
        if not _same(m, b):
            merge.mine_changes.append(name)
        merge.fields[name] = value if done else merge._conflict(name, name, b, t, m)
    _merge_gold(merge, _ops(base), _ops(mine), _ops(theirs))
    return merge


def _ops(data: Any) -> list[dict[str, Any]]:
    gold = data.get("gold") if isinstance(data, dict) else None
    return [op for op in gold if isinstance(op, dict)] if isinstance(gold, list) else []


def _key(op: dict[str, Any]) -> str:
    return json.dumps([op.get("op"), op.get("path")], ensure_ascii=False)


def _aligned(base: Sequence[dict[str, Any]], other: Sequence[dict[str, Any]]) -> dict[int, int]:
    """Base index -> other index for the operations the two keep, in order."""
    matcher = difflib.SequenceMatcher(
        None, [_key(o) for o in base], [_key(o) for o in other], autojunk=False
    )
    out: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for n in range(block.size):
            out[block.a + n] = block.b + n
    return out


def _describe(ops: Sequence[dict[str, Any]], start: int) -> str:
    if not ops:
        return f"op {start + 1}"
    paths = ", ".join(str(op.get("path")) for op in ops[:3]) + (", ..." if len(ops) > 3 else "")
    numbers = f"op {start + 1}" if len(ops) == 1 else f"ops {start + 1}-{start + len(ops)}"
    return f"{numbers} ({paths})"


def _merge_gold(
    merge: Merge,
    base: list[dict[str, Any]],
    mine: list[dict[str, Any]],
    theirs: list[dict[str, Any]],
) -> None:
    to_mine, to_theirs = _aligned(base, mine), _aligned(base, theirs)
    i = j = k = 0
    for o in [o for o in range(len(base)) if o in to_mine and o in to_theirs] + [len(base)]:
        end_m, end_t = (to_mine[o], to_theirs[o]) if o < len(base) else (len(mine), len(theirs))
        if end_m < j or end_t < k:
            continue  # the two alignments cross here; the stretch goes to the next anchor
        _stretch(merge, base[i:o], mine[j:end_m], theirs[k:end_t], j, k)
        if o < len(base):
            _stretch_op(merge, base[o], mine[end_m], theirs[end_t], end_m, end_t)
        i, j, k = o + 1, end_m + 1, end_t + 1


def _stretch(
    merge: Merge,
    base: list[dict[str, Any]],
    mine: list[dict[str, Any]],
    theirs: list[dict[str, Any]],
    at_mine: int,
    at_theirs: int,
) -> None:
    if not (base or mine or theirs):
        return
    if not _same(theirs, base):
        merge.theirs_changes.append(_describe(theirs or base, at_theirs))
    if not _same(mine, base):
        merge.mine_changes.append(_describe(mine or base, at_mine))
    done, value = _three(base, theirs, mine)
    if done:
        merge.gold.append(value)
    else:
        label = f"the expected patch: your {_describe(mine, at_mine)}"
        merge.gold.append(merge._conflict("gold", label, base, theirs, mine))


def _stretch_op(
    merge: Merge,
    base: dict[str, Any],
    mine: dict[str, Any],
    theirs: dict[str, Any],
    at_mine: int,
    at_theirs: int,
) -> None:
    """One operation both sides kept: merged member by member."""
    merged: dict[str, Any] = {}
    for name in OP_MEMBERS:
        done, value = _three(
            base.get(name, MISSING), theirs.get(name, MISSING), mine.get(name, MISSING)
        )
        if not done:
            _stretch(merge, [base], [mine], [theirs], at_mine, at_theirs)
            return
        if value is not MISSING:
            merged[name] = value
    if not _same(theirs, base):
        merge.theirs_changes.append(_describe([theirs], at_theirs))
    if not _same(mine, base):
        merge.mine_changes.append(_describe([mine], at_mine))
    merge.gold.append([merged])
