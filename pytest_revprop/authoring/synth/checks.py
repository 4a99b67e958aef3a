"""The checks a writer's step must pass before the next step is asked.

Each check returns the step's value and the reasons it failed (empty when it passed); a
reason is one sentence that says what is wrong and what is wanted, because it is sent back
to the model in the re-ask. The rules (docs/synth.md lists them):

- **a turn**: one JSON object with a ``user`` message (no "key", "field" or "JSON") and a
  ``patch`` of ``add`` operations that apply to the document so far, each at a new place;
  it adds between 1 and the per-turn limit of primitive leaves (a turn that reaches the
  target may exceed the limit by the tolerance) and never takes the document past the target
  plus the tolerance; its ``derived`` list says which of its values are computed from (or
  tied to) which others, those others exist already (or come earlier in the same turn), a
  number computed from numbers gives its ``formula`` and equals what it gives (``formulas``),
  a leaf whose name says it aggregates (total, sum, count, ...) is declared, and nothing is
  added inside what an earlier declared value is computed from;
- **the size**: after the last turn the document holds the target's leaves, give or take
  the tolerance;
- **the request**: one JSON object with the ``request`` text and the ``edit`` it asks for:
  ``replace`` of one primitive leaf with a different primitive value, or ``add``/``remove``
  of one array element; the text states the new value; and some declared value depends on
  the edited place, so the edit forces something else to change;
- **a follow-up's request**: as the request, against the canonical document before it (the
  dependencies' places moved by the revisions before), plus a ``theme``: one line saying what
  the change does and what it forces.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_revprop.authoring.assembly import FORBIDDEN_WORDS
from pytest_revprop.authoring.synth.facts import states_value
from pytest_revprop.authoring.synth.formulas import formula_reasons
from pytest_revprop.core.patching import PatchError, apply_operations, copy_json
from pytest_revprop.util.jsonutil import (
    MISSING,
    is_within,
    iter_leaves,
    join_pointer,
    json_equal,
    leaf_count,
    resolve,
    split_pointer,
)

AGGREGATE_WORDS = frozenset(
    {"total", "totals", "subtotal", "sum", "count", "average", "avg", "mean", "balance"}
)
"""Member-name words that say a value aggregates others; such a leaf must be declared."""
MAX_REASONS = 5
"""Reasons sent back per failed step (the first ones; a long list only confuses)."""
EDIT_OPS = ("replace", "add", "remove")


@dataclass(frozen=True)
class Limits:
    """How the document is to grow: the target leaf count, the per-turn limit, the tolerance."""

    target: int
    per_turn: int
    tolerance: int


@dataclass(frozen=True)
class Dependency:
    """A value the writer declared as computed from (or tied to) other places."""

    path: str
    sources: tuple[str, ...]
    rule: str
    turn: int
    formula: str = ""
    """Its arithmetic over the sources (``formulas``), checked when it is declared."""

    def to_dict(self) -> dict[str, Any]:
        """The dependency as a draft file writes it (``formula`` only when there is one)."""
        out = {"path": self.path, "from": list(self.sources), "rule": self.rule}
        return out | {"formula": self.formula} if self.formula else out


@dataclass(frozen=True)
class TurnStep:
    """An accepted turn: the user's message, its ``add`` patch and the declared dependencies."""

    user: str
    patch: list[dict[str, Any]]
    dependencies: tuple[Dependency, ...]


@dataclass(frozen=True)
class RequestStep:
    """An accepted revision request and the one edit it asks for."""

    request: str
    edit: dict[str, Any]
    theme: str = ""
    """A follow-up's one-line theme (empty for the case's own request)."""


# ------------------------------------------------------------------------------ a turn


