"""Each method relative to j+h, the single-call reference: the one place for that arithmetic.

gain = 100 * (completion - completion_j+h), in points; multiple = value / value_j+h (cost or
latency); effectiveness = gain / (multiple - 1), the points gained per extra j+h's worth of
cost or latency. A multiple is unknown when either value is unknown or the j+h value is not
positive; a gain is unknown when either rate is (a group whose every item errored has none);
effectiveness is unknown unless the gain is known and the multiple known and above 1. The terminal
summary, summary.md and report.md all take their relative figures from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_revprop.reporting.stats import GroupKey

__all__ = [
    "REFERENCE_METHOD",
    "Measures",
    "Relative",
    "effectiveness",
    "multiple",
    "relative_to",
    "relative_to_jh",
]

REFERENCE_METHOD = "j+h"


@dataclass(frozen=True)
class Measures:
    """What is compared with j+h: the completion rate (0 to 1), cost and latency (None: unknown)."""

    completion_rate: float | None
    cost_usd: float | None
    latency_s: float | None


def multiple(value: float | None, reference: float | None) -> float | None:
    """``value / reference``; None when either is unknown or ``reference`` is not positive."""
    if value is None or reference is None or not reference > 0:
        return None
    return value / reference


def effectiveness(gain_points: float | None, times: float | None) -> float | None:
    """``gain_points / (times - 1)``; None unless the gain is known and the multiple ``times``
    known and above 1."""
    if gain_points is None or times is None or not times > 1:
        return None
    return gain_points / (times - 1)


@dataclass(frozen=True)
class Relative:
    """One method's measures relative to j+h's."""

    gain_points: float | None
    cost_multiple: float | None
    latency_multiple: float | None

    @property
    def cost_effectiveness(self) -> float | None:
        """Gain points per extra multiple of the baseline's cost (None when not defined)."""
        return effectiveness(self.gain_points, self.cost_multiple)

    @property
    def latency_effectiveness(self) -> float | None:
        """Gain points per extra multiple of the baseline's latency (None when not defined)."""
        return effectiveness(self.gain_points, self.latency_multiple)


def relative_to(measures: Measures, reference: Measures) -> Relative:
    """``measures`` relative to ``reference`` (j+h's)."""
    rate, reference_rate = measures.completion_rate, reference.completion_rate
    return Relative(
        gain_points=None
        if rate is None or reference_rate is None
        else 100 * (rate - reference_rate),
        cost_multiple=multiple(measures.cost_usd, reference.cost_usd),
        latency_multiple=multiple(measures.latency_s, reference.latency_s),
    )


def _summary_measures(row: Mapping[str, Any]) -> Measures:
    return Measures(row["completion_rate"], row["cost_usd"], row["latency_s"])


def relative_to_jh(summary: Sequence[Mapping[str, Any]]) -> list[tuple[GroupKey, Relative]]:
    """Every summary row but j+h's, relative to its model's j+h row (rows of a model without
    one are left out). Summary rows hold the total cost and the mean latency per item."""
    reference = {r["model"]: r for r in summary if r["method"] == REFERENCE_METHOD}
    return [
        (
            GroupKey(row["model"], row["method"], row["k"]),
            relative_to(_summary_measures(row), _summary_measures(reference[row["model"]])),
        )
        for row in summary
        if row["model"] in reference and row["method"] != REFERENCE_METHOD
    ]
