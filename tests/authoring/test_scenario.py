"""The scenario authoring layer: the gold patch, conversation plumbing, build-time rules, helpers."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_revprop.authoring.assembly import build_case, conversation_ops
from pytest_revprop.authoring.gold import gold_patch, literal_gold
from pytest_revprop.authoring.helpers import (
    add_days,
    all_of,
    all_of_lazy,
    days_between,
    each,
    leaf_breakdown,
    leaf_count,
    members,
    money,
)
from pytest_revprop.authoring.scenario import (
    Revision,
    Scenario,
    ScenarioError,
    Turn,
    any_value,
    optional,
    ref_equal,
    regex,
)
from pytest_revprop.core.cases import CASE_FIELDS, Case, dump_case
from pytest_revprop.core.patching import apply_operations
from pytest_revprop.core.scoring import score_patch

# --------------------------------------------------------------------------- the gold patch


def test_gold_patch_replaces_changed_leaves_and_adds_removes_members() -> None:
    a = {"x": 1, "y": {"z": "old", "gone": True}, "same": [1, 2]}
    b = {"x": 2, "y": {"z": "new", "fresh": None}, "same": [1, 2]}
    assert gold_patch(a, b) == [
        {"op": "replace", "path": "/x", "value": 2},
        {"op": "replace", "path": "/y/z", "value": "new"},
        {"op": "remove", "path": "/y/gone"},
        {"op": "add", "path": "/y/fresh", "value": None},
    ]


def test_gold_patch_treats_1_and_1_0_as_equal_but_not_true_and_1() -> None:
    assert gold_patch({"a": 1}, {"a": 1.0}) == []
    assert gold_patch({"a": 1}, {"a": True}) == [{"op": "replace", "path": "/a", "value": True}]


def _steps(names: list[str]) -> list[dict[str, Any]]:
    return [{"name": n, "order": i + 1} for i, n in enumerate(names)]


def test_gold_patch_removal_in_the_middle_is_one_remove_then_shifted_replacements() -> None:
    a = {"steps": _steps(["plan", "build", "test", "ship"])}
    b = {"steps": _steps(["plan", "test", "ship"])}
    ops = gold_patch(a, b)
    assert ops == [
        {"op": "remove", "path": "/steps/1"},
        {"op": "replace", "path": "/steps/1/order", "value": 2},
        {"op": "replace", "path": "/steps/2/order", "value": 3},
    ]
    assert apply_operations(a, ops) == b


def test_gold_patch_insertion_in_the_middle_is_one_add_at_its_final_index() -> None:
    a = {"steps": _steps(["plan", "test", "ship"])}
    b = {"steps": _steps(["plan", "review", "test", "ship"])}
    ops = gold_patch(a, b)
    assert ops == [
        {"op": "add", "path": "/steps/1", "value": {"name": "review", "order": 2}},
        {"op": "replace", "path": "/steps/2/order", "value": 3},
        {"op": "replace", "path": "/steps/3/order", "value": 4},
    ]
    assert apply_operations(a, ops) == b


def test_gold_patch_of_a_replaced_list_of_strings_prefers_appending() -> None:
    ops = gold_patch({"g": ["a", "b"]}, {"g": ["x", "y", "z"]})
    assert ops == [
        {"op": "add", "path": "/g/2", "value": "z"},
        {"op": "replace", "path": "/g/0", "value": "x"},
        {"op": "replace", "path": "/g/1", "value": "y"},
    ]


def test_gold_patch_handles_several_insertions_and_removals_in_order() -> None:
    a = {"r": ["a", "b", "c", "d", "e"]}
    b = {"r": ["b", "x", "d", "y", "z"]}
    assert apply_operations(a, gold_patch(a, b)) == b


def _agenda(titles: list[str]) -> list[dict[str, Any]]:
    """Half-hour slots from 09:00: every row shaped like its neighbour."""
    return [
        {"title": t, "start": f"{9 + i // 2:02d}:{30 * (i % 2):02d}", "minutes": 30}
        for i, t in enumerate(titles)
    ]


def test_a_removed_row_shaped_like_its_neighbour_is_removed_where_the_direct_edit_says() -> None:
    a = {"agenda": _agenda(["intro", "demo", "questions"])}
    b = {"agenda": _agenda(["demo", "questions"])}
    # by content alone, "intro renamed demo, demo renamed questions, the last removed" costs
    # as much as the truth: the direct edit's index decides
    assert {"op": "remove", "path": "/agenda/0"} not in gold_patch(a, b)
    ops = literal_gold(a, b, ["/agenda/0"], "agenda")
    assert ops == [
        {"op": "remove", "path": "/agenda/0"},
        {"op": "replace", "path": "/agenda/0/start", "value": "09:00"},
        {"op": "replace", "path": "/agenda/1/start", "value": "09:30"},
    ]
    added = literal_gold(b, a, ["/agenda/0"], "agenda")
    assert added[0] == {"op": "add", "path": "/agenda/0", "value": a["agenda"][0]}
    assert apply_operations(b, added) == a


def _days(rows: list[tuple[str, str, float]]) -> list[dict[str, Any]]:
    """A trip's days from 1 August: base, plan and hours at the wheel."""
    return [
        {"date": f"2025-08-{i + 1:02d}", "base": base, "plan": plan, "drive_hours": hours}
        for i, (base, plan, hours) in enumerate(rows)
    ]


