"""What a comparison could see, in words: the smallest drop a group's pairs detect, and how
many cases and seeds a drop of a given size needs (docs/protocol.md, "What the gate can see").

The figures are ``power``'s, for the gate's own test (two-sided exact McNemar at the gate's
alpha) at ``DEFAULT_POWER`` (80%). After a comparison the discordance is the observed one (the
share of pairs that flipped either way); before a run none is observed, so the plan (``run.estimate.gate_sight_lines``)
assumes that no sample improves, which gives the fewest pairs any drop of that size can need.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_revprop.reporting.power import DEFAULT_POWER, MAX_PAIRS, detectable_drop, pairs_needed
from pytest_revprop.reporting.stats import DEFAULT_ALPHA, PairedComparison, PairGroup

__all__ = [
    "DetectNeed",
    "cases_and_seeds",
    "counted",
    "detect_lines",
    "detect_need",
    "detectable_points",
    "observed_discordance",
    "sight_line",
    "verdict",
]

NO_SIGNIFICANT_CHANGE = "no significant change"
"""The verdict of a group whose change is not significant, in every place that prints one."""


def verdict(group: PairGroup, max_drop: float, alpha: float = DEFAULT_ALPHA) -> str:
    """``regression``, ``improvement``, ``significant, within max-drop`` (p < alpha but the
    change is no larger than ``max_drop`` points) or ``no significant change``."""
    if group.is_regression(max_drop, alpha):
        return "regression"
    if group.is_improvement(max_drop, alpha):
        return "improvement"
    if group.p_value < alpha:
        return "significant, within max-drop"
    return NO_SIGNIFICANT_CHANGE


def counted(n: int, noun: str) -> str:
    """``1 seed``, ``3 seeds``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def observed_discordance(group: PairGroup) -> float:
    """The share of the group's pairs that flipped either way (0.0 for no pair)."""
    return (group.b + group.c) / group.n_pairs if group.n_pairs else 0.0


def detectable_points(group: PairGroup, alpha: float = DEFAULT_ALPHA) -> float | None:
    """The smallest drop, in points, that the group's pairs detect with 80% power at the
    observed discordance; None when not even a fall from 100% to 0% would be."""
    if group.n_pairs == 0:
        return None
    drop = detectable_drop(group.n_pairs, alpha, discordance=observed_discordance(group))
    return None if drop is None else round(100 * drop, 1)


def _power_words(alpha: float) -> str:
    return f"{100 * DEFAULT_POWER:.0f}% power, exact McNemar at alpha {alpha:g}"


def sight_line(group: PairGroup, alpha: float = DEFAULT_ALPHA, unit: str = "pair") -> str:
    """One line on what the group's comparison could see: ``30 pairs detect a drop of 35
    points or more (80% power, ...; 47% of them flipped)``. ``unit`` names a pair (``case``
    under pass^S)."""
    points = detectable_points(group, alpha)
    pairs = counted(group.n_pairs, unit)
    flipped = f"{100 * observed_discordance(group):.0f}% of them flipped"
    if points is None:
        return f"{pairs} cannot detect even a 100-point drop ({_power_words(alpha)}; {flipped})"
    verb = "detects" if group.n_pairs == 1 else "detect"
    return f"{pairs} {verb} a drop of {points:g} points or more ({_power_words(alpha)}; {flipped})"


@dataclass(frozen=True)
class DetectNeed:
    """What detecting a drop of ``points`` takes: ``pairs`` per (model, method, k) (None past
    ``power.MAX_PAIRS``); with ``cases`` cases that is ``seeds_for_cases`` seeds, and with
    ``seeds`` seeds ``cases_for_seeds`` cases."""

    points: float
    pairs: int | None
    cases: int
    seeds: int
    seeds_for_cases: int | None
    cases_for_seeds: int | None

    def words(self, assumption: str) -> str:
        """The answer as one sentence; ``assumption`` says which discordance it assumed."""
        if self.pairs is None:
            return (
                f"a {self.points:g}-point drop needs more than {MAX_PAIRS} pairs per "
                f"(model, method, k) ({assumption})"
            )
        return (
            f"a {self.points:g}-point drop needs {self.pairs} pairs per (model, method, k) "
            f"({assumption}): with {counted(self.cases, 'case')}, "
            f"{counted(self.seeds_for_cases or 0, 'seed')}; with {counted(self.seeds, 'seed')}, "
            f"{counted(self.cases_for_seeds or 0, 'case')}"
        )


def detect_need(
    points: float,
    cases: int,
    seeds: int,
    alpha: float = DEFAULT_ALPHA,
    discordance: float | None = None,
) -> DetectNeed:
    """What detecting a ``points`` drop with 80% power takes, in cases and seeds
    (``cases`` and ``seeds`` are the run's; ``discordance`` as ``power.pairs_needed``)."""
    pairs = pairs_needed(points / 100, alpha, discordance=discordance)
    return DetectNeed(
        points=points,
        pairs=pairs,
        cases=cases,
        seeds=seeds,
        seeds_for_cases=None if pairs is None else math.ceil(pairs / max(cases, 1)),
        cases_for_seeds=None if pairs is None else math.ceil(pairs / max(seeds, 1)),
    )


def detect_lines(
    comparison: PairedComparison,
    points: float,
    samples: Mapping[tuple[str, str, int | None], tuple[int, int]],
    alpha: float = DEFAULT_ALPHA,
    metric: str = "completion",
) -> list[str]:
    """Per compared group, what detecting a ``points`` drop with 80% power takes at the
    group's observed discordance, in cases and seeds (``samples``: each group's distinct
    cases and seeds in B)."""
    lines = []
    for g in comparison.groups:
        cases, seeds = samples.get((g.model, g.method, g.k), (g.n_pairs, 1))
        if metric == "pass_all_seeds":
            cases, seeds = g.n_pairs, 1
        need = detect_need(points, cases, seeds, alpha, discordance=observed_discordance(g))
        name = f"{g.model} · {g.method}" + ("" if g.k is None else f" k={g.k}")
        assumption = f"at the {100 * observed_discordance(g):.0f}% of pairs that flipped here"
        lines.append(f"Detect: {name}: {need.words(assumption)}; this comparison has {g.n_pairs}.")
    return lines


def cases_and_seeds(
    records: Iterable[Mapping[str, Any]],
) -> dict[tuple[str, str, int | None], tuple[int, int]]:
    """Per (model, method, k) of ``records``, how many distinct cases and seeds they hold."""
    cases: dict[tuple[str, str, int | None], set[Any]] = {}
    seeds: dict[tuple[str, str, int | None], set[Any]] = {}
    for r in records:
        key = (str(r.get("model")), str(r.get("method")), r.get("k"))
        cases.setdefault(key, set()).add(r.get("case"))
        seeds.setdefault(key, set()).add(r.get("seed"))
    return {key: (len(cases[key]), len(seeds[key])) for key in cases}