def check_turn(
    reply: dict[str, Any],
    artifact: Any,
    earlier: Sequence[Dependency],
    limits: Limits,
    turn: int,
) -> tuple[TurnStep | None, list[str]]:
    """Turn number ``turn`` (1-based) as the writer answered it, against the document so far."""
    user, patch = reply.get("user"), reply.get("patch")
    derived = reply.get("derived", [])
    reasons = []
    if not isinstance(user, str) or not user.strip():
        reasons.append('the object has no "user" message (a non-empty string)')
    if not isinstance(patch, list) or not patch:
        reasons.append('the object has no "patch": a non-empty list of add operations')
    if not isinstance(derived, list):
        reasons.append('"derived" must be a list (empty when no value is computed from others)')
    if reasons:
        return None, reasons
    assert isinstance(user, str) and isinstance(patch, list)
    reasons += _words("the user message", user)
    placed, after, patch_reasons = _applied(artifact, patch)
    reasons += patch_reasons
    if after is MISSING:
        return None, reasons[:MAX_REASONS]
    reasons += _growth(artifact, after, limits)
    declared, dep_reasons = _dependencies(derived, placed, artifact, after, turn)
    reasons += dep_reasons
    reasons += _undeclared_aggregates(artifact, after, [*earlier, *declared])
    reasons += _feeds_earlier(placed, earlier)
    if reasons:
        return None, reasons[:MAX_REASONS]
    return TurnStep(user.strip(), [dict(op) for op in patch], tuple(declared)), []


def _words(what: str, text: str) -> list[str]:
    found = FORBIDDEN_WORDS.search(text)
    if found is None:
        return []
    return [f"{what} uses the word {found.group(0)!r}: users never say key, field or JSON"]


def _applied(artifact: Any, patch: list[Any]) -> tuple[list[str], Any, list[str]]:
    """Each operation's concrete place, the document after the patch (MISSING when it does
    not apply), and what is wrong with the operations."""
    doc = copy_json(artifact)
    placed: list[str] = []
    for index, op in enumerate(patch):
        where = f"operation {index + 1}"
        if not isinstance(op, dict) or op.get("op") != "add":
            return placed, MISSING, [f"{where} is not an add operation: a turn only adds"]
        if set(op) != {"op", "path", "value"} or not isinstance(op["path"], str):
            return placed, MISSING, [f'{where} must have exactly "op", "path" and "value"']
        path = op["path"]
        place = _concrete(doc, path)
        if place is None:
            return placed, MISSING, [f"{where} (add {path}) does not apply: its parent is missing"]
        if resolve(doc, place) is not MISSING:
            return placed, MISSING, [_taken(where, path, doc, place)]
        try:
            doc = apply_operations(doc, [op], in_place=True)
        except PatchError as exc:
            return placed, MISSING, [f"{where} (add {path}) does not apply: {exc}"]
        placed.append(place)
    return placed, doc, []


def _concrete(doc: Any, path: str) -> str | None:
    """``path`` with a final ``-`` replaced by the index it appends at; None if the parent
    does not exist or the pointer is malformed."""
    try:
        tokens = split_pointer(path)
    except ValueError:
        return None
    if not tokens:
        return None
    parent = resolve(doc, join_pointer(tokens[:-1]))
    if not isinstance(parent, dict | list):
        return None
    if isinstance(parent, list) and tokens[-1] == "-":
        tokens[-1] = str(len(parent))
    return join_pointer(tokens)


def _taken(where: str, path: str, doc: Any, place: str) -> str:
    if _is_array_slot(doc, place):
        return (
            f"{where} inserts at {path}, before existing elements: append with a path ending in /-"
        )
    return f"{where} adds {path}, which is already there: add only new content"


def _is_array_slot(doc: Any, place: str) -> bool:
    """Whether ``place`` is an index of an array of ``doc``."""
    tokens = split_pointer(place)
    return isinstance(resolve(doc, join_pointer(tokens[:-1])), list)


