"""Finding the patch in a model's reply: the last fenced block that parses as a patch, else the
first JSON value in the text that does; a JSON array of operations or ``{"patch": [...]}``.
A reply without one is an ``InvalidReply`` with its category and reason (docs/protocol.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from pytest_revprop.core.patching import PatchError, check_operations
from pytest_revprop.util.jsonutil import StrictJSONError, loads_strict, raw_decode_strict

__all__ = ["InvalidReply", "extract_patch"]

MAX_REPLY_CHARS = 2_000_000
"""Replies beyond this are not searched for a patch (a 32K-token reply is ~150K chars)."""
MAX_DECODE_WORK = 4_000_000
"""The work budget of one reply's search, in characters: every read attempt (a fenced block,
or a ``[`` / ``{`` of the text) is charged what the decoder read plus ``ATTEMPT_COST``; the
search stops when the budget is spent, so its time is bounded whatever the text."""
ATTEMPT_COST = 200

_OPENER = re.compile(r"```[^\n`]*\n")


class _Budget:
    """What is left of a reply's ``MAX_DECODE_WORK``."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_DECODE_WORK

    def charge(self, chars: int) -> bool:
        """Charge one attempt that read ``chars``; False once the budget is spent."""
        self.left -= ATTEMPT_COST + max(chars, 0)
        return self.left > 0


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


def _fenced_blocks(text: str) -> Iterator[str]:
    """The bodies of the fenced blocks: an opening fence with an optional language tag, up to
    the next fence; in one pass (a lazy regex would rescan to the end from every opener)."""
    position = 0
    while (opener := _OPENER.search(text, position)) is not None:
        close = text.find("```", opener.end())
        if close == -1:
            return
        yield text[opener.end() : close]
        position = close + 3


def _fenced_candidates(text: str, rejected: list[str], budget: _Budget) -> list[list[Any]]:
    """Fenced blocks that parse as candidates; strict-JSON refusals (NaN, duplicate members,
    deep nesting) are appended to ``rejected``."""
    found = []
    for block in _fenced_blocks(text):
        if not budget.charge(len(block)):
            break
        body = block.strip()
        if not body.startswith(("[", "{")):
            continue  # never a candidate
        try:
            value = loads_strict(body)
        except StrictJSONError as exc:
            rejected.append(str(exc))
            continue
        except ValueError:
            continue
        candidate = _as_candidate(value)
        if candidate is not None:
            found.append(candidate)
    return found


def _inline_candidates(text: str, rejected: list[str], budget: _Budget) -> list[list[Any]]:
    """JSON arrays / {"patch": [...]} values in reading order (``MAX_DECODE_WORK``); strict-JSON
    refusals are appended to ``rejected``."""
    found: list[list[Any]] = []
    index = 0
    length = len(text)
    brace = bracket = -1  # the next "{" and "[" at or after index (found again when passed)
    while index < length:
        if brace < index:
            brace = text.find("{", index)
            brace = length if brace == -1 else brace
        if bracket < index:
            bracket = text.find("[", index)
            bracket = length if bracket == -1 else bracket
        start = min(brace, bracket)
        if start == length:
            break
        try:
            value, end = raw_decode_strict(text, start)
        except StrictJSONError as exc:
            rejected.append(str(exc))
            index = start + 1
            if not budget.charge((length if exc.end is None else exc.end) - start):
                break
            continue
        except json.JSONDecodeError as exc:
            # an unterminated string is reported where it starts, but read to the end
            read_to = length if exc.msg.startswith("Unterminated string") else exc.pos
            index = start + 1
            if not budget.charge(read_to - start):
                break
            continue
        if not budget.charge(end - start):
            break
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
    budget = _Budget()
    fenced = _fenced_candidates(text, rejected, budget)
    inline = (
        []
        if any(_looks_like_ops(c) for c in fenced)
        else _inline_candidates(text, rejected, budget)
    )
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