def test_a_row_removed_by_a_cascade_is_not_misread_because_of_twin_rows_after_it() -> None:
    """One night fewer in Edinburgh drops its free day and moves every later day one earlier.
    The two free days on Skye make the old fourth row equal the new fourth: a reading pinned on
    equal rows renames three rows instead; the whole-array reading is smaller and taken."""
    walk, free = ("Edinburgh", "Old Town walk", 0), ("Edinburgh", "Free day in Edinburgh", 0)
    drive, skye = ("Isle of Skye", "Drive to Skye", 5), ("Isle of Skye", "Free day on Skye", 0)
    home = ("home", "Fly home", 2.5)
    a = {"days": _days([walk, free, drive, skye, skye, home])}
    b = {"days": _days([walk, drive, skye, skye, home])}
    assert gold_patch(a, b) == [
        {"op": "remove", "path": "/days/1"},
        *(
            {"op": "replace", "path": f"/days/{i}/date", "value": f"2025-08-0{i + 1}"}
            for i in range(1, 5)
        ),
    ]
    # a list of names still reads by content: the name that stayed is kept, not renamed
    assert gold_patch({"g": ["hotfix", "fix"]}, {"g": ["fix", "feature", "config"]}) == [
        {"op": "remove", "path": "/g/0"},
        {"op": "add", "path": "/g/1", "value": "feature"},
        {"op": "add", "path": "/g/2", "value": "config"},
    ]


ROW = st.fixed_dictionaries({"name": st.sampled_from("abc"), "n": st.integers(0, 3)})


@given(st.lists(ROW, min_size=1, max_size=6), st.data())
def test_an_anchored_array_keeps_every_other_element_in_order(
    rows: list[dict[str, Any]], data: st.DataObject
) -> None:
    """Laws: with the direct edit's index as the anchor, removing (or adding) that element is
    one remove (add) at that index, the other elements are compared with their own old selves
    (whatever cascades changed in them), and the patch takes the document to its revision."""
    at = data.draw(st.integers(0, len(rows) - 1))
    kept = [r for i, r in enumerate(rows) if i != at]
    changed = [data.draw(st.sampled_from([r, {**r, "n": r["n"] + 1}])) for r in kept]
    a, b = {"rows": rows}, {"rows": changed}
    for before, after, op in ((a, b, "remove"), (b, a, "add")):
        ops = gold_patch(before, after, anchors={"/rows": at})
        assert [o for o in ops if o["op"] != "replace"] == [
            {"op": op, "path": f"/rows/{at}", **({"value": rows[at]} if op == "add" else {})}
        ]
        touched = {o["path"].split("/")[2] for o in ops if o["op"] == "replace"}
        moved = [i for i, (x, y) in enumerate(zip(kept, changed, strict=True)) if x != y]
        assert len(touched) == len(moved)
        assert apply_operations(before, ops) == after


