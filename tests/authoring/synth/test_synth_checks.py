"""The checks after each writer step, on hand-made documents: what passes, and the reason
each failure sends back to the model."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_revprop.authoring.synth.checks import (
    Dependency,
    Limits,
    check_request,
    check_size,
    check_turn,
)
from pytest_revprop.authoring.synth.replies import object_in

LIMITS = Limits(target=10, per_turn=3, tolerance=1)
DOC = {"line": {"hours": 12, "rate": 85, "amount": 1020}, "items": [{"sku": "A1"}]}
AMOUNT = Dependency("/line/amount", ("/line/hours", "/line/rate"), "hours times rate", 1)
ITEMS_COUNT = Dependency("/item_count", ("/items",), "how many items", 2)


def _turn(patch: list[dict[str, Any]], derived: list[Any] | None = None, **extra: Any) -> Any:
    return {"user": "Note this, please.", "patch": patch, "derived": derived or [], **extra}


def _add(path: str, value: Any) -> dict[str, Any]:
    return {"op": "add", "path": path, "value": value}


def _reasons(reply: Any, doc: Any = DOC, earlier: tuple[Dependency, ...] = (AMOUNT,)) -> list[str]:
    step, reasons = check_turn(reply, doc, earlier, LIMITS, 3)
    assert (step is None) == bool(reasons)
    return reasons


def test_a_good_turn_passes_with_its_dependencies() -> None:
    reply = _turn(
        [_add("/discount_percent", 10), _add("/discount", 102.0)],
        [
            {
                "path": "/discount",
                "from": ["/line/amount", "/discount_percent"],
                "rule": "10%",
                "formula": "{/line/amount} * {/discount_percent} / 100",
            }
        ],
    )
    step, reasons = check_turn(reply, DOC, [AMOUNT], LIMITS, 3)
    assert reasons == []
    assert step is not None
    formula = "{/line/amount} * {/discount_percent} / 100"
    assert step.dependencies == (
        Dependency("/discount", ("/line/amount", "/discount_percent"), "10%", 3, formula),
    )
    assert step.dependencies[0].to_dict()["formula"] == formula


def test_an_append_with_a_dash_path_is_a_new_place() -> None:
    assert _reasons(_turn([_add("/items/-", {"sku": "B2"})])) == []


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ({"patch": [_add("/a", 1)]}, 'no "user" message'),
        (_turn([]), 'no "patch"'),
        (_turn([_add("/a", 1)], derived={"a": 1}), '"derived" must be a list'),
        (_turn([{"op": "replace", "path": "/line/hours", "value": 3}]), "is not an add operation"),
        (_turn([{"op": "add", "path": "/a", "value": 1, "kind": "x"}]), 'exactly "op", "path"'),
        (_turn([_add("/missing/a", 1)]), "does not apply: its parent is missing"),
        (_turn([_add("/line/hours", 14)]), "which is already there"),
        (_turn([_add("/items/0", {"sku": "Z"})]), "append with a path ending in /-"),
        (_turn([_add("/a", {})]), "adds no primitive value"),
        (_turn([_add("/a", [1, 2, 3, 4])]), "adds 4 primitive values; at most 3 this turn"),
        ({"user": "Add the key.", "patch": [_add("/a", 1)]}, "uses the word 'key'"),
    ],
)
def test_a_bad_turn_fails_with_a_reason(reply: Any, reason: str) -> None:
    assert any(reason in r for r in _reasons(reply)), _reasons(reply)


def test_the_turn_that_reaches_the_target_may_exceed_the_per_turn_limit_by_the_tolerance() -> None:
    doc = {"a": [1, 2, 3, 4, 5]}
    assert _reasons(_turn([_add("/b", [1, 2, 3, 4])]), doc, ()) == []
    assert (
        "more than the target of 10"
        in _reasons(_turn([_add("/b", [1, 2, 3, 4, 5, 6, 7])]), doc, ())[-1]
    )


def test_a_value_computed_from_a_later_one_is_refused() -> None:
    reply = _turn(
        [_add("/discount", 102.0), _add("/discount_percent", 10)],
        [{"path": "/discount", "from": ["/line/amount", "/discount_percent"]}],
    )
    (reason,) = _reasons(reply)
    assert reason.startswith("/discount is computed from /discount_percent, which is not there")


def test_values_stated_by_the_same_operation_may_depend_on_each_other() -> None:
    reply = _turn(
        [_add("/fee", {"base": 5, "total": 6})],
        [{"path": "/fee/total", "from": ["/fee/base"], "formula": "{/fee/base} + 1"}],
    )
    assert _reasons(reply) == []


def _declared(value: Any, formula: Any) -> list[str]:
    """The reasons for a turn adding /line2 = {hours: 12, rate: 85, amount: value}."""
    line = {"hours": 12, "rate": 85, "amount": value}
    entry = {"path": "/line2/amount", "from": ["/line2/hours", "/line2/rate"], "rule": "times"}
    if formula is not None:
        entry["formula"] = formula
    return _reasons(_turn([_add("/line2", line)], [entry]), {"a": 1}, ())


def test_every_declared_arithmetic_dependency_is_evaluated() -> None:
    """A draft saying 12 x 85 = 1000 fails when the writer declared that /line/amount is
    hours times rate: every declared formula is evaluated."""
    (reason,) = _declared(1000, "{/line2/hours} * {/line2/rate}")
    assert reason == (
        "/line2/amount is 1000, but its formula {/line2/hours} * {/line2/rate} gives 1020 "
        "(12 * 85): fix the value or the formula"
    )
    assert _declared(1020, "{/line2/hours} * {/line2/rate}") == []
    (reason,) = _declared(1000, None)  # a number from numbers must say how
    assert 'is computed from numbers: give its "formula"' in reason


@pytest.mark.parametrize(
    ("value", "formula", "reason"),
    [
        (1020, "{/line2/hours} ** {/line2/rate}", "is not allowed"),
        (1020, "__import__('os')", "is not allowed"),
        (1020, "{/line2/hours} * {/line2/nope}", "the formula uses /line2/nope"),
        (1020, "{/line2/hours} / 0", "divides by zero"),
        (1020, "{/line2/hours} *", "not an arithmetic expression"),
        (1020, 12, '"formula" must be a string'),
    ],
)
def test_a_formula_that_cannot_be_evaluated_is_refused(
    value: Any, formula: Any, reason: str
) -> None:
    assert any(reason in r for r in _declared(value, formula)), _declared(value, formula)


@pytest.mark.parametrize(
    ("value", "formula"),
    [
        (73.44, "round(918 * 8 / 100, 2)"),
        (73.44, "918 * 0.08"),  # 73.44000000000001: equal to the cent it is written with
        (3, "len({/items})"),
        (85, "max({/line/rate}, {/line/hours})"),
    ],
)
def test_a_formula_holds_to_the_precision_the_value_is_written_with(
    value: Any, formula: str
) -> None:
    from pytest_revprop.authoring.synth.formulas import agrees, evaluate

    doc = {"items": [1, 2, 3], "line": {"hours": 12, "rate": 85}}
    assert agrees(value, evaluate(formula, doc))
    assert not agrees(73.45, 73.44) and not agrees(1021, 1020) and agrees(1020, 1020.4)


def test_an_aggregate_name_must_be_declared() -> None:
    (reason,) = _reasons(_turn([_add("/grand_total", 1100)]))
    assert reason.startswith("/grand_total looks computed from other values")


def test_nothing_is_added_inside_what_an_earlier_aggregate_reads() -> None:
    reasons = _reasons(_turn([_add("/items/-", {"sku": "B2"})]), earlier=(ITEMS_COUNT,))
    assert reasons == [
        "adding /items/1 changes /items, which /item_count (turn 2) is computed from: "
        "add only values that no earlier aggregate depends on"
    ]


def test_a_declared_value_must_be_added_by_the_turn() -> None:
    reply = _turn([_add("/a", 1)], [{"path": "/line/amount", "from": ["/a"]}])
    assert "declares /line/amount, which this turn does not add" in _reasons(reply)[0]


def test_the_size_is_within_the_tolerance() -> None:
    assert check_size({"a": list(range(9))}, LIMITS, 5) == []
    assert check_size({"a": list(range(8))}, LIMITS, 5) == [
        "after 5 turns the document holds 8 primitive values; the target is 10, give or take 1"
    ]


def _request(text: str, op: str, path: str, value: Any = None) -> Any:
    edit = {"op": op, "path": path} | ({} if op == "remove" else {"value": value})
    return {"request": text, "edit": edit}


def test_a_good_request_names_one_leaf_and_states_its_value() -> None:
    step, reasons = check_request(
        _request("We worked 14 hours, not 12.", "replace", "/line/hours", 14), DOC, [AMOUNT]
    )
    assert reasons == []
    assert step is not None
    assert step.edit == {"op": "replace", "path": "/line/hours", "value": 14}


def test_requests_may_add_or_remove_one_list_element() -> None:
    added = _request("Add item B2.", "add", "/items/-", {"sku": "B2"})
    removed = _request("Drop the first item.", "remove", "/items/0")
    assert check_request(added, DOC, [ITEMS_COUNT])[1] == []
    assert check_request(removed, DOC, [ITEMS_COUNT])[1] == []


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ({"edit": {"op": "replace", "path": "/line/hours", "value": 1}}, 'no "request"'),
        ({"request": "Change it."}, 'no "edit"'),
        (_request("Change the line.", "replace", "/line", 1), "name one single value"),
        (_request("Make it 3.", "replace", "/nope", 3), "which the document does not have"),
        (_request("Make it more.", "replace", "/line/hours", None), "one concrete new value"),
        (_request("Keep 12 hours.", "replace", "/line/hours", 12), "equals its current value"),
        (
            _request("A few more hours.", "replace", "/line/hours", 14),
            "does not state the new value 14",
        ),
        (_request("Add the key 5.", "replace", "/line/hours", 5), "uses the word 'key'"),
        (_request("Add one.", "add", "/line/x", {"sku": "B"}), "not a place in a list"),
        (_request("Drop it.", "remove", "/line/hours"), "not an element of a list"),
        (_request("Rate is 90 now.", "replace", "/line/rate", 90), None),
    ],
)
def test_a_bad_request_fails_with_a_reason(reply: Any, reason: str | None) -> None:
    _, reasons = check_request(reply, DOC, [AMOUNT])
    if reason is None:
        assert reasons == []
    else:
        assert any(reason in r for r in reasons), reasons


def test_a_request_that_forces_nothing_else_is_refused() -> None:
    _, reasons = check_request(
        _request("Use SKU C3.", "replace", "/items/0/sku", "C3"), DOC, [AMOUNT]
    )
    assert reasons[0].startswith("no value declared in the conversation depends on /items/0/sku")


def test_the_reply_object_is_the_last_fenced_one_else_the_first_in_the_text() -> None:
    assert object_in('Here:\n```json\n{"a": 1}\n```\nor\n```\n{"a": 2}\n```') == {"a": 2}
    assert object_in('I think [1] and {"a": 3} then {"a": 4}') == {"a": 3}
    assert object_in('{"a": NaN} {"a": 5}') == {"a": 5}
    assert object_in("no object [1, 2]") is None
