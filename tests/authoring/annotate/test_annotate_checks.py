"""Live checks of an edited case: each message lands on the field it concerns; the preview."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case

from pytest_revprop.authoring.annotate.checks import check_case
from pytest_revprop.authoring.annotate.kinds import guess_kinds
from pytest_revprop.core.cases import BENCHMARK_DIR, Case, CaseError, load_cases
from pytest_revprop.core.literal import literal_gold_patch


def _data() -> dict[str, Any]:
    return copy.deepcopy(invoice_case().to_dict())


def _messages(data: Any, **kwargs: Any) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for m in check_case(data, **kwargs).messages:
        out.setdefault(m["pointer"], []).append((m["level"], m["message"]))
    return out


def test_a_shipped_case_has_no_message_and_tests_propagation() -> None:
    report = check_case(json.loads((BENCHMARK_DIR / "invoice-workshop-hours/10.json").read_text()))
    assert report.messages == [] and report.valid
    assert report.gold_completes is True and report.direct_alone_completes is False


def test_an_op_that_does_not_apply_is_reported_at_its_path_and_the_others_still_apply() -> None:
    data = _data()
    data["gold"][1]["path"] = "/lines/5/amount"
    report = check_case(data)
    assert [(m["pointer"], m["rule"]) for m in report.messages] == [
        ("/gold/1/path", "gold-applies")
    ]
    assert report.expected["total"] == 38.0 and report.expected["lines"][0]["amount"] == 36.0
    assert not report.valid and report.gold_completes is None


@pytest.mark.parametrize(
    ("change", "pointer", "words"),
    [
        (lambda d: d["gold"][2].pop("value"), "/gold/2/value", "value is required"),
        (lambda d: d["gold"][2].pop("kind"), "/gold/2/kind", "kind is required"),
        (lambda d: d["gold"][2].update(kind="maybe"), "/gold/2/kind", "is not one of"),
        (lambda d: d["gold"][0].update(op="remove"), "/gold/0/value", "a remove has no value"),
        (lambda d: d["gold"][1].update(path="lines/0"), "/gold/1/path", "JSON Pointer"),
        (lambda d: d["gold"][3].update(value=3), "/gold/3/value", "is a string"),
        (lambda d: d.update(request=""), "/request", "should be non-empty"),
        (lambda d: d.update(size=11), "/size", "12 primitive leaves"),
        (lambda d: d["gold"][3].update(value="(unclosed"), "/gold/3/value", "invalid regular"),
    ],
)
def test_each_message_is_keyed_by_the_field_it_concerns(
    change: Any, pointer: str, words: str
) -> None:
    data = _data()
    change(data)
    messages = _messages(data)
    assert pointer in messages, messages
    assert any(level == "error" and words in text for level, text in messages[pointer])


def test_a_regex_must_match_the_value_it_stands_for() -> None:
    data = _data()
    assert "/gold/3/value" not in _messages(data, examples={3: "2 widgets and 7 bolts"})
    wrong = _messages(data, examples={3: "two widgets"})["/gold/3/value"]
    assert wrong == [("error", "does not match the value it stands for (two widgets)")]


def test_a_regex_the_unchanged_value_already_matches_is_a_warning() -> None:
    data = _data()
    data["gold"][3].update(value="widgets", optional=False)
    [(level, text)] = _messages(data)["/gold/3/value"]
    assert level == "warning" and "already matches: leaving it unchanged passes" in text


def test_ref_equal_must_point_at_a_leaf_of_the_expected_artifact() -> None:
    data = _data()
    data["gold"][2].update(match="ref_equal", value="/nowhere")
    assert _messages(data)["/gold/2/value"] == [
        ("error", "the ref_equal pointer '/nowhere' names no place of the expected artifact")
    ]
    data["gold"][2]["value"] = "/lines"
    assert _messages(data)["/gold/2/value"] == [
        ("error", "the ref_equal pointer '/lines' names an array, not a primitive leaf")
    ]
    data["gold"][2]["value"] = "/lines/0/amount"
    assert "/gold/2/value" not in _messages(data)


def test_an_op_that_changes_nothing_and_a_gold_without_direct_op_are_warnings() -> None:
    data = _data()
    data["gold"].append({"op": "replace", "path": "/client", "value": "Acme", "kind": "cascade"})
    data["gold"][0]["kind"] = "cascade"
    messages = _messages(data)
    assert messages["/gold/4/value"] == [
        ("warning", "the value is unchanged: this op changes nothing")
    ]
    assert ("warning", "no operation is marked direct (named by the request)") in messages["/gold"]
    assert check_case(data).valid


def test_a_direct_edit_that_completes_alone_is_flagged() -> None:
    data = _data()
    for op in data["gold"][1:]:
        op["kind"] = "direct"
    report = check_case(data)
    assert report.direct_alone_completes is True
    assert any(m["rule"] == "direct-alone" for m in report.messages)


def test_the_preview_marks_changed_added_and_removed_places_in_the_expected_artifact() -> None:
    data = _data()
    data["gold"] = [
        {"op": "remove", "path": "/lines/0", "kind": "direct"},
        {"op": "replace", "path": "/lines/0/qty", "value": 8, "kind": "cascade"},
        {"op": "add", "path": "/lines/-", "value": {"item": "nut"}, "kind": "cascade"},
        {"op": "add", "path": "/discount", "value": 5, "kind": "cascade"},
        {
            "op": "replace",
            "path": "/memo",
            "value": "(?i)bolts",
            "kind": "cascade",
            "match": "regex_match",
        },
    ]
    report = check_case(data, examples={4: "7 bolts"})
    assert report.valid, report.messages
    assert report.marks == {
        "/lines/0/qty": "changed",
        "/lines/1": "added",
        "/discount": "added",
        "/memo": "changed",
    }
    assert report.removed == [{"path": "/lines/0", "value": data["artifact"]["lines"][0]}]
    assert report.expected["memo"] == "7 bolts"  # the value the pattern stands for
    assert report.labels == {"/memo": "must match (?i)bolts"}
    # where each leaf of the artifact sits after the gold (for picking a leaf to edit)
    assert report.moved["/lines/0/qty"] is None and report.moved["/lines/1/qty"] == "/lines/0/qty"


def test_a_file_the_editor_cannot_open_is_one_message() -> None:
    report = check_case({"gold": "not a list"})
    assert [(m["pointer"], m["rule"]) for m in report.messages] == [("", "open")]


@pytest.mark.parametrize(
    ("request_text", "ops", "direct"),
    [
        (
            "Make that two widgets instead of three.",
            [
                {"op": "replace", "path": "/amount", "value": 24.0},
                {"op": "replace", "path": "/lines/0/qty", "value": 2},
            ],
            1,
        ),
        (
            "Allocate 1,200 GB instead of 800.",
            [
                {"op": "replace", "path": "/cost", "value": 96},
                {"op": "replace", "path": "/storage/allocated_gb", "value": 1200},
            ],
            1,
        ),
        (
            "Date it June 10, 2025 instead of June 3.",
            [
                {"op": "replace", "path": "/due", "value": "2025-07-10"},
                {"op": "replace", "path": "/issue_date", "value": "2025-06-10"},
            ],
            1,
        ),
        (
            "Take Cal Whitaker off the team.",
            [
                {"op": "replace", "path": "/headcount", "value": 2},
                {"op": "remove", "path": "/members/1"},
            ],
            1,
        ),
        (
            "Fix it.",
            [
                {"op": "replace", "path": "/a", "value": 1},
                {"op": "replace", "path": "/b", "value": 2},
            ],
            0,
        ),
    ],
)
def test_the_op_the_request_names_is_guessed_direct(
    request_text: str, ops: list[dict[str, Any]], direct: int
) -> None:
    artifact = {
        "amount": 36.0, "lines": [{"qty": 3}], "cost": 64, "storage": {"allocated_gb": 800},
        "due": "2025-07-03", "issue_date": "2025-06-03", "headcount": 3, "a": 0, "b": 0,
        "members": [{"name": "Bea Sandoval"}, {"name": "Cal Whitaker"}],
    }  # fmt: skip
    kinds = guess_kinds(artifact, ops, request_text)
    assert kinds == ["direct" if i == direct else "cascade" for i in range(len(ops))]


def test_the_kind_guess_finds_the_direct_op_of_almost_every_shipped_case() -> None:
    cases = load_cases([BENCHMARK_DIR]).cases
    right = 0
    for case in cases:
        patch = literal_gold_patch(case) or case.gold_patch
        right += guess_kinds(case.artifact, patch, case.request) == [g.kind for g in case.gold]
    assert right >= 145  # 148 of 150 when written; see docs/annotate.md


def test_a_check_never_changes_the_data_it_reads(tmp_path: Path) -> None:
    data = _data()
    before = copy.deepcopy(data)
    check_case(data, examples={3: "2 widgets"})
    assert data == before


def test_an_op_without_a_path_is_an_error_and_never_replaces_the_document() -> None:
    data = _data()
    data["gold"].append({"op": "replace", "path": "", "kind": "cascade"})  # "+ Add operation"
    report = check_case(data)
    assert not report.valid
    assert ("/gold/4/path", "gold-root") in [(m["pointer"], m["rule"]) for m in report.messages]
    assert ("/gold/4/value", "value is required") in [
        (m["pointer"], m["message"]) for m in report.messages
    ]
    assert report.expected["total"] == 38.0  # the preview still shows the other ops
    assert report.gold_completes is None  # no verdict on a gold with errors
    data["gold"][-1]["value"] = None  # the old default: `replace "" = null`
    report = check_case(data)
    assert not report.valid and isinstance(report.expected, dict)


def test_messages_number_ops_from_one_and_never_dump_a_value() -> None:
    data = _data()
    data["gold"].append({"op": "replace", "path": "/total", "value": 1.0, "kind": "cascade"})
    assert ("warning", "op 3 has this path too") in _messages(data)["/gold/4/path"]
    data = _data()
    data["theme"] = {"big": [data["artifact"]] * 50}  # a whole artifact where text belongs
    messages = check_case(data).messages
    assert [m["message"] for m in messages] == ["an object with 1 member(s) is not of type string"]
    with pytest.raises(CaseError) as raised:
        Case.from_dict(data)
    assert raised.value.message == messages[0]["message"]  # the loader says it the same way


def test_the_preview_shows_old_values_and_never_a_raw_pattern() -> None:
    data = _data()
    report = check_case(data)
    assert report.before == {
        "/lines/0/qty": 3,
        "/lines/0/amount": 36.0,
        "/total": 50.0,
        "/memo": "3 widgets and 7 bolts",
    }
    data["gold"][1]["path"] = "/lines/9/amount"  # an error elsewhere
    data["gold"][3]["value"] = "(?i)\\b2 widgets(?<=x)y"  # a pattern with no example string
    report = check_case(data)
    assert not report.valid
    assert report.expected["memo"] == "3 widgets and 7 bolts"  # unchanged, not the pattern
    assert report.labels["/memo"].startswith("must match")
