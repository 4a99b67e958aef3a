"""The gold as a reply a model could write: a matching example for each regex, the referenced
value for each ``ref_equal`` (what the ``gold`` reference solver answers, and what the build
and the annotation checks try a gold with)."""

from __future__ import annotations

import re
from typing import Any

from pytest_revprop.core.geometry import expected_artifact
from pytest_revprop.core.judged import JudgedCase as Case
from pytest_revprop.core.patching import PatchError
from pytest_revprop.core.scoring import regex_passes
from pytest_revprop.util.jsonutil import MISSING, resolve

__all__ = ["literal_gold_patch", "regex_example"]


def regex_example(pattern: str) -> str | None:
    """A short string that ``pattern`` matches (deterministic), or None when none is found.

    Covers what case authors write: literals, classes, alternation, groups, repeats, anchors.
    """
    import re._constants as c  # type: ignore[import-not-found]
    import re._parser as parser  # type: ignore[import-not-found]

    try:
        parsed = parser.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return None
    groups: dict[int, str] = {}

    def from_class(items: Any) -> str:
        negate = any(op is c.NEGATE for op, _ in items)
        if negate:
            banned = {chr(arg) for op, arg in items if op is c.LITERAL}
            return next(ch for ch in "xyz0 " if ch not in banned)
        for op, arg in items:
            if op is c.LITERAL:
                return chr(arg)
            if op is c.RANGE:
                return chr(arg[0])
            if op is c.CATEGORY:
                return {"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " "}.get(str(arg), "a")
        return "a"

    def walk(items: Any, depth: int = 0) -> str:
        if depth > 50:
            raise RecursionError
        out = []
        for op, arg in items:
            if op is c.LITERAL:
                out.append(chr(arg))
            elif op is c.NOT_LITERAL:
                out.append("a" if chr(arg) != "a" else "b")
            elif op is c.ANY:
                out.append("a")
            elif op is c.IN:
                out.append(from_class(arg))
            elif op is c.BRANCH:
                out.append(walk(arg[1][0], depth + 1))
            elif op is c.SUBPATTERN:
                text = walk(arg[-1], depth + 1)
                if arg[0] is not None:
                    groups[arg[0]] = text
                out.append(text)
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                low, _high, body = arg
                out.append(walk(body, depth + 1) * max(low, 0))
            elif op is c.GROUPREF:
                out.append(groups.get(arg, ""))
            elif op is c.CATEGORY:
                out.append(from_class([(op, arg)]))
            elif op is c.ATOMIC_GROUP:
                out.append(walk(arg, depth + 1))
            elif op is c.ASSERT and arg[0] == 1:  # lookahead: the text must follow somewhere
                out.append(walk(arg[1], depth + 1) + " ")
            # AT (anchors), lookbehinds, ASSERT_NOT, GROUPREF_EXISTS: contribute nothing
        return "".join(out)

    try:
        example = walk(parsed)
    except (RecursionError, StopIteration, ValueError, TypeError):
        return None
    return example if regex_passes(pattern, example) else None


def literal_gold_patch(case: Case) -> list[dict[str, Any]] | None:
    """The gold as a reply a model could write: regex ops get a matching example string,
    ref_equal ops the value they must equal. None when some regex has no example."""
    patch: list[dict[str, Any]] = []
    for gold in case.gold:
        op: dict[str, Any] = {"op": gold.op, "path": gold.path}
        if gold.op != "remove":
            value = gold.value
            if gold.match == "regex_match":
                value = regex_example(gold.value)
                if value is None:
                    return None
            elif gold.match == "ref_equal":
                try:
                    value = resolve(expected_artifact(case), gold.value)
                except PatchError:  # the gold does not apply to this artifact
                    value = MISSING
                if value is MISSING:
                    return None
            op["value"] = value
        patch.append(op)
    return patch
