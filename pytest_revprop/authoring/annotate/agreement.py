"""`revprop annotate --agreement DIR_A DIR_B`: do two annotators' golds agree, case by case?

Cases pair by id. Two golds agree when they are the same operations after normalisation, or
when each completes the other's case (the scorer's verdict on the other's literal gold):
- normalisation fills the default fields (``match`` strict, ``optional`` false), compares
  values as JSON (1 == 1.0, true != 1), and ignores the order of operations that are
  independent: an operation whose path overlaps no other's and that does not insert into or
  remove from an array (those shift later indices) may sit anywhere; the others keep their
  order;
- golds on different artifacts never agree; a request the annotators worded differently is
  reported with the verdict;
- a chain is compared turn by turn (each follow-up as the single revision the ``teacher``
  protocol scores, ``core.chain.teacher_view``); the case's verdict is its worst turn's, and
  the report gives each turn's agreement too. Chains of different lengths disagree.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.cases import Case, GoldOp, load_cases
from pytest_revprop.core.chain import teacher_view
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.core.patching import apply_operations
from pytest_revprop.core.scoring import score_patch
from pytest_revprop.errors import UserError
from pytest_revprop.util.jsonutil import is_within, json_equal, resolve

SAME, EQUIVALENT, DISAGREE = "same", "equivalent", "disagree"
SHOWN_FIRST = (DISAGREE, EQUIVALENT, SAME)


@dataclass
class Pairing:
    """One case both annotators have: the verdict and, when they differ, the differing ops."""

    case: str
    verdict: str
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    note: str = ""
    turns: list[Pairing] = field(default_factory=list)
    """A chain's follow-ups compared (turn 1, 2, ...), each as a pairing of its own."""

    own_verdict: str = ""
    """The verdict on the case's own revision alone (the verdict is the worst turn's)."""

    @property
    def agrees(self) -> bool:
        """Whether the golds agree: the same once normalised, or each completing the other."""
        return self.verdict != DISAGREE


@dataclass
class Agreement:
    """Two annotators' golds compared: a pairing per case both have, the ids only one has, and the
    files that did not load.
    """

    pairings: list[Pairing]
    only_a: list[str]
    only_b: list[str]
    errors: list[str]

    @property
    def rate(self) -> float | None:
        """The share of paired cases whose golds agree (None when no case paired)."""
        return sum(p.agrees for p in self.pairings) / len(self.pairings) if self.pairings else None

    def counts(self) -> Counter[str]:
        """How many pairings have each verdict."""
        return Counter(p.verdict for p in self.pairings)

    def per_turn(self) -> list[tuple[int, int, int]]:
        """(turn, pairings that agree, pairings) for each turn some chain reaches (turn 0: the
        cases' own revisions, with each case's verdict on that turn alone)."""
        rows: dict[int, list[bool]] = {}
        for p in self.pairings:
            rows.setdefault(0, []).append(p.own_verdict != DISAGREE)
            for turn, t in enumerate(p.turns, start=1):
                rows.setdefault(turn, []).append(t.agrees)
        return [(turn, sum(ok), len(ok)) for turn, ok in sorted(rows.items())]

    def shown(self) -> list[Pairing]:
        """The pairings a report lists: every one that is not simply the same, worst first."""
        listed = [p for p in self.pairings if p.verdict != SAME or p.note]
        return sorted(listed, key=lambda p: SHOWN_FIRST.index(p.verdict))


