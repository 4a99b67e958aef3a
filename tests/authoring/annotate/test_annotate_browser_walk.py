"""What a team walk of `revprop annotate` found, each fixed and driven in Chromium: the page
checks again after an outage, a file renamed or deleted while open keeps its edits, the history
note is kept with the draft, Discard and deleting an operation can be undone, the badge follows
the disk, names are compared as the server compares them, and a bad ``~`` escape is named."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.annotate_helpers import (
    BROWSER_TESTS,
    AnnotateProcess,
    Browser,
    copy_cases,
    copy_chains,
    turn_gold,
)

from pytest_revprop.core.cases import dump_case, load_case

ORG = "org-role-change/10"
HOTEL = "travel-hotel-swap/10"

pytestmark = BROWSER_TESTS


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return copy_cases(tmp_path / "cases", (ORG, HOTEL))


def _data(folder: Path, case_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / f"{case_id}.json").read_text(encoding="utf-8"))
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(dump_case(data), encoding="utf-8")


def _edit(b: Browser, value: str, index: int = 0) -> None:
    b.op(index, "value").fill(value)
    b.settle()


OUTAGE_EDITS = {
    0: ("Gion Garden Inn", "Gion Garden Inn & Spa", "Gion Garden Inn & Spa"),
    1: ("191", "195", 195),
}
"""Per turn of the hotel's chain: its first operation's value typed before the outage, typed
after it, and as saved."""
OUTAGE_ERRORS = re.compile(r"ERR_(CONNECTION_REFUSED|CONNECTION_RESET|EMPTY_RESPONSE)")


@pytest.mark.parametrize("turn", [0, 1], ids=["own revision", "follow-up"])
def test_after_an_outage_the_page_checks_again_and_saves(
    folder: Path, tmp_path: Path, browse: Any, turn: int
) -> None:
    """The server stops while a person edits and starts again on the same port: the page checks
    the work again, Save works, and Ctrl+S never says "nothing to save" over unsaved work."""
    if turn:
        copy_chains(folder, (HOTEL,))
    before, after, saved = OUTAGE_EDITS[turn]
    first = AnnotateProcess([str(folder), "--port", "0", "--model", "gold"], cwd=tmp_path).start()
    port = first.url.rstrip("/").rsplit(":", 1)[1]
    with browse(first.url) as b:
        page = b.page
        b.open(HOTEL)
        b.turn(turn)
        page.fill("#annotator", "alice")
        _edit(b, before)
        first.stop()
        b.op(0, "value").fill(after)
        b.expect(page.locator("#save-state")).to_contain_text("cannot be reached")
        assert page.is_disabled("#save")
        page.keyboard.press("Control+s")
        b.expect(page.locator("#save-state")).to_contain_text("Not saved: the server cannot be")
        with AnnotateProcess([str(folder), "--port", port, "--model", "gold"], cwd=tmp_path):
            b.expect(page.locator("#save")).to_be_enabled(timeout=20_000)
            assert "cannot be reached" not in page.text_content("#save-state")
            page.keyboard.press("Control+s")
            b.saved()
        assert b.outside == []
    # the page's requests while the server was down (and after the test stopped it) failed: a
    # call out when it stopped is cut (empty response or reset), later ones are refused
    b.problems[:] = [p for p in b.problems if not OUTAGE_ERRORS.search(p)]
    assert b.problems == []
    assert turn_gold(_data(folder, HOTEL), turn)[0]["value"] == saved


def test_a_file_renamed_while_open_offers_its_edits_to_the_file_it_became(
    server: AnnotateProcess, folder: Path, browse: Any
) -> None:
    with browse(server.url) as b:
        page = b.page
        b.open(HOTEL)
        page.fill("#annotator", "alice")
        _edit(b, "Gion Garden Inn & Spa")
        moved = folder / "travel-hotel-swap" / "moved.json"
        (folder / f"{HOTEL}.json").rename(moved)
        b.expect(page.locator("#gone")).to_be_visible()
        assert "gone from disk" in page.text_content("#gone-text")
        b.expect(page.locator("#bring-to")).to_contain_text("moved.json")
        page.select_option("#filter-status", "unsaved")  # the stranded draft is listed
        b.expect(page.locator(".case-item")).to_have_count(1)
        assert "gone from disk" in page.text_content(".case-item")
        page.select_option("#filter-status", "")
        page.click("#bring-to")
        b.expect(page.locator("#case-path")).to_contain_text("moved.json")
        b.settle()
        assert b.op(0, "value").input_value() == "Gion Garden Inn & Spa"
        assert page.is_hidden("#gone")
        page.keyboard.press("Control+s")
        b.saved()
        page.select_option("#filter-status", "unsaved")
        b.expect(page.locator(".case-item")).to_have_count(0)
        assert b.problems == [] and b.outside == []
    assert json.loads(moved.read_text(encoding="utf-8"))["gold"][0]["value"] == (
        "Gion Garden Inn & Spa"
    )
    assert not (folder / f"{HOTEL}.json").exists()


def test_a_file_deleted_while_open_is_saved_as_a_new_file(
    server: AnnotateProcess, folder: Path, browse: Any
) -> None:
    path = folder / f"{HOTEL}.json"
    with browse(server.url) as b:
        page = b.page
        b.open(HOTEL)
        page.fill("#annotator", "alice")
        _edit(b, "Gion Garden Inn & Spa")
        path.unlink()
        b.expected_statuses.add(404)  # the reload asks for the file, which is gone
        b.expect(page.locator("#gone")).to_be_visible()
        assert page.is_hidden("#bring-to")
        page.reload()  # the stranded draft survives a reload too
        page.wait_for_selector("#gone:not([hidden])")
        b.settle()
        assert b.op(0, "value").input_value() == "Gion Garden Inn & Spa"
        page.click("#save-new")
        b.saved()
        assert page.is_hidden("#gone")
        assert b.problems == [] and b.outside == []
    saved = load_case(path)
    assert saved.gold[0].value == "Gion Garden Inn & Spa"
    assert saved.annotation is not None and saved.annotation["history"][-1]["annotator"] == "alice"


def test_the_history_note_is_kept_with_the_draft(
    server: AnnotateProcess, folder: Path, browse: Any
) -> None:
    with browse(server.url) as b:
        page = b.page
        b.open(ORG)
        page.fill("#annotator", "alice")
        page.fill("#history-note", "checked the manager's title")
        page.reload()
        page.wait_for_selector("#gold .op")
        b.settle()
        assert page.input_value("#history-note") == "checked the manager's title"
        data = _data(folder, ORG)  # another's save refreshes the page
        data["notes"] = f"{data['notes']} (seen)"
        _write(folder / f"{ORG}.json", data)
        b.expect(page.locator("#notice")).to_contain_text("its new version")
        assert page.input_value("#history-note") == "checked the manager's title"
        _edit(b, "Jo Marsh")
        page.keyboard.press("Control+s")
        b.saved()
        assert page.input_value("#history-note") == ""
        page.reload()
        page.wait_for_selector("#gold .op")
        assert page.input_value("#history-note") == ""
        assert b.problems == [] and b.outside == []
    history = _data(folder, ORG)["annotation"]["history"]
    assert history[-1]["note"] == "checked the manager's title"


def test_discard_and_deleting_an_operation_can_be_undone(
    server: AnnotateProcess, folder: Path, browse: Any
) -> None:
    before = (folder / f"{ORG}.json").read_bytes()
    count = len(_data(folder, ORG)["gold"])
    with browse(server.url) as b:
        page = b.page
        b.open(ORG)
        original = b.op(0, "value").input_value()
        _edit(b, "Jo Marsh")
        page.click("#discard")
        b.settle()
        assert b.op(0, "value").input_value() == original
        b.expect(page.locator("#undo")).to_be_visible()
        page.click("#undo-button")
        b.settle()
        assert b.op(0, "value").input_value() == "Jo Marsh"
        assert page.locator(".case-item[aria-selected=true] .unsaved").count() == 1
        second = b.op(1, "path").input_value()
        page.click('#gold .op[data-index="1"] button[title="delete"]')
        b.settle()
        assert page.locator("#gold .op").count() == count - 1
        assert "Operation 2 deleted" in page.text_content("#undo")
        page.click("#undo-button")
        b.settle()
        assert page.locator("#gold .op").count() == count
        assert b.op(1, "path").input_value() == second
        assert page.is_hidden("#undo")
        assert b.problems == [] and b.outside == []
    assert (folder / f"{ORG}.json").read_bytes() == before


def test_the_badge_follows_the_disk_and_the_open_case_stays_in_its_filter(
    server: AnnotateProcess, folder: Path, browse: Any
) -> None:
    with browse(server.url) as b:
        page = b.page
        b.open()
        page.select_option("#filter-status", "reviewed")
        b.pick(HOTEL)
        _edit(b, "Gion Garden Inn & Spa")
        assert page.text_content("#case-status") == "reviewed"
        data = _data(folder, HOTEL)  # another's save: changed since review
        data["notes"] = f"{data['notes']} (seen)"
        data["annotation"] = {
            "status": "changed",
            "history": [{"annotator": "bob", "time": "2026-01-01T00:00:00Z", "action": "edited"}],
        }
        _write(folder / f"{HOTEL}.json", data)
        b.expect(page.locator("#case-status")).to_have_text("changed since review")
        assert page.locator(f'.case-item:has(.case-id:text-is("{HOTEL}"))').count() == 1
        assert b.problems == [] and b.outside == []


def test_mark_reviewed_compares_names_as_the_server_does(
    server: AnnotateProcess, folder: Path, browse: Any
) -> None:
    data = _data(folder, ORG)
    data["annotation"] = {
        "status": "annotated",
        "history": [{"annotator": "Ann Lee", "time": "2026-01-01T00:00:00Z", "action": "edited"}],
    }
    _write(folder / f"{ORG}.json", data)
    with browse(server.url) as b:
        page = b.page
        b.open(ORG)
        page.fill("#annotator", " Ann   Lee ")
        assert page.is_disabled("#review")
        assert "you edited this case last" in (page.get_attribute("#review", "title") or "")
        page.fill("#annotator", "Bo Chen")
        assert page.is_enabled("#review")
        assert b.problems == [] and b.outside == []


def test_a_bad_escape_in_a_path_is_named(server: AnnotateProcess, browse: Any) -> None:
    with browse(server.url) as b:
        b.open(ORG)
        b.op(0, "path").fill("/employee/a~2b")
        b.settle()
        said = " ".join(b.messages("/gold/0/path"))
        assert re.search(r"'~2' is not an escape: write ~0 for ~ and ~1 for /", said)
        assert "empty or starts with" not in said
        assert b.problems == [] and b.outside == []
