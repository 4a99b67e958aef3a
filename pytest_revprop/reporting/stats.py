"""Statistics for comparing runs: the exact McNemar test on paired samples, mean and std.

Pure Python (no numpy): the report tools and the CI baseline gate use it on plain result
records as written to ``results.json``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import INFRASTRUCTURE_ERRORS

__all__ = [
    "DEFAULT_ALPHA",
    "GroupKey",
    "PairGroup",
    "PairedComparison",
    "SampleKey",
    "mcnemar_exact",
    "mean_std",
    "pair_outcomes",
]

DEFAULT_ALPHA = 0.05
"""Significance level of the regression rule (delta < -max_drop AND p < alpha)."""

"""Result errors that say nothing about the model; a pair holding one is left out."""


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: the binomial test of min(b, c) in b + c trials at 1/2.

    ``b`` and ``c`` are the discordant pairs (base pass -> new fail, base fail -> new pass).
    p = min(1, 2 * P[X <= min(b, c)]), X ~ Binomial(b + c, 1/2); p = 1.0 when b + c == 0.
    Exact integer arithmetic, so large counts neither overflow nor lose precision.
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be >= 0, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    p_value: float = 2 * tail / 2**n
    return min(1.0, p_value)


def mean_std(values: Iterable[float]) -> tuple[float, float]:
    """Mean and SAMPLE standard deviation (ddof=1) of ``values``; std is 0.0 for one value.

    The sample std matches how the paper reports spread over its five seeded runs.
    Raises ValueError for no values (a mean of nothing is undefined).
    """
    items = [float(v) for v in values]
    if not items:
        raise ValueError("mean_std needs at least one value")
    mean = math.fsum(items) / len(items)
    if len(items) == 1:
        return mean, 0.0
    variance = math.fsum((v - mean) ** 2 for v in items) / (len(items) - 1)
    return mean, math.sqrt(variance)


class GroupKey(NamedTuple):
    """What a summary, comparison or gate groups results by: model, method and k."""

    model: str
    method: str
    k: int | None


class SampleKey(NamedTuple):
    """One sample within a group: the case and the run's base seed."""

    case: str
    seed: int | None


@dataclass(frozen=True)
class PairGroup:
    """Paired outcomes of one (model, method, k) in a base run and a new run."""

    model: str
    method: str
    k: int | None
    n_pairs: int
    base_rate: float
    new_rate: float
    b: int
    c: int
    p_value: float
    regressed: list[SampleKey] = field(default_factory=list)
    """Samples that completed in the base run and failed in the new one (the b pairs)."""
    improved: list[SampleKey] = field(default_factory=list)
    """Samples that failed in the base run and completed in the new one (the c pairs)."""

    @property
    def key(self) -> GroupKey:
        """The group's (model, method, k)."""
        return GroupKey(self.model, self.method, self.k)

    @property
    def delta(self) -> float:
        """Change of the completion rate, in percentage points (new - base)."""
        return (self.new_rate - self.base_rate) * 100.0

    def is_regression(self, max_drop: float, alpha: float = DEFAULT_ALPHA) -> bool:
        """The CI rule: the rate fell by more than ``max_drop`` points AND p < ``alpha``."""
        return self.delta < -max_drop and self.p_value < alpha

    def is_improvement(self, max_drop: float, alpha: float = DEFAULT_ALPHA) -> bool:
        """The mirror rule: the rate rose by more than ``max_drop`` points AND p < ``alpha``."""
        return self.delta > max_drop and self.p_value < alpha

    def to_dict(self) -> dict[str, Any]:
        """The group in builtin types (JSON-ready)."""
        return {
            "model": self.model,
            "method": self.method,
            "k": self.k,
            "n_pairs": self.n_pairs,
            "base_rate": self.base_rate,
            "new_rate": self.new_rate,
            "delta": self.delta,
            "b": self.b,
            "c": self.c,
            "p_value": self.p_value,
            "regressed": [list(s) for s in self.regressed],
            "improved": [list(s) for s in self.improved],
        }


