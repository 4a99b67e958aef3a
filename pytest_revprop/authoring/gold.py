"""The gold patch of a revision: what changes between the artifact and its recomputed self.

The gold is never written by hand: the artifact is computed twice, before and after the
revision's edit of the inputs, and :func:`gold_patch` lists the changes as an ordered
add/remove/replace patch (array elements aligned by content, so one insertion is one ``add``;
an element the revision itself inserts or removes is taken at the index its direct edit names).
:func:`literal_gold` puts the direct op first; :func:`gold_ops` marks each op direct or cascade
and applies the revision's matchers, checking each against the computed value.
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_revprop.authoring.scenario import Override, Revision, ScenarioError
from pytest_revprop.core.patching import PatchError, apply_operations
from pytest_revprop.core.scoring import regex_passes
from pytest_revprop.util.jsonutil import MISSING, child_pointer, json_equal, resolve
from pytest_revprop.util.regexguard import RegexRefused, compile_bounded


def _is_leaf(value: Any) -> bool:
    return not isinstance(value, dict | list)


def gold_patch(
    a: Any, b: Any, path: str = "", anchors: Mapping[str, int] | None = None
) -> list[dict[str, Any]]:
    """The literal gold patch taking the artifact ``a`` to the revised artifact ``b``.

    Changed leaves become ``replace``; object members that appear or disappear become
    ``add``/``remove``; when an array changes length, the inserted/removed elements come
    first (removals from the back, then insertions in ascending order), followed by the
    changes inside kept elements at their post-change indices.

    ``anchors``: per array (its pointer), the index of the one element the revision itself
    adds or removes there (its direct edit). Such an array, one element longer or shorter, is
    aligned around that element, every other one kept in order, instead of by content: a row
    shaped like its neighbour is then never read as that neighbour renamed.
    """
    ops: list[dict[str, Any]] = []
    _patch_into(a, b, path, ops, anchors or {})
    return ops


def _patch_into(
    a: Any, b: Any, path: str, ops: list[dict[str, Any]], anchors: Mapping[str, int]
) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k, v in a.items():
            sub = child_pointer(path, k)
            if k in b:
                _patch_into(v, b[k], sub, ops, anchors)
            else:
                ops.append({"op": "remove", "path": sub})
        for k, v in b.items():
            if k not in a:
                ops.append({"op": "add", "path": child_pointer(path, k), "value": copy.deepcopy(v)})
    elif isinstance(a, list) and isinstance(b, list):
        _patch_lists(a, b, path, ops, anchors)
    elif not json_equal(a, b):
        ops.append({"op": "replace", "path": path, "value": copy.deepcopy(b)})


def _anchored(a: list[Any], b: list[Any], at: int | None) -> list[tuple[int, int]] | None:
    """The pairs of an array that gains or loses exactly the element at index ``at`` (every
    other element kept, in order); None when the lengths or the index do not fit that."""
    if at is None:
        return None
    if len(b) == len(a) + 1 and 0 <= at < len(b):
        return [(i, i if i < at else i + 1) for i in range(len(a))]
    if len(a) == len(b) + 1 and 0 <= at < len(a):
        return [(i if i < at else i + 1, i) for i in range(len(b))]
    return None


def _patch_lists(
    a: list[Any], b: list[Any], path: str, ops: list[dict[str, Any]], anchors: Mapping[str, int]
) -> None:
    if len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _patch_into(x, y, f"{path}/{i}", ops, anchors)
        return
    pairs = _anchored(a, b, anchors.get(path))
    if pairs is None:
        pairs = _align(a, b)
    kept_old = {i for i, _ in pairs}
    kept_new = {j for _, j in pairs}
    for i in sorted(set(range(len(a))) - kept_old, reverse=True):
        ops.append({"op": "remove", "path": f"{path}/{i}"})
    for j in sorted(set(range(len(b))) - kept_new):
        ops.append({"op": "add", "path": f"{path}/{j}", "value": copy.deepcopy(b[j])})
    for i, j in pairs:
        _patch_into(a[i], b[j], f"{path}/{j}", ops, anchors)


def _cost(a: Any, b: Any) -> tuple[int, int]:
    """How unlike two elements are: changed text/structure first (names are identities,
    numbers are usually derived), then the number of changed places."""
    ops = gold_patch(a, b)
    identity = sum(
        1
        for op in ops
        if op["op"] != "replace" or not isinstance(op["value"], int | float | bool | None)
    )
    return identity, len(ops)


def _align(a: list[Any], b: list[Any]) -> list[tuple[int, int]]:
    """Pairs (old index, new index) of kept elements; unpaired ones are removed/inserted.

    Two readings of the change are made and the one with the smaller patch is taken (on a
    tie, the first): by content (``_align_by_content``: equal elements kept, the blocks
    between them paired), and as a whole (``_align_whole``: as few elements added or removed
    as the lengths allow). The first reads a list of names well (a name removed and two added
    keep the one that stayed); the second is not misled by an element that happens to equal
    one on the other side (a plan with two "free day" rows, one of them dropped earlier)."""
    by_content = _align_by_content(a, b)
    size = _patch_size(a, b, by_content)
    fewest = abs(len(a) - len(b))  # no reading adds or removes fewer, nor changes less
    if size == (fewest, fewest):  # only added or removed elements, the rest kept as they were
        return by_content
    whole = _align_whole(a, b)
    return whole if _patch_size(a, b, whole) < size else by_content


def _patch_size(a: list[Any], b: list[Any], pairs: list[tuple[int, int]]) -> tuple[int, int]:
    """The number of operations a pairing's patch has, then its changed text (``_cost``)."""
    unpaired = len(a) + len(b) - 2 * len(pairs)
    costs = [_cost(a[i], b[j]) for i, j in pairs]
    return unpaired + sum(c[1] for c in costs), unpaired + sum(c[0] for c in costs)


