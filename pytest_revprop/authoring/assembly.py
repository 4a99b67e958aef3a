"""Case assembly: a scenario's declarations become one validated case per size.

The assistant turns are ``add`` patches cut from the computed artifact; the gold comes from
:mod:`pytest_revprop.authoring.gold`; every rule of the case format (and of a good benchmark
case) is checked here at build time, with an error that names the scenario and the size.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_revprop.authoring.gold import gold_ops, literal_gold
from pytest_revprop.authoring.helpers import leaf_breakdown
from pytest_revprop.authoring.scenario import (
    Params,
    Revision,
    Scenario,
    ScenarioError,
    Turn,
)
from pytest_revprop.authoring.userwords import check_user_words
from pytest_revprop.core.cases import Case, CaseError
from pytest_revprop.core.patching import PatchError, apply_operations
from pytest_revprop.core.scoring import score_patch
from pytest_revprop.util.jsonutil import (
    MISSING,
    child_pointer,
    iter_leaves,
    join_pointer,
    json_equal,
    leaf_count,
    resolve,
    split_pointer,
)
from pytest_revprop.vocabulary import PATTERNS

FORBIDDEN_WORDS = re.compile(r"\b(keys?|fields?|json)\b", re.IGNORECASE)
"""Words users never say: a request or user turn holding one fails the build."""
_ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)+$")


# --------------------------------------------------------------------------- build and validate


def build_case(scenario: Scenario, size: int, split: str = "test") -> dict[str, Any]:
    """The validated case dict of ``scenario`` at ``size`` (keys in case-format order)."""
    where = f"scenario {scenario.id} size {size}"
    check_declaration(scenario)
    params = scenario.params(size)
    case, edited, new_artifact = revision_case(
        scenario, size, params, scenario.revision(params), where, split
    )
    followups: list[dict[str, Any]] = []
    if scenario.followups is not None:
        for number, revision in enumerate(scenario.followups(params), start=1):
            edited, new_artifact, followup = next_followup(
                scenario,
                case,
                followups,
                edited,
                new_artifact,
                revision,
                f"{where} follow-up {number}",
                f"{where} turn {number}",
            )
            followups.append(followup)
    return with_followups(case, followups)


def revision_case(
    scenario: Scenario,
    size: int,
    params: Params,
    revision: Revision,
    where: str,
    split: str = "test",
    theme: str | None = None,
) -> tuple[dict[str, Any], Params, Any]:
    """The case of one revision of ``params`` (no follow-ups), checked: the artifact's size, the
    conversation, the gold, the words, the order and the scoring. Also the inputs after the
    revision and their artifact, where a chain goes on from."""
    artifact = _computed(scenario, params, where)
    count = leaf_count(artifact)
    if count != size:
        parts = ", ".join(f"{k}: {v}" for k, v in leaf_breakdown(artifact).items())
        raise ScenarioError(f"{where}: the artifact has {count} leaves, not {size} ({parts})")
    conversation, owner = _conversation(artifact, list(scenario.conversation(params)), where)
    edited, new_artifact = _revised(scenario, params, revision, where + " (revised)")
    literal = literal_gold(artifact, new_artifact, revision.direct_paths(), where)
    gold = gold_ops(literal, revision, new_artifact, where)
    case = {
        "id": f"{scenario.id}/{size}",
        "scenario": scenario.id,
        "domain": scenario.domain,
        "pattern": revision.pattern or scenario.pattern,
        "size": size,
        "split": split,
        "theme": scenario.theme if theme is None else theme,
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
    spoken = [turn["user"] for turn in conversation]
    check_user_words(
        where if where.endswith(" turn 0") else f"{where} turn 0",
        revision.request,
        revision.reference,
        gold,
        [artifact],
        spoken,
        new_artifact,
    )
    return case, edited, new_artifact


def with_followups(case: dict[str, Any], followups: list[dict[str, Any]]) -> dict[str, Any]:
    """``case`` with its follow-ups (written after the gold, before the notes), as plain JSON."""
    if followups:
        rest = {k: v for k, v in case.items() if k != "notes"}
        case = {**rest, "followups": followups, "notes": case["notes"]}
    return json.loads(json.dumps(case))  # type: ignore[no-any-return]


def _revised(
    scenario: Scenario, params: Params, revision: Revision, where: str
) -> tuple[Params, Any]:
    """The inputs after ``revision``'s edit of (a copy of) ``params``, and their artifact."""
    edited = copy.deepcopy(params)
    changed = revision.mutate(edited)
    if changed is not None and type(changed) is not type(params):
        raise ScenarioError(
            f"{where}: mutate returned a {type(changed).__name__}, not new inputs (return None"
            " after editing them in place; a lambda returns the value of its expression)"
        )
    edited = edited if changed is None else changed
    return edited, _computed(scenario, edited, where)


