"""What a paired comparison can see: the power of the gate's exact McNemar test.

A gate that says "no significant change" is only informative when it could have seen a drop of
the size that matters. These functions answer that for the test the gate uses
(``stats.mcnemar_exact``, two-sided, at the gate's alpha):

- ``drop_power``: the chance that ``pairs`` paired samples show a significant drop when the
  completion rate truly falls by ``drop`` (a fraction, 0.10 = ten points);
- ``detectable_drop``: the smallest drop detected with at least the given power;
- ``pairs_needed``: how many pairs detect a given drop with that power.

The model of a pair: each (case, seed) sample flips from pass to fail with probability
``p10`` and from fail to pass with ``p01``, independently; the drop is ``p10 - p01`` and the
discordance (the share of samples that flip either way) is ``p10 + p01``. Discordance is not
known before a run; the callers say which they assume (the observed one, or the drop itself:
no sample improves, the fewest pairs any drop of that size can need). docs/protocol.md
("What the gate can see") gives a worked example.
"""

from __future__ import annotations

import math
from functools import lru_cache

DEFAULT_POWER = 0.80
"""The power a detectable drop is quoted at."""
MAX_PAIRS = 20_000
"""``pairs_needed`` looks no further than this many pairs."""


@lru_cache(maxsize=4096)
def _critical_improvements(discordant: int, alpha: float) -> int:
    """The most improvements (fail -> pass flips) among ``discordant`` flips for which the
    exact McNemar test still calls the drop significant (p < alpha); -1 when none does.

    p = min(1, 2 * P[X <= c]) with X ~ Binomial(discordant, 1/2) for ``c`` improvements
    below half, so the rejection region is ``c <= k`` for the largest such ``k``."""
    tail = 0
    term = 1  # comb(discordant, c), updated exactly from one c to the next
    total = 2**discordant
    k = -1
    for c in range((discordant - 1) // 2 + 1):
        tail += term
        if 2 * tail / total < alpha:
            k = c
        else:
            break
        term = term * (discordant - c) // (c + 1)
    return k


def _binomial_cdf(k: int, n: int, p: float) -> float:
    """P[X <= k] for X ~ Binomial(n, p), in floating point: the terms from the one at ``k``
    outwards (each from the last by their ratio) until they no longer count, summing the
    lower tail below the mode and one minus the upper tail above it."""
    if k < 0:
        return 0.0
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    odds = p / (1.0 - p)
    if k < (n + 1) * p:  # below the mode: the terms fall going down from k
        term, total, i = _binomial_pmf(k, n, p), 0.0, k
        while i >= 0 and term > 0.0:
            total += term
            if term < total * 1e-17:
                break
            term *= i / (n - i + 1) / odds
            i -= 1
        return min(1.0, total)
    term, upper, i = _binomial_pmf(k + 1, n, p), 0.0, k + 1
    while i <= n and term > 0.0:
        upper += term
        if term < upper * 1e-17:
            break
        term *= (n - i) / (i + 1) * odds
        i += 1
    return max(0.0, 1.0 - upper)


def _binomial_pmf(m: int, n: int, p: float) -> float:
    if p <= 0.0:
        return 1.0 if m == 0 else 0.0
    if p >= 1.0:
        return 1.0 if m == n else 0.0
    return math.exp(
        math.lgamma(n + 1)
        - math.lgamma(m + 1)
        - math.lgamma(n - m + 1)
        + m * math.log(p)
        + (n - m) * math.log1p(-p)
    )


def drop_power(pairs: int, drop: float, discordance: float, alpha: float) -> float:
    """The probability that ``pairs`` paired samples give a significant drop (more pass -> fail
    flips than fail -> pass, exact McNemar p < ``alpha``) when the rate truly falls by ``drop``
    and a share ``discordance`` of the samples flips either way.

    Raises ValueError unless 0 <= drop <= discordance <= 1 and 0 < alpha < 1."""
    if not 0.0 <= drop <= discordance <= 1.0:
        raise ValueError(f"need 0 <= drop <= discordance <= 1, got {drop} and {discordance}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if pairs <= 0 or discordance == 0.0:
        return 0.0
    improve_share = (discordance - drop) / 2 / discordance
    power = 0.0
    for discordant in range(1, pairs + 1):
        weight = _binomial_pmf(discordant, pairs, discordance)
        if weight < 1e-15:
            continue
        k = _critical_improvements(discordant, alpha)
        if k >= 0:
            power += weight * _binomial_cdf(k, discordant, improve_share)
    return min(1.0, power)


def detectable_drop(
    pairs: int,
    alpha: float,
    discordance: float | None = None,
    power: float = DEFAULT_POWER,
    step: float = 0.005,
) -> float | None:
    """The smallest drop (a fraction, on a grid of ``step``) that ``pairs`` pairs detect with at
    least ``power``; None when even a fall from 100% to 0% is not detected that often.

    ``discordance``: the share of samples assumed to flip either way; each drop is evaluated
    at ``max(discordance, drop)`` (a drop cannot flip fewer samples than itself). None assumes
    the drop alone (no sample improves)."""
    steps = round(1.0 / step)
    for i in range(1, steps + 1):
        drop = min(1.0, round(i * step, 10))
        flips = drop if discordance is None else min(1.0, max(discordance, drop))
        if drop_power(pairs, drop, flips, alpha) >= power:
            return drop
    return None


def pairs_needed(
    drop: float,
    alpha: float,
    discordance: float | None = None,
    power: float = DEFAULT_POWER,
    max_pairs: int = MAX_PAIRS,
) -> int | None:
    """The fewest pairs that detect a ``drop`` with at least ``power`` (discordance as in
    ``detectable_drop``); None when ``max_pairs`` pairs do not. Power is not monotone in the
    number of pairs for a discrete test, so the count returned is one at which power is
    reached and one pair fewer does not: the first such count after the last of the doubling
    counts (1, 2, 4, ..., ``max_pairs``) that fall short."""
    if not 0.0 < drop <= 1.0:
        raise ValueError(f"drop must be in (0, 1], got {drop}")
    flips = drop if discordance is None else min(1.0, max(discordance, drop))

    def reached(pairs: int) -> bool:
        return drop_power(pairs, drop, flips, alpha) >= power

    short, high = 0, 1  # ``short``: the last count checked that falls short (0: none yet)
    while not reached(high):
        if high >= max_pairs:
            return None
        short, high = high, min(2 * high, max_pairs)
    while high - short > 1:  # reached at ``high``, not at ``short``: bisect between them
        middle = (short + high) // 2
        if reached(middle):
            high = middle
        else:
            short = middle
    return high