def _growth(before: Any, after: Any, limits: Limits) -> list[str]:
    had, has = leaf_count(before), leaf_count(after)
    added = has - had
    if added < 1:
        return ["the turn adds no primitive value (string, number, boolean): add at least one"]
    reasons = []
    reaches = has >= limits.target - limits.tolerance
    allowed = limits.per_turn + (limits.tolerance if reaches else 0)
    if added > allowed:
        reasons.append(
            f"the turn adds {added} primitive values; at most {allowed} this turn: "
            "add less and keep the rest for later turns"
        )
    if has > limits.target + limits.tolerance:
        reasons.append(
            f"the document would hold {has} primitive values, more than the target of "
            f"{limits.target} (give or take {limits.tolerance}): {limits.target - had} remain"
        )
    return reasons


def _dependencies(
    derived: list[Any], placed: list[str], before: Any, after: Any, turn: int
) -> tuple[list[Dependency], list[str]]:
    declared: list[Dependency] = []
    reasons: list[str] = []
    for index, item in enumerate(derived):
        where = f"derived entry {index + 1}"
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("path"), str)
            or not isinstance(item.get("from"), list)
            or not item["from"]
            or not all(isinstance(s, str) for s in item["from"])
        ):
            reasons.append(f'{where} must be {{"path": ..., "from": [...], "rule": ...}}')
            continue
        path, sources = item["path"], tuple(item["from"])
        owner = _owner(placed, path)
        if owner is None or resolve(after, path) is MISSING:
            reasons.append(f"{where} declares {path}, which this turn does not add")
            continue
        before_sources = len(reasons)
        for source in sources:
            source_owner = _owner(placed, source)
            if is_within(path, source) or is_within(source, path):
                reasons.append(f"{where}: {path} cannot be computed from itself ({source})")
            elif resolve(after, source) is MISSING or (
                source_owner is not None and source_owner > owner
            ):
                reasons.append(
                    f"{path} is computed from {source}, which is not there before it: "
                    "state a value only after every value it depends on"
                )
        formula = item.get("formula")
        if len(reasons) == before_sources:  # its sources are there: evaluate its formula
            reasons += formula_reasons(where, path, sources, formula, after)
        rule = str(item.get("rule", ""))
        kept = formula if isinstance(formula, str) else ""
        declared.append(Dependency(path, sources, rule, turn, kept))
    return declared, reasons


def _owner(placed: list[str], path: str) -> int | None:
    """Index of this turn's operation that adds ``path`` (None: not added by this turn)."""
    for index, place in enumerate(placed):
        if is_within(path, place):
            return index
    return None


def _name_words(pointer: str) -> set[str]:
    tokens = split_pointer(pointer)
    name = next((t for t in reversed(tokens) if not t.isdigit()), "")
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return {w.lower() for w in re.split(r"[^A-Za-z]+", spaced) if w}


def _undeclared_aggregates(
    before: Any, after: Any, dependencies: Sequence[Dependency]
) -> list[str]:
    old = {pointer for pointer, _ in iter_leaves(before)}
    reasons = []
    for pointer, _ in iter_leaves(after):
        if pointer in old:
            continue
        words = _name_words(pointer) & AGGREGATE_WORDS
        if words and not any(is_within(pointer, d.path) for d in dependencies):
            reasons.append(
                f"{pointer} looks computed from other values (its name says "
                f'{sorted(words)[0]!r}): declare it in "derived" with what it is computed from'
            )
    return reasons


def _feeds_earlier(placed: list[str], earlier: Sequence[Dependency]) -> list[str]:
    reasons = []
    for place in placed:
        for dep in earlier:
            source = next((s for s in dep.sources if is_within(place, s) and place != s), None)
            if source is not None:
                reasons.append(
                    f"adding {place} changes {source}, which {dep.path} (turn {dep.turn}) is "
                    "computed from: add only values that no earlier aggregate depends on"
                )
    return reasons


# ------------------------------------------------------------------------------ the size


def check_size(artifact: Any, limits: Limits, turns: int) -> list[str]:
    """Why the finished document's size misses the target (empty when within tolerance)."""
    has = leaf_count(artifact)
    if abs(has - limits.target) <= limits.tolerance:
        return []
    return [
        f"after {turns} turns the document holds {has} primitive values; the target is "
        f"{limits.target}, give or take {limits.tolerance}"
    ]


