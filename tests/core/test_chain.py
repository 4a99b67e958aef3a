"""Revision chains (core/chain.py): turns, teacher patches, turn views, the free judge and
regressions, pinned on hand-made chains whose answers were worked out by hand."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

import pytest
from helpers.chain_cases import cart_chain, chain_case

from pytest_revprop.core.askers import reference_ask
from pytest_revprop.core.cases import BENCHMARK_DIR, Case, load_cases
from pytest_revprop.core.chain import (
    canonical_after,
    chain_turns,
    judge_free,
    reference_patch,
    teacher_patch,
    turn_regressions,
    turn_view,
)
from pytest_revprop.core.chain_judge import map_pointer
from pytest_revprop.core.extraction import InvalidReply
from pytest_revprop.core.patching import apply_operations
from pytest_revprop.core.registry import run_method
from pytest_revprop.core.scoring import apply_patch, score_patch
from pytest_revprop.vocabulary import METHODS

Patch = list[dict[str, Any]]
Answerer = Callable[[Case, int], Patch]


def run_chain(case: Case, protocol: str, answer: Answerer) -> list[bool]:
    """Each turn's completion when ``answer(view, turn)`` gives the model's patch of a turn:
    ``teacher`` from the canonical document with the teacher patches as history, ``free`` from
    the model's own document with its own patches (an invalid one: ``[]``, document kept)."""
    done: list[bool] = []
    document, history = case.artifact, []
    for turn in chain_turns(case):
        i = turn.index
        if protocol == "teacher":
            view = turn_view(case, i, turn.artifact, [teacher_patch(case, j) for j in range(i)])
            done.append(score_patch(view, answer(view, i)).completed)
            continue
        view = turn_view(case, i, document, history)
        patch = answer(view, i)
        try:
            after = apply_patch(document, patch)
        except InvalidReply:
            patch, after = [], document
            done.append(False)
        else:
            done.append(judge_free(case, i, after).completed)
        history.append(patch)
        document = after
    return done


def solver(case: Case, name: str, method: str = "j+h") -> Answerer:
    """A reference solver (askers.reference_ask with the chain's reference_patch) run through
    ``method`` on the turn's view."""

    def answer(view: Case, turn: int) -> Patch:
        ask = reference_ask(view, name, patch=reference_patch(case, turn, name))
        run = asyncio.run(run_method(method, view, ask, k=3, seed=0))
        return run.outcome.patch or []

    return answer


def fed(patches: dict[int, Patch], otherwise: Answerer) -> Answerer:
    """A test double: the given patch at the given turns, ``otherwise`` at the others."""

    def answer(view: Case, turn: int) -> Patch:
        return patches[turn] if turn in patches else otherwise(view, turn)

    return answer


def without(paths: set[str], answer: Answerer) -> Answerer:
    """``answer`` with the operations at ``paths`` left out (a model that misses them)."""

    def partial(view: Case, turn: int) -> Patch:
        return [op for op in answer(view, turn) if op["path"] not in paths]

    return partial


# ---------------------------------------------------------------------------- turns


def test_chain_turns_count_and_limit() -> None:
    case = cart_chain()
    turns = chain_turns(case)
    assert [t.index for t in turns] == [0, 1, 2]
    assert [t.request for t in turns] == ["Add one C at 8.", "Make that 3 of C.", "Take A out."]
    assert turns[0].artifact == case.artifact and turns[0].gold == case.gold
    assert turns[2].artifact == case.followups[1].artifact
    assert [t.index for t in chain_turns(case, 1)] == [0, 1]
    assert [t.index for t in chain_turns(case, 0)] == [0]
    assert len(chain_turns(case, 9)) == 3
    with pytest.raises(ValueError, match="at least 0"):
        chain_turns(case, -1)


