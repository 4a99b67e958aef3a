"""The gate's power: exact sums checked against a simulation, and the worked example of
docs/protocol.md ("What the gate can see")."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_revprop.reporting.power import (
    DEFAULT_POWER,
    detectable_drop,
    drop_power,
    pairs_needed,
)
from pytest_revprop.reporting.stats import DEFAULT_ALPHA, mcnemar_exact


def _simulated_power(pairs: int, drop: float, discordance: float, trials: int) -> float:
    rng = random.Random(7)
    p10, p01 = (discordance + drop) / 2, (discordance - drop) / 2
    hits = 0
    for _ in range(trials):
        draws = [rng.random() for _ in range(pairs)]
        down = sum(u < p10 for u in draws)
        up = sum(p10 <= u < p10 + p01 for u in draws)
        hits += down > up and mcnemar_exact(down, up) < DEFAULT_ALPHA
    return hits / trials


@pytest.mark.parametrize(("pairs", "drop", "discordance"), [(30, 8 / 30, 14 / 30), (60, 0.1, 0.3)])
def test_the_exact_power_agrees_with_a_simulation(
    pairs: int, drop: float, discordance: float
) -> None:
    exact = drop_power(pairs, drop, discordance, DEFAULT_ALPHA)
    assert exact == pytest.approx(_simulated_power(pairs, drop, discordance, 4000), abs=0.03)


def test_the_worked_example_of_the_protocol_page() -> None:
    """30 pairs, 11 down and 3 up (a 26.7-point drop, p = 0.057): the gate could not have
    seen a drop that size reliably."""
    assert mcnemar_exact(11, 3) == pytest.approx(0.0574, abs=1e-4)
    assert drop_power(30, 8 / 30, 14 / 30, DEFAULT_ALPHA) == pytest.approx(0.493, abs=0.001)
    assert detectable_drop(30, DEFAULT_ALPHA, discordance=14 / 30) == 0.35
    assert detectable_drop(30, DEFAULT_ALPHA) == 0.255
    assert pairs_needed(8 / 30, DEFAULT_ALPHA, discordance=14 / 30) == 55


def test_more_pairs_see_smaller_drops() -> None:
    drops = [detectable_drop(n, DEFAULT_ALPHA, discordance=0.2) for n in (30, 150, 750)]
    assert all(d is not None for d in drops)
    assert drops == sorted(drops, reverse=True) and drops[0] > drops[-1]


def test_nothing_is_detected_without_pairs_or_flips() -> None:
    assert drop_power(0, 0.1, 0.2, DEFAULT_ALPHA) == 0.0
    assert drop_power(30, 0.0, 0.0, DEFAULT_ALPHA) == 0.0
    assert detectable_drop(3, DEFAULT_ALPHA) is None  # 3 pairs: p >= 0.25 whatever happens


def test_impossible_figures_are_refused() -> None:
    with pytest.raises(ValueError, match="drop <= discordance"):
        drop_power(30, 0.3, 0.2, DEFAULT_ALPHA)
    with pytest.raises(ValueError, match="alpha"):
        drop_power(30, 0.1, 0.2, 1.5)
    with pytest.raises(ValueError, match="drop must be"):
        pairs_needed(0.0, DEFAULT_ALPHA)


def test_a_need_between_the_last_doubling_and_the_limit_is_found() -> None:
    """263 pairs lie between 256 and a 300-pair limit: doubling alone jumps past the limit."""
    assert pairs_needed(0.125, DEFAULT_ALPHA, discordance=0.5, max_pairs=300) == 263
    assert pairs_needed(0.125, DEFAULT_ALPHA, discordance=0.5, max_pairs=263) == 263
    assert pairs_needed(0.125, DEFAULT_ALPHA, discordance=0.5, max_pairs=262) is None


@settings(max_examples=60, deadline=None)
@given(
    drop=st.floats(0.1, 1.0),
    discordance=st.none() | st.floats(0.0, 1.0),
    alpha=st.sampled_from([0.01, DEFAULT_ALPHA, 0.1]),
    max_pairs=st.integers(1, 400),
)
def test_pairs_needed_is_exact_up_to_its_limit(
    drop: float, discordance: float | None, alpha: float, max_pairs: int
) -> None:
    """A count is returned iff one up to the limit reaches the power; it reaches it and one
    pair fewer does not. None: the limit itself falls short."""
    flips = drop if discordance is None else min(1.0, max(discordance, drop))
    needed = pairs_needed(drop, alpha, discordance=discordance, max_pairs=max_pairs)
    if needed is None:
        assert drop_power(max_pairs, drop, flips, alpha) < DEFAULT_POWER
    else:
        assert 1 <= needed <= max_pairs
        assert drop_power(needed, drop, flips, alpha) >= DEFAULT_POWER
        assert drop_power(needed - 1, drop, flips, alpha) < DEFAULT_POWER
