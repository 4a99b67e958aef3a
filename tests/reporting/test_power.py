"""The gate's power: exact sums checked against a simulation, and the worked example of
docs/protocol.md ("What the gate can see")."""

from __future__ import annotations

import random

import pytest

from pytest_revprop.reporting.power import detectable_drop, drop_power, pairs_needed
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
