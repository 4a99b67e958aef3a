"""Scoring one reply: RFC 6902 application (the patch comes from extraction.py), matchers, completion,
and the element-level failure decomposition (miss / over edit / wrong value) of docs/protocol.md.
Where each gold operation acts (its place in E and in A) is ``geometry.py``'s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.extraction import InvalidReply, extract_patch
from pytest_revprop.core.geometry import GoldPlace, expected_artifact, gold_geometry
from pytest_revprop.core.judged import JudgedCase as Case
from pytest_revprop.core.outcome import Outcome, Patch
from pytest_revprop.core.patching import PatchError, apply_operations, check_operations
from pytest_revprop.util.jsonutil import (
    MISSING,
    child_pointer,
    dumps_compact,
    is_within,
    json_equal,
    resolve,
)
from pytest_revprop.util.regexguard import REGEX_TIMEOUT_S as REGEX_TIMEOUT_S
from pytest_revprop.util.regexguard import regex_budget, search_bounded
from pytest_revprop.vocabulary import FAILURE_KINDS, FailureKind, OpKind

__all__ = [
    "ABSENT",
    "Finding",
    "Judge",
    "Score",
    "apply_patch",
    "json_equal",
    "regex_passes",
    "score_outcome",
    "score_patch",
    "score_reply",
]

ABSENT: dict[str, bool] = {"$absent": True}
"""How a place that does not exist appears in findings (expected or got)."""
Unit = tuple[str, Any, Any, Any]  # a unit the judge walks to: its pointer, its values in A, P, E


@dataclass(frozen=True)
class Finding:
    """One place where a valid reply's artifact differs from the expected one, and how.

    ``kind`` is a miss (the place kept its original value), an over edit (a place no gold
    operation governs was changed) or a wrong value; ``expected`` and ``got`` are the values
    there (``ABSENT`` where the place does not exist, a ``$regex``-style object where a
    matcher other than strict equality applies).
    """

    kind: FailureKind
    path: str
    expected: Any
    got: Any
    gold_kind: OpKind | None = None
    """Whether the gold op that governs the place is direct or cascade (None: no gold op)."""

    def to_dict(self) -> dict[str, Any]:
        """The finding in builtin types, as a record's ``findings`` hold it."""
        return {
            "kind": self.kind,
            "path": self.path,
            "expected": self.expected,
            "got": self.got,
            "gold_kind": self.gold_kind,
        }


@dataclass
class Score:
    """The verdict on one outcome: whether it completed the case, whether its reply was
    valid, its failures counted by kind and placed (``findings``).

    ``outcome`` is the outcome judged, as scoring found it: its patch, with the error and
    reason when it is invalid (a patch that does not apply gets ``apply_error``) or the
    artifact the patch makes when it is valid. The notes of a method's outcome stay on the
    method run: a score may be shared by every item whose final patch is the same.
    """

    completed: bool
    valid: bool
    outcome: Outcome = field(default_factory=Outcome)
    miss: int = 0
    over_edit: int = 0
    wrong_value: int = 0
    findings: list[Finding] = field(default_factory=list)

    @classmethod
    def invalid(cls, exc: InvalidReply, patch: Patch | None = None) -> Score:
        """The score of a reply that yields no usable patch, for the reason ``exc`` gives."""
        return cls(completed=False, valid=False, outcome=Outcome(patch, exc.category, exc.reason))

    @classmethod
    def judged(cls, findings: list[Finding], patch: Patch | None, artifact: Any) -> Score:
        """The score of a valid reply whose judged document (``artifact``) has ``findings``."""
        counts = {kind: sum(1 for f in findings if f.kind == kind) for kind in FAILURE_KINDS}
        return cls(
            completed=not findings,
            valid=True,
            miss=counts["miss"],
            over_edit=counts["over_edit"],
            wrong_value=counts["wrong_value"],
            findings=findings,
            outcome=Outcome(patch, artifact=artifact),
        )

    def to_dict(self) -> dict[str, Any]:
        """The verdict in builtin types (``revprop score``'s output)."""
        return {
            "completed": self.completed,
            "valid": self.valid,
            "error": self.outcome.error,
            "miss": self.miss,
            "over_edit": self.over_edit,
            "wrong_value": self.wrong_value,
            "reason": self.outcome.reason,
            "findings": [f.to_dict() for f in self.findings],
        }


