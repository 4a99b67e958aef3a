"""`revprop annotate` never loses a person's work, and shows a team's progress: a blank new
operation, two tabs on one case, two people saving one case, the statuses and their counts.
Playwright drives Debian's Chromium against the command run as a server process; screenshots
are kept in each test's tmp folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.annotate_helpers import (
    BROWSER_TESTS,
    AnnotateProcess,
    Browser,
    assert_validates,
    copy_cases,
    copy_chains,
    turn_gold,
)

from pytest_revprop.core.cases import dump_case, load_case

ORG = "org-role-change/10"
HOTEL = "travel-hotel-swap/10"
CART = "cart-order-cancelled/10"

pytestmark = BROWSER_TESTS


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return copy_cases(tmp_path / "cases", (ORG, HOTEL, CART))


def _gold(folder: Path, case_id: str) -> list[dict[str, Any]]:
    gold: list[dict[str, Any]] = json.loads(
        (folder / f"{case_id}.json").read_text(encoding="utf-8")
    )["gold"]
    return gold


def test_a_new_operation_is_invalid_until_its_path_is_set(
    server: AnnotateProcess, folder: Path, tmp_path: Path, browse: Any
) -> None:
    """Repro 1: "+ Add operation" then Ctrl+S used to save `replace "" = null`."""
    before = (folder / f"{ORG}.json").read_bytes()
    count = len(_gold(folder, ORG))
    with browse(server.url) as b:
        page = b.page
        b.open(ORG)
        page.fill("#annotator", "alice")
        page.click("#add-op")
        b.settle()
        page.keyboard.press("Control+s")
        b.settle()
        assert (folder / f"{ORG}.json").read_bytes() == before  # nothing was written
        assert page.is_disabled("#save")
        assert "no path yet" in page.text_content("#save-blocked")
        assert any("no path yet" in t for t in b.messages(f"/gold/{count}/path"))
        assert b.op(count, "path").get_attribute("aria-invalid") == "true"
        assert "completes its own case" not in page.text_content("#verdicts")
        b.shot(tmp_path / "annotate-new-op-invalid.png")

        b.op(count, "path").fill("/employee/man")  # the path by autocomplete
        page.wait_for_selector(".suggest:not([hidden]) li")
        b.shot(tmp_path / "annotate-new-op-suggest.png")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        b.settle()
        assert b.op(count, "path").input_value() == "/employee/manager"
        assert b.op(count, "value").input_value() == "Priya Nair"  # the place's, to edit from
        b.op(count, "value").fill("Jo Marsh")
        b.settle()
        assert page.is_enabled("#save") and page.is_hidden("#save-blocked")
        page.keyboard.press("Control+s")
        b.saved()
        assert b.problems == [] and b.outside == []
    gold = _gold(folder, ORG)
    assert len(gold) == count + 1 and gold[-1]["path"] == "/employee/manager"
    assert all(op["path"] != "" for op in gold)


@pytest.mark.parametrize("turn", [0, 1], ids=["own revision", "follow-up"])
def test_two_tabs_on_one_case_keep_their_own_unsaved_changes(
    server: AnnotateProcess, folder: Path, tmp_path: Path, browse: Any, turn: int
) -> None:
    """Repro 2: tab B used to restore tab A's edit after a reload, losing its own."""
    if turn:
        copy_chains(folder, (HOTEL,))
    ops = turn_gold(json.loads((folder / f"{HOTEL}.json").read_text("utf-8")), turn)
    typed = "Higashiyama" if turn == 0 else "770"  # op 2: the neighborhood, or the lodging
    with browse(server.url) as a:
        a.open(HOTEL)
        a.turn(turn)
        b = a.another(same_browser_profile=True)
        b.open(HOTEL)
        b.turn(turn)
        b.op(2, "value").fill("999")  # op 3 in tab B
        b.settle()
        a.op(1, "value").fill(typed)  # then op 2 in tab A
        a.settle()
        b.page.reload()
        b.page.wait_for_selector("#gold .op")
        b.settle()
        b.turn(turn)
        assert b.op(2, "value").input_value() == "999"
        assert b.op(1, "value").input_value() == json.dumps(ops[1]["value"]).strip('"')
        assert "also open in another tab" in b.page.text_content("#notice")
        a.page.reload()
        a.page.wait_for_selector("#gold .op")
        a.settle()
        a.turn(turn)
        assert a.op(1, "value").input_value() == typed
        assert a.op(2, "value").input_value() == str(ops[2]["value"])
        a.shot(tmp_path / "annotate-tab-a.png")
        b.shot(tmp_path / "annotate-tab-b.png")

        b.page.close()  # a closed tab's work is adopted by the next tab that opens the case
        c = a.another(same_browser_profile=True)
        c.open(HOTEL)
        c.turn(turn)
        assert c.op(2, "value").input_value() == "999"
        assert "closed tab" in c.page.text_content("#notice")
        assert a.problems == [] and c.problems == []


def _save(b: Browser, name: str) -> None:
    b.page.fill("#annotator", name)
    b.page.click("#save")
    b.saved()
    b.settle()


