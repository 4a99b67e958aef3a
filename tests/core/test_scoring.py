"""Scoring rules of docs/protocol.md, pinned with hand-made cases whose answers were worked out by hand."""

from __future__ import annotations

import json
import time

import pytest
from helpers.handmade_cases import invoice_case, make_case
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_revprop.core.extraction import extract_patch
from pytest_revprop.core.scoring import ABSENT, json_equal, score_patch, score_reply

GOLD_REPLY = [
    {"op": "replace", "path": "/lines/0/qty", "value": 2},
    {"op": "replace", "path": "/lines/0/amount", "value": 24},
    {"op": "replace", "path": "/total", "value": 38.0},
]


def test_gold_answer_completes_and_integer_equals_float() -> None:
    score = score_patch(invoice_case(), GOLD_REPLY)
    assert score.completed and score.valid
    assert (score.miss, score.over_edit, score.wrong_value) == (0, 0, 0)


def test_direct_edit_alone_misses_each_cascade() -> None:
    score = score_patch(invoice_case(), GOLD_REPLY[:1])
    assert not score.completed
    assert score.miss == 2 and score.wrong_value == 0 and score.over_edit == 0
    assert {f.path for f in score.findings} == {"/lines/0/amount", "/total"}
    assert {f.gold_kind for f in score.findings} == {"cascade"}


def test_wrong_total_is_wrong_value_and_unrelated_change_is_over_edit() -> None:
    reply = [
        *GOLD_REPLY[:2],
        {"op": "replace", "path": "/total", "value": 40.0},
        {"op": "replace", "path": "/paid", "value": True},
    ]
    score = score_patch(invoice_case(), reply)
    assert (score.miss, score.over_edit, score.wrong_value) == (0, 1, 1)
    wrong = next(f for f in score.findings if f.kind == "wrong_value")
    assert (wrong.path, wrong.expected, wrong.got) == ("/total", 38.0, 40.0)


def test_true_is_not_one() -> None:
    case = make_case(
        {"flag": 0, "n": 1}, [{"op": "replace", "path": "/flag", "value": 1, "kind": "direct"}]
    )
    assert score_patch(case, [{"op": "replace", "path": "/flag", "value": 1.0}]).completed
    score = score_patch(case, [{"op": "replace", "path": "/flag", "value": True}])
    assert not score.completed and score.wrong_value == 1
    assert json_equal(1, 1.0) and not json_equal(True, 1) and not json_equal("1", 1)


def test_an_optional_op_may_be_left_alone_or_done_right_but_not_done_wrong() -> None:
    case = invoice_case()
    assert score_patch(case, GOLD_REPLY).completed  # left alone
    right = [*GOLD_REPLY, {"op": "replace", "path": "/memo", "value": "2 Widgets and 7 bolts"}]
    assert score_patch(case, right).completed
    wrong = score_patch(
        case, [*GOLD_REPLY, {"op": "replace", "path": "/memo", "value": "three widgets"}]
    )
    assert not wrong.completed and wrong.wrong_value == 1 and wrong.miss == 0


def test_regex_matcher_matches_required_text_and_numbers_by_their_text() -> None:
    case = make_case(
        {"nights": 3, "summary": "3 nights in Rome", "code": 7},
        [
            {"op": "replace", "path": "/nights", "value": 4, "kind": "direct"},
            {
                "op": "replace",
                "path": "/summary",
                "value": "(?i)\\b4 nights\\b",
                "kind": "cascade",
                "match": "regex_match",
            },
        ],
    )
    good = [
        {"op": "replace", "path": "/nights", "value": 4},
        {"op": "replace", "path": "/summary", "value": "Four... 4 NIGHTS in Rome"},
    ]
    assert score_patch(case, good).completed
    missed = score_patch(case, good[:1])
    assert missed.miss == 1 and missed.findings[0].expected == {"$regex": "(?i)\\b4 nights\\b"}
    bad = score_patch(case, [good[0], {"op": "replace", "path": "/summary", "value": "14 nights"}])
    assert bad.wrong_value == 1
    numeric = make_case(
        {"n": 1},
        [
            {
                "op": "replace",
                "path": "/n",
                "value": "^2\\d$",
                "kind": "direct",
                "match": "regex_match",
            }
        ],
    )
    assert score_patch(numeric, [{"op": "replace", "path": "/n", "value": 25}]).completed
    assert not score_patch(numeric, [{"op": "replace", "path": "/n", "value": 35}]).completed


