"""The baseline gate (``--revprop-baseline``): pair a run with a committed baseline and name
the regressions, the improvements and the groups it could not compare; and the baseline file
itself (``--revprop-update-baseline``).

A (model, method, k) regressed when its completion rate fell by more than ``max_drop``
points AND the paired exact McNemar p < 0.05; it improved under the mirror rule. Pairs where
a model call failed are left out (``stats.pair_outcomes``). ``revprop compare`` applies the
same rule through the same ``stats.PairGroup``.

With the metric ``pass_all_seeds`` (``--revprop-gate-metric``) the same rule applies to pass^S:
the (case, seed) pairs are made as above, then each case becomes one pair whose side passes
when it completed at every seed paired for that case (``per_case``); the rates are pass^S
over the paired cases and McNemar counts the cases that flipped.

With the metric ``chain`` (a chain run: ``--revprop-chain=teacher|free``) the rule applies to
chain completion: each sample is a chain, which completed when every turn did. A chain run is
gated only against a baseline of the same protocol (``chains.check_protocols``), whatever the
metric: a single-revision baseline, or teacher against free, is a usage error.

A gate that can compare nothing is a usage error, never a silent pass: a baseline that shares
no (model, method, k) with the run, or shares groups but no (case, seed) to pair. A pair left
out for a failed call is not that: the failed call already fails the run.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from pytest_revprop.core.prompts import changed_templates
from pytest_revprop.errors import UserError
from pytest_revprop.reporting.chains import OFF, check_protocols, protocol_of
from pytest_revprop.reporting.results import load_results, refuse_partial
from pytest_revprop.reporting.stats import GroupKey, PairedComparison, PairGroup, pair_outcomes
from pytest_revprop.vocabulary import (
    INFRASTRUCTURE_ERRORS,
    REGRESSION_EXIT,
    GateMetric,
)

__all__ = [
    "BASELINE_KEYS",
    "GateResult",
    "check_gate_protocol",
    "check_overlap",
    "check_pairs",
    "describe_groups",
    "gate",
    "gate_lines",
    "groups_of",
    "per_case",
    "prompts_note",
    "read_baseline",
    "read_comparable_baseline",
    "write_baseline",
]

BASELINE_KEYS = ("case", "model", "method", "k", "seed", "completed", "valid", "error")
"""What a baseline keeps of each result record: enough to pair and compare outcomes."""
LISTED_GROUPS = 8
"""Groups a message names before it says how many more there are."""


class GateResult(TypedDict):
    """The baseline gate's verdict: the paired comparison under ``metric``, the groups that
    regressed or improved, and the groups that could not be compared.
    """

    metric: GateMetric
    comparison: PairedComparison
    regressions: list[PairGroup]
    improvements: list[PairGroup]
    run_only: list[GroupKey]
    """The run's groups that the baseline does not hold."""
    baseline_only: list[GroupKey]
    """The baseline's groups that the run does not hold."""
    unpaired: list[GroupKey]
    """Groups both hold that paired no sample (other cases or seeds, or only failed calls)."""
    prompts: str | None
    """``prompts_note``: the prompt templates that differ from the baseline's (None: the
    run's meta was not given)."""
    detect: list[str]
    """With a drop to detect: per compared group, the cases and seeds it needs
    (``sight.detect_lines``)."""


def write_baseline(path: Path, doc: Mapping[str, Any]) -> None:
    """Write a baseline from a results document: its meta, summary and trimmed results."""
    baseline = {
        "meta": doc.get("meta", {}),
        "summary": doc["summary"],
        "results": [{k: r.get(k) for k in BASELINE_KEYS} for r in doc["results"]],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(baseline, indent=1) + "\n", encoding="utf-8")


def read_baseline(path: Path) -> dict[str, Any]:
    """A baseline (or any results.json) checked for what the gate needs: its results list."""
    return load_results(path, with_summary=False)


def check_gate_protocol(
    baseline: Mapping[str, Any], protocol: str, metric: str, name: str = "file"
) -> None:
    """UserError (one line) when the run's ``protocol`` (``off``, ``teacher``, ``free``)
    cannot be gated against ``baseline`` (its ``meta.chain``), or ``metric`` ``chain`` is
    asked of a run without chains."""
    if metric == "chain" and protocol == OFF:
        raise UserError(
            "--revprop-gate-metric=chain gates chain completion, and this run has no chains "
            "(run with --revprop-chain=teacher or --revprop-chain=free)"
        )
    check_protocols(
        baseline, {"meta": {"chain": {"protocol": protocol}}}, f"the baseline {name}", "this run"
    )


