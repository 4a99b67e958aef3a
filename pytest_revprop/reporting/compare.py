"""Per (model, method, k) change of the completion rate from run A to run B, with the paired
exact McNemar test and the samples that flipped (``revprop compare A.json B.json``).

A group is a regression when its rate fell by more than ``--max-drop`` points AND p < alpha
(the same rule as the plugin's ``--revprop-baseline`` gate, both from ``stats.PairGroup``).
``--fail-on-regression`` then exits with the gate's code, ``vocabulary.REGRESSION_EXIT``.
``--metric pass_all_seeds`` compares pass^S per case instead, as the gate's
``--revprop-gate-metric`` does (``gate.per_case``). A second table puts the figures beyond the
paper side by side (``metrics.group_figures``): pass^S, the completion interval, the mean
cascade recall and preservation of A and B. Runs of different protocols (``--revprop-chain``:
off, teacher, free) are refused; chain runs are named as such, and ``--metric chain`` compares
their chain completion.

Each row also says what it could see: the smallest drop its pairs detect with 80% power
(``sight.detectable_points``); ``--detect=D`` adds, per group, the cases and seeds a D-point
drop needs. A note names the prompt templates whose text differs between A and B (results.json's
``meta.prompts``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.chains import OFF, check_protocols, protocol_of
from pytest_revprop.reporting.gate import per_case, prompts_note
from pytest_revprop.reporting.metrics import NONE_CELL, group_figures
from pytest_revprop.reporting.results import is_partial, load_results, refuse_partial
from pytest_revprop.reporting.sight import cases_and_seeds, detect_lines, detectable_points, verdict
from pytest_revprop.reporting.stats import (
    DEFAULT_ALPHA,
    PairedComparison,
    PairGroup,
    SampleKey,
    pair_outcomes,
)
from pytest_revprop.reporting.tables import markdown_table, text_table

__all__ = [
    "Compared",
    "compare_files",
    "prompts_note",
    "render_markdown",
    "render_text",
    "verdict",
]

HEADER = [
    "model",
    "method",
    "k",
    "pairs",
    "A %",
    "B %",
    "Δ points",
    "A pass→B fail",
    "A fail→B pass",
    "p",
    "verdict",
    "detectable drop",
]


BEYOND_HEADER = [
    "model",
    "method",
    "k",
    "A pass^S %",
    "B pass^S %",
    "A 95% CI %",
    "B 95% CI %",
    "A recall",
    "B recall",
    "A preserved",
    "B preserved",
]


def _figure_cell(figures: dict[str, Any] | None, name: str) -> str:
    value = None if figures is None else figures.get(name)
    if value is None:
        return NONE_CELL
    if name == "completion_ci95":
        return f"{100 * value[0]:.1f}–{100 * value[1]:.1f}"
    return f"{100 * value:.1f}" if name == "pass_all_seeds" else f"{value:.2f}"


def _summary_rows(doc: Mapping[str, Any]) -> dict[tuple[str, str, Any], Mapping[str, Any]]:
    return {
        (str(r.get("model")), str(r.get("method")), r.get("k")): r
        for r in doc.get("summary") or []
        if isinstance(r, Mapping)
    }


def _figures(
    records: Iterable[Mapping[str, Any]], summary: Mapping[tuple[str, str, Any], Mapping[str, Any]]
) -> dict[tuple[str, str, Any], dict[str, Any]]:
    """Each group's figures from its records; where the records carry none (a baseline keeps
    only what pairing needs), the run's summary row's."""
    figures = group_figures(records)
    for key, row in summary.items():
        mine = figures.setdefault(key, {})
        for name in ("cascade_recall", "preservation", "pass_all_seeds", "completion_ci95"):
            if mine.get(name) is None and row.get(name) is not None:
                mine[name] = row[name]
    return figures


def beyond_rows(
    comparison: PairedComparison, base: Mapping[str, Any], new: Mapping[str, Any]
) -> list[list[str]]:
    """Per compared group, A's and B's figures beyond the paper (``BEYOND_HEADER``), from
    all of each run's records of the group, else its summary row (``–`` where neither
    carries one)."""
    a = _figures(base["results"], _summary_rows(base))
    b = _figures(new["results"], _summary_rows(new))
    rows = []
    for g in comparison.groups:
        key = (g.model, g.method, g.k)
        cells = [g.model, g.method, "" if g.k is None else str(g.k)]
        for name in ("pass_all_seeds", "completion_ci95", "cascade_recall", "preservation"):
            cells += [_figure_cell(a.get(key), name), _figure_cell(b.get(key), name)]
        rows.append(cells)
    return rows


WHY_HEADER = [
    "model",
    "method",
    "k",
    "run",
    "samples",
    "failed",
    "miss",
    "over edit",
    "wrong value",
    "invalid replies by reason",
]
"""Why each side's samples failed: the failure categories (the summary's totals of artifact
elements) and the invalid replies by reason (counted from the records)."""


def why_rows(
    comparison: PairedComparison, base: Mapping[str, Any], new: Mapping[str, Any]
) -> list[list[str]]:
    """Per compared group and run (A, B): its samples, those not completed, the summary's
    miss / over edit / wrong value totals, and the replies that were not a usable patch by
    reason (``no_patch 61``), failed calls among them."""
    rows = []
    for side, doc in (("A", base), ("B", new)):
        summary = _summary_rows(doc)
        records: dict[tuple[str, str, Any], list[Mapping[str, Any]]] = {}
        for record in doc["results"]:
            key = (str(record.get("model")), str(record.get("method")), record.get("k"))
            records.setdefault(key, []).append(record)
        for g in comparison.groups:
            key = (g.model, g.method, g.k)
            mine = records.get(key, [])
            reasons = Counter(
                str(r["error"]) for r in mine if not r.get("completed") and r.get("error")
            )
            row = summary.get(key, {})
            rows.append(
                [
                    g.model,
                    g.method,
                    "" if g.k is None else str(g.k),
                    side,
                    str(len(mine)),
                    str(sum(not r.get("completed") for r in mine)),
                    *(
                        NONE_CELL if row.get(kind) is None else str(row[kind])
                        for kind in ("miss", "over_edit", "wrong_value")
                    ),
                    ", ".join(f"{why} {n}" for why, n in reasons.most_common()) or "none",
                ]
            )
    order = {
        (g.model, g.method, "" if g.k is None else str(g.k)): i
        for i, g in enumerate(comparison.groups)
    }
    return sorted(rows, key=lambda r: (order[(r[0], r[1], r[2])], r[3]))


def _cells(group: PairGroup, max_drop: float, alpha: float) -> list[str]:
    return [
        group.model,
        group.method,
        "" if group.k is None else str(group.k),
        str(group.n_pairs),
        f"{100 * group.base_rate:.1f}",
        f"{100 * group.new_rate:.1f}",
        f"{group.delta:+.1f}",
        str(group.b),
        str(group.c),
        f"{group.p_value:.4g}",
        verdict(group, max_drop, alpha),
        _detectable_cell(group, alpha),
    ]


def _detectable_cell(group: PairGroup, alpha: float) -> str:
    points = detectable_points(group, alpha)
    return "none" if points is None else f"{points:g}"


FLIPS_NAMED = 10
"""Flipped samples the terminal names per group and direction; it counts the rest."""


def _samples(keys: list[SampleKey], named: int | None = None) -> str:
    shown = keys if named is None else keys[:named]
    text = ", ".join(s.case + ("" if s.seed is None else f" (seed {s.seed})") for s in shown)
    return text + (f" and {len(keys) - len(shown)} more" if len(keys) > len(shown) else "")


def _flips(comparison: PairedComparison, named: int | None = None) -> list[str]:
    """One line per group and direction, its samples in natural order (``/10, /50, /100``);
    ``named``: how many to name before counting the rest (None: all)."""
    lines = []
    for g in comparison.groups:
        name = f"{g.model} · {g.method}" + ("" if g.k is None else f" k={g.k}")
        if g.regressed:
            lines.append(f"{name}: A pass → B fail ({g.b}): {_samples(g.regressed, named)}")
        if g.improved:
            lines.append(f"{name}: A fail → B pass ({g.c}): {_samples(g.improved, named)}")
    return lines


def _footer(comparison: PairedComparison) -> list[str]:
    parts = []
    if comparison.unpaired_base or comparison.unpaired_new:
        parts.append(
            f"Unpaired results: {comparison.unpaired_base} only in A, {comparison.unpaired_new} only in B."
        )
    if comparison.skipped:
        parts.append(
            f"Left out: {comparison.skipped} pairs where a model call failed (call_failed)."
        )
    return parts


def _rule(max_drop: float, alpha: float, metric: str = "completion") -> str:
    what = {
        "pass_all_seeds": "pass^S (cases passed at every seed)",
        "chain": "chain completion (chains with every turn completed)",
    }.get(metric, "completion rate")
    return (
        f"Regression: {what} down by more than {max_drop:g} points and paired exact "
        f"McNemar p < {alpha:g}. Detectable drop: the smallest drop, in points, that the row's "
        "pairs detect with 80% power at the share of pairs that flipped."
    )


def _summary_line(comparison: PairedComparison, max_drop: float, alpha: float) -> str:
    regressions = comparison.regressions(max_drop, alpha)
    if not regressions:
        return "No regression."
    names = ", ".join(
        f"{g.model} · {g.method}" + ("" if g.k is None else f" k={g.k}") for g in regressions
    )
    return f"{len(regressions)} regression{'s' if len(regressions) != 1 else ''}: {names}."


def render_markdown(
    comparison: PairedComparison,
    a_name: str,
    b_name: str,
    max_drop: float,
    alpha: float = DEFAULT_ALPHA,
    beyond: list[list[str]] | None = None,
    metric: str = "completion",
    notes: Sequence[str] = (),
    heading: str | None = None,
    why: list[list[str]] | None = None,
) -> str:
    """A pull-request comment: the table, the verdict, the ``notes`` (the templates that
    differ, the cases a drop needs), and the flipped samples folded away. ``heading``
    replaces the comparison's own title line."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    title = heading or f"### RevProp comparison: `{cell(a_name)}` (A) → `{cell(b_name)}` (B)"
    lines = [
        title,
        "",
        _rule(max_drop, alpha, metric),
        "",
        markdown_table(HEADER, [_cells(g, max_drop, alpha) for g in comparison.groups]),
        "",
        f"**{_summary_line(comparison, max_drop, alpha)}**",
        "",
    ]
    if notes:
        lines += [*(f"- {note}" for note in notes), ""]
    if why:
        lines += ["Why samples failed:", "", markdown_table(WHY_HEADER, why), ""]
    if beyond:
        lines += ["Beyond the paper:", "", markdown_table(BEYOND_HEADER, beyond), ""]
    flips = _flips(comparison)
    if flips:
        lines += [
            f"<details><summary>Samples that flipped ({sum(g.b + g.c for g in comparison.groups)})</summary>",
            "",
            *(f"- {cell(f)}" for f in flips),
            "",
            "</details>",
            "",
        ]
    lines += _footer(comparison)
    return "\n".join(lines).rstrip() + "\n"


