"""Free judging and regressions in the geometries that broke them (issue: chains as one shape,
defects 1-7), each on a small hand-made chain whose files load with every rule."""

from __future__ import annotations

from typing import Any

from helpers.chain_cases import chain_case
from helpers.handmade_cases import make_case

from pytest_revprop.core.cases import Case
from pytest_revprop.core.chain import canonical_after, judge_free, teacher_patch, turn_regressions
from pytest_revprop.core.scoring import score_patch


def _chain(artifact: dict[str, Any], *turns: tuple[str, list[Any], list[Any] | None]) -> Case:
    case = chain_case(artifact, list(turns))
    assert isinstance(case, Case)
    return case


def _items() -> dict[str, Any]:
    return {
        "items": [
            {"sku": "A", "note": "a"},
            {"sku": "B", "note": "b"},
            {"sku": "C", "note": "c"},
        ],
        "total": 3,
    }


def _drop_b() -> tuple[str, list[Any], None]:
    return (
        "Drop B.",
        [
            {"op": "remove", "path": "/items/1", "kind": "direct"},
            {"op": "replace", "path": "/total", "value": 2, "kind": "cascade"},
        ],
        None,
    )


# ---------------------------------------------------------------- 1. a matcher in a removed element


def test_a_regex_inside_an_element_a_later_turn_removes_leaves_the_rest_compared() -> None:
    regex = {"op": "replace", "path": "/items/1/note", "value": "^b!", "kind": "direct"}
    made = [{"op": "replace", "path": "/items/1/note", "value": "b!!"}]
    case = _chain(_items(), ("Shout B.", [{**regex, "match": "regex_match"}], made), _drop_b())
    right = {"items": [{"sku": "A", "note": "a"}, {"sku": "C", "note": "c"}], "total": 2}
    assert judge_free(case, 1, right).completed
    other_changed = {"items": [{"sku": "A", "note": "zzz"}, {"sku": "C", "note": "c"}], "total": 2}
    score = judge_free(case, 1, other_changed)
    assert [(f.kind, f.path) for f in score.findings] == [("over_edit", "/items/0/note")]
    other_dropped = {"items": [{"sku": "B", "note": "b!!"}, {"sku": "C", "note": "c"}], "total": 2}
    assert not judge_free(case, 1, other_dropped).completed


def test_an_any_place_inside_a_removed_element_leaves_the_rest_compared() -> None:
    anything = {"op": "replace", "path": "/items/1/note", "value": None, "kind": "direct"}
    made = [{"op": "replace", "path": "/items/1/note", "value": "whatever"}]
    case = _chain(_items(), ("Note B.", [{**anything, "match": "any"}], made), _drop_b())
    wrong = {"items": [{"sku": "A", "note": "a"}, {"sku": "C", "note": "changed"}], "total": 2}
    assert not judge_free(case, 1, wrong).completed


def test_a_ref_equal_place_inside_a_removed_element_lets_the_canonical_document_complete() -> None:
    ref = {"op": "replace", "path": "/items/1/note", "value": "/total", "kind": "cascade"}
    case = _chain(
        _items(),
        ("B's note is the total.", [{**ref, "match": "ref_equal"}], [{**ref, "value": 3}]),
        _drop_b(),
    )
    assert judge_free(case, 1, canonical_after(case, 1)).completed


# ------------------------------------------------- 2. a regex over an object edited inside by arrays


def _labelled() -> dict[str, Any]:
    return {"o": {"list": ["x", "y"], "label": "L"}, "n": 1}


def _relabel() -> tuple[str, list[Any], list[Any]]:
    pattern = r'"list":\["x","y"\],"label":"M"'
    gold = [
        {"op": "replace", "path": "/o", "value": pattern, "kind": "direct", "match": "regex_match"}
    ]
    made = [{"op": "replace", "path": "/o", "value": {"list": ["x", "y"], "label": "M"}}]
    return "Relabel it M.", gold, made


def test_a_regex_over_an_object_puts_back_an_insertion_and_a_replacement_in_their_order() -> None:
    later = [
        {"op": "replace", "path": "/o/list/0", "value": "X", "kind": "direct"},
        {"op": "add", "path": "/o/list/0", "value": "w", "kind": "direct"},
    ]
    case = _chain(_labelled(), _relabel(), ("Capital x, then w first.", later, None))
    assert judge_free(case, 1, canonical_after(case, 1)).completed
    assert turn_regressions(case, 1, canonical_after(case, 0), teacher_patch(case, 1)) == []


def test_a_regex_over_an_object_puts_a_removed_element_back_where_it_was() -> None:
    later = [{"op": "remove", "path": "/o/list/0", "kind": "direct"}]
    case = _chain(_labelled(), _relabel(), ("Drop x.", later, None))
    assert canonical_after(case, 1) == {"o": {"list": ["y"], "label": "M"}, "n": 1}
    assert judge_free(case, 1, canonical_after(case, 1)).completed
    unlabelled = {"o": {"list": ["y"], "label": "L"}, "n": 1}
    assert not judge_free(case, 1, unlabelled).completed


# ----------------------------------------------------- 3. an optional place with later steps inside


