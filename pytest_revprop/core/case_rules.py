"""The loading rules of docs/case-format.md that run on a parsed case (after the schema): the
conversation replay, the gold's checks, and the follow-ups' (each follow-up's gold checked like
the case's, applied to its own artifact, and chained to the revision before it).

A broken case raises ``CaseError``, one line naming the file, the rule and the JSON Pointer.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from pytest_revprop.core.case_schema import brief
from pytest_revprop.core.judged import JudgedCase, JudgedOp
from pytest_revprop.core.patching import PatchError, apply_operations, diff
from pytest_revprop.core.scoring import score_patch
from pytest_revprop.errors import one_line
from pytest_revprop.util.jsonutil import MISSING, json_equal, resolve, split_pointer
from pytest_revprop.util.regexguard import RegexRefused, compile_bounded

__all__ = [
    "CaseError",
    "check_chained",
    "check_gold",
    "check_replay",
    "reference_problem",
]


class CaseError(Exception):
    """A case that breaks a loading rule: ``file: rule at pointer: message``."""

    def __init__(self, file: str, rule: str, pointer: str, message: str) -> None:
        self.file = file
        self.rule = rule
        self.pointer = pointer
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.pointer if self.pointer else "(root)"
        return one_line(f"{self.file}: {self.rule} at {where}: {self.message}")


def check_replay(conversation: Sequence[list[dict[str, Any]]], artifact: Any, name: str) -> None:
    """Rule ``conversation-replay``: the assistant patches of the conversation, applied to
    ``{}`` in order, give the artifact."""
    doc: Any = {}
    turns = copy.deepcopy(list(conversation))
    for t_index, ops in enumerate(turns):
        for o_index, op in enumerate(ops):
            try:
                doc = apply_operations(doc, [op], in_place=True)
            except PatchError as exc:
                pointer = f"/conversation/{t_index}/assistant/{o_index}"
                raise CaseError(
                    name, "conversation-replay", pointer, f"does not apply: {exc}"
                ) from None
    if not json_equal(doc, artifact):
        first = diff(artifact, doc)
        where = "/artifact" + (first[0]["path"] if first else "")
        raise CaseError(
            name,
            "conversation-replay",
            where,
            "replaying the conversation does not give the artifact",
        )


def check_gold(
    artifact: Any, gold: Sequence[JudgedOp], name: str, at: str, *, with_gold: bool
) -> None:
    """The rules of a gold at pointer ``at`` (the case's ``/gold`` or a follow-up's): ``regex``
    and ``schema`` on its values, ``gold-empty`` and ``gold-root`` (unless ``with_gold`` is
    false: a case shown while its gold is written), ``gold-applies`` (``followup-gold-applies``
    for a follow-up) to ``artifact``, and ``ref-equal``."""
    _check_values(gold, name, at)
    if with_gold:
        _check_gold_ops(gold, name, at)
    try:
        expected = apply_operations(artifact, plain_patch(gold))
    except PatchError as exc:
        if at == "/gold":
            message = f"gold patch does not apply to the artifact: {exc}"
            raise CaseError(name, "gold-applies", at, message) from None
        message = f"the follow-up's gold does not apply to its artifact: {exc}"
        raise CaseError(name, "followup-gold-applies", at, message) from None
    _check_references(gold, expected, name, at)


def _check_values(gold: Sequence[JudgedOp], name: str, at: str) -> None:
    """Rules ``regex`` (every pattern compiles within the limits) and ``schema`` (every
    ``ref_equal`` value is a well-formed JSON Pointer) on the gold at pointer ``at``."""
    for g_index, op in enumerate(gold):
        if op.match == "regex_match":
            _check_regex(op.value, name, f"{at}/{g_index}/value")
        if op.match == "ref_equal":
            try:
                split_pointer(op.value)
            except ValueError:
                raise CaseError(
                    name,
                    "schema",
                    f"{at}/{g_index}/value",
                    "ref_equal value is not a JSON Pointer",
                ) from None


def _check_gold_ops(gold: Sequence[JudgedOp], name: str, at: str) -> None:
    """Rules ``gold-empty`` (a gold has at least one operation: the direct change) and
    ``gold-root`` (no operation on the document root: it would replace the whole document)."""
    if not gold:
        raise CaseError(
            name,
            "gold-empty",
            at,
            "the gold has no operation: it needs at least the direct change",
        )
    for g_index, op in enumerate(gold):
        if op.path == "":
            raise CaseError(
                name,
                "gold-root",
                f"{at}/{g_index}/path",
                f'a {op.op} of the document root (path "") changes the whole document: '
                "give the path of the place it changes",
            )


def _check_references(gold: Sequence[JudgedOp], expected: Any, name: str, at: str) -> None:
    """Rule ``ref-equal``: every ``ref_equal`` pointer names a primitive leaf of the expected
    artifact (what the predicted value is compared with: a place, not an object or array)."""
    for g_index, op in enumerate(gold):
        if op.match != "ref_equal":
            continue
        problem = reference_problem(expected, op.value)
        if problem is not None:
            raise CaseError(name, "ref-equal", f"{at}/{g_index}/value", problem)


def reference_problem(expected: Any, pointer: str) -> str | None:
    """What is wrong with ``pointer`` as a ``ref_equal`` value given the expected artifact
    (rule ``ref-equal``), or None when it names a primitive leaf of it."""
    target = resolve(expected, pointer)
    if target is MISSING:
        return f"the ref_equal pointer {pointer!r} names no place of the expected artifact"
    if isinstance(target, dict | list):
        kind = "an object" if isinstance(target, dict) else "an array"
        return f"the ref_equal pointer {pointer!r} names {kind}, not a primitive leaf"
    return None


def _check_regex(pattern: Any, name: str, pointer: str) -> None:
    try:
        compile_bounded(pattern)
    except RegexRefused as exc:
        raise CaseError(name, "regex", pointer, str(exc)) from None


def check_chained(previous: JudgedCase, current: JudgedCase, name: str, index: int) -> None:
    """Rules ``followup-previous`` (the revision before follow-up ``index``, ``previous``,
    accepts the follow-up's artifact as its result: the chain holds together) and
    ``followup-noop`` (the follow-up, ``current``, does not accept its artifact unchanged).
    Revisions are judged by ``scoring``, which remembers each one's geometry: pass the same
    object for a follow-up here and as the next one's ``previous``."""
    key = _chain_key(previous, current)
    if key in _CHAINS_HELD:
        return
    at = f"/followups/{index}"
    judged = score_patch(previous, [], predicted=current.artifact)
    if judged.findings:
        first = judged.findings[0]
        which = "the case's gold" if index == 0 else f"follow-up {index - 1}'s gold"
        raise CaseError(
            name,
            "followup-previous",
            f"{at}/artifact{first.path}",
            f"{which} does not accept this artifact as its result: {first.kind.replace('_', ' ')}"
            f" (expected {brief(first.expected)}, found {brief(first.got)})",
        )
    if score_patch(current, [], predicted=current.artifact).completed:
        raise CaseError(
            name,
            "followup-noop",
            f"{at}/gold",
            "the follow-up's gold accepts its artifact unchanged: the revision changes nothing",
        )
    _CHAINS_HELD.add(key)


_CHAINS_HELD: set[bytes] = set()
"""Digests of the (revision, follow-up) pairs that passed :func:`check_chained` in this process:
a run loads the same case files again and again (each in-process run, each plan), and judging
is most of what loading a follow-up costs. Content, not file names, is the key."""
_CHAINS_KEPT = 100_000


def _chain_key(previous: JudgedCase, current: JudgedCase) -> bytes:
    def gold(case: JudgedCase) -> list[Any]:
        return [[g.op, g.path, g.value, g.kind, g.match, g.optional] for g in case.gold]

    if len(_CHAINS_HELD) > _CHAINS_KEPT:
        _CHAINS_HELD.clear()
    text = json.dumps(
        [previous.artifact, gold(previous), current.artifact, gold(current)],
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode("utf-8")).digest()


def plain_patch(gold: Sequence[JudgedOp]) -> list[dict[str, Any]]:
    """Gold operations as a plain RFC 6902 patch: their stored values, no matcher metadata."""
    return [
        {"op": g.op, "path": g.path, **({} if g.op == "remove" else {"value": g.value})}
        for g in gold
    ]