def test_teacher_patch_reads_concrete_values_from_the_next_document() -> None:
    case = cart_chain()
    patch = teacher_patch(case, 0)
    assert patch[0] == {
        "op": "add",
        "path": "/items/2",
        "value": {"sku": "C", "qty": 1, "price": 8, "line": 8},
    }
    note = next(op for op in patch if op["path"] == "/note")
    assert note["value"] == "3 items in the cart"  # never the pattern "^3 items"
    for i in range(3):
        made = apply_operations(chain_turns(case)[i].artifact, teacher_patch(case, i))
        assert made == canonical_after(case, i)
    last = canonical_after(case, 2)
    assert [item["sku"] for item in last["items"]] == ["B", "C"] and last["note"] == "2 items"


def test_teacher_patch_keeps_the_gold_operations_when_they_move_each_other() -> None:
    # two insertions at the front: read at /tags/0 after both, each would have been "y"
    fronts = [
        {"op": "add", "path": "/tags/0", "value": "x", "kind": "direct"},
        {"op": "add", "path": "/tags/0", "value": "y", "kind": "direct"},
    ]
    again = [{"op": "add", "path": "/tags/-", "value": "z", "kind": "direct"}]
    case = chain_case({"tags": ["a"]}, [("x then y", fronts, None), ("and z", again, None)])
    assert isinstance(case, Case)
    assert case.followups[0].artifact == {"tags": ["y", "x", "a"]}
    assert teacher_patch(case, 0) == [
        {"op": "add", "path": "/tags/0", "value": "x"},
        {"op": "add", "path": "/tags/0", "value": "y"},
    ]
    assert teacher_patch(case, 1) == [{"op": "add", "path": "/tags/3", "value": "z"}]


def test_teacher_patch_reads_a_regex_value_where_its_place_ends_up() -> None:
    fronts = [
        {"op": "replace", "path": "/tags/0", "value": "^b", "kind": "direct"},
        {"op": "add", "path": "/tags/0", "value": "y", "kind": "direct"},
    ]
    fronts[0]["match"] = "regex_match"
    made = [
        {"op": "replace", "path": "/tags/0", "value": "bee"},
        {k: v for k, v in fronts[1].items() if k != "kind"},
    ]
    again = [{"op": "add", "path": "/tags/-", "value": "z", "kind": "direct"}]
    case = chain_case({"tags": ["a"]}, [("b, then y", fronts, made), ("and z", again, None)])
    assert isinstance(case, Case)
    assert teacher_patch(case, 0) == [
        {"op": "replace", "path": "/tags/0", "value": "bee"},
        {"op": "add", "path": "/tags/0", "value": "y"},
    ]


def test_turn_view_shows_earlier_turns_as_conversation() -> None:
    case = cart_chain()
    history = [teacher_patch(case, 0), teacher_patch(case, 1)]
    start = {"any": "document"}
    view = turn_view(case, 2, start, history)
    assert view.artifact == start and view.request == "Take A out."
    assert view.gold == case.followups[1].gold and view.followups == ()
    added = view.conversation[len(case.conversation) :]
    assert [t.user for t in added] == ["Add one C at 8.", "Make that 3 of C."]
    assert [t.assistant for t in added] == history
    assert turn_view(case, 0, case.artifact, []).conversation == case.conversation
    with pytest.raises(ValueError, match="2 earlier turn"):
        turn_view(case, 2, start, history[:1])
    with pytest.raises(IndexError, match="no turn 3"):
        turn_view(case, 3, start, [*history, []])


def test_teacher_scores_each_turn_as_a_single_revision() -> None:
    case = cart_chain()
    view = turn_view(case, 1, case.followups[0].artifact, [teacher_patch(case, 0)])
    assert score_patch(view, teacher_patch(case, 1)).completed
    missed = score_patch(view, [op for op in teacher_patch(case, 1) if op["path"] != "/shipping"])
    assert not missed.completed and [f.path for f in missed.findings] == ["/shipping"]


# ---------------------------------------------------------------------------- free judge


def test_the_canonical_documents_complete_every_turn_in_free() -> None:
    case = cart_chain()
    for i in range(3):
        assert judge_free(case, i, canonical_after(case, i)).completed
    # and the document of one turn does not complete another
    assert not judge_free(case, 2, canonical_after(case, 1)).completed
    assert not judge_free(case, 0, case.artifact).completed


