"""The tentative gold on hand-made drafts, with a scripted ``ask`` per seed (the methods'
own callable): kinds, flags, proposals left out, plain operations, and refusals."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from helpers.handmade_cases import make_case

from pytest_revprop.authoring.synth.gold_draft import GoldDraft, GoldFailed, draft_gold
from pytest_revprop.core.prompts import default_prompts
from pytest_revprop.llm.types import Reply

CART = make_case(
    {"items": [{"sku": "A1", "price": 10}, {"sku": "B2", "price": 5}], "count": 2, "sum": 15},
    [],
)
ADD = {"op": "add", "path": "/items/-", "value": {"sku": "C3", "price": 7}}
APPEND = [
    {"op": "add", "path": "/items/-", "value": {"sku": "C3", "price": 7}},
    {"op": "replace", "path": "/count", "value": 3},
    {"op": "replace", "path": "/sum", "value": 22},
]


def _gold(answers: dict[int, Any], edit: dict[str, Any], rule: str = "maj") -> GoldDraft:
    async def ask(messages: list[dict[str, str]], seed: int, purpose: str, priority: int) -> Reply:
        answer = answers[seed]
        return Reply(content=answer if isinstance(answer, str) else json.dumps(answer))

    return asyncio.run(
        draft_gold(CART, edit, ask, rule=rule, k=3, seed=0, prompts=default_prompts())
    )


def test_an_appended_element_is_the_direct_operation_and_its_dependents_cascade() -> None:
    draft = _gold({0: APPEND, 1: APPEND, 2: APPEND}, ADD)
    assert [(op["op"], op["path"], op["kind"]) for op in draft.gold] == [
        ("add", "/items/-", "direct"),
        ("replace", "/count", "cascade"),
        ("replace", "/sum", "cascade"),
    ]
    assert (draft.flags, draft.left_out, draft.seeds, draft.valid_samples) == ([], [], [0, 1, 2], 3)


def test_an_operation_some_samples_miss_is_flagged_and_a_minority_proposal_left_out() -> None:
    wrong_sum = [*APPEND[:2], {"op": "replace", "path": "/sum", "value": 21}]
    draft = _gold({0: APPEND, 1: APPEND[:2], 2: wrong_sum}, ADD)
    assert [op["path"] for op in draft.gold] == ["/items/-", "/count"]
    assert draft.flags == []
    assert draft.left_out == [
        {"path": "/sum", "samples": 1, "value": 22},
        {"path": "/sum", "samples": 1, "value": 21},
    ]
    unanimous_but_one = _gold({0: APPEND, 1: APPEND, 2: APPEND[:2]}, ADD)
    assert unanimous_but_one.flags == [
        {"gold": 2, "reason": "samples disagree on this cascade operation (2 of 3 make it)"}
    ]


def test_an_invalid_sample_agrees_with_nothing() -> None:
    draft = _gold({0: APPEND, 1: APPEND, 2: "no idea"}, ADD)
    assert [f["gold"] for f in draft.flags] == [0, 1, 2]
    assert draft.valid_samples == 2


def test_gold_operations_are_plain_add_remove_replace_without_extra_members() -> None:
    chatty = [{**op, "kind": "direct", "note": "why"} for op in APPEND]
    chatty.append({"op": "test", "path": "/count", "value": 3})
    draft = _gold({0: chatty, 1: chatty, 2: chatty}, ADD)
    assert [set(op) - {"kind"} for op in draft.gold] == [{"op", "path", "value"}] * 3
    edit = {"op": "add", "path": "/items/-", "value": {"sku": "A1", "price": 10}}
    copying = [{"op": "copy", "from": "/items/0", "path": "/items/-"}, *APPEND[1:]]
    copied = _gold({0: copying, 1: copying, 2: copying}, edit)
    assert [op["op"] for op in copied.gold] == ["replace", "replace", "replace"]
    assert copied.flags[0]["reason"].startswith("the requested change of /items/2 is inside")


def test_a_direct_edit_inside_a_larger_replacement_is_flagged() -> None:
    whole = [
        {"op": "replace", "path": "/items", "value": [*CART.artifact["items"], ADD["value"]]},
        *APPEND[1:],
    ]
    draft = _gold({0: whole, 1: whole, 2: whole}, ADD)
    assert draft.gold[0]["kind"] == "direct"
    assert draft.flags == [
        {
            "gold": 0,
            "reason": "the requested change of /items/2 is inside this larger operation: "
            "split it so that the direct edit stands alone",
        }
    ]


def test_a_removed_element_is_the_requested_change() -> None:
    remove = [
        {"op": "remove", "path": "/items/1"},
        {"op": "replace", "path": "/count", "value": 1},
        {"op": "replace", "path": "/sum", "value": 10},
    ]
    draft = _gold({0: remove, 1: remove, 2: remove}, {"op": "remove", "path": "/items/1"})
    assert [op["kind"] for op in draft.gold] == ["direct", "cascade", "cascade"]


@pytest.mark.parametrize(
    ("answers", "reason"),
    [
        ({0: "no", 1: "no", 2: "no"}, "no gold sample gave a usable patch (no_patch)"),
        ({0: APPEND[1:], 1: APPEND[1:], 2: APPEND[1:]}, "does not make the requested change"),
    ],
)
def test_a_gold_without_the_requested_change_is_refused(answers: Any, reason: str) -> None:
    with pytest.raises(GoldFailed) as info:
        _gold(answers, ADD)
    assert reason in info.value.reasons[0]