def next_followup(
    scenario: Scenario,
    case: dict[str, Any],
    earlier: list[dict[str, Any]],
    inputs: Params,
    artifact: Any,
    revision: Revision,
    where: str,
    label: str = "",
) -> tuple[Params, Any, dict[str, Any]]:
    """The next follow-up of ``case``'s chain (``earlier`` its follow-ups so far): ``revision``
    edits the inputs the previous revision left; its artifact is the canonical document before
    it and its gold what the recomputation changes. Checked like the first revision: its words,
    the user's words its gold may use (``userwords``; their errors say ``label``, default
    ``where``), its literal gold completes it and its direct edit alone does not. Returns the
    inputs after it, their artifact, and the follow-up."""
    if not revision.theme.strip() or "\n" in revision.theme:
        raise ScenarioError(f"{where}: a follow-up needs a theme, one non-empty line")
    if revision.pattern not in PATTERNS:
        raise ScenarioError(
            f"{where}: a follow-up needs a pattern, one of {', '.join(PATTERNS)}"
            f" (got {revision.pattern!r})"
        )
    inputs, revised = _revised(scenario, inputs, revision, where)
    if json_equal(revised, artifact):
        raise ScenarioError(f"{where}: the follow-up changes nothing")
    literal = literal_gold(artifact, revised, revision.direct_paths(), where)
    gold = gold_ops(literal, revision, revised, where)
    followup = {
        "request": revision.request,
        "reference": copy.deepcopy(revision.reference),
        "gold": gold,
        "artifact": artifact,
        "theme": revision.theme,
    }
    _check_words({"request": revision.request, "conversation": []}, where)
    _check_followup(case, [*earlier, followup], literal, where)
    check_user_words(
        label or where,
        revision.request,
        revision.reference,
        gold,
        [case["artifact"], *(f["artifact"] for f in earlier), artifact],
        [turn["user"] for turn in case["conversation"]],
        revised,
    )
    return inputs, revised, followup


def check_declaration(s: Scenario) -> None:
    """Raise :class:`ScenarioError` unless id, pattern, domain and theme are well formed."""
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
    _check_completion(parsed, literal, where)


def _check_followup(
    case: dict[str, Any],
    followups: list[dict[str, Any]],
    literal: list[dict[str, Any]],
    where: str,
) -> None:
    """The last of ``followups`` checked as a single revision of its own artifact: it loads
    after the revision before it (:func:`_pair`), so the case format's follow-up rules apply;
    its gold applies and passes the gold rules, its literal gold completes it, its direct ops
    do not."""
    before = followups[-2] if len(followups) > 1 else None
    try:
        loaded = Case.from_dict(json.loads(json.dumps(_pair(case, before, followups[-1]))))
    except CaseError as exc:
        raise ScenarioError(f"{where}: the follow-up does not load: {exc}") from None
    view = loaded.only(len(loaded.revisions) - 1)  # the follow-up as a single revision
    _check_completion(view, literal, where)


def _pair(
    case: dict[str, Any], before: dict[str, Any] | None, followup: dict[str, Any]
) -> dict[str, Any]:
    """The case as the loader sees one follow-up: after the case's own revision, or after the
    follow-up ``before`` it, stated as the revision of a one-turn conversation that adds its
    artifact. The loader's chain rules hold between consecutive revisions, so checking each
    pair checks the whole chain, at a cost that does not grow with the chain."""
    if before is None:
        return {**case, "followups": [followup]}
    artifact = before["artifact"]
    adds = [{"op": "add", "path": child_pointer("", k), "value": v} for k, v in artifact.items()]
    return {
        **case,
        "conversation": [{"user": "The document so far.", "assistant": adds}],
        "artifact": artifact,
        "size": leaf_count(artifact),
        "request": before["request"],
        "reference": before["reference"],
        "gold": before["gold"],
        "followups": [followup],
    }


def _check_completion(parsed: Case, literal: list[dict[str, Any]], where: str) -> None:
    score = score_patch(parsed, literal)
    if not score.completed:
        found = (
            "; ".join(f"{f.kind} at {f.path}" for f in score.findings[:5])
            or score.outcome.reason
            or score.outcome.error
        )
        raise ScenarioError(
            f"{where}: the literal gold answer does not complete the case ({found})"
        )
    direct = [op for op, g in zip(literal, parsed.gold, strict=True) if g.kind == "direct"]
    if score_patch(parsed, direct).completed:
        raise ScenarioError(f"{where}: the direct edit alone already completes the case")


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
