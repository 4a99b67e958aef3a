"""Robustness to fresh instances: how a (model, method, k) does on the shipped case of a
scenario against its fresh instances (``--revprop-instances``, ids ``<scenario>/<size>@<seed>``).

Only the scenarios with fresh instances in the results are compared, so that both sides hold
the same scenarios and sizes. Per (model, method, k): completion on the shipped cases and on
the fresh ones, each with a 95% bootstrap interval over cases (``metrics.completion_ci95``);
the spread across instances (each instance seed's completion, the shipped case counting as
one more instance: lowest, highest and their standard deviation); and the fragile scenarios,
completed at every sample of the shipped case but at fewer than half of the fresh samples.
Per scenario, the same two completions side by side. A result whose call or method failed
is left out, as it is of the completion rate.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.cases import instance_seed
from pytest_revprop.reporting.metrics import completion_ci95
from pytest_revprop.reporting.tables import NO_RATE, Table
from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS

__all__ = ["robustness_rows", "robustness_tables"]

SHIPPED = "shipped"
"""The instance label of a shipped case."""

GroupKey = tuple[str, str, Any]


@dataclass
class _Tally:
    """One (model, method, k): per instance label, per scenario, per case [completed, scored]."""

    cases: dict[str, dict[str, dict[str, list[int]]]] = field(default_factory=dict)

    def add(self, label: str, scenario: str, case: str, completed: bool) -> None:
        by_scenario = self.cases.setdefault(label, {}).setdefault(scenario, {})
        tally = by_scenario.setdefault(case, [0, 0])
        tally[0] += completed
        tally[1] += 1

    def per_case(self, labels: Iterable[str], scenario: str | None = None) -> list[list[int]]:
        return [
            counts
            for label in labels
            for name, cases in self.cases.get(label, {}).items()
            if scenario is None or name == scenario
            for counts in cases.values()
        ]


def _scenario(case_id: str) -> str:
    return case_id.split("/", 1)[0]


def _rate(per_case: Sequence[Sequence[int]]) -> float | None:
    scored = sum(s for _, s in per_case)
    return sum(d for d, _ in per_case) / scored if scored else None


def _tallies(records: Iterable[Mapping[str, Any]]) -> dict[GroupKey, _Tally]:
    """The records of the scenarios with fresh instances, tallied per (model, method, k)."""
    kept = [r for r in records if r.get("error") not in INFRASTRUCTURE_ERRORS]
    fresh = {_scenario(str(r["case"])) for r in kept if instance_seed(str(r["case"])) is not None}
    tallies: dict[GroupKey, _Tally] = {}
    for record in kept:
        case = str(record["case"])
        if _scenario(case) not in fresh:
            continue
        seed = instance_seed(case)
        key = (str(record["model"]), str(record["method"]), record.get("k"))
        tallies.setdefault(key, _Tally()).add(
            SHIPPED if seed is None else str(seed),
            _scenario(case),
            case,
            bool(record.get("completed")),
        )
    return tallies


def robustness_rows(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (model, method, k) with fresh instances: ``shipped`` and ``fresh``
    completion with their ``*_ci95``, the ``instances`` (seeds), the per-instance completion
    (``by_instance``, the shipped case as ``shipped``), its ``spread_std``, the
    ``fragile`` scenarios, and ``by_scenario`` (per scenario: ``shipped``, ``fresh`` with its
    ``fresh_ci95``, and its own ``by_instance``). Empty when the records hold no fresh instance."""
    rows = []
    for key, tally in sorted(_tallies(records).items(), key=lambda kv: str(kv[0])):
        seeds = sorted((label for label in tally.cases if label != SHIPPED), key=int)
        by_instance = {
            label: _rate(tally.per_case([label]))
            for label in [SHIPPED, *seeds]
            if label in tally.cases
        }
        rates = [r for r in by_instance.values() if r is not None]
        scenarios = sorted({name for label in tally.cases for name in tally.cases[label]})
        fragile = []
        for name in scenarios:
            shipped = tally.per_case([SHIPPED], name)
            fresh_rate = _rate(tally.per_case(seeds, name))
            done = bool(shipped) and all(d == s for d, s in shipped)
            if done and fresh_rate is not None and fresh_rate < 0.5:
                fragile.append(name)
        rows.append(
            {
                "model": key[0],
                "method": key[1],
                "k": key[2],
                "shipped": _rate(tally.per_case([SHIPPED])),
                "shipped_ci95": completion_ci95(tally.per_case([SHIPPED])),
                "fresh": _rate(tally.per_case(seeds)),
                "fresh_ci95": completion_ci95(tally.per_case(seeds)),
                "instances": [int(s) for s in seeds],
                "by_instance": by_instance,
                "spread_std": statistics.pstdev(rates) if len(rates) > 1 else None,
                "fragile": fragile,
                "by_scenario": {
                    name: {
                        "shipped": _rate(tally.per_case([SHIPPED], name)),
                        "fresh": _rate(tally.per_case(seeds, name)),
                        "fresh_ci95": completion_ci95(tally.per_case(seeds, name)),
                        "by_instance": {
                            label: _rate(tally.per_case([label], name))
                            for label in [SHIPPED, *seeds]
                            if tally.per_case([label], name)
                        },
                    }
                    for name in scenarios
                },
            }
        )
    return rows