def canonical_value(value: Any) -> Any:
    """``value`` with integral floats as ints, so that JSON-equal values compare equal."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, list):
        return [canonical_value(v) for v in value]
    return {k: canonical_value(v) for k, v in value.items()}


def op_text(op: GoldOp) -> str:
    """One operation in normal form, as one readable line."""
    value = (
        ""
        if op.op == "remove"
        else " = " + json.dumps(canonical_value(op.value), ensure_ascii=False, sort_keys=True)
    )
    extra = "" if op.match == "strict" else f", {op.match}"
    extra += ", optional" if op.optional else ""
    return f"{op.op} {op.path}{value} [{op.kind}{extra}]"


def _anchored(case: Case) -> list[bool]:
    """Which ops keep their place: array inserts/removes, and ops whose paths overlap another's."""
    out = []
    state = case.artifact
    for index, op in enumerate(case.gold):
        parent = resolve(state, op.path.rpartition("/")[0]) if op.path else None
        structural = op.op in ("add", "remove") and isinstance(parent, list)
        overlaps = any(
            is_within(op.path, other.path) or is_within(other.path, op.path)
            for j, other in enumerate(case.gold)
            if j != index
        )
        out.append(structural or overlaps)
        state = apply_operations(state, [case.gold_patch[index]])
    return out


def normal_form(case: Case) -> tuple[Counter[str], list[str]]:
    """(the free ops as a multiset, the anchored ops in order), each op as ``op_text``."""
    anchored = _anchored(case)
    free = Counter(op_text(op) for op, a in zip(case.gold, anchored, strict=True) if not a)
    fixed = [op_text(op) for op, a in zip(case.gold, anchored, strict=True) if a]
    return free, fixed


def _completes(case: Case, other: Case) -> bool:
    literal = literal_gold_patch(other)
    return literal is not None and score_patch(case, literal).completed


def compare(a: Case, b: Case) -> Pairing:
    """The verdict on two annotators' versions of one case: ``same`` after normalisation,
    ``equivalent`` when each gold completes the other's case, else ``disagree`` with the
    operations only one of them has; a chain's worst turn gives it (``Pairing.turns``).
    """
    pairing = _compare_revision(a, b)
    pairing.own_verdict = pairing.verdict
    if len(a.followups) != len(b.followups):
        note = f"A has {len(a.followups) + 1} turns, B has {len(b.followups) + 1}"
        pairing.verdict = DISAGREE
        pairing.note = "; ".join(filter(None, [pairing.note, note]))
        return pairing
    for turn in range(1, len(a.followups) + 1):
        found = _compare_revision(teacher_view(a, turn), teacher_view(b, turn))
        found.case = f"{a.id} turn {turn}"
        pairing.turns.append(found)
    verdicts = [pairing.verdict, *(t.verdict for t in pairing.turns)]
    pairing.verdict = min(verdicts, key=SHOWN_FIRST.index)
    return pairing


def _compare_revision(a: Case, b: Case) -> Pairing:
    """``compare`` of two single revisions."""
    note = "the requests differ" if a.request != b.request else ""
    if not json_equal(a.artifact, b.artifact):
        return Pairing(a.id, DISAGREE, note="the artifacts differ")
    (free_a, fixed_a), (free_b, fixed_b) = normal_form(a), normal_form(b)
    if free_a == free_b and fixed_a == fixed_b:
        return Pairing(a.id, SAME, note=note)
    verdict = EQUIVALENT if _completes(a, b) and _completes(b, a) else DISAGREE
    texts_a = free_a + Counter(fixed_a)
    texts_b = free_b + Counter(fixed_b)
    only_a = [t for t in (op_text(op) for op in a.gold) if (texts_a - texts_b)[t] > 0]
    only_b = [t for t in (op_text(op) for op in b.gold) if (texts_b - texts_a)[t] > 0]
    if not only_a and not only_b:
        note = "; ".join(filter(None, [note, "the same operations in another order"]))
    return Pairing(a.id, verdict, list(dict.fromkeys(only_a)), list(dict.fromkeys(only_b)), note)


