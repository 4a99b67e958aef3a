"""Live validation of a case being edited: the loader's rules and the scorer's verdicts,
as messages keyed by the JSON Pointer of the field they concern (``/gold/2/path``).

An ``error`` breaks a loading rule of the case format (the file could not be saved); a
``warning`` is a case that loads but looks wrong (an op that changes nothing, a gold that does
not complete its own case, a direct edit that completes the case alone). Every message comes
from ``pytest_revprop.core.cases`` (schema and loading rules) or ``pytest_revprop.core.scoring``
(application, matchers, completion), applied op by op so that each one lands on its op.

The check also returns what the preview shows: the expected artifact (a matcher's place shows
the value it stands for, never the raw pattern or pointer), every changed place with its value
before, every added and removed place, where each leaf of the artifact sits after the gold (for
picking a leaf to start an operation on), and whether the direct edit alone completes the case.
Messages name operations as the page numbers them, from 1.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.authoring.annotate.chained import (
    chain_advice,
    changed_before,
    derive_chain,
    followups_of,
    stuck_message,
    turn_name,
    turn_pointer,
)
from pytest_revprop.authoring.annotate.store import openable
from pytest_revprop.core.cases import (
    Case,
    CaseError,
    case_schema,
    reference_problem,
    schema_error_text,
)
from pytest_revprop.core.chain import teacher_view
from pytest_revprop.core.geometry import array_parent, shift_pointer
from pytest_revprop.core.literal import literal_gold_patch, regex_example
from pytest_revprop.core.patching import PatchError, apply_operations, check_operations
from pytest_revprop.core.scoring import regex_passes, score_patch
from pytest_revprop.util.jsonutil import (
    MISSING,
    is_within,
    iter_leaves,
    json_equal,
    loads_strict,
    resolve,
)

MAX_MESSAGES = 200
_UNCHANGED = object()
"""A preview value meaning "the place keeps the value it has" (a matcher with no example)."""


@dataclass
class Report:
    """What a check finds; ``to_dict`` is the JSON the editor receives."""

    messages: list[dict[str, str]] = field(default_factory=list)
    expected: Any = None
    marks: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    removed: list[dict[str, Any]] = field(default_factory=list)
    before: dict[str, Any] = field(default_factory=dict)
    moved: dict[str, str | None] = field(default_factory=dict)
    gold_completes: bool | None = None
    direct_alone_completes: bool | None = None
    turns: list[dict[str, Any]] = field(default_factory=list)
    """Per follow-up (turn 1, 2, ...): its document before (derived), and its preview."""

    def add(self, level: str, pointer: str, rule: str, message: str) -> None:
        """Add a message, unless the same one is there already or the report is full."""
        seen = any(m["pointer"] == pointer and m["message"] == message for m in self.messages)
        if not seen and len(self.messages) < MAX_MESSAGES:
            self.messages.append(
                {"level": level, "pointer": pointer, "rule": rule, "message": message}
            )

    @property
    def valid(self) -> bool:
        """Whether no message is an error."""
        return not any(m["level"] == "error" for m in self.messages)

    def to_dict(self) -> dict[str, Any]:
        """The report as the editor receives it."""
        return {
            "valid": self.valid,
            "messages": self.messages,
            "expected": self.expected,
            "marks": self.marks,
            "labels": self.labels,
            "removed": self.removed,
            "before": self.before,
            "moved": self.moved,
            "gold_completes": self.gold_completes,
            "direct_alone_completes": self.direct_alone_completes,
            "turns": self.turns,
        }

    def preview(self) -> dict[str, Any]:
        """What the page shows of one turn besides its messages."""
        out = self.to_dict()
        del out["messages"], out["valid"], out["turns"]
        return out


def example_value(text: str) -> Any:
    """The value an example typed in the editor stands for: JSON when it parses, else text."""
    try:
        return loads_strict(text)
    except ValueError:
        return text


def check_case(
    data: Any,
    examples: dict[int, Any] | None = None,
    turn_examples: dict[int, dict[int, Any]] | None = None,
) -> Report:
    """Every message about case ``data``, and the preview. ``examples`` maps a gold index to
    the value a ``regex_match`` op stands for (the editor keeps it; the file does not), as
    typed (see ``example_value``); ``turn_examples`` the same per follow-up turn (1, 2, ...).
    A chain's follow-up documents are derived again first (``chained``); each turn is checked
    as the case's own revision is, its messages keyed under ``/followups/N``."""
    report = Report()
    why_not = openable(data)
    if why_not is not None:
        report.add("error", "", "open", why_not)
        return report
    sent = followups_of(data)
    data, stuck = derive_chain(data)
    _schema_messages(data, report)
    turns = [(data["artifact"], data["gold"])]
    turns += [(f.get("artifact"), f.get("gold")) for f in followups_of(data)]
    for turn, (artifact, gold) in enumerate(turns):
        wanted = examples if turn == 0 else (turn_examples or {}).get(turn)
        if turn == 0:
            _check_turn(artifact, gold, wanted, report)
            continue
        if stuck is not None and turn > stuck.turn:
            report.add("error", turn_pointer(turn, "/gold"), "chain", stuck_message(turn, stuck))
            report.turns.append({"artifact": artifact})
            continue
        if not isinstance(gold, list) or not all(isinstance(op, dict) for op in gold):
            report.turns.append({"artifact": artifact})
            continue  # the schema's message says so
        sub = Report()
        _check_turn(artifact, gold, wanted, sub)
        moved = not json_equal(sent[turn - 1].get("artifact"), artifact)
        for index, text in changed_before(sent[turn - 1].get("artifact"), artifact, gold):
            sub.add("warning", f"/gold/{index}/value", "chain-before", text)
        for m in sub.messages:
            text = m["message"]
            if moved and m["rule"] == "gold-applies":
                text += (
                    f": {turn_name(turn)} relied on its document as it was, which an earlier "
                    "turn's edit changed. Edit this operation, or the earlier turn back"
                )
            report.add(m["level"], turn_pointer(turn, m["pointer"]), m["rule"], text)
        report.turns.append({"artifact": artifact, **sub.preview()})
    try:
        case = Case.from_dict(data)
    except CaseError as exc:
        said = any(m["level"] == "error" for m in report.messages) and (
            exc.rule == "schema" or any(m["pointer"] == exc.pointer for m in report.messages)
        )
        if not exc.rule.endswith("gold-applies") and not said:  # each is said once, where it lies
            report.add("error", exc.pointer, exc.rule, chain_advice(exc))
        return report
    if report.valid:  # the verdicts judge a gold that loads, never one with errors
        _scoring_messages(case, report)
        for turn in range(1, len(case.followups) + 1):
            sub = Report()
            _scoring_messages(teacher_view(case, turn), sub)
            for m in sub.messages:
                report.add(m["level"], turn_pointer(turn, m["pointer"]), m["rule"], m["message"])
            report.turns[turn - 1].update(
                gold_completes=sub.gold_completes,
                direct_alone_completes=sub.direct_alone_completes,
            )
    return report