@given(st.lists(ROW, max_size=7), st.lists(ROW, max_size=7))
def test_gold_patch_takes_any_array_to_any_other(a: list[Any], b: list[Any]) -> None:
    """Law: whatever the two arrays, the patch takes the old document to the new one."""
    assert apply_operations({"rows": a}, gold_patch({"rows": a}, {"rows": b})) == {"rows": b}


@given(st.lists(ROW, min_size=1, max_size=7, unique_by=lambda r: (r["name"], r["n"])), st.data())
def test_one_row_dropped_from_distinct_rows_is_one_remove_at_its_index(
    rows: list[dict[str, Any]], data: st.DataObject
) -> None:
    """Law: when nothing else changed and no two rows are equal, dropping (adding) one row is
    a single remove (add) at its index, without the direct edit's anchor."""
    at = data.draw(st.integers(0, len(rows) - 1))
    kept = rows[:at] + rows[at + 1 :]
    assert gold_patch({"rows": rows}, {"rows": kept}) == [{"op": "remove", "path": f"/rows/{at}"}]
    added = [{"op": "add", "path": f"/rows/{at}", "value": rows[at]}]
    assert gold_patch({"rows": kept}, {"rows": rows}) == added


# --------------------------------------------------------------------------- conversation


def test_conversation_creates_parents_appends_with_dash_and_folds_one_turns_ops() -> None:
    artifact = {"team": {"lead": "Ana", "members": ["Bo", "Cy"]}, "size": 2}
    turns: list[Turn] = [
        ("Ana leads; Bo is in.", ["/team/lead", "/team/members/0"]),
        ("Cy too, so two people.", ["/team/members/1", "/size"]),
    ]
    assert conversation_ops(artifact, turns, "t") == [
        {
            "user": "Ana leads; Bo is in.",
            "assistant": [
                {"op": "add", "path": "/team", "value": {"lead": "Ana", "members": ["Bo"]}}
            ],
        },
        {
            "user": "Cy too, so two people.",
            "assistant": [
                {"op": "add", "path": "/team/members/-", "value": "Cy"},
                {"op": "add", "path": "/size", "value": 2},
            ],
        },
    ]


@pytest.mark.parametrize(
    ("turns", "message"),
    [
        ([("one", ["/a", "/b/0"])], "no turn adds 2 place(s): /b/1, /b/2"),
        ([("one", ["/a", "/b"]), ("two", ["/b/0"])], "/b/0 is added by turn 0 and again by turn 1"),
        ([("one", ["/a", "/b/1"])], "starts a new array at index 1"),
        ([("one", ["/a", "/b/0"]), ("two", ["/b/2"])], "skips ahead: the array has 1 element(s)"),
        ([("one", ["/a", "/nope"])], "'/nope' is not a place in the artifact"),
        ([("one", [])], "turn 0 adds nothing"),
        ([("one", "/a")], "give a list of pointers"),
    ],
)
def test_conversation_rejects_gaps_overlaps_and_bad_pointers(
    turns: list[Turn], message: str
) -> None:
    with pytest.raises(
        ScenarioError, match="^where: .*" + message.replace("(", r"\(").replace(")", r"\)")
    ):
        conversation_ops({"a": 1, "b": ["x", "y", "z"]}, turns, "where")


# --------------------------------------------------------------------------- build