def apply_patch(doc: Any, patch: list[dict[str, Any]]) -> Any:
    """Apply an RFC 6902 patch to a copy of ``doc``; raises InvalidReply("apply_error")."""
    try:
        return apply_operations(doc, check_operations(patch))
    except PatchError as exc:
        raise InvalidReply("apply_error", str(exc)) from None


# ---------------------------------------------------------------------------- judging


def regex_passes(pattern: str, value: Any) -> bool:
    """Whether ``value`` (a string, else its compact JSON) matches, under the bounds of
    ``regexguard`` (size guard, time per search and per reply)."""
    subject = value if isinstance(value, str) else dumps_compact(value)
    return search_bounded(pattern, subject)


class Judge:
    """Compares the predicted artifact (P: the reply's patch applied to the case's artifact A)
    with the expected one (E: the gold applied) under the case's matchers.

    The artifacts are walked unit by unit: a unit is a place where A, P and E stop having the
    same shape, or a place a matcher, an optional operation or a removal governs (``special``).
    ``findings`` lists the units where P fails E; the partial credit reuses the same units.
    """

    def __init__(
        self, case: Case, predicted: Any, expected: Any, places: list[GoldPlace] | None = None
    ) -> None:
        self.case = case
        self.before = case.artifact
        self.predicted = predicted
        self.expected = expected
        self.places = gold_geometry(case).places if places is None else places
        self.anchors = [
            (place, {place.anchor, place.op.path} | ({place.e_path} if place.e_path else set()))
            for place in self.places
        ]
        all_anchors = {a for _, anchors in self.anchors for a in anchors}
        self.anchor_set = all_anchors
        self.anchor_prefixes = {
            a[:i] for a in all_anchors for i in range(len(a) + 1) if i == len(a) or a[i] == "/"
        }
        self.special: dict[str, GoldPlace] = {}
        """By pointer: the places a matcher other than strict equality, an optional operation
        or a removal governs; each is judged whole."""
        for place in self.places:
            key = place.e_path if place.e_path is not None else place.anchor
            if place.op.op == "remove" and place.e_path is None and key in self.special:
                continue  # where a removed element was, the next element's own place decides
            if place.op.match != "strict" or place.op.optional or place.op.op == "remove":
                self.special[key] = place

    def agree(self, p: Any, e: Any, path: str) -> bool:
        """Whether the predicted value ``p`` satisfies the expected ``e`` at ``path``: under
        the matcher or optionality of the place there, else equal (objects and arrays compared
        member by member, so a matcher inside them applies)."""
        place = self.special.get(path)
        if place is not None:
            verdict = self.place_agrees(place, p, e)
            if verdict is not None:
                return verdict
        if isinstance(p, dict) and isinstance(e, dict):
            keys = list(e) + [k for k in p if k not in e]
            return all(
                self.agree(p.get(k, MISSING), e.get(k, MISSING), child_pointer(path, k))
                for k in keys
            )
        if isinstance(p, list) and isinstance(e, list):
            return len(p) == len(e) and all(
                self.agree(x, y, child_pointer(path, i))
                for i, (x, y) in enumerate(zip(p, e, strict=True))
            )
        return json_equal(p, e)

    def place_agrees(self, place: GoldPlace, p: Any, e: Any) -> bool | None:
        """The verdict of ``place``'s matcher, optionality or removal on the predicted ``p``
        (``e``: expected), or None when equality judges it."""
        op = place.op
        if op.optional and json_equal(p, self.kept_value(place)):
            return True
        if op.op == "remove" and e is MISSING:
            return p is MISSING
        if op.match == "any":
            return p is not MISSING
        if op.match == "regex_match":
            return p is not MISSING and regex_passes(op.value, p)
        if op.match == "ref_equal":
            return p is not MISSING and json_equal(
                p, resolve(self.predicted, self.reference(place))
            )
        return None

    def kept_value(self, place: GoldPlace) -> Any:
        """What an optional place may keep: its value in A (MISSING: it did not exist)."""
        return MISSING if place.a_path is None else resolve(self.before, place.a_path)

    def reference(self, place: GoldPlace) -> str:
        """The pointer a ``ref_equal`` place's value must equal, in P's coordinates."""
        return str(place.op.value)

    def unchanged(self, unit: str, a: Any, e: Any) -> Any:
        """What an ungoverned unit must hold (``a``, ``e``: its values in A, E): ``a``."""
        return a

    def previous(self, unit: str, a: Any) -> Any:
        """What a governed unit held before the revision (keeping it is a miss): ``a``."""
        return a

    def is_governed(self, unit: str) -> bool:
        """Fast test: some gold op's place is the unit, lies inside it, or contains it."""
        if unit in self.anchor_prefixes:
            return True
        return any(
            unit[:i] in self.anchor_set
            for i in range(len(unit) + 1)
            if i == len(unit) or unit[i] == "/"
        )

    def governing(self, unit: str) -> list[GoldPlace]:
        """The gold places whose pointers lie inside ``unit`` or contain it."""
        return [
            place
            for place, anchors in self.anchors
            if any(is_within(a, unit) or is_within(unit, a) for a in anchors)
        ]

    def walked(self) -> list[Unit]:
        """The units judged with their values: (pointer, in A, in P, in E)."""
        out: list[Unit] = []
        self._walk(self.before, self.predicted, self.expected, "", out)
        return out

    def _walk(self, a: Any, p: Any, e: Any, path: str, out: list[Unit]) -> None:
        if path in self.special and path != "":
            out.append((path, a, p, e))
        elif isinstance(a, dict) and isinstance(p, dict) and isinstance(e, dict):
            keys = (
                list(a) + [k for k in e if k not in a] + [k for k in p if k not in a and k not in e]
            )
            for key in keys:
                self._walk(
                    a.get(key, MISSING),
                    p.get(key, MISSING),
                    e.get(key, MISSING),
                    child_pointer(path, key),
                    out,
                )
        elif (
            isinstance(a, list)
            and isinstance(p, list)
            and isinstance(e, list)
            and len(a) == len(p) == len(e)
        ):
            for i, (x, y, z) in enumerate(zip(a, p, e, strict=True)):
                self._walk(x, y, z, child_pointer(path, i), out)
        else:
            out.append((path, a, p, e))

    def findings(self) -> list[Finding]:
        """Every unit where P fails E: an over edit where no gold op governs it and P changed
        A, else a miss (P kept A's value) or a wrong value."""
        found = []
        for unit, a, p, e in self.walked():
            if not self.is_governed(unit):
                kept = self.unchanged(unit, a, e)
                if not json_equal(p, kept):
                    found.append(Finding("over_edit", unit, _show(kept), _show(p)))
                continue
            if self.agree(p, e, unit):
                continue
            kind: OpKind = (
                "direct" if any(g.op.kind == "direct" for g in self.governing(unit)) else "cascade"
            )
            expected = _describe_expected(e, unit, self.special.get(unit))
            if json_equal(p, self.previous(unit, a)):
                found.append(Finding("miss", unit, expected, _show(p), kind))
            else:
                found.append(Finding("wrong_value", unit, expected, _show(p), kind))
        return found


