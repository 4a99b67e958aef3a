"""The one strict JSON reader (and the writer that never fails on what it reads back).

Every JSON text from outside (case files, model replies, the lines a run wrote) is read here,
so every entry point accepts and refuses the same things (docs/protocol.md, "Limits"):

- no NaN/Infinity constants, no number that overflows a double (``1e400``), no integer of more
  than ``MAX_INT_DIGITS`` digits, no duplicate object member;
- no container nested deeper than ``MAX_DEPTH`` levels (checked without recursion, so that
  everything downstream may recurse over a document safely);
- no lone UTF-16 surrogate (``"\\ud800"``) in a string or a member name: such a string cannot be
  written as UTF-8, so it is refused where it enters (the surrogate policy).

A refusal is a ``StrictJSONError`` with the pointer of the place (when known) and ``end``,
how far into the text the decoder read (the extractor's work budget counts it).
"""

from __future__ import annotations

import json
import math
import re
import threading
from typing import Any, Final

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "StrictJSONError",
    "check_value",
    "json_bytes",
    "loads_strict",
    "raw_decode_strict",
]

MAX_DEPTH: Final = 100
"""Deepest container nesting accepted anywhere (a root array is level 1)."""
MAX_INT_DIGITS: Final = 4300
"""Longest integer literal accepted (Python's own limit for int())."""
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class StrictJSONError(ValueError):
    """A JSON text that is valid for Python's parser but not acceptable JSON for us."""

    def __init__(self, message: str, pointer: str = "", end: int | None = None) -> None:
        self.pointer = pointer
        self.end = end
        super().__init__(message + (f" at {pointer}" if pointer else ""))


class _Hooks:
    """A decoder whose hooks note the first problem instead of raising mid-parse, so that
    the caller learns how far the decoder read (one per thread, reset before each use)."""

    __slots__ = ("decoder", "problem")

    def __init__(self) -> None:
        self.problem: str | None = None
        self.decoder = json.JSONDecoder(
            parse_constant=self.constant,
            object_pairs_hook=self.pairs,
        )

    def note(self, problem: str) -> None:
        if self.problem is None:
            self.problem = problem

    def constant(self, name: str) -> Any:
        self.note(f"non-standard JSON constant {name}")
        return None

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                self.note(f"duplicate object member {key!a}")
            result[key] = value
        return result


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _pointer(trail: Any) -> str:
    """The pointer of a place (lone surrogates shown as ``\\udxxx``: the message is printable)."""
    tokens: list[str] = []
    while trail is not None:
        trail, token = trail
        token = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", str(token))
        tokens.append(token.replace("~", "~0").replace("/", "~1"))
    return "".join("/" + t for t in reversed(tokens))


def _leaf_problem(node: Any) -> str | None:
    if isinstance(node, str):
        if not node.isascii() and _SURROGATE.search(node):
            return "a string holds a lone surrogate"
        return None
    if isinstance(node, float):
        return None if math.isfinite(node) else "a number out of range for a double (or NaN)"
    if node is None or isinstance(node, int):  # bool is an int
        return None
    return f"{type(node).__name__} is not a JSON type"


def check_value(value: Any, max_depth: int = MAX_DEPTH) -> tuple[str, str] | None:
    """``(pointer, problem)`` for the first place of ``value`` that is not plain, finite,
    surrogate-free JSON within ``max_depth`` levels, else None. Iterative: any depth is safe."""
    if not isinstance(value, dict | list):
        problem = _leaf_problem(value)
        return None if problem is None else ("", problem)
    stack: list[tuple[Any, int, Any]] = [(value, 1, None)]
    while stack:
        node, depth, trail = stack.pop()
        if depth > max_depth:
            return _pointer(trail), f"nests deeper than {max_depth} levels"
        is_object = isinstance(node, dict)
        for key, child in node.items() if is_object else enumerate(node):
            if is_object:
                if type(key) is not str:
                    return _pointer(trail), "a member name is not a string"
                if not key.isascii() and _SURROGATE.search(key):
                    return _pointer((trail, key)), "a member name holds a lone surrogate"
            kind = type(child)
            if kind is dict or kind is list or isinstance(child, dict | list):
                stack.append((child, depth + 1, (trail, key)))
            elif kind is str:
                if not child.isascii() and _SURROGATE.search(child):
                    return _pointer((trail, key)), "a string holds a lone surrogate"
            elif kind is not int and kind is not bool and child is not None:
                problem = _leaf_problem(child)
                if problem is not None:
                    return _pointer((trail, key)), problem
    return None


_LOCAL = threading.local()


def raw_decode_strict(text: str, index: int = 0) -> tuple[Any, int]:
    """Decode one JSON value starting at ``index``; returns (value, end index).

    Raises json.JSONDecodeError (not JSON: ``pos`` says where) or StrictJSONError."""
    hooks: _Hooks | None = getattr(_LOCAL, "hooks", None)
    if hooks is None:
        hooks = _LOCAL.hooks = _Hooks()
    hooks.problem = None
    try:
        value, end = hooks.decoder.raw_decode(text, index)
    except RecursionError:
        raise StrictJSONError(f"JSON nested too deeply (limit {MAX_DEPTH} levels)") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise StrictJSONError(_clip(str(exc), 200)) from None
    if hooks.problem is not None:
        raise StrictJSONError(hooks.problem, end=end)
    found = check_value(value)
    if found is not None:
        raise StrictJSONError(found[1], pointer=found[0], end=end)
    return value, end


def loads_strict(text: str) -> Any:
    """Parse a whole JSON text under the rules above (surrounding whitespace allowed).

    Raises ValueError (json.JSONDecodeError or StrictJSONError) for anything unacceptable.
    """
    start = len(text) - len(text.lstrip(" \t\n\r"))
    value, end = raw_decode_strict(text, start)
    rest = len(text) - len(text[end:].lstrip(" \t\n\r"))
    if rest != len(text):
        raise json.JSONDecodeError("Extra data", text, rest)
    return value


def json_bytes(value: Any, **options: Any) -> bytes:
    """``value`` as UTF-8 JSON: non-ASCII kept as is, unless some string cannot be UTF-8 (a
    lone surrogate from outside the reader), when the whole value is written ASCII-escaped
    (the same JSON for every reader). ``options`` go to json.dumps."""
    try:
        return json.dumps(value, ensure_ascii=False, **options).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, **options).encode("ascii")
