"""The scenario authoring layer: a scenario is a short declaration, this module does the plumbing.

An author writes plain inputs (``params(size)``), one function that derives the whole artifact
from them (``compute(params)``), the conversation as turns of (user text, pointers of the final
artifact that the turn adds), and the revision (request text plus one edit of the inputs).
Everything else follows from those: the assistant patches are cut from the computed artifact,
the gold patch is the diff between the artifact before and after the edit, and every rule of
the case format is checked at build time with an error that names the scenario and the size.
"""

from __future__ import annotations

import copy
import datetime as _dt
import difflib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.cases import ANNOTATION_FIELD, CASE_FIELDS, Case, CaseError
from pytest_revprop.errors import UserError
from pytest_revprop.jsonutil import (
    MISSING,
    child_pointer,
    iter_leaves,
    join_pointer,
    json_equal,
    leaf_count,
    resolve,
    split_pointer,
)
from pytest_revprop.patching import PatchError, apply_operations
from pytest_revprop.scoring import score_patch

__all__ = [
    "CASE_FIELDS", "DOMAINS", "PATTERNS", "SIZES", "Override", "Revision", "Scenario", "ScenarioError",
    "Turn", "add_days", "any_value", "build_case", "conversation_ops", "days_between", "diff",
    "dump_case", "leaf_breakdown", "leaf_count", "money", "optional", "ref_equal", "regex",
]  # fmt: skip

SIZES: tuple[int, ...] = (10, 50, 100)
DOMAINS: tuple[str, ...] = (
    "travel_itinerary",
    "invoice",
    "shopping_cart",
    "project_schedule",
    "course_plan",
    "data_pipeline",
    "deployment_config",
    "org_access",
    "manufacturing_bom",
)
PATTERNS: tuple[str, ...] = (
    "arithmetic",
    "substitution",
    "add_remove",
    "threshold",
    "temporal",
    "status_flip",
)
FORBIDDEN_WORDS = re.compile(r"\b(keys?|fields?|json)\b", re.IGNORECASE)
_ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)+$")

Params = Any
Turn = tuple[str, Sequence[str]]


class ScenarioError(UserError):
    """A scenario program breaks a benchmark rule (the message names scenario and size)."""


# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Override:
    """How one gold op is judged, instead of strict equality."""

    match: str = "strict"
    value: Any = None
    optional: bool = False


def regex(pattern: str, optional: bool = False) -> Override:
    """The new text must contain ``pattern`` (``re.search``); e.g. ``regex(r"(?i)manager")``."""
    return Override("regex_match", pattern, optional)


def any_value(optional: bool = False) -> Override:
    """Any value passes, as long as the place exists."""
    return Override("any", None, optional)


def ref_equal(pointer: str, optional: bool = False) -> Override:
    """The value must equal whatever the (predicted) artifact holds at ``pointer``."""
    return Override("ref_equal", pointer, optional)


def optional() -> Override:
    """Strict value, but leaving the place unchanged also passes."""
    return Override("strict", None, True)


@dataclass(frozen=True)
class Revision:
    """The user's revision: what they write, and the one edit of the inputs it means.

    ``mutate`` receives a deep copy of the params; it may change it in place (and return
    None) or return new params. ``direct`` is the gold path (or paths) the request names,
    written as it appears in the gold: post-change indices, e.g. ``/members/3`` for an
    inserted fourth member. ``overrides`` maps gold paths to matchers / optional flags.
    """

    request: str
    mutate: Callable[[Params], Params | None]
    direct: str | Sequence[str]
    overrides: Mapping[str, Override] = field(default_factory=dict)
    reference: Any = None

    def direct_paths(self) -> tuple[str, ...]:
        return (self.direct,) if isinstance(self.direct, str) else tuple(self.direct)