def _check_turn(artifact: Any, gold: Any, examples: Any, report: Report) -> None:
    """One turn's checks and preview, into ``report`` (pointers as for the case's own gold)."""
    examples = {
        int(i): example_value(v) if isinstance(v, str) else v
        for i, v in (examples or {}).items()
        if str(i).isdigit()
    }
    _path_messages(gold, report)
    _replay(artifact, gold, report)
    if report.valid:
        _op_messages(artifact, gold, examples, report)
    _preview(artifact, gold, examples, report)


# ---------------------------------------------------------------------------- schema


@functools.cache
def _schema_validator() -> Any:
    import jsonschema

    return jsonschema.Draft7Validator(case_schema())


def _schema_messages(data: dict[str, Any], report: Report) -> None:
    for error in _schema_validator().iter_errors(data):
        pointer = "".join(f"/{part}" for part in error.absolute_path)
        report.add("error", *_schema_message(error, pointer, error.instance))


def _schema_message(error: Any, pointer: str, instance: Any) -> tuple[str, str, str]:
    """(pointer, rule, message) with the pointer moved to the field a person edits."""
    if error.validator == "required" and isinstance(instance, dict):
        missing = [name for name in error.validator_value if name not in instance]
        if missing:
            return f"{pointer}/{missing[0]}", "schema", f"{missing[0]} is required"
    if error.validator == "not" and isinstance(instance, dict) and instance.get("op") == "remove":
        return f"{pointer}/value", "schema", "a remove has no value"
    if error.validator == "type" and pointer.endswith("/value"):
        return pointer, "schema", "a regex_match or ref_equal value is a string"
    if error.validator == "pattern" and error.validator_value.startswith("^(/"):
        escape = bad_escape(instance)
        if escape is not None:
            return pointer, "schema", f"{escape} is not an escape: write ~0 for ~ and ~1 for /"
        return pointer, "schema", "a JSON Pointer is empty or starts with '/' (~0 for ~, ~1 for /)"
    return pointer, "schema", schema_error_text(error)


def bad_escape(pointer: Any) -> str | None:
    """The first ``~`` of ``pointer`` not followed by ``0`` or ``1`` (with what follows it),
    quoted as typed; None when every ``~`` is an escape."""
    found = re.search(r"~(?![01])(.?)", pointer) if isinstance(pointer, str) else None
    return None if found is None else repr(found.group(0))