def test_edit_inside_an_inserted_element_then_a_removal_moves_it() -> None:
    case = cart_chain()
    right = canonical_after(case, 2)
    assert right["items"][1] == {"sku": "C", "qty": 3, "price": 8, "line": 24}
    # turn 1's change to C (index 2 then) is judged at C's index after A's removal
    lost = copy.deepcopy(right)
    lost["items"][1]["qty"] = 1
    score = judge_free(case, 2, lost)
    assert not score.completed
    assert [(f.path, f.expected, f.got) for f in score.findings] == [("/items/1/qty", 3, 1)]
    # removing B instead of A leaves an array of the right length with the wrong items
    wrong_item = copy.deepcopy(right)
    wrong_item["items"][0] = {"sku": "A", "qty": 1, "price": 10, "line": 10}
    assert not judge_free(case, 2, wrong_item).completed


def test_undo_a_later_turn_reverts_an_earlier_change() -> None:
    case = cart_chain()  # shipping 5 -> 0 (turn 1) -> 5 (turn 2)
    right = canonical_after(case, 2)
    assert right["shipping"] == 5 == case.artifact["shipping"]
    kept_free = copy.deepcopy(right)
    kept_free["shipping"] = 0  # the model forgot to undo
    score = judge_free(case, 2, kept_free)
    assert [(f.kind, f.path, f.expected) for f in score.findings] == [("miss", "/shipping", 5)]


def test_a_later_regex_replaces_an_earlier_one_at_the_same_place() -> None:
    case = cart_chain()  # note: "^3 items" (turn 0), then "^2 items" (turn 2)
    right = canonical_after(case, 2)
    assert judge_free(case, 2, {**right, "note": "2 items, lovely"}).completed
    stale = judge_free(case, 2, {**right, "note": "3 items in the cart"})
    assert [(f.path, f.expected) for f in stale.findings] == [("/note", {"$regex": "^2 items"})]


def test_regex_then_strict_and_strict_then_regex_at_one_place() -> None:
    regex = {"op": "replace", "path": "/note", "value": "^two", "kind": "direct"}
    regex["match"] = "regex_match"
    strict = {"op": "replace", "path": "/note", "value": "two and a half", "kind": "direct"}
    r_then_s = chain_case(
        {"note": "one", "n": 1},
        [
            ("two", [regex], [{"op": "replace", "path": "/note", "value": "two"}]),
            ("more", [strict], None),
        ],
    )
    assert isinstance(r_then_s, Case)
    assert not judge_free(r_then_s, 1, {"note": "two", "n": 1}).completed  # strict now
    assert judge_free(r_then_s, 1, {"note": "two and a half", "n": 1}).completed
    assert judge_free(r_then_s, 0, {"note": "two!", "n": 1}).completed
    three = {**regex, "value": "^three"}
    s_then_r = chain_case(
        {"note": "one", "n": 1},
        [
            ("more", [strict], None),
            ("three", [three], [{"op": "replace", "path": "/note", "value": "three"}]),
        ],
    )
    assert isinstance(s_then_r, Case)
    assert judge_free(s_then_r, 1, {"note": "threefold", "n": 1}).completed
    assert not judge_free(s_then_r, 1, {"note": "two and a half", "n": 1}).completed


def test_add_then_remove_the_same_element() -> None:
    case = chain_case(
        {"tags": ["a", "b"], "count": 2},
        [
            (
                "Tag it c.",
                [
                    {"op": "add", "path": "/tags/-", "value": "c", "kind": "direct"},
                    {"op": "replace", "path": "/count", "value": 3, "kind": "cascade"},
                ],
                None,
            ),
            (
                "No, drop c.",
                [
                    {"op": "remove", "path": "/tags/2", "kind": "direct"},
                    {"op": "replace", "path": "/count", "value": 2, "kind": "cascade"},
                ],
                None,
            ),
        ],
    )
    assert isinstance(case, Case)
    assert judge_free(case, 1, {"tags": ["a", "b"], "count": 2}).completed
    for wrong in ({"tags": ["a", "b", "c"], "count": 2}, {"tags": ["a"], "count": 2}):
        assert not judge_free(case, 1, wrong).completed
    # a model that never added c: turn 0 fails, turn 1 (the net document) is right
    assert not judge_free(case, 0, case.artifact).completed
    assert judge_free(case, 1, case.artifact).completed