def test_an_optional_place_kept_as_it_was_then_edited_inside_completes() -> None:
    gold = [
        {"op": "replace", "path": "/n", "value": 2, "kind": "direct"},
        {"op": "replace", "path": "/o", "value": {"a": 2, "b": 1}, "kind": "cascade"},
    ]
    gold[1]["optional"] = True
    later = [{"op": "replace", "path": "/o/b", "value": 5, "kind": "direct"}]
    case = _chain({"n": 1, "o": {"a": 1, "b": 1}}, ("n to 2", gold, None), ("b to 5", later, None))
    assert judge_free(case, 1, {"n": 2, "o": {"a": 2, "b": 5}}).completed
    assert judge_free(case, 1, {"n": 2, "o": {"a": 1, "b": 5}}).completed  # kept, then edited
    assert not judge_free(case, 1, {"n": 2, "o": {"a": 1, "b": 1}}).completed  # b never moved
    assert not judge_free(case, 1, {"n": 2, "o": {"a": 7, "b": 5}}).completed


# ------------------------------------------------------ 4. a regression next to an array insertion


def test_a_regression_inside_the_element_an_insertion_moves_is_counted() -> None:
    qty = [{"op": "replace", "path": "/items/1/note", "value": "bb", "kind": "direct"}]
    insert = [
        {"op": "add", "path": "/items/1", "value": {"sku": "X", "note": "x"}, "kind": "direct"},
        {"op": "replace", "path": "/total", "value": 4, "kind": "cascade"},
    ]
    case = _chain(_items(), ("B's note to bb.", qty, None), ("X before B.", insert, None))
    start = canonical_after(case, 0)
    right = teacher_patch(case, 1)
    assert turn_regressions(case, 1, start, right) == []
    broke = [*right, {"op": "replace", "path": "/items/2/note", "value": "b"}]
    assert turn_regressions(case, 1, start, broke) == ["/items/2/note"]


# -------------------------------------------------------------------- 5. a removal put back


def test_a_removed_member_put_back_by_a_later_patch_is_a_regression() -> None:
    drop = [{"op": "remove", "path": "/legacy", "kind": "direct"}]
    later = [{"op": "replace", "path": "/n", "value": 2, "kind": "direct"}]
    case = _chain({"n": 1, "legacy": True}, ("Drop legacy.", drop, None), ("n to 2", later, None))
    start = canonical_after(case, 0)
    back = [*teacher_patch(case, 1), {"op": "add", "path": "/legacy", "value": True}]
    assert turn_regressions(case, 1, start, back) == ["/legacy"]
    assert turn_regressions(case, 1, start, teacher_patch(case, 1)) == []


def test_a_removed_element_put_back_by_a_later_patch_is_a_regression() -> None:
    later = [{"op": "replace", "path": "/items/0/note", "value": "A!", "kind": "direct"}]
    case = _chain(_items(), _drop_b(), ("Shout A.", later, None))
    start = canonical_after(case, 0)
    back = [
        *teacher_patch(case, 1),
        {"op": "add", "path": "/items/1", "value": _items()["items"][1]},
    ]
    assert turn_regressions(case, 1, start, back) == ["/items"]
    assert turn_regressions(case, 1, start, teacher_patch(case, 1)) == []


# ----------------------------------------- 6. the element after an insertion keeps its place in A


def test_an_optional_place_right_after_an_inserted_element_may_be_left_alone() -> None:
    gold = [
        {"op": "add", "path": "/items/1", "value": {"sku": "X", "note": "x"}, "kind": "direct"},
        {"op": "replace", "path": "/items/2/note", "value": "b2", "kind": "cascade"},
    ]
    gold[1]["optional"] = True
    case = make_case(_items(), gold)
    insert_only = [{"op": "add", "path": "/items/1", "value": {"sku": "X", "note": "x"}}]
    assert score_patch(case, insert_only).completed
    changed = {"op": "replace", "path": "/items/2/note", "value": "b2"}
    assert score_patch(case, [*insert_only, changed]).completed


# --------------------------------- 7. the teacher's gold and a regex holding a part a turn removes


def test_the_teacher_patch_breaks_no_regex_place_that_holds_a_part_it_removes() -> None:
    relabel = {"op": "replace", "path": "/o/label", "value": "L"}
    for part, breaking in (
        ("/o/list", relabel),  # a member before another: put back where it was
        ("/o/list/1", relabel),
        ("/o/label", {"op": "replace", "path": "/o/list/0", "value": "z"}),
    ):
        later = [{"op": "remove", "path": part, "kind": "direct"}]
        case = _chain(_labelled(), _relabel(), ("Drop a part.", later, None))
        start = canonical_after(case, 0)
        assert turn_regressions(case, 1, start, teacher_patch(case, 1)) == []
        assert judge_free(case, 1, canonical_after(case, 1)).completed
        broke = [*teacher_patch(case, 1), breaking]
        assert turn_regressions(case, 1, start, broke) == ["/o"], part
        elsewhere = [*teacher_patch(case, 1), {"op": "replace", "path": "/n", "value": 0}]
        assert turn_regressions(case, 1, start, elsewhere) == []  # /n is no earlier place