def _path_messages(gold: list[dict[str, Any]], report: Report) -> None:
    """An operation without a place yet: a new one starts with the path empty, and ``""`` (the
    document root) would replace the whole artifact, so it is an error until a path is set."""
    for index, op in enumerate(gold):
        if op.get("path") == "":
            report.add(
                "error",
                f"/gold/{index}/path",
                "gold-root",  # the loader's rule; said here too while the op is incomplete
                "no path yet: name the place this operation changes (e.g. /total); "
                '"" would replace the whole document',
            )


# ---------------------------------------------------------------------------- gold, op by op


def _plain(op: dict[str, Any]) -> dict[str, Any]:
    out = {"op": op.get("op"), "path": op.get("path")}
    if "value" in op:
        out["value"] = op["value"]
    return out


def _shifted_keys(places: dict[str, str], parent: str, index: int, delta: int) -> dict[str, str]:
    return {
        new: value
        for path, value in places.items()
        if (new := shift_pointer(path, parent, index, delta, inclusive=delta > 0)) is not None
    }


def _label(op: dict[str, Any]) -> str | None:
    """How the scorer judges the place an op sets, when not by strict equality."""
    match = op.get("match", "strict")
    words = {
        "regex_match": f"must match {op.get('value')}",
        "ref_equal": f"must equal the value at {op.get('value')}",
        "any": "any value",
    }.get(match)
    if op.get("optional"):
        words = f"{words}; optional" if words else "optional: unchanged also passes"
    return words


def _preview(
    artifact: Any, gold: list[dict[str, Any]], examples: dict[int, Any], report: Report
) -> None:
    """The preview shows the value each matcher op stands for: the annotator's example or an
    example string for a pattern, the referenced value for ref_equal; and each matcher."""
    shown = []
    for index, op in enumerate(gold):
        value: Any = op.get("value")
        if op.get("match") == "regex_match":
            example = examples.get(index)
            value = _example_of(value) if example is None else example
        elif op.get("match") == "ref_equal":
            target = resolve(report.expected, value) if isinstance(value, str) else MISSING
            value = _UNCHANGED if target is MISSING else target
        shown.append({**op, "value": value} if "value" in op else op)
    preview = Report()
    _replay(artifact, shown, preview, labels=[_label(op) for op in gold])
    report.expected, report.marks, report.labels = preview.expected, preview.marks, preview.labels
    report.removed, report.moved = preview.removed, preview.moved
    report.before = preview.before


def _example_of(pattern: Any) -> Any:
    """A string the pattern accepts, or _UNCHANGED (an invalid or unanswerable pattern)."""
    try:
        example = regex_example(pattern) if isinstance(pattern, str) else None
    except Exception:  # an invalid pattern has its own message; the preview just skips it
        example = None
    return _UNCHANGED if example is None else example


def _replay(
    artifact: Any,
    gold: list[dict[str, Any]],
    report: Report,
    labels: list[str | None] | None = None,
) -> None:
    """Apply the gold op by op: each op that does not apply gets its message (and is
    skipped); the others give the expected artifact and its marks (and ``labels``, one per
    op, at the place each op sets)."""
    state = artifact
    marks: dict[str, str] = {}
    places: dict[str, str] = {}
    moved: dict[str, str | None] = {path: path for path, _ in iter_leaves(artifact)}
    for index, op in enumerate(gold):
        plain = _plain(op)
        if plain["path"] == "":
            continue  # no path yet (see _path_messages): never replace the whole document
        if plain.get("value") is _UNCHANGED:
            plain["value"] = resolve(state, plain["path"])
            if plain["value"] is MISSING:
                continue
        try:
            check_operations([plain])
        except PatchError:
            continue  # a malformed op (no value, an unknown op): the schema's message says so
        try:
            after = apply_operations(state, [plain])
        except PatchError as exc:
            report.add("error", f"/gold/{index}/path", "gold-applies", f"does not apply: {exc}")
            continue
        target = array_parent(state, plain["path"]) if plain["op"] in ("add", "remove") else None
        if target is not None:
            parent, position = target
            delta = 1 if plain["op"] == "add" else -1
            marks = _shifted_keys(marks, parent, position, delta)
            report.before = _shifted_keys(report.before, parent, position, delta)
            places = _shifted_keys(places, parent, position, delta)
            moved = {
                a: None if e is None else shift_pointer(e, parent, position, delta, delta > 0)
                for a, e in moved.items()
            }
            if delta > 0:
                marks[f"{parent}/{position}"] = "added"
            else:
                report.removed.append(
                    {"path": plain["path"], "value": resolve(state, plain["path"])}
                )
        else:
            _mark_place(state, plain, marks, report)
        set_at = f"{target[0]}/{target[1]}" if target is not None else plain["path"]
        places = {p: v for p, v in places.items() if not is_within(p, set_at)}
        label = labels[index] if labels else None
        if label and plain["op"] != "remove":
            places[set_at] = label
        moved = {
            a: e if e is None or resolve(after, e) is not MISSING else None
            for a, e in moved.items()
        }
        state = after
    report.expected = state
    report.marks = marks
    report.labels = places
    report.moved = {a: e for a, e in moved.items() if e != a}