def _ref_chain() -> Case:
    """Turn 0 sets the first line's qty to 4 and the label's count must equal it (ref_equal);
    turn 1 inserts a line in front: the reference follows the first line to index 1."""
    case = chain_case(
        {"lines": [{"qty": 1}], "label": {"count": 1}, "other": "x"},
        [
            (
                "Make it 4.",
                [
                    {"op": "replace", "path": "/lines/0/qty", "value": 4, "kind": "direct"},
                    {
                        "op": "replace",
                        "path": "/label/count",
                        "value": "/lines/0/qty",
                        "kind": "cascade",
                        "match": "ref_equal",
                    },
                ],
                [
                    {"op": "replace", "path": "/lines/0/qty", "value": 4},
                    {"op": "replace", "path": "/label/count", "value": 4},
                ],
            ),
            (
                "Add a line of 2 in front.",
                [{"op": "add", "path": "/lines/0", "value": {"qty": 2}, "kind": "direct"}],
                None,
            ),
        ],
    )
    assert isinstance(case, Case)
    return case


def test_ref_equal_is_resolved_in_the_models_document_and_follows_array_shifts() -> None:
    case = _ref_chain()
    # turn 0: the count must equal the model's own qty; a wrong qty is one finding, not two
    score = judge_free(case, 0, {"lines": [{"qty": 5}], "label": {"count": 5}, "other": "x"})
    assert [(f.path, f.kind) for f in score.findings] == [("/lines/0/qty", "wrong_value")]
    # turn 1: the first line moved to index 1; the count must still equal its qty (4), not 2
    right = {"lines": [{"qty": 2}, {"qty": 4}], "label": {"count": 4}, "other": "x"}
    assert judge_free(case, 1, right).completed
    stuck = {"lines": [{"qty": 2}, {"qty": 4}], "label": {"count": 2}, "other": "x"}
    assert not judge_free(case, 1, stuck).completed


def test_an_over_edit_in_free_is_a_change_to_an_ungoverned_place() -> None:
    case = _ref_chain()
    right = {"lines": [{"qty": 2}, {"qty": 4}], "label": {"count": 4}, "other": "y"}
    score = judge_free(case, 1, right)
    assert [(f.kind, f.path, f.expected, f.got) for f in score.findings] == [
        ("over_edit", "/other", "x", "y")
    ]


def test_an_optional_place_may_keep_its_value_from_before_its_turn() -> None:
    optional = {
        "op": "replace",
        "path": "/memo",
        "value": "^total 3",
        "kind": "cascade",
        "match": "regex_match",
        "optional": True,
    }
    case = chain_case(
        {"n": 1, "memo": "total 1"},
        [
            (
                "n to 2",
                [
                    {"op": "replace", "path": "/n", "value": 2, "kind": "direct"},
                    {"op": "replace", "path": "/memo", "value": "total 2", "kind": "cascade"},
                ],
                None,
            ),
            (
                "n to 3",
                [{"op": "replace", "path": "/n", "value": 3, "kind": "direct"}, optional],
                None,
            ),
        ],
    )
    assert isinstance(case, Case)
    assert judge_free(case, 1, {"n": 3, "memo": "total 3!"}).completed
    assert judge_free(case, 1, {"n": 3, "memo": "total 2"}).completed  # kept from before turn 1
    # the value before the whole chain is not what turn 1 found: turn 0's change is missing
    assert not judge_free(case, 1, {"n": 3, "memo": "total 1"}).completed


