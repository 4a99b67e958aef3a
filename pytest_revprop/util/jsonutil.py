"""JSON helpers shared by the core: strict parsing (``strictjson``), JSON equality, JSON
Pointers, leaves.

Everything here treats documents as plain JSON (dict, list, str, int, float, bool, None).
JSON equality is the one docs/protocol.md defines for scoring.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Final

from pytest_revprop.util.strictjson import MAX_DEPTH as MAX_DEPTH
from pytest_revprop.util.strictjson import StrictJSONError as StrictJSONError
from pytest_revprop.util.strictjson import check_value
from pytest_revprop.util.strictjson import loads_strict as loads_strict
from pytest_revprop.util.strictjson import raw_decode_strict as raw_decode_strict


class _Missing:
    """Marks a place that does not exist in a document (distinct from JSON null)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<missing>"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true != 1 and "1" != 1; objects ignore member order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if a is MISSING or b is MISSING:
        return a is b
    return type(a) is type(b) and bool(a == b)


def is_finite_json(value: Any) -> bool:
    """True if the document holds only JSON types, finite numbers (no NaN/Infinity) and no
    lone surrogate, within ``MAX_DEPTH`` levels (checked without recursion)."""
    return check_value(value) is None


def escape_token(token: str) -> str:
    """A reference token escaped for a JSON Pointer (RFC 6901: ``~`` as ``~0``, ``/`` as ``~1``)."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    """A JSON Pointer reference token unescaped (``~1`` to ``/``, then ``~0`` to ``~``)."""
    return token.replace("~1", "/").replace("~0", "~")


_BAD_ESCAPE: Final = re.compile("~(?![01])")
"""A ``~`` not followed by 0 or 1: RFC 6901 allows no other escape (linear-time search)."""


def split_pointer(pointer: str) -> list[str]:
    """Tokens of an RFC 6901 pointer ("" is the whole document). Raises ValueError if malformed:
    not starting with ``/``, or a ``~`` that is not ``~0`` or ``~1``."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON Pointer must start with '/': {pointer[:80]!r}")
    bad = _BAD_ESCAPE.search(pointer) if "~" in pointer else None
    if bad is not None:
        raise ValueError(
            f"JSON Pointer has '~' not followed by 0 or 1 at character {bad.start()}: "
            f"{pointer[:80]!r}"
        )
    return [unescape_token(t) for t in pointer[1:].split("/")]


def join_pointer(tokens: list[str] | tuple[str, ...]) -> str:
    """The JSON Pointer of ``tokens`` (each escaped)."""
    return "".join("/" + escape_token(t) for t in tokens)


def child_pointer(pointer: str, token: str | int) -> str:
    """The pointer of the member ``token`` (a key or an index) of the place at ``pointer``."""
    return f"{pointer}/{escape_token(str(token))}"


def _array_index(token: str, length: int) -> int | None:
    if token.isdigit() and (token == "0" or not token.startswith("0")):
        index = int(token)
        return index if index < length else None
    return None


def resolve(doc: Any, pointer: str) -> Any:
    """The value at ``pointer``, or MISSING when the place does not exist."""
    try:
        tokens = split_pointer(pointer)
    except ValueError:
        return MISSING
    node = doc
    for token in tokens:
        if isinstance(node, dict):
            if token not in node:
                return MISSING
            node = node[token]
        elif isinstance(node, list):
            index = _array_index(token, len(node))
            if index is None:
                return MISSING
            node = node[index]
        else:
            return MISSING
    return node


def is_within(pointer: str, ancestor: str) -> bool:
    """True if ``pointer`` equals ``ancestor`` or lies inside it."""
    return pointer == ancestor or pointer.startswith(ancestor + "/")


def iter_leaves(doc: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """(pointer, value) for every primitive leaf; empty containers count as leaves of their own."""
    if isinstance(doc, dict) and doc:
        for key, value in doc.items():
            yield from iter_leaves(value, child_pointer(pointer, key))
    elif isinstance(doc, list) and doc:
        for index, value in enumerate(doc):
            yield from iter_leaves(value, child_pointer(pointer, index))
    else:
        yield pointer, doc


def leaf_count(doc: Any) -> int:
    """Number of primitive leaves (strings, numbers, booleans, nulls); containers do not count."""
    if isinstance(doc, dict):
        return sum(leaf_count(v) for v in doc.values())
    if isinstance(doc, list):
        return sum(leaf_count(v) for v in doc)
    return 1


def dumps_compact(value: Any) -> str:
    """``value`` as JSON without spaces, non-ASCII characters kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
