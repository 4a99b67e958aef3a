"""RFC 6902 patches applied: the plain fast path against jsonpatch, and apply_operations' rules."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_revprop.core.patching import (
    PatchError,
    _apply_plain,
    _NotPlain,
    _Patch,
    apply_operations,
)

KEYS = st.sampled_from(["a", "b", "-", "0", "01", "x/y", "t~1"])
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["s", ""]))
DOCS = st.recursive(
    LEAVES,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(KEYS, kids, max_size=3),
    max_leaves=8,
)
TOKENS = st.sampled_from(["a", "b", "-", "0", "1", "2", "01", "x~1y", "t~01", "~2"])
PATHS = st.lists(TOKENS, max_size=3).map(lambda tokens: "".join("/" + t for t in tokens))
OPS = st.builds(
    lambda op, path, value, source: {"op": op, "path": path, "value": value, "from": source},
    st.sampled_from(["add", "replace", "remove", "test", "move", "copy"]), PATHS, DOCS, PATHS,
)  # fmt: skip


def _op(op: str, path: str, value: Any = 0) -> dict[str, Any]:
    return {"op": op, "path": path, "value": value}


@settings(max_examples=400, deadline=None)
@given(doc=DOCS, patch=st.lists(OPS, max_size=3))
@example(doc=[1], patch=[_op("replace", "/1")])
@example(doc=[1], patch=[_op("remove", "/1")])
@example(doc=[1], patch=[_op("add", "/1")])
@example(doc=[1], patch=[_op("add", "/2")])
@example(doc=[1], patch=[_op("add", "/-")])
@example(doc=[1], patch=[_op("add", "/01")])
@example(doc={"-": 1}, patch=[_op("replace", "/-")])
@example(doc={"-": 1}, patch=[_op("add", "/-")])
@example(doc={"a": [1]}, patch=[_op("replace", "/a/0"), _op("remove", "/a/0"), _op("add", "/a/0")])
def test_the_plain_path_applies_exactly_what_jsonpatch_applies(
    doc: Any, patch: list[dict[str, Any]]
) -> None:
    """Whenever the fast path applies a patch, jsonpatch gives the same document (member order
    included); whenever jsonpatch refuses one, the fast path hands it over."""
    try:
        expected: Any = _Patch(json.loads(json.dumps(patch))).apply(
            json.loads(json.dumps(doc)), in_place=True
        )
    except Exception:
        expected = PatchError
    try:
        got: Any = _apply_plain(json.loads(json.dumps(doc)), json.loads(json.dumps(patch)))
    except _NotPlain:
        return
    assert expected is not PatchError
    assert json.dumps(got) == json.dumps(expected)


def test_apply_operations_leaves_its_inputs_alone_and_words_errors_as_jsonpatch_does() -> None:
    doc: dict[str, Any] = {"items": [{"qty": 1}], "total": 5}
    patch: list[dict[str, Any]] = [
        {"op": "replace", "path": "/items/0/qty", "value": {"n": 2}},
        {"op": "remove", "path": "/total"},
    ]
    result = apply_operations(doc, patch)
    assert result == {"items": [{"qty": {"n": 2}}]}
    assert doc == {"items": [{"qty": 1}], "total": 5}
    result["items"][0]["qty"]["n"] = 3
    assert patch[0]["value"] == {"n": 2}
    with pytest.raises(PatchError, match="can't replace a non-existent object 'nope'"):
        apply_operations(doc, [{"op": "replace", "path": "/nope", "value": 1}])