def test_an_early_miss_then_a_repair_counts_in_free() -> None:
    case = cart_chain()
    forgot = without({"/total"}, solver(case, "gold"))  # turn 0 leaves the total alone
    repair = fed({0: forgot(turn_view(case, 0, case.artifact, []), 0)}, solver(case, "gold"))
    # turn 1's gold sets the total (44) whatever it was: the repair completes turn 1
    assert run_chain(case, "free", repair) == [False, True, True]


def test_one_wrong_turn_fails_alone_in_teacher_and_its_later_turns_in_free() -> None:
    case = cart_chain()
    # turn 1 forgets C's line total (a place no later turn sets again)
    double = fed({}, solver(case, "gold"))

    def answer(view: Case, turn: int) -> Patch:
        patch = double(view, turn)
        return [op for op in patch if not (turn == 1 and op["path"].endswith("/line"))]

    assert run_chain(case, "teacher", answer) == [True, False, True]
    assert run_chain(case, "free", answer) == [True, False, False]


# ---------------------------------------------------------------------------- reference solvers


@pytest.mark.parametrize("protocol", ["teacher", "free"])
@pytest.mark.parametrize("method", METHODS)
def test_reference_solvers_on_a_chain(protocol: str, method: str) -> None:
    case = cart_chain()
    assert run_chain(case, protocol, solver(case, "gold", method)) == [True, True, True]
    assert not all(run_chain(case, protocol, solver(case, "noop", method)))
    assert not all(run_chain(case, protocol, solver(case, "direct-only", method)))


def test_noop_and_direct_only_fail_every_turn_of_the_cart() -> None:
    case = cart_chain()
    for protocol in ("teacher", "free"):
        assert run_chain(case, protocol, solver(case, "noop")) == [False, False, False]
        assert run_chain(case, protocol, solver(case, "direct-only")) == [False, False, False]


# ---------------------------------------------------------------------------- regressions


def test_map_pointer_follows_insertions_and_removals() -> None:
    doc = {"items": [{"q": 1}, {"q": 2}, {"q": 3}], "x": {"y": 1}}
    assert (
        map_pointer("/items/1/q", doc, [{"op": "add", "path": "/items/0", "value": {}}])
        == "/items/2/q"
    )
    assert (
        map_pointer("/items/1/q", doc, [{"op": "add", "path": "/items/-", "value": {}}])
        == "/items/1/q"
    )
    assert map_pointer("/items/1/q", doc, [{"op": "remove", "path": "/items/0"}]) == "/items/0/q"
    assert map_pointer("/items/1/q", doc, [{"op": "remove", "path": "/items/1"}]) is None
    assert map_pointer("/x/y", doc, [{"op": "remove", "path": "/x"}]) is None
    assert (
        map_pointer("/items/0/q", doc, [{"op": "move", "from": "/items/2", "path": "/items/0"}])
        == "/items/1/q"
    )
    assert map_pointer("/x/y", doc, [{"op": "replace", "path": "/x", "value": 5}]) == "/x/y"
    assert map_pointer("/x/y", doc, [{"op": "remove", "path": "/nope"}]) is None


def test_teacher_regressions_are_earlier_places_the_turn_breaks() -> None:
    case = cart_chain()
    start = case.followups[0].artifact  # canonical before turn 1
    right = teacher_patch(case, 1)
    assert turn_regressions(case, 1, start, right) == []
    # turn 1 also rewrites the note (turn 0's regex place) to something it rejects
    broke = [*right, {"op": "replace", "path": "/note", "value": "lots"}]
    assert turn_regressions(case, 1, start, broke) == ["/note"]
    # a change turn 0's requirement still accepts is no regression
    fine = [*right, {"op": "replace", "path": "/note", "value": "3 items, all good"}]
    assert turn_regressions(case, 1, start, fine) == []
    # places turn 1 governs itself (subtotal, total) are judged by turn 1, not counted here
    redo = [*right, {"op": "replace", "path": "/total", "value": 1}]
    assert turn_regressions(case, 1, start, redo) == []
    # turn 1 edits inside C (turn 0's element): the rest of C is still turn 0's to keep
    price = [*right, {"op": "replace", "path": "/items/2/price", "value": 9}]
    assert turn_regressions(case, 1, start, price) == ["/items/2"]
    assert turn_regressions(case, 0, case.artifact, broke) == []


