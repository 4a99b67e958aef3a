"""The JSON object a writer's reply answers with.

The writer prompts ask for one JSON object. It is looked for the way the scorer looks for a
patch, but for objects: the last fenced code block whose whole body is one object, else the
first object read while scanning the text (strict JSON: no NaN, no member twice).
"""

from __future__ import annotations

import re
from typing import Any

from pytest_revprop.llm.types import Reply
from pytest_revprop.util.jsonutil import StrictJSONError, loads_strict, raw_decode_strict

MAX_SCAN_ATTEMPTS = 2_000
_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)


class NoObject(Exception):
    """A reply without a usable JSON object; the message says why, for the re-ask."""


def reply_object(reply: Reply) -> dict[str, Any]:
    """The object in ``reply``; NoObject when it was cut off or holds none."""
    if reply.finish_reason == "length":
        raise NoObject("the reply was cut off at the output limit: answer more briefly")
    found = object_in(reply.content)
    if found is None:
        raise NoObject("the reply holds no JSON object: answer with one JSON object")
    return found


def object_in(text: str) -> dict[str, Any] | None:
    """The last fenced JSON object of ``text``, else the first one found in it, else None."""
    fenced: list[dict[str, Any]] = []
    for match in _FENCE.finditer(text):
        try:
            value = loads_strict(match.group(1).strip())
        except ValueError:
            continue
        if isinstance(value, dict):
            fenced.append(value)
    if fenced:
        return fenced[-1]
    start = text.find("{")
    attempts = 0
    while start != -1 and attempts < MAX_SCAN_ATTEMPTS:
        attempts += 1
        try:
            value, _ = raw_decode_strict(text, start)
        except (StrictJSONError, ValueError):
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None