def test_a_second_save_merges_against_the_common_base(
    server: AnnotateProcess, folder: Path, tmp_path: Path, browse: Any
) -> None:
    """Repro 3: Dave's "Keep mine" used to revert Carol's change to another operation."""
    with browse(server.url) as carol:
        carol.open(CART)
        dave = carol.another(same_browser_profile=False)
        dave.expected_statuses.add(409)  # the answer to each stale save
        dave.open(CART)
        carol.op(3, "value").fill("refunded")  # /payment/status
        carol.page.fill("#history-note", "refund, not void")
        carol.settle()
        dave.op(4, "value").fill("returned")  # /shipment/status, on the same version
        dave.page.fill("#history-note", "parcel came back")
        dave.settle()
        _save(carol, "carol")
        _save(dave, "dave")  # no dialog: the two changes do not overlap
        assert "Merged with carol's save" in dave.page.text_content("#save-state")
        assert dave.op(3, "value").input_value() == "refunded"
        gold = _gold(folder, CART)
        assert (gold[3]["value"], gold[4]["value"]) == ("refunded", "returned")

        carol.page.reload()  # both edit /shipment/status now: a real conflict
        carol.page.wait_for_selector("#gold .op")
        carol.settle()
        carol.op(4, "value").fill("held at depot")
        carol.page.fill("#request", "Cancel the order and refund it.")
        carol.settle()
        dave.op(4, "value").fill("lost")
        dave.settle()
        _save(carol, "carol")
        dave.page.click("#save")
        dave.page.wait_for_selector("#conflict[open]")
        [conflict] = dave.page.locator("fieldset.conflict").all()
        base, theirs, mine = (
            conflict.locator(f".conflict-col.{side}") for side in ("base", "theirs", "mine")
        )
        assert '"returned"' in base.text_content()
        assert "carol" in theirs.text_content() and '"held at depot"' in theirs.text_content()
        assert "dave" in mine.text_content() and '"lost"' in mine.text_content()
        assert "request" in dave.page.text_content("#conflict-body")  # carol's, merged
        assert dave.page.is_disabled("#save-merge")  # a side is chosen for every conflict
        dave.shot(tmp_path / "annotate-conflict.png")
        dave.page.click("#keep-mine")
        dave.saved()
        assert carol.problems == [] and dave.problems == []
    case = load_case(folder / f"{CART}.json")
    assert case.request == "Cancel the order and refund it."  # carol's other change stays
    assert [g.value for g in case.gold[3:5]] == ["refunded", "lost"]
    assert case.annotation is not None
    history = case.annotation["history"]
    assert [h["annotator"] for h in history] == ["carol", "dave", "carol", "dave"]
    assert [h.get("note") for h in history[:2]] == ["refund, not void", "parcel came back"]


def test_the_list_counts_cases_per_status_and_a_wrong_size_is_fixed_on_the_page(
    server: AnnotateProcess, folder: Path, tmp_path: Path, browse: Any
) -> None:
    draft = json.loads((folder / f"{ORG}.json").read_text(encoding="utf-8"))
    draft["id"] = "org-role-change/draft"
    draft["annotation"] = {"status": "draft", "history": []}
    (folder / "draft.json").write_text(dump_case(draft), encoding="utf-8")
    wrong = dict(draft, id="org-role-change/wrong-size", size=12)
    wrong.pop("annotation")
    (folder / "wrong-size.json").write_text(dump_case(wrong), encoding="utf-8")
    (folder / "not-json.json").write_text('{"id": ', encoding="utf-8")

    def counts(b: Browser) -> dict[str, int]:
        chips = b.page.eval_on_selector_all(
            ".count-chip", "els => els.map(e => [e.dataset.status, Number(e.dataset.count)])"
        )
        return {status: n for status, n in chips if n}

    with browse(server.url) as b:
        page = b.page
        b.open()
        assert counts(b) == {"reviewed": 3, "draft": 1, "annotated": 1, "error": 2}
        page.click('.count-chip[data-status="error"]')  # valid JSON that fails loading, too
        assert page.text_content("#case-count") == "2 of 6 cases"
        page.click('.count-chip[data-status="error"]')
        b.open(HOTEL)
        b.op(0, "value").fill("Gion Garden Inn & Spa")
        b.settle()
        assert counts(b)["unsaved"] == 1
        _save(b, "erin")
        assert page.text_content("#case-status") == "changed since review"
        assert counts(b) == {"reviewed": 2, "changed": 1, "draft": 1, "annotated": 1, "error": 2}
        b.shot(tmp_path / "annotate-progress.png")

        b.open("org-role-change/wrong-size")
        assert "size is 12" in page.text_content("#case-error")
        page.click("#fix-size")
        b.settle()
        assert "save to write it" in page.text_content("#case-error")
        _save(b, "erin")
        assert counts(b)["error"] == 1
        assert b.problems == [] and b.outside == []
    assert_validates(folder / "wrong-size.json")
    assert load_case(folder / f"{HOTEL}.json").annotation == {
        "status": "changed",
        "history": [
            {
                "annotator": "erin",
                "time": load_case(folder / f"{HOTEL}.json").annotation["history"][0]["time"],  # type: ignore[index]
                "action": "edited",
            }
        ],
    }
