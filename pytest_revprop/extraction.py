"""Finding the patch in a model's reply: the last fenced block that parses as a patch, else the
first JSON value in the text that does; a JSON array of operations or ``{"patch": [...]}``.
A reply without one is an ``InvalidReply`` with its category and reason (docs/protocol.md).
"""

from __future__ import annotations

import re
from typing import Any

from pytest_revprop.jsonutil import StrictJSONError, loads_strict, raw_decode_strict
from pytest_revprop.patching import PatchError, check_operations

__all__ = ["InvalidReply", "extract_patch"]

MAX_REPLY_CHARS = 2_000_000
"""Replies beyond this are not searched for a patch (a 32K-token reply is ~150K chars)."""
MAX_DECODE_ATTEMPTS = 2_000

_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)


class InvalidReply(Exception):
    """A reply that yields no usable patch: ``category`` is no_patch, not_a_patch or apply_error."""

    def __init__(self, category: str, reason: str) -> None:
        self.category = category
        self.reason = reason
        super().__init__(f"{category}: {reason}")


def _as_candidate(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and isinstance(value.get("patch"), list):
        patch: list[Any] = value["patch"]
        return patch
    return None


def _looks_like_ops(patch: list[Any]) -> bool:
    return all(isinstance(op, dict) for op in patch)


def _fenced_candidates(text: str, rejected: list[str]) -> list[list[Any]]:
    """Fenced blocks that parse as candidates; strict-JSON refusals (NaN, duplicate members,
    deep nesting) are appended to ``rejected``."""
    found = []
    for match in _FENCE.finditer(text):
        try:
            value = loads_strict(match.group(1).strip())
        except StrictJSONError as exc:
            rejected.append(str(exc))
            continue
        except ValueError:
            continue
        candidate = _as_candidate(value)
        if candidate is not None:
            found.append(candidate)
    return found


def _inline_candidates(text: str, rejected: list[str]) -> list[list[Any]]:
    """JSON arrays / {"patch": [...]} values in reading order (bounded work); strict-JSON
    refusals are appended to ``rejected``."""
    found: list[list[Any]] = []
    attempts = 0
    index = 0
    length = len(text)
    while index < length and attempts < MAX_DECODE_ATTEMPTS:
        brace = text.find("{", index)
        bracket = text.find("[", index)
        starts = [s for s in (brace, bracket) if s != -1]
        if not starts:
            break
        start = min(starts)
        attempts += 1
        try:
            value, end = raw_decode_strict(text, start)
        except StrictJSONError as exc:
            rejected.append(str(exc))
            index = start + 1
            continue
        except ValueError:
            index = start + 1
            continue
        candidate = _as_candidate(value)
        if candidate is not None:
            found.append(candidate)
            if _looks_like_ops(candidate):
                break
        index = end
    return found


def extract_patch(text: str) -> list[dict[str, Any]]:
    """The patch in a raw reply: the last fenced block that parses as a patch, else the first
    JSON value in the text that does. Raises InvalidReply (no_patch / not_a_patch)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidReply("no_patch", "the reply is empty")
    if len(text) > MAX_REPLY_CHARS:
        raise InvalidReply(
            "no_patch",
            f"the reply is {len(text)} characters; not searched beyond {MAX_REPLY_CHARS}",
        )
    rejected: list[str] = []
    fenced = _fenced_candidates(text, rejected)
    inline = [] if any(_looks_like_ops(c) for c in fenced) else _inline_candidates(text, rejected)
    ranked = [c for c in reversed(fenced) if _looks_like_ops(c)] + [
        c for c in inline if _looks_like_ops(c)
    ]
    chosen = ranked[0] if ranked else (fenced[-1] if fenced else inline[0] if inline else None)
    if chosen is None:
        why = f" (JSON refused: {rejected[0]})" if rejected else ""
        raise InvalidReply("no_patch", f"no JSON array of operations found in the reply{why}")
    try:
        return check_operations(chosen)
    except PatchError as exc:
        raise InvalidReply("not_a_patch", str(exc)) from None