def agreement(folder_a: str, folder_b: str) -> Agreement:
    """The agreement report between the cases under ``folder_a`` and ``folder_b``."""
    set_a, set_b = load_cases([folder_a]), load_cases([folder_b])
    if not set_a.cases and not set_b.cases and not (set_a.errors or set_b.errors):
        raise UserError(f"no case files (*.json) under {folder_a} or {folder_b}")
    by_id_a = {c.id: c for c in set_a.cases}
    by_id_b = {c.id: c for c in set_b.cases}
    pairings = [compare(by_id_a[i], by_id_b[i]) for i in by_id_a if i in by_id_b]
    return Agreement(
        pairings=pairings,
        only_a=[i for i in by_id_a if i not in by_id_b],
        only_b=[i for i in by_id_b if i not in by_id_a],
        errors=[str(e) for e in [*set_a.errors, *set_b.errors]],
    )


# ---------------------------------------------------------------------------- rendering


def _headline(report: Agreement) -> str:
    n = len(report.pairings)
    if not n:
        return "agreement: no case is in both folders"
    counts = report.counts()
    agreed = counts[SAME] + counts[EQUIVALENT]
    return (
        f"agreement: {agreed} of {n} cases agree ({100 * agreed / n:.1f}%): "
        f"{counts[SAME]} same, {counts[EQUIVALENT]} equivalent, {counts[DISAGREE]} disagree"
    )


def render_text(report: Agreement, names: Sequence[str]) -> str:
    """The agreement report as plain text, ``names`` naming annotators A and B."""
    name_a, name_b = names
    lines = [f"A = {name_a}", f"B = {name_b}", _headline(report)]
    if len(report.per_turn()) > 1:
        lines.append("per turn: " + "; ".join(_turn_rates(report)))
    for p in report.shown():
        for q in _listed(p):
            lines.append(f"{q.verdict:<10} {q.case}" + (f" ({q.note})" if q.note else ""))
            lines += [f"  only in A: {t}" for t in q.only_a]
            lines += [f"  only in B: {t}" for t in q.only_b]
    for label, ids in (("only in A", report.only_a), ("only in B", report.only_b)):
        if ids:
            lines.append(f"{label}: {len(ids)} case(s): {', '.join(ids)}")
    lines += [f"not loaded: {e}" for e in report.errors]
    return "\n".join(lines) + "\n"


def _turn_rates(report: Agreement) -> list[str]:
    return [f"turn {turn} {ok} of {n} agree" for turn, ok, n in report.per_turn()]


def _listed(p: Pairing) -> list[Pairing]:
    """A shown case as the report lists it: its own revision (unless only its follow-ups
    differ), then each turn that is not simply the same."""
    own = Pairing(p.case, p.own_verdict or p.verdict, p.only_a, p.only_b, p.note)
    turns = [t for t in p.turns if t.verdict != SAME or t.note]
    return ([own] if own.verdict != SAME or own.note or not turns else []) + turns


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Agreement, names: Sequence[str]) -> str:
    """The agreement report as a markdown section, ``names`` naming annotators A and B."""
    name_a, name_b = names
    lines = [
        "## Annotator agreement",
        "",
        f"A = `{name_a}`, B = `{name_b}`. {_headline(report).removeprefix('agreement: ')}.",
    ]
    if len(report.per_turn()) > 1:
        lines += ["", "Per turn: " + "; ".join(_turn_rates(report)) + "."]
    shown = report.shown()
    if shown:
        lines += [
            "",
            "| case | verdict | only in A | only in B | note |",
            "| --- | --- | --- | --- | --- |",
        ]
        for q in (q for p in shown for q in _listed(p)):
            ops_a = "<br>".join(f"`{_cell(t)}`" for t in q.only_a)
            ops_b = "<br>".join(f"`{_cell(t)}`" for t in q.only_b)
            lines.append(f"| `{q.case}` | {q.verdict} | {ops_a} | {ops_b} | {_cell(q.note)} |")
    for label, ids in (("Only in A", report.only_a), ("Only in B", report.only_b)):
        if ids:
            lines += ["", f"{label}: " + ", ".join(f"`{i}`" for i in ids)]
    if report.errors:
        lines += ["", "Not loaded:", ""] + [f"- {_cell(e)}" for e in report.errors]
    return "\n".join(lines) + "\n"