def _show(value: Any) -> Any:
    """A value as findings show it: ``ABSENT`` for a place that does not exist."""
    return ABSENT if value is MISSING else value


def _describe_expected(e: Any, unit: str, place: GoldPlace | None) -> Any:
    if place is not None and place.op.match == "regex_match":
        return {"$regex": place.op.value}
    if place is not None and place.op.match == "ref_equal":
        return {"$ref_equal": place.op.value}
    if place is not None and place.op.match == "any":
        return {"$any": True}
    return _show(e)


# ---------------------------------------------------------------------------- scoring


def score_patch(case: Case, patch: list[dict[str, Any]], predicted: Any = MISSING) -> Score:
    """Score an already-extracted patch against a case. ``predicted``: the artifact the patch
    makes, when the caller has it (a merge rule's result), so the patch is not applied again;
    it is only read."""
    if predicted is MISSING:
        try:
            predicted = apply_patch(case.artifact, patch)
        except InvalidReply as exc:
            return Score.invalid(exc, patch if isinstance(patch, list) else None)
    with regex_budget():
        findings = Judge(case, predicted, expected_artifact(case)).findings()
    return Score.judged(findings, patch, predicted)


def score_outcome(case: Case, outcome: Outcome) -> Score:
    """Score a method's outcome against a case: invalid with the outcome's own error and
    reason when it has no patch, else its patch scored (with the artifact it carries)."""
    if outcome.patch is None:
        judged = Outcome(error=outcome.error, reason=outcome.reason)
        return Score(completed=False, valid=False, outcome=judged)
    return score_patch(case, outcome.patch, predicted=outcome.artifact)


def score_reply(case: Case, text: str) -> Score:
    """Score a raw reply text (the content, never the reasoning) against a case."""
    try:
        patch = extract_patch(text)
    except InvalidReply as exc:
        return Score.invalid(exc)
    return score_patch(case, patch)