def _pct(rate: float | None) -> str:
    return NO_RATE if rate is None else f"{100 * rate:.1f}"


def _interval(ci: Sequence[float] | None) -> str:
    return NO_RATE if not ci else f"{100 * ci[0]:.1f}-{100 * ci[1]:.1f}"


def _span(rates: Iterable[float | None]) -> str:
    """Lowest and highest of per-instance completions, as ``low-high`` in percent."""
    known = [r for r in rates if r is not None]
    return f"{_pct(min(known))}-{_pct(max(known))}" if known else NO_RATE


POOLED = "Pooled with runs made with other fresh instances, as the notes name them."
"""The lead of the overall table's note when its records pool several runs."""


def robustness_tables(records: Iterable[Mapping[str, Any]], *, pooled: bool = False) -> list[Table]:
    """The report's robustness tables (none without fresh instances): per (model, method, k),
    then per scenario; ``pooled``: the records pool several runs (``reporting.pooled``)."""
    rows = robustness_rows(records)
    if not rows:
        return []
    overall = []
    for row in rows:
        rates = row["by_instance"].values()
        overall.append(
            [
                row["model"],
                row["method"],
                str(row["k"]),
                _pct(row["shipped"]),
                _interval(row["shipped_ci95"]),
                _pct(row["fresh"]),
                _interval(row["fresh_ci95"]),
                ",".join(map(str, row["instances"])),
                _span(rates),
                NO_RATE if row["spread_std"] is None else f"{100 * row['spread_std']:.1f}",
                ", ".join(row["fragile"]) or "none",
            ]
        )
    by_scenario = [
        [
            row["model"],
            row["method"],
            str(row["k"]),
            name,
            _pct(figures["shipped"]),
            _pct(figures["fresh"]),
            _interval(figures["fresh_ci95"]),
            _span(figures["by_instance"].values()),
        ]
        for row in rows
        for name, figures in row["by_scenario"].items()
    ]
    return [
        Table(
            "Robustness: shipped cases against fresh instances",
            [
                "model",
                "method",
                "k",
                "shipped %",
                "95% CI",
                "fresh %",
                "95% CI",
                "seeds",
                "per instance %",
                "std",
                "fragile scenarios",
            ],
            overall,
            note=(f"{POOLED} " if pooled else "")
            + "Only scenarios with fresh instances (--revprop-instances). shipped % / fresh %: "
            "completion on the shipped cases and on the fresh instances of the same scenarios and "
            "sizes, 95% bootstrap intervals over cases; per instance %: lowest and highest "
            "completion of one instance seed (the shipped cases counting as one), std: their "
            "standard deviation in points; fragile: completed at every sample of the shipped case "
            "but at fewer than half of the fresh ones.",
            anchor="robustness",
        ),
        Table(
            "Robustness by scenario",
            [
                "model",
                "method",
                "k",
                "scenario",
                "shipped %",
                "fresh %",
                "fresh 95% CI",
                "per instance %",
            ],
            by_scenario,
            note="per instance %: the scenario's lowest and highest completion of one instance "
            "seed, its shipped cases counting as one.",
            anchor="robustness-by-scenario",
        ),
    ]