def run_protocol(
    run_meta: Mapping[str, Any] | None, records: Iterable[Mapping[str, Any]] = ()
) -> str:
    """The run's protocol: its ``meta.chain`` when the meta is given, else the first record's
    ``chain`` (``off`` for none)."""
    if run_meta is not None:
        return protocol_of({"meta": run_meta})
    for record in records:
        return str(record.get("chain") or OFF)
    return OFF


def read_comparable_baseline(
    path: Path,
    run_groups: Sequence[GroupKey],
    planned: Sequence[Mapping[str, Any]] | None = None,
    *,
    protocol: str | None = None,
    metric: str = "completion",
) -> dict[str, Any]:
    """The baseline at ``path``, read before any item runs; UserError (a usage error) when it
    cannot be read, shares no (model, method, k) with ``run_groups``, the run's items, or
    (given ``planned``, the run's items as records of case, model, method, k and seed) no
    (case, seed) within the groups both hold: such a gate could pair nothing; and, given the
    run's ``protocol``, when the baseline ran another or ``metric`` cannot gate it
    (``check_gate_protocol``)."""
    baseline = read_baseline(path)
    refuse_partial(baseline, path, "a baseline")
    if protocol is not None:
        check_gate_protocol(baseline, protocol, metric, str(path))
    check_overlap(str(path), groups_of(baseline["results"]), run_groups)
    if planned is not None:
        check_pairs(str(path), baseline["results"], planned)
    return baseline


def _sample_keys(records: Iterable[Mapping[str, Any]]) -> set[tuple[Any, ...]]:
    return {
        (r.get("case"), str(r.get("model")), str(r.get("method")), r.get("k"), r.get("seed"))
        for r in records
    }


def check_pairs(
    name: str, baseline_results: Sequence[Mapping[str, Any]], run: Sequence[Mapping[str, Any]]
) -> None:
    """Raise UserError when the baseline ``name`` and the run's records (or planned items)
    hold no sample of the same (case, model, method, k, seed): the gate would pair nothing.
    The message says why: the seeds, or the cases, of the groups both hold differ."""
    if _sample_keys(baseline_results) & _sample_keys(run):
        return
    in_run = set(groups_of(run))
    shared = [g for g in groups_of(baseline_results) if g in in_run]

    def within(records: Iterable[Mapping[str, Any]], field: str) -> list[Any]:
        keys = set(shared)
        found = {
            r.get(field)
            for r in records
            if GroupKey(str(r.get("model")), str(r.get("method")), r.get("k")) in keys
        }
        return sorted(found, key=repr)

    base_seeds, run_seeds = within(baseline_results, "seed"), within(run, "seed")
    base_cases, run_cases = within(baseline_results, "case"), within(run, "case")
    if not set(base_seeds) & set(run_seeds):
        why = (
            f"the baseline has seeds {_listed(base_seeds)} and this run seeds "
            f"{_listed(run_seeds)} (pass --revprop-seeds={_listed(base_seeds, ',')})"
        )
    elif not set(base_cases) & set(run_cases):
        why = (
            f"the baseline's {len(base_cases)} cases and this run's {len(run_cases)} are "
            f"different cases (this run: {_listed(run_cases)})"
        )
    else:
        why = "no (case, seed) in common"
    raise UserError(
        f"the baseline {name} pairs no sample with this run: both hold "
        f"{describe_groups(shared)}, but {why}"
    )


def _listed(values: Sequence[Any], sep: str = ", ") -> str:
    shown = [str(v) for v in values[:LISTED_GROUPS]]
    more = len(values) - LISTED_GROUPS
    return sep.join(shown) + (f" and {more} more" if more > 0 and sep == ", " else "")


def groups_of(results: Iterable[Mapping[str, Any]]) -> list[GroupKey]:
    """The distinct (model, method, k) of result records, sorted."""
    keys = {GroupKey(str(r.get("model")), str(r.get("method")), r.get("k")) for r in results}
    return sorted(keys, key=lambda g: (g.model, g.method, g.k is None, g.k or 0))