def _align_by_content(a: list[Any], b: list[Any]) -> list[tuple[int, int]]:
    """Pairs by content: equal elements (as JSON) kept, and each block between them paired in
    order, the longer side's cheapest elements to leave out left out (``_pair_block``)."""
    keys_a = [json.dumps(x, sort_keys=True) for x in a]
    keys_b = [json.dumps(x, sort_keys=True) for x in b]
    pairs: list[tuple[int, int]] = []
    matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            pairs += list(zip(range(i1, i2), range(j1, j2), strict=True))
        elif tag == "replace":
            pairs += _pair_block(a, b, list(range(i1, i2)), list(range(j1, j2)))
    return pairs


def _align_whole(a: list[Any], b: list[Any]) -> list[tuple[int, int]]:
    """Pairs (old index, new index) in which every element of the shorter array is kept, in
    order, and exactly as many of the longer one's are left unpaired as the lengths differ: of
    all such pairings, the one whose pairs cost least (``_cost``: changed text first, then
    changed places; equal elements cost nothing), ties going to leaving later elements
    unpaired. A whole-array search, so an element that happens to equal one on the other side
    (two "free day" rows of a plan) never pins the pairing around it."""
    old_is_longer = len(a) >= len(b)
    longer, shorter = (a, b) if old_is_longer else (b, a)
    skips = len(longer) - len(shorter)

    def pair_cost(i: int, j: int) -> tuple[int, int]:  # each pair is priced once, below
        return _cost(longer[i], shorter[j]) if old_is_longer else _cost(shorter[j], longer[i])

    # best[s][i]: the least cost of pairing longer[i:] with shorter[i - s:], s skips made
    inf = (len(longer) + 1) * 10**6
    best = [[(inf, inf)] * (len(longer) + 1) for _ in range(skips + 1)]
    choice = [[False] * (len(longer) + 1) for _ in range(skips + 1)]  # True: pair longer[i]
    for s in range(skips + 1):
        best[s][len(longer)] = (0, 0) if s == skips else (inf, inf)
    for i in range(len(longer) - 1, -1, -1):
        for s in range(skips, -1, -1):
            options = []
            if i - s < len(shorter) and i - s >= 0:
                c, rest = pair_cost(i, i - s), best[s][i + 1]
                options.append(((c[0] + rest[0], c[1] + rest[1]), True))
            if s < skips:
                options.append((best[s + 1][i + 1], False))
            if options:  # pairing first on a tie: the skip falls later
                cost, paired = min(options, key=lambda o: (o[0], not o[1]))
                best[s][i], choice[s][i] = cost, paired
    pairs: list[tuple[int, int]] = []
    s = 0
    for i in range(len(longer)):
        if choice[s][i]:
            pairs.append((i, i - s) if old_is_longer else (i - s, i))
        else:
            s += 1
    return pairs


def _pair_block(
    a: list[Any], b: list[Any], old: list[int], new: list[int]
) -> list[tuple[int, int]]:
    """Pair a block of unequal length, dropping from the longer side the elements whose
    removal makes the in-order pairing cheapest (greedily, one at a time; ties: the last)."""
    old, new = list(old), list(new)
    while len(old) != len(new):
        longer_is_old = len(old) > len(new)
        longer, shorter = (old, new) if longer_is_old else (new, old)
        best: tuple[tuple[int, int], int] | None = None
        for pos in range(len(longer)):
            rest = longer[:pos] + longer[pos + 1 :]
            costs = [
                _cost(a[x], b[y]) if longer_is_old else _cost(a[y], b[x])
                for x, y in zip(rest, shorter, strict=False)
            ]
            cost = (sum(c[0] for c in costs), sum(c[1] for c in costs))
            if best is None or cost <= best[0]:
                best = (cost, pos)
        assert best is not None
        del longer[best[1]]
    return list(zip(old, new, strict=True))