@dataclass(frozen=True)
class PairedComparison:
    """Every (model, method, k) present in both runs, plus what could not be paired."""

    groups: list[PairGroup]
    unpaired_base: int = 0
    """Base results with no partner in the new run (and vice versa for unpaired_new)."""
    unpaired_new: int = 0
    skipped: int = 0
    """Pairs left out because either side failed for infrastructure reasons (call_failed)."""

    def regressions(self, max_drop: float, alpha: float = DEFAULT_ALPHA) -> list[PairGroup]:
        """The groups whose rate fell by more than ``max_drop``, significantly at ``alpha``."""
        return [g for g in self.groups if g.is_regression(max_drop, alpha)]

    def to_dict(self) -> dict[str, Any]:
        """The comparison in builtin types (JSON-ready)."""
        return {
            "groups": [g.to_dict() for g in self.groups],
            "unpaired_base": self.unpaired_base,
            "unpaired_new": self.unpaired_new,
            "skipped": self.skipped,
        }


_FullKey = tuple[str, str, str, int | None, int | None]


def _full_key(record: Mapping[str, Any], side: str) -> _FullKey:
    try:
        return (
            str(record["case"]),
            str(record["model"]),
            str(record["method"]),
            record.get("k"),
            record.get("seed"),
        )
    except (KeyError, TypeError, AttributeError):
        raise UserError(f"{side} results: a record lacks case/model/method") from None


def _index(results: Sequence[Mapping[str, Any]], side: str) -> dict[_FullKey, Mapping[str, Any]]:
    index: dict[_FullKey, Mapping[str, Any]] = {}
    for record in results:
        key = _full_key(record, side)
        if key in index:
            case, model, method, k, seed = key
            raise UserError(
                f"{side} results: duplicate result for case {case!r}, model {model!r}, "
                f"method {method!r}, k={k}, seed={seed}"
            )
        index[key] = record
    return index


def _sort_key(key: GroupKey | SampleKey) -> tuple[Any, ...]:
    """Groups and samples in natural order: text by its runs of digits as numbers
    (``cart/10``, ``cart/50``, ``cart/100``), None last."""
    return tuple(
        (value is None, natural_key(value) if isinstance(value, str) else value) for value in key
    )


def natural_key(text: str) -> tuple[tuple[int, Any], ...]:
    """``text`` as it sorts for a person: runs of digits compare as numbers."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part
    )


def pair_outcomes(
    base_results: Sequence[Mapping[str, Any]], new_results: Sequence[Mapping[str, Any]]
) -> PairedComparison:
    """Pair two runs' result records by (case, model, method, k, seed), per (model, method, k).

    A record's outcome is its ``completed`` flag. Pairs where either side has an
    infrastructure error (``call_failed``) are left out and counted in ``skipped``.
    Raises UserError for a record without case/model/method or a duplicated key.
    """
    base = _index(base_results, "base")
    new = _index(new_results, "new")
    outcomes: dict[GroupKey, list[tuple[SampleKey, bool, bool]]] = {}
    skipped = 0
    for key in base.keys() & new.keys():
        old_record, new_record = base[key], new[key]
        if {old_record.get("error"), new_record.get("error")} & INFRASTRUCTURE_ERRORS:
            skipped += 1
            continue
        case, model, method, k, seed = key
        outcomes.setdefault(GroupKey(model, method, k), []).append(
            (
                SampleKey(case, seed),
                bool(old_record.get("completed")),
                bool(new_record.get("completed")),
            )
        )
    groups = [
        _group(key, pairs)
        for key, pairs in sorted(outcomes.items(), key=lambda kv: _sort_key(kv[0]))
    ]
    return PairedComparison(
        groups=groups,
        unpaired_base=len(base.keys() - new.keys()),
        unpaired_new=len(new.keys() - base.keys()),
        skipped=skipped,
    )


def _group(key: GroupKey, pairs: list[tuple[SampleKey, bool, bool]]) -> PairGroup:
    pairs.sort(key=lambda p: _sort_key(p[0]))
    regressed = [s for s, old, new in pairs if old and not new]
    improved = [s for s, old, new in pairs if new and not old]
    n = len(pairs)
    return PairGroup(
        model=key.model,
        method=key.method,
        k=key.k,
        n_pairs=n,
        base_rate=sum(old for _, old, _ in pairs) / n,
        new_rate=sum(new for _, _, new in pairs) / n,
        b=len(regressed),
        c=len(improved),
        p_value=mcnemar_exact(len(regressed), len(improved)),
        regressed=regressed,
        improved=improved,
    )