def describe_groups(groups: Sequence[GroupKey]) -> str:
    """``gold j+h k1, gold med k5`` (the first ``LISTED_GROUPS``, then how many more)."""
    if not groups:
        return "nothing"
    names = [f"{g.model} {g.method}" + ("" if g.k is None else f" k{g.k}") for g in groups]
    more = len(names) - LISTED_GROUPS
    return ", ".join(names[:LISTED_GROUPS]) + (f" and {more} more" if more > 0 else "")


def check_overlap(
    name: str, baseline_groups: Sequence[GroupKey], run_groups: Sequence[GroupKey]
) -> None:
    """Raise UserError, naming both sides, when the baseline ``name`` and the run share no
    (model, method, k): such a gate would compare nothing."""
    if not set(baseline_groups) & set(run_groups):
        raise UserError(
            f"the baseline {name} shares no (model, method, k) with this run: the baseline "
            f"holds {describe_groups(baseline_groups)}; this run holds {describe_groups(run_groups)}"
        )


def gate(
    baseline: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    max_drop: float,
    *,
    name: str = "file",
    metric: GateMetric = "completion",
    run_meta: Mapping[str, Any] | None = None,
    detect: float | None = None,
) -> GateResult:
    """Compare ``records`` with the baseline's results: the paired comparison, its
    regressions and improvements (each group holding the samples, or under ``pass_all_seeds``
    the cases, that flipped), the groups not compared, given the run's ``run_meta`` the prompt
    templates that differ from the baseline's, and given ``detect`` (points) the cases and
    seeds a drop of that size needs. Raises UserError, naming the baseline ``name``, when
    nothing can be compared, or the run (``run_meta``, else its records' ``chain``) and the
    baseline ran different protocols (``check_gate_protocol``)."""
    check_gate_protocol(baseline, run_protocol(run_meta, records), metric, name)
    base_groups, run_groups = groups_of(baseline["results"]), groups_of(records)
    check_overlap(name, base_groups, run_groups)
    comparison = pair_outcomes(baseline["results"], list(records))
    in_base, in_run = set(base_groups), set(run_groups)
    if not comparison.groups and not comparison.skipped:
        check_pairs(name, baseline["results"], records)
        raise UserError(f"the baseline {name} pairs no sample with this run")
    if metric == "pass_all_seeds":
        by_case = pair_outcomes(*per_case(baseline["results"], records))
        comparison = dataclasses.replace(comparison, groups=by_case.groups)
    compared = {g.key for g in comparison.groups}
    return {
        "metric": metric,
        "comparison": comparison,
        "regressions": comparison.regressions(max_drop),
        "improvements": [g for g in comparison.groups if g.is_improvement(max_drop)],
        "run_only": [g for g in run_groups if g not in in_base],
        "baseline_only": [g for g in base_groups if g not in in_run],
        "unpaired": [g for g in run_groups if g in in_base and g not in compared],
        "prompts": None if run_meta is None else prompts_note(baseline.get("meta") or {}, run_meta),
        "detect": [] if detect is None else _detect(comparison, detect, records, metric),
    }


def _detect(
    comparison: PairedComparison, points: float, records: Sequence[Mapping[str, Any]], metric: str
) -> list[str]:
    from pytest_revprop.reporting.sight import cases_and_seeds, detect_lines

    return detect_lines(comparison, points, cases_and_seeds(records), metric=metric)


