"""Three-way merge of two people's edits of one case, against the version both started from.

A save that finds the file changed on disk has three versions: the base (the version the page
opened), theirs (on disk now) and mine (the page's). The fields a save takes from the page
(request, gold, notes, size, annotation notes) are merged against the base; every other field
(conversation, artifact, status, history) is theirs, since the save owns the history.

- A field only one side changed takes that side's value; both changed it alike, that value.
- The gold is merged operation by operation, by identity rather than position (``goldmerge``):
  moves, removals, edits and additions of both sides are all kept; what both changed
  differently (an operation, or the order) is a conflict.
- A chain's follow-ups merge turn by turn: each one's request, reference and theme as a field,
  its gold operation by operation by the same identities, a conflict named by its turn
  ("turn 2: op 1 (/total)"). When the sides have different numbers of follow-ups, the side
  that added or removed one gives them all, and both doing so is a conflict.
- Each conflict carries base, theirs and mine; the person saving picks a side per conflict
  (``Merge.result``). Nothing is taken from a side silently: what merged by itself is listed
  (``theirs_changes``, ``mine_changes``) for the page to say.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.authoring.annotate.goldmerge import (
    GoldPlan,
    Ident,
    match_by_key,
    plan_gold,
    valid_origin,
)
from pytest_revprop.core.cases import ANNOTATION_FIELD
from pytest_revprop.util.jsonutil import MISSING, json_equal

SIDES = ("mine", "theirs")
FIELDS = ("request", "notes", "size", "annotation notes")
"""The merged fields besides the gold, as the page names them."""
FOLLOWUP_FIELDS = ("request", "reference", "theme")
"""A follow-up's merged fields besides its gold (its document is derived from the turn before)."""


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
    plan: GoldPlan = field(default_factory=GoldPlan)
    conflicts: list[MergeConflict] = field(default_factory=list)
    theirs_changes: list[str] = field(default_factory=list)
    mine_changes: list[str] = field(default_factory=list)
    turns: dict[int, tuple[dict[str, Any], GoldPlan]] = field(default_factory=dict)
    """Per follow-up turn (1, 2, ...): its merged fields and the plan of its gold."""
    followups: Any = None
    """The follow-ups whole (or a _Choice) when the sides have different numbers of them."""

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
        ops = self.plan.ops(choices)
        out["gold"] = [copy.deepcopy(op) for _, op in ops]
        if self.followups is not None:
            chosen = pick(self.followups)
            if chosen is MISSING:
                out.pop("followups", None)
            else:
                out["followups"] = copy.deepcopy(chosen)
        draft = _draft(out)
        _follow_flags(draft, self.plan, ops)
        for turn, (fields, plan) in self.turns.items():
            followup = out["followups"][turn - 1]
            for name, value in fields.items():
                chosen = pick(value)
                if chosen is MISSING:
                    followup.pop(name, None)
                else:
                    followup[name] = copy.deepcopy(chosen)
            turn_ops = plan.ops(choices)
            followup["gold"] = [copy.deepcopy(op) for _, op in turn_ops]
            notes = draft.get("followups") if draft is not None else None
            if isinstance(notes, list) and turn - 1 < len(notes):
                _follow_flags(notes[turn - 1], plan, turn_ops)
        return out

    def origin(self, choices: Mapping[int, str] | None = None) -> list[list[int | None] | None]:
        """Per turn of ``result(choices)`` (0, then each follow-up), for each of its operations
        its index in theirs (None for one of mine): the identities the page keeps for the next
        merge; None for a turn whose identities are not known (follow-ups a side gave whole)."""
        choices = choices or {}
        out: list[list[int | None] | None] = [_origin(self.plan, choices)]
        merged = self.result(choices)
        count = len(merged.get("followups") or []) if merged is not None else 0
        for turn in range(1, count + 1):
            known = self.turns.get(turn)
            out.append(_origin(known[1], choices) if known is not None else None)
        return out


def _origin(plan: GoldPlan, choices: Mapping[int, str]) -> list[int | None]:
    """For each merged operation of one turn, its index in theirs (None for one of mine)."""
    return [plan.theirs_index.get(i) for i, _ in plan.ops(choices)]


def _draft(out: dict[str, Any]) -> dict[str, Any] | None:
    """The merged case's draft record (theirs, copied: its flags are moved in place)."""
    note = out.get(ANNOTATION_FIELD)
    draft = note.get("draft") if isinstance(note, dict) else None
    return draft if isinstance(draft, dict) else None