def _toy(**changes: Any) -> Scenario:
    """Seat licences: cost = seats x $30, note mentions the seat count; 10 leaves."""

    def compute(p: dict[str, Any]) -> dict[str, Any]:
        return {
            "tool": "Jira",
            "seats": p["seats"],
            "cost_usd": 30 * p["seats"],
            "note": f"{p['seats']} seats for the audit team",
            "owners": ["Ana", "Bo"],
            "renewal": "2025-12-01",
            "vendor": {"name": "Atlassian", "contact": "sales@atlassian.example", "tier": "cloud"},
        }

    def conversation(p: dict[str, Any]) -> list[Turn]:
        return [
            ("We use Jira with 4 seats.", ["/tool", "/seats"]),
            ("Each seat is $30 a month; write the cost and a note.", ["/cost_usd", "/note"]),
            (
                "Owners are Ana and Bo; renewal 2025-12-01 with Atlassian cloud, sales@atlassian.example.",
                ["/owners", "/renewal", "/vendor"],
            ),
        ]

    def revision(p: dict[str, Any]) -> Revision:
        return Revision(
            request="Make it 6 seats.",
            mutate=lambda q: q.update(seats=6),
            direct="/seats",
            overrides={"/note": regex(r"\b6 seats", optional=True)},
            reference={"seats": 6},
        )

    fields: dict[str, Any] = {
        "id": "org-toy-seats",
        "domain": "org_access",
        "pattern": "arithmetic",
        "theme": "Seats drive cost",
        "params": lambda size: {"seats": 4},
        "compute": compute,
        "conversation": conversation,
        "revision": revision,
        "notes": "toy",
    }
    fields.update(changes)
    return Scenario(**fields)


def test_build_produces_the_case_format_with_kinds_matchers_and_reference() -> None:
    case = build_case(_toy(), 10)
    assert list(case) == list(CASE_FIELDS)
    assert case["id"] == "org-toy-seats/10"
    assert (case["size"], case["split"], case["reference"], case["notes"]) == (
        10,
        "test",
        {"seats": 6},
        "toy",
    )
    assert case["gold"] == [
        {"op": "replace", "path": "/seats", "value": 6, "kind": "direct"},
        {"op": "replace", "path": "/cost_usd", "value": 180, "kind": "cascade"},
        {
            "op": "replace",
            "path": "/note",
            "value": r"\b6 seats",
            "kind": "cascade",
            "match": "regex_match",
            "optional": True,
        },
    ]
    loaded = Case.from_dict(case)
    literal = [
        {"op": "replace", "path": "/seats", "value": 6},
        {"op": "replace", "path": "/cost_usd", "value": 180},
    ]
    assert score_patch(loaded, literal).completed
    assert not score_patch(loaded, literal[:1]).completed


def test_dump_case_is_deterministic_utf8_in_field_order() -> None:
    case = build_case(_toy(), 10)
    shuffled = dict(reversed(list(case.items())))
    text = dump_case(shuffled)
    assert text == dump_case(build_case(_toy(), 10))
    assert text.startswith('{\n  "id": "org-toy-seats/10",\n  "scenario"')
    assert text.endswith("}\n")
    assert json.loads(dump_case({**case, "notes": "café"}))["notes"] == "café"
    assert "café" in dump_case({**case, "notes": "café"})


def _with_revision(**rev: Any) -> Scenario:
    base = {
        "request": "Make it 6 seats.",
        "mutate": lambda q: q.update(seats=6),
        "direct": "/seats",
    }
    base.update(rev)
    return _toy(revision=lambda p: Revision(**base))


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        (
            _toy(
                params=lambda size: {"seats": 4, "extra": 1},
                compute=lambda p: {"seats": p["seats"]},
            ),
            "the artifact has 1 leaves, not 10 (/seats: 1)",
        ),
        (_toy(id="Toy_Seats"), "kebab-case"),
        (_toy(pattern="shuffle"), "unknown pattern 'shuffle'"),
        (_with_revision(request="Set the seats key to 6."), "request uses the word 'key'"),
        (_with_revision(request="Update the JSON: 6 seats."), "request uses the word 'JSON'"),
        (_with_revision(mutate=lambda q: None), "the revision changes nothing"),
        (_with_revision(direct="/tool"), "direct path /tool is not in the gold patch"),
        (
            _with_revision(overrides={"/tool": optional()}),
            "override for a path the gold does not change: /tool",
        ),
        (_with_revision(overrides={"/note": regex("seven")}), "does not match the computed value"),
        (_with_revision(overrides={"/note": ref_equal("/missing")}), "ref_equal target '/missing'"),
        (
            _with_revision(overrides={"/cost_usd": optional(), "/note": optional()}),
            "no non-optional cascade op",
        ),
        (
            _with_revision(overrides={"/cost_usd": any_value(), "/note": optional()}),
            "the direct edit alone already completes",
        ),
    ],
)
def test_build_rejects_broken_scenarios_naming_scenario_and_size(
    scenario: Scenario, message: str
) -> None:
    with pytest.raises(ScenarioError) as info:
        build_case(scenario, 10)
    assert message in str(info.value)
    assert str(info.value).startswith("scenario ")


