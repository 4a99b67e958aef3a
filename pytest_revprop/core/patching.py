"""RFC 6902 application (through the jsonpatch library) and diffs between artifacts.

Replies are applied with the full RFC 6902 semantics of docs/protocol.md (all six operations,
in order; ``test`` with JSON equality).
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import re
from types import MappingProxyType
from typing import Any, ClassVar

import jsonpatch
import jsonpointer

from pytest_revprop.util.jsonutil import MISSING, child_pointer, json_equal, split_pointer
from pytest_revprop.util.strictjson import MAX_DEPTH, check_value

OPS_WITH_VALUE = frozenset({"add", "replace", "test"})
OPS_WITH_FROM = frozenset({"move", "copy"})
ALL_OPS = OPS_WITH_VALUE | OPS_WITH_FROM | {"remove"}


class PatchError(ValueError):
    """A patch that is not a list of RFC 6902 operations, or that does not apply."""


class _JSONTestOperation(jsonpatch.TestOperation):  # type: ignore[misc]
    """RFC 6902 `test` with JSON equality (the library's uses Python ==, where true == 1)."""

    def apply(self, obj: Any) -> Any:
        try:
            subobj, part = self.pointer.to_last(obj)
            value = subobj if part is None else self.pointer.walk(subobj, part)
        except jsonpointer.JsonPointerException as exc:
            raise jsonpatch.JsonPatchTestFailed(str(exc)) from exc
        if not json_equal(value, self.operation["value"]):
            raise jsonpatch.JsonPatchTestFailed(
                f"{value!r} is not equal to tested value {self.operation['value']!r}"
            )
        return obj


MAX_COPIED_VALUES = 100_000
"""Values (containers and leaves) the ``copy`` operations of one patch may copy in all: a
patch that copies the document into itself doubles it with every operation."""
_COPIED: contextvars.ContextVar[list[int]] = contextvars.ContextVar("copied")


class _CopyOperation(jsonpatch.CopyOperation):  # type: ignore[misc]
    """RFC 6902 `copy`, refused before copying when the patch's copies would pass
    ``MAX_COPIED_VALUES`` or the copy would nest deeper than ``MAX_DEPTH``."""

    def _apply(self, obj: Any, journal: Any) -> Any:
        source = jsonpointer.JsonPointer(self.operation["from"]).resolve(obj)
        target_depth = len(split_pointer(self.location))
        copied = _COPIED.get([0])
        values, depth = _measure(source, MAX_COPIED_VALUES - copied[0])
        copied[0] += values
        if copied[0] > MAX_COPIED_VALUES:
            raise PatchError(f"the patch copies more than {MAX_COPIED_VALUES} values")
        if target_depth + depth > MAX_DEPTH:
            raise PatchError(f"the copy would nest deeper than {MAX_DEPTH} levels")
        return super()._apply(obj, journal)  # type: ignore[misc]


def _measure(value: Any, limit: int) -> tuple[int, int]:
    """(values, nesting depth) of ``value``, without recursion; stops counting past ``limit``."""
    values, deepest = 0, 0
    stack = [(value, 0)]
    while stack and values <= limit:
        node, depth = stack.pop()
        values += 1
        if isinstance(node, dict | list) and node:
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in _children(node))
    return values, deepest


def _children(node: dict[str, Any] | list[Any]) -> Any:
    return node.values() if isinstance(node, dict) else node


class _Patch(jsonpatch.JsonPatch):  # type: ignore[misc]
    # A read-only mapping, as jsonpatch >= 1.48 declares it (older releases, a plain dict).
    operations: ClassVar[MappingProxyType[str, Any]] = MappingProxyType(
        {**jsonpatch.JsonPatch.operations, "test": _JSONTestOperation, "copy": _CopyOperation}
    )


def check_operations(patch: Any) -> list[dict[str, Any]]:
    """Validate that ``patch`` is a list of RFC 6902 operation objects; returns it.

    Raises PatchError naming the first bad operation.
    """
    if not isinstance(patch, list):
        raise PatchError(f"a patch must be a JSON array, got {type(patch).__name__}")
    for index, op in enumerate(patch):
        where = f"operation {index}"
        if not isinstance(op, dict):
            raise PatchError(f"{where} is not an object")
        name = op.get("op")
        if name not in ALL_OPS:
            raise PatchError(f"{where} has unknown op {name!r}")
        for member in ("path",) + (("from",) if name in OPS_WITH_FROM else ()):
            pointer = op.get(member)
            if not isinstance(pointer, str):
                raise PatchError(f"{where} ({name}) has no string '{member}'")
            try:
                split_pointer(pointer)
            except ValueError as exc:
                raise PatchError(f"{where} ({name}): {exc}") from exc
        if name in OPS_WITH_VALUE and "value" not in op:
            raise PatchError(f"{where} ({name}) has no 'value'")
    return patch


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON document (dicts, lists, immutable leaves), without the
    bookkeeping of ``copy.deepcopy``, which the scoring and merging of every item would pay."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


