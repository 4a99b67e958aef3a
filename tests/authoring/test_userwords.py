"""The user's-words build checks: unspelled names and facts a size drops (worked examples from
the blind review's wrong golds, properties, and the build refusing a scenario with them)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_revprop.authoring.assembly import build_case
from pytest_revprop.authoring.scenario import Revision, Scenario, ScenarioError, Turn, regex
from pytest_revprop.authoring.userwords import (
    dropped_facts,
    request_facts,
    unsaid_places,
    unspelled_names,
)


def _add(path: str, value: Any, **extra: Any) -> dict[str, Any]:
    return {"op": "add", "path": path, "value": value, "kind": "direct", **extra}


PAD = {"part": "Felt base pad", "qty_per_lamp": 1, "unit_cost": 0.12}
LAMP = {"components": [{"part": "M3 hinge screw", "qty_per_lamp": 5, "unit_cost": 0.06}]}


# --------------------------------------------------------------------------- unspelled names


def test_a_name_the_request_never_spells_is_reported_with_what_it_says() -> None:
    (line,) = unspelled_names(
        "Add a felt base pad, one per lamp at $0.12.", None, [_add("/components/1", PAD)], [LAMP]
    )
    assert line.startswith("/components/1/part holds the name 'Felt base pad'")
    assert "(it says 'felt base pad')" in line and "regex" in line


@pytest.mark.parametrize(
    ("request_text", "reference", "known", "spoken"),
    [
        ("Add a new part, Felt base pad: one per lamp at $0.12.", None, [LAMP], []),
        ("Add the pad from the quote.", {"part": "Felt base pad"}, [LAMP], []),
        ("Put the pad back.", None, [{"components": [PAD]}, LAMP], []),
        ("Add the pad I mentioned.", None, [LAMP], ["We may need a Felt base pad later."]),
    ],
    ids=["request", "reference", "an earlier document", "the conversation"],
)
def test_a_name_spelled_by_the_user_or_known_before_is_not_reported(
    request_text: str, reference: Any, known: list[Any], spoken: list[str]
) -> None:
    assert (
        unspelled_names(request_text, reference, [_add("/components/1", PAD)], known, spoken) == []
    )


def test_a_pattern_computed_values_and_removals_are_not_names() -> None:
    gold = [
        {"op": "replace", "path": "/items/1/name", "value": "(?i)^feather wand toys?$",
         "kind": "direct", "match": "regex_match"},
        {"op": "replace", "path": "/items/1/status", "value": "Backordered", "kind": "cascade"},
        {"op": "replace", "path": "/launch_date", "value": "2025-08-10", "kind": "cascade"},
        {"op": "remove", "path": "/items/0", "kind": "cascade"},
    ]  # fmt: skip
    assert unspelled_names("Swap the mice for two feather wand toys.", None, gold, [{}]) == []


@given(
    name=st.text(alphabet="abcdefghij XYZ-", min_size=1, max_size=20),
    before=st.text(alphabet="klmnop ", max_size=10),
)
def test_a_name_the_request_holds_verbatim_is_never_reported(name: str, before: str) -> None:
    gold = [_add("/items/0", {"name": name, "price": 3})]
    assert unspelled_names(f"{before}{name}.", None, gold, [{}]) == []


@given(name=st.text(alphabet="bcfghijk ", min_size=1, max_size=20).filter(str.strip))
def test_a_name_the_request_holds_only_in_other_case_is_always_reported(name: str) -> None:
    written = name.upper()
    gold = [_add("/items/0", {"name": written, "price": 3})]
    (line,) = unspelled_names(f"Add {name}.", None, gold, [{}])
    assert f"holds the name {written!r}" in line and f"(it says {written.lower()!r})" in line


# --------------------------------------------------------------------------- facts the size drops

EVENING = (
    "Add an evening section 03: Prof. Victor Hale, Wed at 18:00 in Hum 305, 18 seats, "
    "TA Ben Ortiz, open for registration."
)


def test_facts_an_added_element_has_no_place_for_are_reported() -> None:
    small = {"section": "03", "status": "open", "room": "Hum 305", "seats": 18}
    after = {"course": "ENG 102", "sections": [small]}
    (line,) = dropped_facts(EVENING, None, [_add("/sections/0", small)], after)
    assert line.startswith("/sections/0 is added, but the request names 'Prof. Victor Hale', ")
    assert "'Wed', '18:00', 'Ben Ortiz'" in line and "write the request for this size" in line


def test_facts_the_size_holds_are_not_reported_nor_a_turn_that_adds_no_element() -> None:
    big = {"section": "03", "instructor": "Prof. Victor Hale", "days": "Wed", "time": "18:00",
           "room": "Hum 305", "seats": 18, "ta": "Ben Ortiz"}  # fmt: skip
    assert dropped_facts(EVENING, None, [_add("/sections/0", big)], {"sections": [big]}) == []
    replace = [{"op": "replace", "path": "/room", "value": "Hum 305", "kind": "direct"}]
    assert dropped_facts(EVENING, None, replace, {"room": "Hum 305"}) == []


def test_request_facts_are_people_days_times_and_codes_not_sentence_starts_or_acronyms() -> None:
    assert request_facts(EVENING) == ["Prof. Victor Hale", "Wed", "18:00", "Hum", "Ben Ortiz"]
    assert request_facts(
        "Add a task called Localization right after beta testing: 4 days, owned by Mei."
    ) == ["Localization", "Mei"]
    assert request_facts("The BOM needs LA-195. Add it with Dr. Ruth Adeyemi, Mon/Thu.") == [
        "LA-195", "Dr. Ruth Adeyemi", "Mon", "Thu",
    ]  # fmt: skip


@given(
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
    held=st.booleans(),
)
def test_a_time_is_reported_exactly_when_the_document_after_does_not_hold_it(
    hour: int, minute: int, held: bool
) -> None:
    time = f"{hour:02d}:{minute:02d}"
    element = {"slot": "evening", **({"time": time} if held else {})}
    lines = dropped_facts(f"add an evening slot at {time}", None, [_add("/slots/0", element)],
                          {"slots": [element]})  # fmt: skip
    assert (lines == []) is held


WAND = "Swap the catnip mice for two feather wand toys (PP-FW-01), $8.99 each."
SWAP_NAME = {"op": "replace", "path": "/items/1/name", "value": "(?i)^feather wand toys?$",
             "kind": "direct", "match": "regex_match"}  # fmt: skip


def test_facts_a_swapped_element_has_no_place_for_are_reported() -> None:
    after = {"items": [{"name": "Kibble", "qty": 1}, {"name": "Feather wand toy", "qty": 2}]}
    (line,) = dropped_facts(WAND, None, [SWAP_NAME], after)
    assert line.startswith("/items/1/name is swapped, but the request names 'PP-FW-01'")
    whole = {"op": "replace", "path": "/items/1", "value": after["items"][1], "kind": "direct"}
    assert dropped_facts(WAND, None, [whole], after)[0].startswith("/items/1 is swapped")
    sized = {"items": [after["items"][0], {**after["items"][1], "sku": "PP-FW-01"}]}
    assert dropped_facts(WAND, None, [SWAP_NAME], sized) == []


def test_a_fact_only_the_document_before_holds_names_what_the_turn_replaces() -> None:
    request = "Swap the Sony headphones for the Bose QuietComfort Ultra."
    gold = [{"op": "replace", "path": "/items/0/name", "value": "Bose QuietComfort Ultra",
             "kind": "direct"}]  # fmt: skip
    before = {"items": [{"name": "Sony WH-1000XM5"}]}
    after = {"items": [{"name": "Bose QuietComfort Ultra"}]}
    assert "'Sony'" in dropped_facts(request, None, gold, after)[0]
    assert dropped_facts(request, None, gold, after, [before]) == []


SERVICES = {"services": [{"name": n} for n in ("web", "api", "reporting", "audit-log")]}


@pytest.mark.parametrize(
    "request_text",
    [
        "Bring the reporting service back, exactly as it was.",
        "The shop sold out before I got there. Put the lamp back in the order.",
        "We did pour the toast after all. Put it back on the invoice.",
    ],
    ids=["as it was", "before I", "after all"],
)
def test_an_insertion_before_the_end_that_the_request_does_not_place_is_reported(
    request_text: str,
) -> None:
    gold = [_add("/services/2", {"name": "reporting"})]
    (line,) = unsaid_places(request_text, gold, SERVICES)
    assert line.startswith("/services/2 is inserted before the end of its array, but the request")


@pytest.mark.parametrize(
    "request_text",
    [
        "Bring the reporting service back, in its old place right after api.",
        "Add PHYS 110 in its place: 4 credits.",
        "Put the bumper ring back where it was.",
        "Add a task called Localization right after beta testing.",
    ],
)
def test_an_insertion_the_request_places_is_not_reported(request_text: str) -> None:
    assert unsaid_places(request_text, [_add("/services/2", {"name": "x"})], SERVICES) == []


def test_an_append_and_a_list_a_rule_keeps_are_not_reported() -> None:
    request = "Add the audit-log service."
    assert unsaid_places(request, [_add("/services/3", {"name": "audit-log"})], SERVICES) == []
    two = [_add("/services/2", {"name": "a"}), _add("/services/3", {"name": "b"})]
    assert unsaid_places(request, two, SERVICES) == []
    rule = [{**_add("/services/1", {"name": "api"}), "kind": "cascade"}]
    assert unsaid_places(request, rule, SERVICES) == []


@given(length=st.integers(1, 8), data=st.data())
def test_an_unplaced_insertion_is_reported_exactly_when_an_element_follows_it(
    length: int, data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, length - 1))
    after = {"xs": list(range(length))}
    lines = unsaid_places("Add one more.", [_add(f"/xs/{index}", index)], after)
    assert (lines != []) is (index < length - 1)


# --------------------------------------------------------------------------- the build


def _compute(p: dict[str, Any]) -> dict[str, Any]:
    items = [{"name": "Oak desk", "price": p["desk"]}, {"name": "Desk lamp", "price": 40}]
    items += [{"name": n, "price": c} for n, c in p["extra"]]
    return {
        "shop": "Nook",
        "order": "N-1001",
        "currency": "USD",
        "note": "leave at the door",
        "items": items,
        "total": sum(i["price"] for i in items),
        "paid": False,
    }


def _conversation(p: dict[str, Any]) -> list[Turn]:
    return [
        (
            "My Nook order N-1001, in USD, not paid yet; leave it at the door.",
            ["/shop", "/order", "/currency", "/paid", "/note"],
        ),
        ("An oak desk at $200 and a desk lamp at $40; keep the total.", ["/items", "/total"]),
    ]


def _shop(followup: Revision, first: str = "Make the desk $180.") -> Scenario:
    return Scenario(
        id="cart-toy-words",
        domain="shopping_cart",
        pattern="arithmetic",
        theme="Item prices drive the total",
        params=lambda size: {"desk": 200, "extra": []},
        compute=_compute,
        conversation=_conversation,
        revision=lambda p: Revision(first, lambda q: q.update(desk=180), "/items/0/price"),
        followups=lambda p: [followup],
    )


def _pad(request: str, **kw: Any) -> Revision:
    return Revision(
        request, lambda q: q["extra"].append(("Felt pad", 3)), "/items/2",
        theme="One more item", pattern="add_remove", **kw,
    )  # fmt: skip


def test_the_build_refuses_an_unspelled_name_naming_scenario_size_turn_and_place() -> None:
    with pytest.raises(ScenarioError) as info:
        build_case(_shop(_pad("Add a felt pad at $3.")), 10)
    assert str(info.value).startswith(
        "scenario cart-toy-words size 10 turn 1: /items/2/name holds the name 'Felt pad', which "
        "the request never spells (it says 'felt pad')"
    )
    assert build_case(_shop(_pad("Add one more item, Felt pad, at $3.")), 10)["followups"]


def test_the_build_refuses_facts_the_size_drops_and_takes_a_pattern_for_a_swapped_name() -> None:
    with pytest.raises(ScenarioError, match=r"size 10 turn 1: /items/2 is added, but the request "
                       r"names 'Mia Ortiz', "):  # fmt: skip
        build_case(_shop(_pad("Add a Felt pad from Mia Ortiz at $3.")), 10)

    def swap(q: dict[str, Any]) -> None:
        q["floor"] = True

    request = "Swap the desk lamp for a floor lamp at $60."
    strict = Revision(request, swap, "/items/1/name", theme="A swap", pattern="substitution")
    pattern = Revision(
        request, swap, "/items/1/name", theme="A swap", pattern="substitution",
        overrides={"/items/1/name": regex(r"(?i)^floor lamp$")},
    )  # fmt: skip

    def compute(p: dict[str, Any]) -> dict[str, Any]:
        doc = _compute(p)
        if p.get("floor"):
            doc["items"][1] = {"name": "Floor lamp", "price": 60}
            doc["total"] = sum(i["price"] for i in doc["items"])
        return doc

    def scenario(followup: Revision) -> Scenario:
        return dataclasses.replace(_shop(followup), compute=compute)

    with pytest.raises(ScenarioError, match=r"turn 1: /items/1/name holds the name 'Floor lamp'"):
        build_case(scenario(strict), 10)
    assert build_case(scenario(pattern), 10)["followups"][0]["gold"][0]["match"] == "regex_match"


def test_the_build_refuses_an_insertion_the_request_does_not_place() -> None:
    def compute(p: dict[str, Any]) -> dict[str, Any]:
        doc = _compute(p)
        if p.get("rug"):
            doc["items"].insert(1, {"name": "Rug", "price": 30})
            doc["total"] = sum(i["price"] for i in doc["items"])
        return doc

    def rug(request: str) -> Scenario:
        followup = Revision(
            request, lambda q: q.update(rug=True), "/items/1", theme="A rug",
            pattern="add_remove",
        )  # fmt: skip
        return dataclasses.replace(_shop(followup), compute=compute)

    with pytest.raises(ScenarioError, match=r"size 10 turn 1: /items/1 is inserted before the end"):
        build_case(rug("Add a Rug at $30."), 10)
    assert build_case(rug("Add a Rug at $30, right after the desk."), 10)["followups"]
