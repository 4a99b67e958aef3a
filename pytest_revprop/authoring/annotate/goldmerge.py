"""The gold's part of the three-way merge: operations merged by identity, not by position.

Each operation of base has an identity; an operation of either side is the same operation as a
base one when the page says so (``mine_origin``: the base index each of the page's operations
was loaded from, None for one added since), or else when it has the base operation's op and
path (the file on disk carries no identities). An operation that matches none was added.

- An operation one side left as in the base takes the other side's version (edited, or
  removed); both edited it, it is merged member by member (op, path, value, kind, match,
  optional), and a member both changed differently makes the operation a conflict. Removed on
  one side and edited on the other is a conflict too.
- Operations either side added are all kept; the same operation added by both is kept once.
- The order: the side that moved operations gives it (the other side's additions go after the
  operation they follow there); both moved them differently, the order is a conflict.
- The merged gold never holds two operations on one path that neither side had: two such
  operations are a conflict, whichever is chosen is kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.util.jsonutil import MISSING, json_equal

OP_MEMBERS = ("op", "path", "value", "kind", "match", "optional")
Ident = tuple[str, int]
"""An operation's identity: ("b", base index), ("m", mine index) or ("t", theirs index)."""


@dataclass(frozen=True)
class Pick:
    """An operation that waits for a side of conflict ``id``: what each side makes of it."""

    id: int
    mine: dict[str, Any] | None
    theirs: dict[str, Any] | None


Slot = dict[str, Any] | Pick | None


@dataclass
class GoldPlan:
    """The merged gold before the sides are chosen: each identity's operation (or a Pick, or
    None when removed) and the order (two orders and a conflict id when both sides moved
    operations differently)."""

    slots: dict[Ident, Slot] = field(default_factory=dict)
    order: list[Ident] = field(default_factory=list)
    other_order: list[Ident] = field(default_factory=list)
    order_conflict: int | None = None
    theirs_index: dict[Ident, int] = field(default_factory=dict)
    base_ops: list[dict[str, Any]] = field(default_factory=list)

    def ops(self, choices: Mapping[int, str]) -> list[tuple[Ident, dict[str, Any]]]:
        """The merged operations with their identities, conflicts resolved by ``choices``."""
        order = self.order
        if self.order_conflict is not None and choices.get(self.order_conflict) == "theirs":
            order = self.other_order
        out = []
        for ident in order:
            slot = self.slots.get(ident)
            if isinstance(slot, Pick):
                slot = slot.mine if choices.get(slot.id) == "mine" else slot.theirs
            if slot is not None:
                out.append((ident, slot))
        return out


def _key(op: Mapping[str, Any]) -> str:
    return json.dumps([op.get("op"), op.get("path")], ensure_ascii=False)