class _NotPlain(Exception):
    """A patch for the library to apply (and to word the error of)."""


_INDEX = re.compile(r"0|[1-9][0-9]*")


def _apply_plain(doc: Any, patch: list[dict[str, Any]]) -> Any:
    """Apply add/replace/remove operations on dicts and lists in place, exactly as jsonpatch
    would, at a fraction of its cost (most operations a model writes are such). Raises
    _NotPlain for anything else: other ops, the root, escapes, ``-`` where jsonpatch treats
    it specially, or an operation that would fail."""
    for op in patch:
        name, path = op["op"], op["path"]
        if name not in ("add", "replace", "remove") or not path or "~" in path:
            raise _NotPlain
        *parents, last = path[1:].split("/")
        node = doc
        for token in parents:
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and _INDEX.fullmatch(token) and int(token) < len(node):
                node = node[int(token)]
            else:
                raise _NotPlain
        if isinstance(node, dict):
            if name == "add":
                node[last] = op["value"]
            elif last not in node or last == "-":
                raise _NotPlain
            elif name == "replace":
                node[last] = op["value"]
            else:
                del node[last]
        elif isinstance(node, list) and name == "add" and last == "-":
            node.append(op["value"])
        elif isinstance(node, list) and _INDEX.fullmatch(last):
            index = int(last)
            if index > len(node) or (index == len(node) and name != "add"):
                raise _NotPlain
            if name == "add":
                node.insert(index, op["value"])
            elif name == "replace":
                node[index] = op["value"]
            else:
                del node[index]
        else:
            raise _NotPlain
    return doc


def apply_operations(doc: Any, patch: list[dict[str, Any]], *, in_place: bool = False) -> Any:
    """Apply a checked patch (ops in order) and return the result. Raises PatchError.

    By default neither ``doc`` nor ``patch`` is modified or shared with the result, and a
    result nested deeper than ``MAX_DEPTH`` is refused; with ``in_place`` the caller hands over
    both (no copies, no depth check: the fast path for replays, which compare their result
    with a document read by the strict reader).
    """
    result: Any = MISSING
    if not in_place:
        with contextlib.suppress(_NotPlain, LookupError, TypeError):
            result = _apply_plain(copy_json(doc), copy_json(patch))
        if result is MISSING:
            doc, patch = copy_json(doc), copy_json(patch)
    token = _COPIED.set([0])
    try:
        if result is MISSING:
            result = _Patch(patch).apply(doc, in_place=True)
    except PatchError:
        raise
    except (
        jsonpatch.JsonPatchException,
        jsonpointer.JsonPointerException,
        KeyError,
        IndexError,
        TypeError,
        ValueError,
        RecursionError,
    ) as exc:
        raise PatchError(str(exc) or type(exc).__name__) from exc
    finally:
        _COPIED.reset(token)
    found = None if in_place else check_value(result)
    if found is not None and found[1].startswith("nests deeper"):
        raise PatchError(f"the patched document {found[1]} (at {found[0][:80]})")
    return result


def diff(old: Any, new: Any, pointer: str = "") -> list[dict[str, Any]]:
    """A simple patch turning ``old`` into ``new``: per key for objects, per index for arrays
    of the same length, otherwise one `replace` of the whole place."""
    if json_equal(old, new):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list[dict[str, Any]] = []
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": child_pointer(pointer, key)})
        for key, value in new.items():
            path = child_pointer(pointer, key)
            if key not in old:
                ops.append({"op": "add", "path": path, "value": copy.deepcopy(value)})
            else:
                ops.extend(diff(old[key], value, path))
        return ops
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        out: list[dict[str, Any]] = []
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            out.extend(diff(a, b, child_pointer(pointer, index)))
        return out
    if new is MISSING:
        return [{"op": "remove", "path": pointer}]
    return [{"op": "replace", "path": pointer, "value": copy.deepcopy(new)}]