def prompts_note(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """One sentence on the prompt templates of two runs (their ``meta``): which differ, with
    each side's source (``shipped`` or ``override``), or that they are the same, or that a run
    does not record them."""
    a, b = before.get("prompts"), after.get("prompts")
    changed = changed_templates(a, b)
    if changed is None:
        which = (
            "neither run records"
            if not a and not b
            else ("A does not record" if not a else "B does not record")
        )
        return f"Prompt templates: {which} its templates, so which differ is unknown."
    if not changed:
        return "Prompt templates: the same in both runs."

    def source(prints: Mapping[str, Any], name: str) -> str:
        entry = prints.get(name)
        return str(entry.get("source", "?")) if isinstance(entry, Mapping) else "absent"

    assert isinstance(a, Mapping) and isinstance(b, Mapping)
    names = ", ".join(f"{n}.md (A {source(a, n)}, B {source(b, n)})" for n in changed)
    return f"Prompt templates that differ: {names}."


def per_case(
    base: Iterable[Mapping[str, Any]], new: Iterable[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The two runs' outcomes per case: for each (case, model, method, k) with a (case, seed)
    pair in both runs (neither side's call failed), one record per side (seed None) that
    completed when every paired seed of that side completed. Those are what pass^S compares."""

    def index(records: Iterable[Mapping[str, Any]]) -> dict[tuple[Any, ...], Mapping[str, Any]]:
        return {
            (r.get("case"), r.get("model"), r.get("method"), r.get("k"), r.get("seed")): r
            for r in records
        }

    old, now = index(base), index(new)
    cases: dict[tuple[Any, ...], list[bool]] = {}
    for key in sorted(old.keys() & now.keys(), key=repr):
        if {old[key].get("error"), now[key].get("error")} & INFRASTRUCTURE_ERRORS:
            continue
        sides = cases.setdefault(key[:4], [True, True])
        sides[0] = sides[0] and bool(old[key].get("completed"))
        sides[1] = sides[1] and bool(now[key].get("completed"))
    out: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])
    for (case, model, method, k), sides in cases.items():
        for side, passed in zip(out, sides, strict=True):
            side.append(
                {"case": case, "model": model, "method": method, "k": k, "seed": None,
                 "completed": passed}
            )  # fmt: skip
    return out


def gate_lines(result: GateResult, flipped_listed: int = 10) -> list[str]:
    """The terminal's gate section: per compared group its verdict (``REGRESSION``,
    ``improvement``, ``no significant change``, ...: ``sight.verdict``), the rates, the change,
    the flips and p; under a regression or an improvement the first ``flipped_listed`` flipped
    samples, under any other verdict the smallest drop the group's pairs could detect
    (``sight.sight_line``). Then one line per kind of group not compared, and the prompt
    templates that differ from the baseline's."""
    from pytest_revprop.reporting.sight import sight_line, verdict

    lines = []
    by_case = result.get("metric", "completion") == "pass_all_seeds"
    label = {"pass_all_seeds": "pass^S ", "chain": "chains "}.get(result.get("metric", ""), "")
    for group in result["comparison"].groups:
        if group in result["regressions"]:
            tag = "REGRESSION"
        elif group in result["improvements"]:
            tag = "improvement"
        else:
            tag = verdict(group, max_drop=math.inf)
        lines.append(
            f"{tag:<10} {group.model} {group.method} k{group.k}: "
            f"{label}{100 * group.base_rate:.1f}% -> {100 * group.new_rate:.1f}% "
            f"({group.delta:+.1f} pts, flips {group.b} down / {group.c} up, p={group.p_value:.3g})"
        )
        if tag in ("REGRESSION", "improvement"):
            flipped = group.regressed if tag == "REGRESSION" else group.improved
            lines += [
                f"    {sample.case} "
                + ("at every seed" if sample.seed is None else f"seed {sample.seed}")
                for sample in flipped[:flipped_listed]
            ]
            if len(flipped) > flipped_listed:
                lines.append(f"    and {len(flipped) - flipped_listed} more")
        else:
            lines.append("    " + sight_line(group, unit="case" if by_case else "pair"))
    for groups, why in (
        (result["run_only"], "only in this run"),
        (result["baseline_only"], "only in the baseline"),
        (result["unpaired"], "no pair of the same case and seed without a failed call"),
    ):
        if groups:
            lines.append(f"not compared ({why}): {describe_groups(groups)}")
    if result.get("prompts"):
        lines.append(str(result["prompts"]))
    return lines + list(result.get("detect", []))


def gate_section(
    result: GateResult | None, error: str | None, max_drop: float
) -> list[tuple[str, dict[str, bool]]]:
    """The terminal's gate section: each line with its markup (``red`` for what fails)."""
    if error is not None:
        return [(f"revprop: {error}", {"red": True})]
    assert result is not None
    lines: list[tuple[str, dict[str, bool]]] = [(line, {}) for line in gate_lines(result)]
    if result["regressions"]:
        what = {"pass_all_seeds": " of pass^S", "chain": " of chain completion"}.get(
            result.get("metric", "completion"), ""
        )
        lines.append(
            (
                f"revprop: regression{what} beyond {max_drop} points with p < 0.05: "
                f"exit status {REGRESSION_EXIT}",
                {"red": True},
            )
        )
    return lines