# ------------------------------------------------------------------------------ the request


def check_request(
    reply: dict[str, Any], artifact: Any, dependencies: Sequence[Dependency]
) -> tuple[RequestStep | None, list[str]]:
    """The revision request as the writer answered it, against the finished document."""
    text, edit = reply.get("request"), reply.get("edit")
    if not isinstance(text, str) or not text.strip():
        return None, ['the object has no "request": the user\'s message asking for the change']
    if (
        not isinstance(edit, dict)
        or edit.get("op") not in EDIT_OPS
        or not isinstance(edit.get("path"), str)
    ):
        return None, [
            'the object has no "edit": {"op": "replace" | "add" | "remove", "path": ..., '
            '"value": ...} naming the one place the request changes'
        ]
    reasons = _words("the request", text)
    op, path = edit["op"], edit["path"]
    value = edit.get("value", MISSING)
    if op == "replace":
        reasons += _replace_reasons(artifact, path, value, text)
    elif op == "add":
        reasons += _add_reasons(artifact, path, value, text)
    else:
        reasons += _remove_reasons(artifact, path)
    if not reasons and not _has_dependents(path, dependencies):
        reasons.append(
            f"no value declared in the conversation depends on {path}, so the request would "
            "force no other change: ask to change a value that others are computed from"
        )
    if reasons:
        return None, reasons[:MAX_REASONS]
    clean = {"op": op, "path": path} | ({} if op == "remove" else {"value": value})
    return RequestStep(text.strip(), clean), []


def check_followup(
    reply: dict[str, Any], artifact: Any, dependencies: Sequence[Dependency]
) -> tuple[RequestStep | None, list[str]]:
    """A follow-up's request as the writer answered it, against the canonical document before
    it: the request's checks, and a one-line ``theme``."""
    step, reasons = check_request(reply, artifact, dependencies)
    theme = reply.get("theme")
    if not isinstance(theme, str) or not theme.strip() or "\n" in theme.strip():
        reasons = [
            *reasons,
            'the object has no "theme": one line saying what this change does and what it forces',
        ]
    if step is None or reasons:
        return None, reasons[:MAX_REASONS]
    assert isinstance(theme, str)
    return RequestStep(step.request, step.edit, theme.strip()), []


def _replace_reasons(artifact: Any, path: str, value: Any, text: str) -> list[str]:
    current = resolve(artifact, path)
    if current is MISSING:
        return [f"the edit names {path}, which the document does not have"]
    if isinstance(current, dict | list):
        return [f"the edit names {path}, a whole group of values: name one single value"]
    if value is MISSING or value is None or isinstance(value, dict | list):
        return ["the edit must give one concrete new value (a number, a text, a date)"]
    if json_equal(value, current):
        return [f"the new value of {path} equals its current value {current!r}: change it"]
    if not states_value(text, value):
        return [f"the request does not state the new value {value!r}: say it in the message"]
    return []


def _add_reasons(artifact: Any, path: str, value: Any, text: str) -> list[str]:
    place = _concrete(artifact, path)
    if place is None or not _is_array_slot(artifact, place):
        return [f"the edit adds at {path}, which is not a place in a list: add one list element"]
    if value is MISSING or value is None:
        return ["the edit must give the new element's value"]
    stated = [v for _, v in iter_leaves(value) if isinstance(v, str | int | float)]
    if stated and not any(states_value(text, v) for v in stated):
        return ["the request does not state anything of the new element: describe it"]
    return []


def _remove_reasons(artifact: Any, path: str) -> list[str]:
    if resolve(artifact, path) is MISSING or not _is_array_slot(artifact, path):
        return [f"the edit removes {path}, which is not an element of a list in the document"]
    return []


def _has_dependents(path: str, dependencies: Sequence[Dependency]) -> bool:
    tokens = split_pointer(path)
    container = join_pointer(tokens[:-1]) if tokens and tokens[-1] == "-" else path
    return any(
        is_within(container, source) or is_within(source, container)
        for dep in dependencies
        for source in dep.sources
    )