def test_any_matcher_needs_presence_only() -> None:
    case = make_case(
        {"a": 1, "b": {"x": 1}},
        [
            {"op": "replace", "path": "/a", "value": 2, "kind": "direct"},
            {
                "op": "add",
                "path": "/b/note",
                "value": "anything",
                "kind": "cascade",
                "match": "any",
            },
        ],
    )
    assert score_patch(
        case,
        [
            {"op": "replace", "path": "/a", "value": 2},
            {"op": "add", "path": "/b/note", "value": 42},
        ],
    ).completed
    missing = score_patch(case, [{"op": "replace", "path": "/a", "value": 2}])
    assert missing.miss == 1 and missing.findings[0].got == ABSENT


def test_ref_equal_matcher_compares_two_places_of_the_prediction() -> None:
    case = make_case(
        {"owner": "ann", "team": {"lead": "ann"}, "backup": "bob"},
        [
            {"op": "replace", "path": "/owner", "value": "cy", "kind": "direct"},
            {
                "op": "replace",
                "path": "/team/lead",
                "value": "/owner",
                "kind": "cascade",
                "match": "ref_equal",
            },
        ],
    )
    ok = [
        {"op": "replace", "path": "/owner", "value": "cy"},
        {"op": "replace", "path": "/team/lead", "value": "cy"},
    ]
    assert score_patch(case, ok).completed
    bad = score_patch(case, [ok[0], {"op": "replace", "path": "/team/lead", "value": "bob"}])
    assert bad.wrong_value == 1


def test_whole_object_replace_that_equals_the_gold_edit_completes() -> None:
    case = invoice_case()
    whole = {
        "op": "replace",
        "path": "/lines/0",
        "value": {"item": "widget", "qty": 2, "unit_price": 12, "amount": 24},
    }
    assert score_patch(case, [whole, {"op": "replace", "path": "/total", "value": 38}]).completed


def test_ops_in_another_order_reaching_the_same_artifact_complete() -> None:
    assert score_patch(invoice_case(), list(reversed(GOLD_REPLY))).completed


def test_move_copy_and_test_ops_apply() -> None:
    case = make_case(
        {"a": 1, "b": 2}, [{"op": "replace", "path": "/a", "value": 2, "kind": "direct"}]
    )
    reply = [
        {"op": "test", "path": "/b", "value": 2},
        {"op": "remove", "path": "/a"},
        {"op": "copy", "from": "/b", "path": "/a"},
    ]
    assert score_patch(case, reply).completed
    moved = score_patch(case, [{"op": "move", "from": "/b", "path": "/a"}])
    assert not moved.completed and moved.over_edit == 1  # /b removed, /a right
    failed_test = score_patch(case, [{"op": "test", "path": "/b", "value": True}])
    assert failed_test.outcome.error == "apply_error"


def _task_case():
    """Remove task B (index 1) from a 3-task list: C now depends on A; count 3 -> 2."""
    return make_case(
        {
            "tasks": [
                {"name": "A", "after": None},
                {"name": "B", "after": "A"},
                {"name": "C", "after": "B"},
            ],
            "count": 3,
        },
        [
            {"op": "remove", "path": "/tasks/1", "kind": "direct"},
            {"op": "replace", "path": "/tasks/1/after", "value": "A", "kind": "cascade"},
            {"op": "replace", "path": "/count", "value": 2, "kind": "cascade"},
        ],
    )


def test_an_array_removal_is_scored_at_the_shifted_indices() -> None:
    case = _task_case()
    ok = [
        {"op": "remove", "path": "/tasks/1"},
        {"op": "replace", "path": "/tasks/1/after", "value": "A"},
        {"op": "replace", "path": "/count", "value": 2},
    ]
    assert score_patch(case, ok).completed
    # Rebuilding the whole list is the same artifact.
    whole = [
        {
            "op": "replace",
            "path": "/tasks",
            "value": [{"name": "A", "after": None}, {"name": "C", "after": "A"}],
        },
        {"op": "replace", "path": "/count", "value": 2},
    ]
    assert score_patch(case, whole).completed
    # Forgetting the relink: the list (one unit, lengths differ) is wrong.
    no_relink = score_patch(case, [ok[0], ok[2]])
    assert (no_relink.miss, no_relink.wrong_value, no_relink.over_edit) == (0, 1, 0)
    assert no_relink.findings[0].path == "/tasks"
    # Doing nothing: the list and the count are both misses.
    nothing = score_patch(case, [])
    assert (nothing.miss, nothing.wrong_value, nothing.over_edit) == (2, 0, 0)