def test_regressions_follow_the_place_through_the_turns_array_edits() -> None:
    case = cart_chain()
    start = case.followups[1].artifact  # before turn 2: C (turn 0, 1) at index 2
    right = teacher_patch(case, 2)
    assert turn_regressions(case, 2, start, right) == []
    broke = [*right, {"op": "replace", "path": "/items/1/qty", "value": 1}]  # C is at 1 now
    assert turn_regressions(case, 2, start, broke) == ["/items/1/qty"]
    # removing C (instead of A) loses turn 0's place (C) and turn 1's two (its qty and line)
    wrong = [{"op": "remove", "path": "/items/2"}, *right[1:]]
    assert turn_regressions(case, 2, start, wrong) == ["/items/2", "/items/2/line", "/items/2/qty"]


def test_free_regressions_count_only_places_that_were_right_before() -> None:
    case = cart_chain()
    before = canonical_after(case, 0)
    before_wrong = {**before, "note": "nope"}  # turn 0's note was already wrong
    patch = [*teacher_patch(case, 1), {"op": "replace", "path": "/note", "value": "still nope"}]
    assert turn_regressions(case, 1, before_wrong, patch) == []
    assert turn_regressions(case, 1, before, patch) == ["/note"]
    assert turn_regressions(case, 1, before, [{"op": "remove", "path": "/missing"}]) == []


def _day_chain() -> Case:
    """Turn 0 adds a rest day judged by a regex over the whole day (its date and its plan);
    turn 1 moves that day's date (a strict edit inside the regex's place)."""
    rest = {"date": "05-04", "plan": "Rest day"}
    pattern = '(?is)"date":\\s*"05-04".*"plan":\\s*"[^"]*rest'
    add = {"op": "add", "path": "/days/1", "value": pattern, "kind": "direct"}
    add["match"] = "regex_match"
    move = {"op": "replace", "path": "/days/1/date", "value": "05-05", "kind": "direct"}
    case = chain_case(
        {"days": [{"date": "05-03", "plan": "Arrive"}], "n": 1},
        [
            ("Add a rest day on 05-04.", [add], [{"op": "add", "path": "/days/1", "value": rest}]),
            ("Make the rest day 05-05.", [move], None),
        ],
    )
    assert isinstance(case, Case)
    return case


def test_a_regex_over_an_object_with_a_later_edit_inside_it() -> None:
    case = _day_chain()
    arrive = {"date": "05-03", "plan": "Arrive"}
    # the model's own plan text (its turn-0 answer) still passes; the date is turn 1's
    mine = {"days": [arrive, {"date": "05-05", "plan": "Lazy rest, no plans"}], "n": 1}
    assert judge_free(case, 1, mine).completed
    unmoved = {"days": [arrive, {"date": "05-04", "plan": "Lazy rest, no plans"}], "n": 1}
    assert not judge_free(case, 1, unmoved).completed
    busy = {"days": [arrive, {"date": "05-05", "plan": "Museum"}], "n": 1}
    assert not judge_free(case, 1, busy).completed  # turn 0's regex still holds the rest
    # the teacher patch of turn 1 breaks nothing of turn 0's; a plan change does
    start = case.followups[0].artifact
    assert turn_regressions(case, 1, start, teacher_patch(case, 1)) == []
    busier = [*teacher_patch(case, 1), {"op": "replace", "path": "/days/1/plan", "value": "Zoo"}]
    assert turn_regressions(case, 1, start, busier) == ["/days/1"]


def test_reference_patch_of_each_solver() -> None:
    case = cart_chain()
    assert reference_patch(case, 1, "gold") == teacher_patch(case, 1)
    assert reference_patch(case, 1, "noop") == []
    assert reference_patch(case, 0, "direct-only") == [
        {"op": "add", "path": "/items/2", "value": {"sku": "C", "qty": 1, "price": 8, "line": 8}}
    ]
    assert reference_patch(case, 2, "direct-only") == [{"op": "remove", "path": "/items/0"}]
    with pytest.raises(ValueError, match="unknown reference solver"):
        reference_patch(case, 0, "oracle")