def render_text(
    comparison: PairedComparison,
    a_name: str,
    b_name: str,
    max_drop: float,
    alpha: float = DEFAULT_ALPHA,
    beyond: list[list[str]] | None = None,
    metric: str = "completion",
    notes: Sequence[str] = (),
    why: list[list[str]] | None = None,
) -> str:
    """The same content as aligned plain text for a terminal; each group's flipped samples
    named up to ``FLIPS_NAMED``, the rest counted."""
    rows = [_cells(g, max_drop, alpha) for g in comparison.groups]
    lines = [
        f"A = {a_name}",
        f"B = {b_name}",
        _rule(max_drop, alpha, metric),
        "",
        text_table(HEADER, rows, rule=False, trim=True),
        "",
        _summary_line(comparison, max_drop, alpha),
        *notes,
    ]
    if why:
        lines += ["", "Why samples failed:", text_table(WHY_HEADER, why, rule=False, trim=True)]
    if beyond:
        lines += ["", "Beyond the paper:", text_table(BEYOND_HEADER, beyond, rule=False, trim=True)]
    flips = _flips(comparison, named=FLIPS_NAMED)
    if flips:
        lines += ["", "Samples that flipped:", *(f"  {f}" for f in flips)]
    footer = _footer(comparison)
    if footer:
        lines += ["", *footer]
    return "\n".join(lines) + "\n"


