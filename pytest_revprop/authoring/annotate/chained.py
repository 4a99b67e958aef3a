"""A chain kept whole while a person edits it: every follow-up's document derived again from
the turn before, and turns named as the page names them.

Turn 0 is the case's own revision, turn ``k >= 1`` is ``followups[k - 1]`` (as in
``core.chain``). A follow-up's ``artifact`` is the canonical document before it: the turn
before's document with that turn's gold applied, as ``revprop cases build`` makes it, with a
concrete value wherever a matcher stands (the value the chain held there, while it still
passes the matcher; else the gold's literal answer, ``core.literal``: an example string for a
pattern, the referenced value for ``ref_equal``). An optional operation the chain left undone
stays undone. A case whose turns were not edited derives to itself (every shipped case does).

The page never sends a follow-up's document: the check and the save derive them here, so an
edit of turn ``i``'s gold reaches every later turn's document, and the loader's chain rules
(``followup-previous``, ``followup-noop``, ``gold-applies``) then judge each later turn.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pytest_revprop.core.case_schema import brief
from pytest_revprop.core.cases import CaseError, GoldOp, Revision
from pytest_revprop.core.geometry import array_parent
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.core.patching import PatchError, apply_operations
from pytest_revprop.core.scoring import regex_passes
from pytest_revprop.util.jsonutil import MISSING, json_equal, resolve

FOLLOWUP_EDITABLE = ("request", "reference", "gold", "theme")
"""The fields of a follow-up a save takes from the page; its ``artifact`` is derived."""


@dataclass(frozen=True)
class Stuck:
    """Where deriving stopped: turn ``turn``'s gold does not make a document (``why``), so the
    documents of the turns after it cannot be derived."""

    turn: int
    why: str


def turn_name(turn: int) -> str:
    """A turn as the page names it: ``turn 0 (the case's own revision)``, ``turn 2``."""
    return "turn 0 (the case's own revision)" if turn == 0 else f"turn {turn}"


def turn_of(pointer: str) -> tuple[int, str]:
    """(turn, pointer inside that turn) of a pointer into the case: ``/followups/1/gold/0``
    is turn 2's ``/gold/0``; anything else is turn 0's."""
    parts = pointer.split("/", 3)
    if len(parts) >= 3 and parts[1] == "followups" and parts[2].isdigit():
        return int(parts[2]) + 1, "/" + parts[3] if len(parts) > 3 else ""
    return 0, pointer


def turn_pointer(turn: int, inner: str) -> str:
    """The case pointer of turn ``turn``'s ``inner`` pointer (``turn_of`` undone)."""
    return inner if turn == 0 else f"/followups/{turn - 1}{inner}"


def followups_of(data: Any) -> list[dict[str, Any]]:
    """The case data's follow-ups, when they have the shape a chain needs (else none)."""
    followups = data.get("followups") if isinstance(data, dict) else None
    if not isinstance(followups, list) or not all(isinstance(f, dict) for f in followups):
        return []
    return followups


def derive_chain(data: dict[str, Any]) -> tuple[dict[str, Any], Stuck | None]:
    """``data`` with each follow-up's ``artifact`` derived from the turn before (see the
    module); where a turn's gold makes no document, the later turns keep the documents they
    had and ``Stuck`` says which turn stopped it."""
    followups = followups_of(data)
    if not followups:
        return data, None
    out = dict(data)
    out["followups"] = [dict(f) for f in followups]
    document, gold = data.get("artifact"), data.get("gold")
    for turn, followup in enumerate(out["followups"]):
        try:
            after = _after(document, gold, followup.get("artifact"))
        except _Underivable as exc:
            return out, Stuck(turn, str(exc))
        followup["artifact"] = after
        document, gold = after, followup.get("gold")
    return out, None


class _Underivable(Exception):
    """A turn's gold that makes no document (the message says why)."""


def _after(document: Any, gold: Any, was: Any) -> Any:
    """The document after ``gold`` applied to ``document``, each matcher's place concrete;
    ``was``: the document the chain had after this turn (its values are kept where they still
    pass)."""
    if not isinstance(gold, list) or not all(isinstance(g, dict) for g in gold):
        raise _Underivable("its gold is not a list of operations")
    try:
        ops = [
            GoldOp(
                op=g["op"],
                path=g["path"],
                value=g.get("value"),
                kind=g.get("kind", "cascade"),
                match=g.get("match", "strict"),
                optional=bool(g.get("optional", False)),
            )
            for g in gold
        ]
    except KeyError as exc:
        raise _Underivable(f"an operation has no {exc.args[0]}") from None
    literal: list[dict[str, Any]] | None = None
    state = document
    for index, g in enumerate(ops):
        op: dict[str, Any] = {"op": g.op, "path": g.path}
        if g.op != "remove":
            place = g.path
            if g.op == "add":
                at = array_parent(state, g.path)
                place = f"{at[0]}/{at[1]}" if at is not None else g.path
            old = resolve(was, place) if place else MISSING
            if g.optional and old is not MISSING and json_equal(old, resolve(state, place)):
                continue  # the chain left this optional place as it was
            if g.match == "strict":
                op["value"] = copy.deepcopy(g.value)
            elif old is not MISSING and _passes(g, old):
                op["value"] = copy.deepcopy(old)
            else:
                if literal is None:
                    turn = Revision(
                        request="", reference=None, gold=ops, artifact=document, theme=""
                    )
                    literal = literal_gold_patch(turn)
                    if literal is None:
                        raise _Underivable(f"op {index + 1}'s pattern has no example value")
                op["value"] = copy.deepcopy(literal[index]["value"])
        try:
            state = apply_operations(state, [op])
        except PatchError as exc:
            raise _Underivable(f"op {index + 1} does not apply: {exc}") from None
    return state


def _passes(g: GoldOp, value: Any) -> bool:
    if g.match == "any":
        return True
    if g.match == "regex_match":
        return isinstance(g.value, str) and regex_passes(g.value, value)
    return False  # ref_equal: the referenced value, from the literal answer


# ---------------------------------------------------------------------------- what to do


def stuck_message(turn: int, stuck: Stuck) -> str:
    """Turn ``turn``'s one line when its document cannot be derived (``stuck``)."""
    return (
        f"{turn_name(turn)}'s document cannot be derived: {turn_name(stuck.turn)}'s gold "
        f"makes no document ({stuck.why}); fix {turn_name(stuck.turn)} first"
    )


def chain_advice(exc: CaseError) -> str:
    """The loader's chain rule as one line on the turn it breaks, with what to do."""
    turn, _ = turn_of(exc.pointer)
    if exc.rule == "followup-noop":
        return (
            f"{turn_name(turn)} changes nothing any more: an earlier turn's edit already makes "
            f"its change. Change its gold, or remove the turn ({exc.message})"
        )
    if exc.rule == "followup-previous":
        return (
            f"{turn_name(turn)} no longer follows from {turn_name(turn - 1)}: {exc.message}. "
            f"Edit {turn_name(turn - 1)}'s gold so that it makes this document"
        )
    return exc.message


def changed_before(was: Any, now: Any, gold: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """(op index, warning) for each operation of a follow-up on a place whose value before
    the turn changed (``was`` -> ``now``, an earlier turn's edit): its value may have followed
    from the old one."""
    if was is None or json_equal(was, now):  # (the check of a turn nobody's edit reached)
        return []
    out = []
    for index, op in enumerate(gold):
        path = op.get("path")
        if not isinstance(path, str) or not path:
            continue
        old, new = resolve(was, path), resolve(now, path)
        if old is not MISSING and new is not MISSING and not json_equal(old, new):
            out.append(
                (
                    index,
                    f"an earlier turn's edit changed this place before this turn "
                    f"({brief(old)} -> {brief(new)}): check that this value still follows",
                )
            )
    return out
