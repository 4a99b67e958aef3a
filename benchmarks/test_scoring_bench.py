"""Micro-benchmarks of the scoring core on the shipped 100-leaf cases (pytest-benchmark).

Run outside xdist: ``pytest benchmarks/test_scoring_bench.py --benchmark-only``.
"""

from __future__ import annotations

import json

import pytest

from pytest_revprop.core.cases import BENCHMARK_DIR, load_case, load_cases
from pytest_revprop.core.merge import merge_patches
from pytest_revprop.core.scoring import literal_gold_patch, score_patch, score_reply

CASE = load_case(BENCHMARK_DIR / "schedule-kickoff-shift" / "100.json")
GOLD = literal_gold_patch(CASE) or CASE.gold_patch
HALF = GOLD[: max(1, len(GOLD) // 2)]
REPLY = "Here is the patch:\n```json\n" + json.dumps(GOLD) + "\n```"


def test_score_reply_100_leaves(benchmark: pytest.FixtureRequest) -> None:
    score = benchmark(score_reply, CASE, REPLY)
    assert score.completed


def test_score_partial_patch_100_leaves(benchmark: pytest.FixtureRequest) -> None:
    score = benchmark(score_patch, CASE, HALF)
    assert not score.completed and score.miss > 0


@pytest.mark.parametrize("rule", ["med", "maj", "or"])
def test_merge_five_samples_100_leaves(benchmark: pytest.FixtureRequest, rule: str) -> None:
    samples = [GOLD, HALF, GOLD, None, HALF]
    result = benchmark(merge_patches, CASE.artifact, samples, rule)
    assert result.artifact is not None


def test_load_the_whole_benchmark(benchmark: pytest.FixtureRequest) -> None:
    loaded = benchmark.pedantic(load_cases, args=([BENCHMARK_DIR],), rounds=5, iterations=1)
    assert len(loaded.cases) == 150 and not loaded.errors