class Compared(NamedTuple):
    """What ``compare_files`` found: the comparison, the rows beyond the paper and the notes
    (the prompt templates that differ; with ``detect``, what a drop of that size needs)."""

    comparison: PairedComparison
    beyond: list[list[str]]
    notes: list[str]
    why: list[list[str]]


def compare_files(
    a: Path,
    b: Path,
    metric: str = "completion",
    *,
    detect: float | None = None,
    alpha: float = DEFAULT_ALPHA,
) -> Compared:
    """Run A's results file against run B's: the paired comparison per (model, method, k)
    (per case when ``metric`` is ``pass_all_seeds``), the rows of the figures beyond the
    paper and the notes. UserError when the two share no result to pair."""
    base, new = load_results(a), load_results(b)
    refuse_partial(base, a, "run A")
    check_protocols(base, new, f"run A ({a})", f"run B ({b})")
    protocol = protocol_of(base)
    if metric == "chain" and protocol == OFF:
        raise UserError(
            f"--metric chain compares chain completion, and {a} and {b} hold no chains "
            "(runs with --revprop-chain=teacher or free)"
        )
    comparison = pair_outcomes(base["results"], new["results"])
    if not comparison.groups:
        raise UserError(f"{a} and {b} share no (case, model, method, k, seed) results to pair")
    beyond = beyond_rows(comparison, base, new)
    why = why_rows(comparison, base, new)
    if metric == "pass_all_seeds":
        by_case = pair_outcomes(*per_case(base["results"], new["results"]))
        comparison = dataclasses.replace(comparison, groups=by_case.groups)
    notes = [prompts_note(base.get("meta") or {}, new.get("meta") or {})]
    if protocol != OFF:
        notes.insert(
            0,
            f"Protocol: A and B are both {protocol} chain runs; a sample is a chain, completed "
            "when every turn completed.",
        )
    if is_partial(new):
        notes.append(
            f"Run B ({b}) is partial: interrupted, it holds only the items that finished; "
            "the pairs cover those alone."
        )
    if detect is not None:
        samples = cases_and_seeds(new["results"])
        notes += detect_lines(comparison, detect, samples, alpha, metric)
    return Compared(comparison, beyond, notes, why)