@pytest.mark.parametrize(
    ("reply", "category"),
    [
        ("I would change the quantity to 2.", "no_patch"),
        ("", "no_patch"),
        ('[{"op": "frobnicate", "path": "/a"}]', "not_a_patch"),
        ('[{"op": "replace", "value": 1}]', "not_a_patch"),
        ("[1, 2]", "not_a_patch"),
        ('[{"op": "replace", "path": "/nope/x", "value": 1}]', "apply_error"),
        ('[{"op": "remove", "path": "/lines/9"}]', "apply_error"),
    ],
)
def test_each_unusable_reply_gets_its_invalid_category(reply: str, category: str) -> None:
    score = score_reply(invoice_case(), reply)
    assert not score.valid and not score.completed and score.outcome.error == category
    assert score.outcome.reason and (score.miss, score.over_edit, score.wrong_value) == (0, 0, 0)


def test_empty_patch_is_valid_and_misses_everything() -> None:
    score = score_reply(invoice_case(), "[]")
    assert score.valid and not score.completed and score.miss == 3


def test_extraction_prefers_last_fenced_block_then_first_inline_value() -> None:
    text = 'Draft:\n```json\n[{"op": "remove", "path": "/a"}]\n```\nFinal:\n```\n{"patch": [{"op": "add", "path": "/b", "value": 1}]}\n```\n'
    assert extract_patch(text) == [{"op": "add", "path": "/b", "value": 1}]
    prose = 'Set {the quantity} to two: [{"op": "replace", "path": "/q", "value": 2}] and [{"op": "remove", "path": "/z"}]'
    assert extract_patch(prose) == [{"op": "replace", "path": "/q", "value": 2}]
    assert extract_patch('{"patch": []}') == []


def test_nan_duplicate_keys_and_deep_nesting_are_not_patches() -> None:
    case = invoice_case()
    nan = score_reply(case, '[{"op": "replace", "path": "/total", "value": NaN}]')
    assert nan.outcome.error == "no_patch" and "NaN" in str(nan.outcome.reason)
    twice = score_reply(
        case, '```json\n[{"op": "replace", "op": "add", "path": "/total", "value": 1}]\n```'
    )
    assert twice.outcome.error == "no_patch"
    assert "duplicate object member 'op'" in str(twice.outcome.reason)
    deep = score_reply(case, "[" * 100_000)
    assert deep.outcome.error == "no_patch" and "nested too deeply" in str(deep.outcome.reason)
    assert "refused" not in str(score_reply(case, "no JSON here").outcome.reason)


def test_huge_reply_is_bounded() -> None:
    start = time.perf_counter()
    score = score_reply(invoice_case(), "[0," * 3_000_000)
    assert score.outcome.error == "no_patch" and time.perf_counter() - start < 5


def test_catastrophic_regex_is_bounded() -> None:
    case = make_case(
        {"s": "x"},
        [
            {
                "op": "replace",
                "path": "/s",
                "value": "^(a+)+$",
                "kind": "direct",
                "match": "regex_match",
            }
        ],
    )
    start = time.perf_counter()
    score = score_patch(case, [{"op": "replace", "path": "/s", "value": "a" * 40 + "!"}])
    assert not score.completed and score.wrong_value == 1
    assert time.perf_counter() - start < 3


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_scoring_never_raises_on_arbitrary_text(text: str) -> None:
    score = score_reply(invoice_case(), text)
    invalid = {(False, category) for category in ("no_patch", "not_a_patch", "apply_error")}
    assert (score.valid, score.outcome.error) in {(True, None)} | invalid


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_scoring_never_raises_on_arbitrary_json(value: object) -> None:
    score = score_reply(invoice_case(), "Here you go:\n```json\n" + json.dumps(value) + "\n```")
    assert isinstance(score.completed, bool)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_json_equality_is_reflexive_and_matches_round_trip(value: object) -> None:
    assert json_equal(value, value)
    assert json_equal(value, json.loads(json.dumps(value)))