def test_build_rejects_a_dependent_stated_before_the_edited_input() -> None:
    def conversation(p: dict[str, Any]) -> list[Turn]:
        return [
            ("Budget $120 a month for the tool.", ["/cost_usd", "/tool"]),
            ("That's 4 seats at $30.", ["/seats", "/note"]),
            (
                "Owners Ana and Bo; renewal 2025-12-01 with Atlassian cloud.",
                ["/owners", "/renewal", "/vendor"],
            ),
        ]

    with pytest.raises(
        ScenarioError, match="cascade /cost_usd is added in turn 0, before the edited value"
    ):
        build_case(_toy(conversation=conversation), 10)


def test_build_rejects_a_forbidden_word_in_a_user_turn() -> None:
    def conversation(p: dict[str, Any]) -> list[Turn]:
        return [
            (
                "Every field please: Jira, 4 seats, $120, a note.",
                ["/tool", "/seats", "/cost_usd", "/note"],
            ),
            ("Owners and vendor.", ["/owners", "/renewal", "/vendor"]),
        ]

    with pytest.raises(ScenarioError, match="turn 0 uses the word 'field'"):
        build_case(_toy(conversation=conversation), 10)


# --------------------------------------------------------------------------- small helpers


def test_leaf_helpers_count_primitives_only() -> None:
    doc = {"a": [1, None, {"b": True}], "c": {}, "d": "x"}
    assert leaf_count(doc) == 4
    assert leaf_breakdown(doc) == {"/a": 3, "/c": 0, "/d": 1}


@pytest.mark.parametrize(
    ("func", "args", "expected"),
    [
        (add_days, ("2025-03-03", 90), "2025-06-01"),
        (add_days, ("2024-02-28", 1), "2024-02-29"),
        (add_days, ("2025-04-07", -2), "2025-04-05"),
        (days_between, ("2025-03-03", "2025-06-01"), 90),
        (money, (2.675,), 2.68),
        (money, (0.125,), 0.13),
        (money, (-0.125,), -0.13),
        (money, (5416.666,), 5416.67),
    ],
)
def test_date_and_money_helpers(
    func: Callable[..., Any], args: tuple[Any, ...], expected: Any
) -> None:
    assert func(*args) == expected


def test_members_and_each_name_pointers_in_order() -> None:
    assert members("/car", "company pickup_date") == ["/car/company", "/car/pickup_date"]
    assert each("/stays", 2, "name nights") == [
        "/stays/0/name",
        "/stays/0/nights",
        "/stays/1/name",
        "/stays/1/nights",
    ]


def test_all_of_needs_every_pattern_in_any_order_across_lines_ignoring_case() -> None:
    pattern = all_of("gion garden inn", r"\b14:00")
    assert pattern == r"(?is)^(?=.*gion garden inn)(?=.*\b14:00)"
    assert re.search(pattern, "Check in at 14:00\nat the Gion Garden Inn")
    assert not re.search(pattern, "Gion Garden Inn, check in at 15:00")


@pytest.mark.parametrize(
    "text",
    ["FSC-1187 for Ridgeway Holdings", "ridgeway holdings\nref fsc-1187", "FSC-1187 only", ""],
)
def test_all_of_lazy_is_another_spelling_that_passes_the_same_texts(text: str) -> None:
    words = ("FSC-1187", "ridgeway holdings")
    assert all_of_lazy(*words) == "(?is)^(?=.*?FSC-1187)(?=.*?ridgeway holdings)"
    assert bool(re.search(all_of_lazy(*words), text)) == bool(re.search(all_of(*words), text))