@dataclass(frozen=True)
class Scenario:
    """One scenario: three cases (sizes 10, 50, 100) share these declarations.

    ``params(size)`` returns the plain inputs (put ``size`` in them if the conversation
    or revision need it); ``compute(params)`` returns the whole artifact;
    ``conversation(params)`` returns ``[(user_text, [pointer, ...]), ...]``;
    ``revision(params)`` returns a :class:`Revision`.
    """

    id: str
    domain: str
    pattern: str
    theme: str
    params: Callable[[int], Params]
    compute: Callable[[Params], Any]
    conversation: Callable[[Params], Sequence[Turn]]
    revision: Callable[[Params], Revision]
    notes: str = ""

    def build(self, size: int, split: str = "test") -> dict[str, Any]:
        """The case dict for ``size``, fully validated (raises :class:`ScenarioError`)."""
        return build_case(self, size, split)


# --------------------------------------------------------------------------- JSON helpers


def is_leaf(value: Any) -> bool:
    return not isinstance(value, dict | list)


def leaf_breakdown(doc: Any) -> dict[str, int]:
    """Leaf count per top-level member: what to trim or pad to hit an exact size."""
    if isinstance(doc, dict):
        return {child_pointer("", k): leaf_count(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return {f"/{i}": leaf_count(v) for i, v in enumerate(doc)}
    return {"": 1}


def _units(doc: Any, prefix: str = "") -> list[str]:
    """Pointers of every primitive leaf and every empty container, in document order."""
    return [pointer for pointer, _ in iter_leaves(doc, prefix)]


def _at(doc: Any, pointer: str, where: str) -> Any:
    value = resolve(doc, pointer)
    if value is MISSING:
        raise ScenarioError(f"{where}: {pointer!r} is not a place in the artifact")
    return value


def _apply(doc: Any, ops: list[dict[str, Any]], where: str) -> Any:
    try:
        return apply_operations(doc, ops)
    except PatchError as exc:
        raise ScenarioError(
            f"{where}: internal error, a generated patch does not apply: {exc}"
        ) from None


# --------------------------------------------------------------------------- small domain helpers


def add_days(iso_date: str, days: int) -> str:
    """``add_days("2025-03-03", 90) == "2025-06-01"``."""
    return (_dt.date.fromisoformat(iso_date) + _dt.timedelta(days=days)).isoformat()


def days_between(start: str, end: str) -> int:
    return (_dt.date.fromisoformat(end) - _dt.date.fromisoformat(start)).days


def money(x: float) -> float:
    """Round to cents the way the cases show money (half away from zero, not banker's)."""
    cents = abs(x) * 100 + 0.5 + 1e-9
    return (1 if x >= 0 else -1) * int(cents) / 100


# --------------------------------------------------------------------------- diff (the gold)


def diff(a: Any, b: Any, path: str = "") -> list[dict[str, Any]]:
    """An ordered add/remove/replace patch taking ``a`` to ``b``.

    Changed leaves become ``replace``; object members that appear or disappear become
    ``add``/``remove``; when an array changes length, the inserted/removed elements come
    first (removals from the back, then insertions in ascending order), followed by the
    changes inside kept elements at their post-change indices.
    """
    ops: list[dict[str, Any]] = []
    _diff_into(a, b, path, ops)
    return ops


def _diff_into(a: Any, b: Any, path: str, ops: list[dict[str, Any]]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k, v in a.items():
            sub = child_pointer(path, k)
            if k in b:
                _diff_into(v, b[k], sub, ops)
            else:
                ops.append({"op": "remove", "path": sub})
        for k, v in b.items():
            if k not in a:
                ops.append({"op": "add", "path": child_pointer(path, k), "value": copy.deepcopy(v)})
    elif isinstance(a, list) and isinstance(b, list):
        _diff_lists(a, b, path, ops)
    elif not json_equal(a, b):
        ops.append({"op": "replace", "path": path, "value": copy.deepcopy(b)})


def _diff_lists(a: list[Any], b: list[Any], path: str, ops: list[dict[str, Any]]) -> None:
    if len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff_into(x, y, f"{path}/{i}", ops)
        return
    pairs = _align(a, b)
    kept_old = {i for i, _ in pairs}
    kept_new = {j for _, j in pairs}
    for i in sorted(set(range(len(a))) - kept_old, reverse=True):
        ops.append({"op": "remove", "path": f"{path}/{i}"})
    for j in sorted(set(range(len(b))) - kept_new):
        ops.append({"op": "add", "path": f"{path}/{j}", "value": copy.deepcopy(b[j])})
    for i, j in pairs:
        _diff_into(a[i], b[j], f"{path}/{j}", ops)


def _cost(a: Any, b: Any) -> tuple[int, int]:
    """How unlike two elements are: changed text/structure first (names are identities,
    numbers are usually derived), then the number of changed places."""
    ops = diff(a, b)
    identity = sum(
        1
        for op in ops
        if op["op"] != "replace" or not isinstance(op["value"], int | float | bool | None)
    )
    return identity, len(ops)


def _align(a: list[Any], b: list[Any]) -> list[tuple[int, int]]:
    """Pairs (old index, new index) of kept elements; unpaired ones are removed/inserted."""
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


# --------------------------------------------------------------------------- conversation


def conversation_ops(artifact: Any, turns: Sequence[Turn], where: str) -> list[dict[str, Any]]:
    """The case's conversation: each turn's ``add`` ops, values cut from the final artifact.

    A pointer whose parents do not exist yet creates them holding only that value (an
    array parent must then be index 0); a pointer to the next element of an existing
    array becomes ``/arr/-``. Raises :class:`ScenarioError` on gaps, overlaps and bad order.
    """
    return _conversation(artifact, turns, where)[0]


def _conversation(
    artifact: Any, turns: Sequence[Turn], where: str
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The conversation turns, and the turn index that adds each leaf / empty container."""
    doc: Any = {}
    owner: dict[str, int] = {}
    turns_out: list[dict[str, Any]] = []
    for t, turn in enumerate(turns):
        if not (isinstance(turn, tuple | list) and len(turn) == 2 and isinstance(turn[0], str)):
            raise ScenarioError(f"{where}: turn {t} is not (user text, [pointers])")
        user, pointers = turn
        if isinstance(pointers, str):
            raise ScenarioError(f"{where}: turn {t}: give a list of pointers, not a string")
        if not user.strip():
            raise ScenarioError(f"{where}: turn {t} has no user text")
        ops = []
        for pointer in pointers:
            units = _units(_at(artifact, pointer, f"{where}: turn {t}"), pointer)
            for unit in units:
                if unit in owner:
                    raise ScenarioError(
                        f"{where}: {unit} is added by turn {owner[unit]} and again by turn {t}"
                    )
            op = _add_op(doc, artifact, pointer, f"{where}: turn {t}")
            owner.update((unit, t) for unit in units)
            doc = _apply(doc, [op], where)
            ops.append(op)
        if not ops:
            raise ScenarioError(f"{where}: turn {t} adds nothing")
        turns_out.append({"user": user, "assistant": _coalesce(ops)})
    missing = [u for u in _units(artifact) if u not in owner]
    if missing:
        shown = ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
        raise ScenarioError(f"{where}: no turn adds {len(missing)} place(s): {shown}")
    if not json_equal(doc, artifact):
        raise ScenarioError(f"{where}: the conversation does not replay to the artifact")
    return turns_out, owner


def _coalesce(ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fold an op into an earlier op of the same turn that created its container."""
    out: list[dict[str, Any]] = []
    for op in ops:
        for prev in out:
            if op["path"].startswith(prev["path"] + "/") and isinstance(prev["value"], dict | list):
                rel = op["path"][len(prev["path"]) :]
                prev["value"] = apply_operations(
                    prev["value"], [{"op": "add", "path": rel, "value": op["value"]}]
                )
                break
        else:
            out.append(op)
    return out


def _add_op(doc: Any, artifact: Any, pointer: str, where: str) -> dict[str, Any]:
    value = _at(artifact, pointer, where)
    tokens = split_pointer(pointer)
    if not tokens:
        raise ScenarioError(f"{where}: the whole document cannot be one turn's pointer")
    depth = 0
    node = doc
    while depth < len(tokens) - 1:
        token = tokens[depth]
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            break
        depth += 1
    value = _wrap(artifact, tokens, depth, value, where, pointer)
    target = tokens[depth]
    if isinstance(node, list):
        if target != str(len(node)):
            state = (
                "is already there"
                if target.isdigit() and int(target) < len(node)
                else "skips ahead"
            )
            raise ScenarioError(
                f"{where}: {pointer} {state}: the array has {len(node)} element(s) at that point"
                " (elements are added in index order, each by one turn)"
            )
        return {"op": "add", "path": join_pointer([*tokens[:depth], "-"]), "value": value}
    if isinstance(node, dict) and target in node:
        raise ScenarioError(f"{where}: {pointer} is already there")
    return {"op": "add", "path": join_pointer(tokens[: depth + 1]), "value": value}


def _wrap(
    artifact: Any, tokens: list[str], depth: int, value: Any, where: str, pointer: str
) -> Any:
    """Nest ``value`` in the containers that do not exist yet below ``tokens[depth]``."""
    wrapped = copy.deepcopy(value)
    for k in range(len(tokens) - 1, depth, -1):
        container = resolve(artifact, join_pointer(tokens[:k]))
        if isinstance(container, list):
            if tokens[k] != "0":
                raise ScenarioError(
                    f"{where}: {pointer} starts a new array at index {tokens[k]}, not 0"
                )
            wrapped = [wrapped]
        else:
            wrapped = {tokens[k]: wrapped}
    return wrapped


# --------------------------------------------------------------------------- build and validate


def build_case(scenario: Scenario, size: int, split: str = "test") -> dict[str, Any]:
    """The validated case dict of ``scenario`` at ``size`` (keys in case-format order)."""
    where = f"scenario {scenario.id} size {size}"
    _check_declaration(scenario)
    params = scenario.params(size)
    artifact = _computed(scenario, params, where)
    count = leaf_count(artifact)
    if count != size:
        parts = ", ".join(f"{k}: {v}" for k, v in leaf_breakdown(artifact).items())
        raise ScenarioError(f"{where}: the artifact has {count} leaves, not {size} ({parts})")
    conversation, owner = _conversation(artifact, list(scenario.conversation(params)), where)
    revision = scenario.revision(params)
    edited = copy.deepcopy(params)
    changed = revision.mutate(edited)
    new_artifact = _computed(scenario, edited if changed is None else changed, where + " (revised)")
    literal = _ordered_gold(artifact, new_artifact, revision.direct_paths(), where)
    gold = _gold_ops(literal, revision, new_artifact, where)
    case = {
        "id": f"{scenario.id}/{size}",
        "scenario": scenario.id,
        "domain": scenario.domain,
        "pattern": scenario.pattern,
        "size": size,
        "split": split,
        "theme": scenario.theme,
        "conversation": conversation,
        "artifact": artifact,
        "request": revision.request,
        "reference": copy.deepcopy(revision.reference),
        "gold": gold,
        "notes": scenario.notes,
    }
    _check_words(case, where)
    _check_order(owner, gold, where)
    _check_scoring(case, literal, where)
    return json.loads(json.dumps(case))  # type: ignore[no-any-return]


def _check_declaration(s: Scenario) -> None:
    if not _ID_RE.match(s.id):
        raise ScenarioError(f"scenario {s.id!r}: the id must be kebab-case, e.g. org-role-change")
    if s.pattern not in PATTERNS:
        raise ScenarioError(
            f"scenario {s.id}: unknown pattern {s.pattern!r} (one of {', '.join(PATTERNS)})"
        )
    if not s.domain or not re.match(r"^[a-z][a-z0-9_]*$", s.domain):
        raise ScenarioError(f"scenario {s.id}: the domain must be snake_case, got {s.domain!r}")
    if not s.theme.strip() or "\n" in s.theme:
        raise ScenarioError(f"scenario {s.id}: the theme must be one non-empty line")


def _computed(scenario: Scenario, params: Params, where: str) -> Any:
    artifact = scenario.compute(copy.deepcopy(params))
    try:
        text = json.dumps(artifact, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ScenarioError(
            f"{where}: compute() returned something that is not plain JSON ({exc})"
        ) from None
    if not isinstance(artifact, dict):
        raise ScenarioError(f"{where}: compute() must return an object (a dict)")
    return json.loads(text)


def _ordered_gold(a: Any, b: Any, direct: Sequence[str], where: str) -> list[dict[str, Any]]:
    """The diff a -> b with the direct ops first whenever that still applies to b."""
    ops = diff(a, b)
    if not ops:
        raise ScenarioError(f"{where}: the revision changes nothing in the artifact")
    paths = [op["path"] for op in ops]
    for d in direct:
        if d not in paths:
            raise ScenarioError(
                f"{where}: the direct path {d} is not in the gold diff (gold paths: {', '.join(paths[:10])})"
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
        f"{where}: internal error: the gold diff does not reproduce the revised artifact"
    )


def _gold_ops(
    literal: list[dict[str, Any]], rev: Revision, new_artifact: Any, where: str
) -> list[dict[str, Any]]:
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
    if op["op"] == "replace" and not is_leaf(op["value"]):
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
        try:
            found = re.search(
                ov.value, op["value"] if isinstance(op["value"], str) else json.dumps(op["value"])
            )
        except re.error as exc:
            raise ScenarioError(f"{where}: bad regex for {path}: {exc}") from None
        if not found:
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


def _check_words(case: Mapping[str, Any], where: str) -> None:
    texts = [("request", case["request"])] + [
        (f"turn {i}", turn["user"]) for i, turn in enumerate(case["conversation"])
    ]
    for name, text in texts:
        found = FORBIDDEN_WORDS.search(text)
        if found:
            raise ScenarioError(
                f"{where}: {name} uses the word {found.group(0)!r}; users never say key/field/JSON"
            )


def _turn_of(owner: Mapping[str, int], path: str, latest: bool) -> int | None:
    hits = [t for p, t in owner.items() if p == path or p.startswith(path + "/")]
    if not hits:
        return None
    return max(hits) if latest else min(hits)


def _check_order(owner: Mapping[str, int], gold: Sequence[Mapping[str, Any]], where: str) -> None:
    """A dependent must not be stated before the input the request edits.

    Turns are looked up by gold path in the original artifact: cheap and exact for leaves;
    an inserted element (direct ``add``, cascade ``add``) has no turn and is not checked.
    """
    direct_turns = [
        t
        for op in gold
        if op["kind"] == "direct"
        and op["op"] != "add"
        and (t := _turn_of(owner, op["path"], False)) is not None
    ]
    if not direct_turns:
        return
    first = min(direct_turns)
    for op in gold:
        if op["kind"] != "cascade" or op["op"] == "add":
            continue
        last = _turn_of(owner, op["path"], True)
        if last is not None and last < first:
            raise ScenarioError(
                f"{where}: cascade {op['path']} is added in turn {last}, before the edited value (turn {first})"
            )


def _check_scoring(case: dict[str, Any], literal: list[dict[str, Any]], where: str) -> None:
    """The case loads; the literal gold completes it; the direct ops alone do not."""
    try:
        parsed = Case.from_dict(json.loads(json.dumps(case)))
    except CaseError as exc:
        raise ScenarioError(f"{where}: the case does not load: {exc}") from None
    score = score_patch(parsed, literal)
    if not score.completed:
        found = (
            "; ".join(f"{f.kind} at {f.path}" for f in score.findings[:5])
            or score.reason
            or score.error
        )
        raise ScenarioError(
            f"{where}: the literal gold answer does not complete the case ({found})"
        )
    direct = [op for op, g in zip(literal, case["gold"], strict=True) if g["kind"] == "direct"]
    if score_patch(parsed, direct).completed:
        raise ScenarioError(f"{where}: the direct edit alone already completes the case")


def dump_case(case: Mapping[str, Any]) -> str:
    """The file text of a case: fixed field order (``annotation`` last, when present),
    2-space indent, UTF-8, final newline."""
    ordered = {k: case[k] for k in CASE_FIELDS}
    if case.get(ANNOTATION_FIELD) is not None:
        ordered[ANNOTATION_FIELD] = case[ANNOTATION_FIELD]
    return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"