# --------------------------------------------------------------------------- ordering, kinds, matchers


def literal_gold(a: Any, b: Any, direct: Sequence[str], where: str) -> list[dict[str, Any]]:
    """The gold patch a -> b with the direct ops first whenever that still applies to b; an
    array element the revision adds or removes directly anchors its array's alignment."""
    anchors = {}
    for d in direct:
        parent, _, last = d.rpartition("/")
        if last.isdigit():
            anchors[parent] = int(last)
    ops = gold_patch(a, b, anchors=anchors)
    if not ops:
        raise ScenarioError(f"{where}: the revision changes nothing in the artifact")
    paths = [op["path"] for op in ops]
    for d in direct:
        if d not in paths:
            raise ScenarioError(
                f"{where}: the direct path {d} is not in the gold patch (gold paths: {', '.join(paths[:10])})"
            )
    front = [op for op in ops if op["path"] in direct] + [
        op for op in ops if op["path"] not in direct
    ]
    for candidate in (front, ops):
        try:
            if json_equal(apply_operations(a, candidate), b):
                return candidate
        except PatchError:
            continue
    raise ScenarioError(
        f"{where}: internal error: the gold patch does not reproduce the revised artifact"
    )


def gold_ops(
    literal: list[dict[str, Any]], rev: Revision, new_artifact: Any, where: str
) -> list[dict[str, Any]]:
    """The case's gold: ``literal`` with each op's kind, and the revision's matchers applied."""
    direct = set(rev.direct_paths())
    by_path = {op["path"] for op in literal}
    unknown = [p for p in rev.overrides if p not in by_path]
    if unknown:
        raise ScenarioError(
            f"{where}: override for a path the gold does not change: {', '.join(unknown)}"
        )
    gold = []
    for op in literal:
        path = op["path"]
        if path in direct:
            _check_direct(op, where)
        out: dict[str, Any] = {"op": op["op"], "path": path}
        ov = rev.overrides.get(path, Override())
        if op["op"] != "remove":
            out["value"] = op["value"] if ov.match == "strict" else ov.value
        out["kind"] = "direct" if path in direct else "cascade"
        if ov.match != "strict":
            _check_matcher(ov, op, new_artifact, where)
            out["match"] = ov.match
        if ov.optional:
            out["optional"] = True
        gold.append(out)
    if not any(op["kind"] == "cascade" and not op.get("optional") for op in gold):
        raise ScenarioError(
            f"{where}: the revision cascades into nothing (no non-optional cascade op)"
        )
    return gold


def _check_direct(op: Mapping[str, Any], where: str) -> None:
    parent = op["path"].rsplit("/", 1)[-1]
    if op["op"] == "replace" and not _is_leaf(op["value"]):
        raise ScenarioError(
            f"{where}: the direct edit {op['path']} replaces a whole object/array; name one leaf"
        )
    if op["op"] in {"add", "remove"} and not parent.isdigit():
        raise ScenarioError(
            f"{where}: the direct edit {op['path']} adds/removes a member, not an array element"
        )


def _check_matcher(ov: Override, op: Mapping[str, Any], new_artifact: Any, where: str) -> None:
    path = op["path"]
    if op["op"] == "remove":
        raise ScenarioError(f"{where}: {path} is removed; a matcher makes no sense there")
    if ov.match == "regex_match":
        if not isinstance(ov.value, str):
            raise ScenarioError(f"{where}: regex for {path} must be a string")
        try:  # as scoring compiles it
            compile_bounded(ov.value)
        except RegexRefused as exc:
            raise ScenarioError(f"{where}: bad regex for {path}: {exc}") from None
        if not regex_passes(ov.value, op["value"]):  # as scoring reads it: compact JSON
            raise ScenarioError(
                f"{where}: regex {ov.value!r} for {path} does not match the computed value {op['value']!r}"
            )
    elif ov.match == "ref_equal":
        if not isinstance(ov.value, str) or resolve(new_artifact, ov.value) is MISSING:
            raise ScenarioError(
                f"{where}: ref_equal target {ov.value!r} for {path} is not in the revised artifact"
            )
        if not json_equal(resolve(new_artifact, ov.value), op["value"]):
            raise ScenarioError(
                f"{where}: ref_equal target {ov.value} does not hold the value of {path}"
            )
    elif ov.match != "any":
        raise ScenarioError(f"{where}: unknown matcher {ov.match!r} for {path}")