def _mark_place(state: Any, op: dict[str, Any], marks: dict[str, str], report: Report) -> None:
    path = op["path"]
    before = resolve(state, path)
    inner = [p for p in marks if is_within(p, path) and p != path]
    for p in inner:
        del marks[p]
    for p in [p for p in report.before if is_within(p, path) and p != path]:
        del report.before[p]
    if op["op"] == "remove":
        marks.pop(path, None)
        report.before.pop(path, None)
        report.removed.append({"path": path, "value": before})
    elif before is MISSING:
        marks[path] = "added"
    elif not json_equal(before, op["value"]):
        marks[path] = "added" if marks.get(path) == "added" else "changed"
        if marks[path] == "changed":
            report.before.setdefault(path, before)


def _op_messages(
    artifact: Any, gold: list[dict[str, Any]], examples: dict[int, Any], report: Report
) -> None:
    """What the scorer makes of each op: matchers that cannot work, ops that change nothing."""
    state = artifact
    paths: dict[str, int] = {}
    for index, op in enumerate(gold):
        here = f"/gold/{index}"
        before = resolve(state, op["path"])
        match = op.get("match", "strict")
        if op["path"] in paths:
            report.add(
                "warning",
                f"{here}/path",
                "duplicate",
                f"op {paths[op['path']] + 1} has this path too",
            )
        paths.setdefault(op["path"], index)
        if match == "regex_match":
            _regex_messages(op, before, examples.get(index, MISSING), here, report)
        elif match == "ref_equal":
            problem = reference_problem(report.expected, op["value"])
            if problem is not None:  # the loader's rule, so its message is this one
                report.add("error", f"{here}/value", "ref-equal", problem)
        elif op["op"] == "replace" and match == "strict" and json_equal(before, op["value"]):
            report.add(
                "warning",
                f"{here}/value",
                "no-change",
                "the value is unchanged: this op changes nothing",
            )
        state = apply_operations(state, [_plain(op)])
    if gold and not any(op.get("kind") == "direct" for op in gold):
        report.add(
            "warning", "/gold", "kind", "no operation is marked direct (named by the request)"
        )


def _regex_messages(
    op: dict[str, Any], before: Any, example: Any, here: str, report: Report
) -> None:
    import regex

    pattern = op["value"]
    try:
        regex.compile(pattern)
    except (regex.error, TypeError, ValueError, OverflowError) as exc:
        report.add("error", f"{here}/value", "regex", f"invalid regular expression: {exc}")
        return
    if example is not MISSING:
        if not regex_passes(pattern, example):
            report.add(
                "error",
                f"{here}/value",
                "regex",
                f"does not match the value it stands for ({_short(example)})",
            )
    elif regex_example(pattern) is None:
        report.add(
            "warning",
            f"{here}/value",
            "regex",
            "no example string found for this pattern: the gold solver cannot answer it literally",
        )
    if before is not MISSING and not op.get("optional") and regex_passes(pattern, before):
        report.add(
            "warning",
            f"{here}/value",
            "regex",
            f"the unchanged value ({_short(before)}) already matches: leaving it unchanged passes",
        )


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------------------- scoring


def _scoring_messages(case: Case, report: Report) -> None:
    literal = literal_gold_patch(case)
    if literal is None:
        return
    score = score_patch(case, literal)
    report.gold_completes = score.completed
    if not score.completed:
        where = "; ".join(f"{f.kind.replace('_', ' ')} at {f.path}" for f in score.findings[:5])
        report.add(
            "warning",
            "/gold",
            "gold-completes",
            f"the gold does not complete its own case ({where})",
        )
    direct = [op for op, g in zip(literal, case.gold, strict=True) if g.kind == "direct"]
    if any(g.kind == "direct" for g in case.gold):
        report.direct_alone_completes = score_patch(case, direct).completed
        if report.direct_alone_completes and len(case.gold) > 1:
            report.add(
                "warning",
                "/gold",
                "direct-alone",
                "the direct edit alone completes the case: it tests no propagation",
            )