def _follow_flags(holder: Any, plan: GoldPlan, merged: list[tuple[Ident, Any]]) -> None:
    """One turn's review flags (``holder["flags"]``, on theirs' operations) moved to where
    their operations are in the merged gold; a flag on an operation the merge removed goes."""
    flags = holder.get("flags") if isinstance(holder, dict) else None
    if not isinstance(flags, list):
        return
    where = {
        plan.theirs_index[ident]: at
        for at, (ident, _) in enumerate(merged)
        if ident in plan.theirs_index
    }
    out = []
    for flag in flags:
        gold = flag.get("gold") if isinstance(flag, dict) else None
        if isinstance(gold, int) and not isinstance(gold, bool):
            if gold in where:
                out.append({**flag, "gold": where[gold]})
        else:
            out.append(flag)
    holder["flags"] = out


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


def merge_case(base: Any, mine: Any, theirs: dict[str, Any], mine_origin: Any = None) -> Merge:
    """Merge ``mine`` and ``theirs`` against ``base`` (see the module's rules);
    ``mine_origin``, when the page knows it: per turn (0, then each follow-up), the base index
    each operation of mine of that turn was loaded from (None for one added since)."""
    origins = mine_origin if isinstance(mine_origin, list) else []
    merge = Merge(theirs=theirs)
    for name in FIELDS:
        b, t, m = _get(base, name), _get(theirs, name), _get(mine, name)
        done, value = _three(b, t, m)
        if not _same(t, b):
            merge.theirs_changes.append(f"edited the {name}")
        if not _same(m, b):
            merge.mine_changes.append(f"edited the {name}")
        merge.fields[name] = value if done else merge._conflict(name, name, b, t, m)
    merge.plan = _merge_gold(merge, 0, base, mine, theirs, origins)
    _merge_followups(merge, base, mine, theirs, origins)
    return merge


def _merge_gold(
    merge: Merge, turn: int, base: Any, mine: Any, theirs: Any, origins: list[Any]
) -> GoldPlan:
    """The plan of one turn's merged gold (``base``, ``mine``, ``theirs``: that turn's data),
    its operations paired by identity (``origins[turn]``; unknown: by op and path); what each
    side changed and every conflict are recorded on ``merge``, named by the turn after 0."""
    base_ops, mine_ops, theirs_ops = _ops(base), _ops(mine), _ops(theirs)
    given = origins[turn] if turn < len(origins) else None
    origin = valid_origin(given, mine_ops, base_ops) or match_by_key(base_ops, mine_ops)
    prefix = f"turn {turn}: " if turn else ""

    def conflict(label: str, b: Any, t: Any, m: Any) -> int:
        return merge._conflict("gold", f"{prefix}{label}", b, t, m).id

    plan, theirs_changes, mine_changes = plan_gold(base_ops, mine_ops, theirs_ops, origin, conflict)
    merge.theirs_changes += [f"{prefix}{c}" for c in theirs_changes]
    merge.mine_changes += [f"{prefix}{c}" for c in mine_changes]
    return plan


def _merge_followups(
    merge: Merge, base: Any, mine: Any, theirs: dict[str, Any], origins: list[Any]
) -> None:
    """The follow-ups of ``mine`` and ``theirs`` merged against ``base``, turn by turn."""
    b, t, m = (_get(x, "followups") for x in (base, theirs, mine))
    lists = [x if isinstance(x, list) else [] for x in (b, t, m)]
    if len({len(x) for x in lists}) > 1:
        done, value = _three(b, t, m)
        merge.followups = value if done else merge._conflict("followups", "follow-ups", b, t, m)
        return
    for turn, (fb, ft, fm) in enumerate(zip(*lists, strict=True), start=1):
        fields: dict[str, Any] = {}
        for name in FOLLOWUP_FIELDS:
            vb, vt, vm = (_get(x, name) for x in (fb, ft, fm))
            done, value = _three(vb, vt, vm)
            label = f"turn {turn} {name}"
            if not _same(vt, vb):
                merge.theirs_changes.append(f"edited the {label}")
            if not _same(vm, vb):
                merge.mine_changes.append(f"edited the {label}")
            fields[name] = value if done else merge._conflict(label, label, vb, vt, vm)
        merge.turns[turn] = (fields, _merge_gold(merge, turn, fb, fm, ft, origins))


def _ops(data: Any) -> list[dict[str, Any]]:
    gold = data.get("gold") if isinstance(data, dict) else None
    return [op for op in gold if isinstance(op, dict)] if isinstance(gold, list) else []