def test_a_removal_then_an_addition_moves_the_untouched_elements() -> None:
    # A: [a, b, c]; turn 0 drops a, turn 1 appends d: [b, c, d], as long as A, every element
    # moved: b and c are judged where they went, not against A's element at the same index
    case = chain_case(
        {"tags": ["a", "b", "c"]},
        [
            ("Drop a.", [{"op": "remove", "path": "/tags/0", "kind": "direct"}], None),
            ("Add d.", [{"op": "add", "path": "/tags/-", "value": "d", "kind": "direct"}], None),
        ],
    )
    assert isinstance(case, Case)
    assert judge_free(case, 1, {"tags": ["b", "c", "d"]}).completed
    score = judge_free(case, 1, {"tags": ["b", "x", "d"]})
    assert [(f.kind, f.path, f.expected, f.got) for f in score.findings] == [
        ("over_edit", "/tags/1", "c", "x")
    ]


def test_a_place_inside_an_already_wrong_one_counts_on_its_own() -> None:
    case = cart_chain()
    before = copy.deepcopy(case.followups[1].artifact)
    before["items"][2]["line"] = 8  # the model missed C's line in turn 1 (free)
    patch = [*teacher_patch(case, 2), {"op": "replace", "path": "/items/1/qty", "value": 1}]
    assert turn_regressions(case, 2, before, patch) == ["/items/1/qty"]
    assert turn_regressions(case, 2, before, teacher_patch(case, 2)) == []


@pytest.mark.parametrize("make", [cart_chain, _day_chain, _ref_chain])
def test_the_gold_solver_makes_no_regression(make: Callable[[], Case]) -> None:
    case = make()
    document = case.artifact
    for turn in chain_turns(case):
        patch = reference_patch(case, turn.index, "gold")
        assert turn_regressions(case, turn.index, turn.artifact, patch) == []  # teacher
        assert turn_regressions(case, turn.index, document, patch) == []  # free
        document = apply_patch(document, patch)
        assert judge_free(case, turn.index, document).completed


def test_an_optional_strict_place_the_canonical_document_left_alone() -> None:
    memo = {"op": "replace", "path": "/memo", "value": "n is 2", "kind": "cascade"}
    memo["optional"] = True
    case = chain_case(
        {"n": 1, "memo": "n is 1", "k": 0},
        [
            # the canonical document after turn 0 keeps the memo (the option not taken)
            (
                "n to 2",
                [{"op": "replace", "path": "/n", "value": 2, "kind": "direct"}, memo],
                [{"op": "replace", "path": "/n", "value": 2}],
            ),
            ("k to 1", [{"op": "replace", "path": "/k", "value": 1, "kind": "direct"}], None),
        ],
    )
    assert isinstance(case, Case)
    assert case.followups[0].artifact["memo"] == "n is 1"
    for memo_value in ("n is 1", "n is 2"):
        assert judge_free(case, 1, {"n": 2, "memo": memo_value, "k": 1}).completed
    assert not judge_free(case, 1, {"n": 2, "memo": "n is 3", "k": 1}).completed


def test_reference_solvers_on_the_shipped_chains() -> None:
    chains = [c for c in load_cases([BENCHMARK_DIR]).cases if c.size == 10 and c.followups]
    assert len(chains) >= 40  # every scenario of the benchmark has follow-ups
    for case in chains:
        for protocol in ("teacher", "free"):
            assert all(run_chain(case, protocol, solver(case, "gold"))), (case.id, protocol)
            assert not all(run_chain(case, protocol, solver(case, "noop"))), (case.id, protocol)
            direct = run_chain(case, protocol, solver(case, "direct-only"))
            assert not all(direct), (case.id, protocol)
        for turn in chain_turns(case):
            assert judge_free(case, turn.index, canonical_after(case, turn.index)).completed