def _same(a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING or a is None or b is None:
        return a is b
    return json_equal(a, b)


def match_by_key(
    base: Sequence[dict[str, Any]], side: Sequence[dict[str, Any]]
) -> list[int | None]:
    """For each operation of ``side``, the base operation with its op and path (in order)."""
    free: dict[str, list[int]] = {}
    for index, op in enumerate(base):
        free.setdefault(_key(op), []).append(index)
    out: list[int | None] = []
    for op in side:
        left = free.get(_key(op))
        out.append(left.pop(0) if left else None)
    return out


def valid_origin(origin: Any, mine: Sequence[Any], base: Sequence[Any]) -> list[int | None] | None:
    """``origin`` when it is one base index (or None) per operation of mine, each used once."""
    if not isinstance(origin, list) or len(origin) != len(mine):
        return None
    seen: set[int] = set()
    for value in origin:
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < len(base):
            return None
        if value in seen:
            return None
        seen.add(value)
    return list(origin)


def _sequence(origin: Sequence[int | None], side: str) -> list[Ident]:
    return [("b", o) if o is not None else (side, i) for i, o in enumerate(origin)]


def _moved(seq: Sequence[Ident], common: set[Ident]) -> list[Ident]:
    return [ident for ident in seq if ident in common]


def _placed(skeleton: Sequence[Ident], other: Sequence[Ident]) -> list[Ident]:
    """``skeleton`` with each identity of ``other`` it lacks put after the one it follows
    there (first when it follows none)."""
    out = list(skeleton)
    have = set(out)
    before: Ident | None = None
    for ident in other:
        if ident not in have:
            out.insert(out.index(before) + 1 if before is not None else 0, ident)
            have.add(ident)
        before = ident
    return out


def _merge_op(
    base: dict[str, Any], theirs: dict[str, Any], mine: dict[str, Any]
) -> dict[str, Any] | None:
    """One operation both sides edited, member by member; None when a member conflicts."""
    merged: dict[str, Any] = {}
    for name in OP_MEMBERS:
        b, t, m = (op.get(name, MISSING) for op in (base, theirs, mine))
        if _same(m, b) or _same(m, t):
            value = t
        elif _same(t, b):
            value = m
        else:
            return None
        if value is not MISSING:
            merged[name] = value
    extra = {k: v for k, v in mine.items() if k not in OP_MEMBERS}
    return {**extra, **merged}


def _name(op: Mapping[str, Any] | None, index: int) -> str:
    """How the dialog names an operation: ``op 5 (/path)`` as numbered on a side."""
    return f"op {index + 1} ({op.get('path') if op else '?'})"


def plan_gold(
    base: Sequence[dict[str, Any]],
    mine: Sequence[dict[str, Any]],
    theirs: Sequence[dict[str, Any]],
    mine_origin: Sequence[int | None],
    conflict: Any,
) -> tuple[GoldPlan, list[str], list[str]]:
    """The plan of the merged gold, and what each side changed (theirs, then mine), as the
    dialog lists them. ``conflict(label, base, theirs, mine)`` records a conflict and returns
    its id; the sides of a gold conflict are lists of operations."""
    theirs_origin = match_by_key(base, theirs)
    plan = GoldPlan(base_ops=list(base))
    mine_of = {o: i for i, o in enumerate(mine_origin) if o is not None}
    theirs_of = {o: i for i, o in enumerate(theirs_origin) if o is not None}
    seq_m, seq_t = _sequence(mine_origin, "m"), _sequence(theirs_origin, "t")
    plan.theirs_index = {ident: i for i, ident in enumerate(seq_t)}
    theirs_changes: list[str] = []
    mine_changes: list[str] = []
    source: dict[Ident, str] = {}

    for b, base_op in enumerate(base):
        ident: Ident = ("b", b)
        m = mine[mine_of[b]] if b in mine_of else None
        t = theirs[theirs_of[b]] if b in theirs_of else None
        m_changed, t_changed = not _same(m, base_op), not _same(t, base_op)
        if t_changed:
            theirs_changes.append(
                f"edited {_name(t, theirs_of[b])}" if t else f"removed {_name(base_op, b)}"
            )
        if m_changed:
            mine_changes.append(
                f"edited {_name(m, mine_of[b])}" if m else f"removed {_name(base_op, b)}"
            )
        if not m_changed or _same(m, t):
            plan.slots[ident], source[ident] = t, "theirs" if t_changed else "both"
        elif not t_changed:
            plan.slots[ident], source[ident] = m, "mine"
        else:
            both = _merge_op(base_op, t, m) if m is not None and t is not None else None
            if both is not None:
                plan.slots[ident], source[ident] = both, "both"
            else:
                where = f"your {_name(m, mine_of[b])}" if m else f"their {_name(t, theirs_of[b])}"
                if m and t and mine_of[b] != theirs_of[b]:
                    where += f", their op {theirs_of[b] + 1}"
                cid = conflict(
                    f"the expected patch: {where}",
                    [base_op],
                    [t] if t else [],
                    [m] if m else [],
                )
                plan.slots[ident], source[ident] = Pick(cid, m, t), "conflict"
    for i, o in enumerate(mine_origin):
        if o is None:
            plan.slots[("m", i)], source[("m", i)] = mine[i], "mine"
            mine_changes.append(f"added {_name(mine[i], i)}")
    for i, o in enumerate(theirs_origin):
        if o is None:
            twin = next(
                (j for j, oo in enumerate(mine_origin) if oo is None and _same(mine[j], theirs[i])),
                None,
            )
            theirs_changes.append(f"added {_name(theirs[i], i)}")
            if twin is not None:
                plan.slots[("t", i)] = None  # the same operation, added by both: kept once
                continue
            plan.slots[("t", i)], source[("t", i)] = theirs[i], "theirs"

    common = {("b", b) for b in range(len(base)) if b in mine_of and b in theirs_of}
    base_order = [("b", b) for b in range(len(base)) if ("b", b) in common]
    moved_m, moved_t = _moved(seq_m, common), _moved(seq_t, common)
    if moved_t != base_order:
        theirs_changes.append("moved operations")
    if moved_m != base_order:
        mine_changes.append("moved operations")
    if moved_t == base_order or moved_m == moved_t:
        plan.order = _placed(seq_m, seq_t)
    elif moved_m == base_order:
        plan.order = _placed(seq_t, seq_m)
    else:
        plan.order = _placed(seq_m, seq_t)
        plan.other_order = _placed(seq_t, seq_m)
        plan.order_conflict = conflict(
            "the order of the operations",
            list(base),
            list(theirs),
            list(mine),
        )
    if plan.order_conflict is None:
        plan.other_order = plan.order
    _one_op_per_path(plan, source, mine, theirs, conflict)
    return plan, theirs_changes, mine_changes


def _one_op_per_path(
    plan: GoldPlan,
    source: dict[Ident, str],
    mine: Sequence[dict[str, Any]],
    theirs: Sequence[dict[str, Any]],
    conflict: Any,
) -> None:
    """Two settled operations on one path, one from each side, when neither side had two
    operations there: a conflict whose choice keeps one of them."""

    def count(ops: Sequence[dict[str, Any]], path: Any) -> int:
        return sum(1 for op in ops if op.get("path") == path)

    by_path: dict[str, tuple[Any, list[Ident]]] = {}
    for ident in plan.order:
        slot = plan.slots.get(ident)
        if isinstance(slot, dict):
            path = slot.get("path")
            by_path.setdefault(json.dumps(path), (path, []))[1].append(ident)
    for path, idents in by_path.values():
        if len(idents) < 2 or count(mine, path) > 1 or count(theirs, path) > 1:
            continue
        ours = [i for i in idents if source.get(i) == "mine"]
        others = [i for i in idents if source.get(i) != "mine"]
        if not ours or not others:
            continue
        a, b = ours[0], others[0]
        op_a, op_b = plan.slots[a], plan.slots[b]
        if not isinstance(op_a, dict) or not isinstance(op_b, dict):
            continue
        base_at = [op for op in plan.base_ops if op.get("path") == path]
        cid = conflict(f"the expected patch: two operations on {path}", base_at, [op_b], [op_a])
        plan.slots[a] = Pick(cid, op_a, None)
        plan.slots[b] = Pick(cid, None, op_b)
