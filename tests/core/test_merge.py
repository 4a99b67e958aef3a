"""Merge rules of docs/protocol.md with three samples, including an invalid one and ties."""

from __future__ import annotations

from pytest_revprop.core.merge import disagreement, medoid_index, merge_patches

BASE = {"qty": 3, "amount": 36, "total": 50, "memo": "three"}
S_FULL = [
    {"op": "replace", "path": "/qty", "value": 2},
    {"op": "replace", "path": "/amount", "value": 24},
    {"op": "replace", "path": "/total", "value": 38},
]
S_PART = [
    {"op": "replace", "path": "/qty", "value": 2},
    {"op": "replace", "path": "/amount", "value": 24},
]
S_ODD = [
    {"op": "replace", "path": "/qty", "value": 2},
    {"op": "replace", "path": "/total", "value": 40},
    {"op": "replace", "path": "/memo", "value": "two"},
]
BROKEN = [{"op": "remove", "path": "/nope"}]


def test_or_adopts_any_change_earliest_sample_wins() -> None:
    result = merge_patches(BASE, [S_PART, S_ODD, S_FULL], "or")
    assert result.artifact == {"qty": 2, "amount": 24, "total": 40, "memo": "two"}
    assert result.chosen is None  # equals no sample: a fresh diff
    assert {op["path"] for op in result.patch or []} == {"/qty", "/amount", "/total", "/memo"}


def test_or_returns_the_samples_own_patch_when_it_equals_one() -> None:
    result = merge_patches(BASE, [None, S_PART, S_FULL], "or")
    assert result.artifact == {"qty": 2, "amount": 24, "total": 38, "memo": "three"}
    assert result.chosen == 2 and result.patch == S_FULL


def test_and_needs_every_sample_and_an_invalid_one_blocks_all() -> None:
    assert merge_patches(BASE, [S_FULL, S_PART, S_ODD], "and").artifact == {**BASE, "qty": 2}
    blocked = merge_patches(BASE, [S_FULL, S_FULL, BROKEN], "and")
    assert blocked.artifact == BASE and blocked.patch == [] and blocked.chosen is None


def test_maj_needs_more_than_half_of_k_counting_invalid_samples() -> None:
    result = merge_patches(BASE, [S_FULL, S_PART, S_ODD], "maj")
    assert result.artifact == {"qty": 2, "amount": 24, "total": 50, "memo": "three"}
    assert result.chosen == 1 and result.patch == S_PART
    # 2 of 3 agree on /total=38 with one invalid sample: 2 > 1.5.
    assert merge_patches(BASE, [S_FULL, None, S_FULL], "maj").artifact["total"] == 38
    # A tie (1 vs 1 of k=2 valid, k=3 with one invalid): no majority, left as in the base.
    tie = merge_patches(
        BASE,
        [
            [{"op": "replace", "path": "/total", "value": 1}],
            BROKEN,
            [{"op": "replace", "path": "/total", "value": 2}],
        ],
        "maj",
    )
    assert tie.artifact == BASE


def test_med_picks_the_medoid_and_leaves_invalid_samples_out() -> None:
    # Leaf disagreements over 4 leaves: FULL-PART 1/4, FULL-ODD 3/4, PART-ODD 3/4,
    # so the means are ODD 3/4, PART 1/2, FULL 1/2: a tie between PART and FULL.
    assert (
        disagreement(
            merge_patches(BASE, [S_FULL], "or").artifact,
            merge_patches(BASE, [S_PART], "or").artifact,
        )
        == 0.25
    )
    tie = merge_patches(BASE, [S_ODD, S_PART, S_FULL], "med")
    assert tie.chosen == 1 and tie.patch == S_PART  # ties: the earliest
    result = merge_patches(BASE, [S_ODD, S_FULL, S_FULL], "med")
    assert result.chosen == 1 and result.patch == S_FULL
    assert (
        merge_patches(BASE, [BROKEN, S_ODD, S_PART], "med").chosen == 1
    )  # tie 3/4 vs 3/4: earliest


def test_every_sample_invalid_gives_an_invalid_answer() -> None:
    for rule in ("or", "and", "maj", "med"):
        result = merge_patches(BASE, [None, BROKEN, None], rule)
        assert (result.artifact, result.patch, result.chosen) == (None, None, None)


def test_arrays_of_different_lengths_are_one_unit() -> None:
    base = {"items": [1, 2], "n": 2}
    grow = [
        {"op": "add", "path": "/items/-", "value": 3},
        {"op": "replace", "path": "/n", "value": 3},
    ]
    shrink = [{"op": "remove", "path": "/items/0"}, {"op": "replace", "path": "/n", "value": 1}]
    result = merge_patches(base, [grow, shrink, grow], "maj")
    assert result.artifact == {"items": [1, 2, 3], "n": 3} and result.chosen == 0
    assert merge_patches(base, [shrink, grow], "or").artifact == {"items": [2], "n": 1}


def test_key_removal_is_a_proposed_change() -> None:
    base = {"a": 1, "b": 2}
    drop = [{"op": "remove", "path": "/b"}]
    assert merge_patches(base, [drop, drop, []], "maj").artifact == {"a": 1}
    assert merge_patches(base, [drop, [], []], "maj").artifact == base


def test_medoid_of_identical_samples_is_the_first() -> None:
    assert medoid_index([{"a": 1}, {"a": 1}, {"a": 1}]) == 0
