"""`revprop annotate` as a team uses it: unsaved work belongs to its folder, nothing typed during
a save is lost, a merge keeps both people's moves, removals and additions, a file broken on
disk keeps the work, Ctrl+S waits for the check, review flags follow their operations, and a
number the page cannot hold is refused where it is typed. Playwright drives Debian's Chromium
against the command run as a server process; the merge dialog's screenshots go to the test's
tmp folder."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Callable
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
from helpers.chromium import HANG_LIMIT_MS

from pytest_revprop.core.cases import dump_case, load_case

CART = "cart-free-shipping/50"
ORG = "org-role-change/10"
DEPLOY = "deploy-prod-change-freeze/10"
INVOICE = "invoice-workshop-hours/10"
SHOTS = Path("/tmp/annotate-shots")

pytestmark = BROWSER_TESTS


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return copy_cases(tmp_path / "cases", (CART, ORG, DEPLOY, INVOICE))


def _data(folder: Path, case_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / f"{case_id}.json").read_text("utf-8"))
    return data


def _write(folder: Path, case_id: str, data: dict[str, Any]) -> None:
    (folder / f"{case_id}.json").write_text(dump_case(data), encoding="utf-8")


def _paths(folder: Path, case_id: str) -> list[str]:
    return [op["path"] for op in _data(folder, case_id)["gold"]]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _save(b: Browser, name: str) -> None:
    b.page.fill("#annotator", name)
    b.settle()
    b.page.keyboard.press("Control+s")


def _shot(b: Browser, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    b.page.screenshot(path=str(SHOTS / name))


def _reopen(b: Browser, case_id: str) -> None:
    b.page.reload()
    b.page.wait_for_selector("#gold .op")
    b.expect(b.page.locator("#case-id")).to_have_text(case_id)
    b.settle()


# ---------------------------------------------------------------------------- item 1


def test_unsaved_work_belongs_to_its_folder_not_to_the_port(
    browse: Callable[[str], Browser], tmp_path: Path
) -> None:
    alice = copy_cases(tmp_path / "alice", (CART,))
    bob = copy_cases(tmp_path / "bob", (CART,))
    before = (bob / f"{CART}.json").read_bytes()
    port = _free_port()

    def serve(folder: Path) -> AnnotateProcess:
        return AnnotateProcess([str(folder), "--port", str(port), "--model", "gold"], cwd=tmp_path)

    with serve(alice) as srv:
        first = browse(srv.url)
        first.open(CART)
        first.op(1, "value").fill("99.99")  # alice's edit, not saved
        first.settle()
        tab = first.another(same_browser_profile=True)
        first.page.close()  # the browser keeps her draft
    with serve(bob) as srv:
        tab.open(CART)
        assert tab.op(1, "value").input_value() == "65.98"  # bob's file, not alice's work
        assert tab.page.is_hidden("#notice")
        assert tab.page.locator(".case-item .unsaved").count() == 0
        assert tab.page.is_disabled("#save")
        tab.page.close()
    assert (bob / f"{CART}.json").read_bytes() == before
    with serve(alice) as srv:
        again = first.another(same_browser_profile=True)
        again.open(CART)
        assert again.op(1, "value").input_value() == "99.99"  # and back in her folder, hers
        assert "closed tab" in again.page.text_content("#notice")
        again.page.close()


def test_a_draft_whose_version_is_gone_is_offered_as_a_merge_not_saved_silently(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    b = browse(server.url)
    b.expected_statuses.add(409)
    b.open(CART)
    b.op(1, "value").fill("70")  # mine, not saved
    b.settle()
    theirs = _data(folder, CART)  # a git checkout changes another op under the open case
    theirs["gold"][2]["value"] = 101.5
    _write(folder, CART, theirs)
    _reopen(b, CART)
    assert "changed on disk since" in b.page.text_content("#notice")
    _save(b, "bob")
    b.page.wait_for_selector("#conflict[open]")
    assert "earlier version" in b.page.text_content("#conflict-body")
    assert b.page.is_enabled("#save-merge")
    b.page.click("#save-merge")
    b.saved()
    gold = _data(folder, CART)["gold"]
    assert (gold[1]["value"], gold[2]["value"]) == (70, 101.5)


# ---------------------------------------------------------------------------- item 2 and 7


def test_what_is_typed_while_a_save_is_in_flight_stays(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    b = browse(server.url)
    held: list[Any] = []
    hold = [True]

    def route(r: Any) -> None:
        if hold[0]:
            held.append(r)
        else:
            r.continue_()

    b.page.route("**/api/save", route)
    b.open(INVOICE)
    request = b.page.input_value("#request")
    b.page.fill("#annotator", "alice")
    b.page.click("#request")
    b.page.keyboard.press("End")
    b.page.keyboard.type(" A")
    b.settle()
    b.page.keyboard.press("Control+s")
    while not held:
        b.page.wait_for_timeout(20)
    b.page.keyboard.type("BCD", delay=40)  # while the save is in flight
    b.op(4, "value").fill("1300")  # and another op
    hold[0] = False
    held[0].continue_()
    b.saved()
    b.settle()
    assert b.page.input_value("#request") == f"{request} ABCD"
    assert b.op(4, "value").input_value() == "1300"
    assert "kept, not saved yet" in b.page.text_content("#save-state")
    assert b.page.is_enabled("#discard")  # still unsaved: marked, and kept in the browser
    assert b.page.locator(".case-item[aria-selected=true] .unsaved").count() == 1
    saved = _data(folder, INVOICE)
    assert saved["request"] == f"{request} A" and saved["gold"][4]["value"] != 1300
    _reopen(b, INVOICE)  # the browser's copy holds the later edits
    assert b.page.input_value("#request") == f"{request} ABCD"
    b.page.keyboard.press("Control+s")
    b.saved()
    saved = _data(folder, INVOICE)
    assert saved["request"] == f"{request} ABCD" and saved["gold"][4]["value"] == 1300


def test_ctrl_s_right_after_typing_saves_once_the_check_is_back(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    b = browse(server.url)
    b.open(INVOICE)
    b.page.fill("#annotator", "alice")
    b.op(1, "value").fill("1191")
    b.page.keyboard.press("Control+s")  # the live check is still pending
    b.saved()
    assert _data(folder, INVOICE)["gold"][1]["value"] == 1191
    b.op(1, "path").fill("/lines/9/amount")  # a check that fails: it says why
    b.page.keyboard.press("Control+s")
    b.expect(b.page.locator("#save-state")).to_have_text(re.compile("Not saved: fix"))


# ---------------------------------------------------------------------------- item 3 and 5


@pytest.mark.parametrize("turn", [0, 3], ids=["own revision", "follow-up"])
def test_a_move_and_an_edit_of_one_operation_merge_into_one_operation(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser], turn: int
) -> None:
    """Turn 3 of the chain reverses turn 0: its gold has the same operations in the same
    places (the first review last), so both turns are driven alike."""
    if turn:
        copy_chains(folder, (ORG,))

    def gold() -> list[dict[str, Any]]:
        return turn_gold(_data(folder, ORG), turn)

    alice = browse(server.url)
    alice.open(ORG)
    alice.turn(turn)
    bob = alice.another(same_browser_profile=False)
    bob.expected_statuses.add(409)
    bob.open(ORG)
    bob.turn(turn)
    alice.page.click('#gold .op[data-index="7"] button[title="move up"]')
    alice.settle()
    bob.op(7, "value").fill("2025-07-01")  # on the version alice started from
    bob.settle()
    _save(alice, "alice")
    alice.saved()
    _save(bob, "bob")
    bob.saved()  # nothing both changed: no dialog
    ops = gold()
    assert len(ops) == 8 and [op["path"] for op in ops].count("/access/first_review") == 1
    assert (ops[6]["path"], ops[6]["value"]) == ("/access/first_review", "2025-07-01")

    alice.page.reload()  # now both change the moved op: the dialog names it where it is
    alice.page.wait_for_selector("#gold .op")
    alice.settle()
    alice.turn(turn)
    _reopen(bob, ORG)
    bob.turn(turn)
    alice.op(6, "value").fill("2025-08-01")
    alice.page.click('#gold .op[data-index="6"] button[title="move up"]')
    alice.settle()
    bob.op(6, "value").fill("2025-09-01")
    bob.settle()
    _save(alice, "alice")
    alice.saved()
    _save(bob, "bob")
    bob.page.wait_for_selector("#conflict[open]")
    body = bob.page.text_content("#conflict-body") or ""
    assert "op 7 (/access/first_review)" in body and "no operation here" not in body
    assert "op 9" not in body
    assert ("turn 3: " in body) == (turn == 3)  # the conflict names its turn
    _shot(bob, f"merge-move-turn-{turn}.png")
    bob.page.click("#keep-mine")
    bob.saved()
    ops = gold()
    assert [op["path"] for op in ops].count("/access/first_review") == 1
    assert (ops[5]["path"], ops[5]["value"]) == ("/access/first_review", "2025-09-01")


def test_a_removal_one_removed_and_the_other_changed_is_one_choice(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    alice = browse(server.url)
    alice.open(DEPLOY)
    bob = alice.another(same_browser_profile=False)
    bob.expected_statuses.add(409)
    bob.open(DEPLOY)
    alice.page.click('#gold .op[data-index="3"] button[title="move up"]')  # the remove of /2
    alice.settle()
    bob.op(3, "optional").check()
    bob.settle()
    _save(alice, "alice")
    alice.saved()
    _save(bob, "bob")
    bob.saved()
    gold = _data(folder, DEPLOY)["gold"]
    assert [op["path"] for op in gold].count("/allowed_change_types/2") == 1
    assert gold[2] == {
        "op": "remove",
        "path": "/allowed_change_types/2",
        "kind": "cascade",
        "optional": True,
    }

    _reopen(alice, DEPLOY)
    _reopen(bob, DEPLOY)
    alice.page.click('#gold .op[data-index="2"] button[title="delete"]')
    alice.settle()
    bob.op(2, "optional").uncheck()
    bob.settle()
    _save(alice, "alice")
    alice.saved()
    _save(bob, "bob")
    bob.page.wait_for_selector("#conflict[open]")
    [conflict] = bob.page.locator("fieldset.conflict").all()
    assert "(removed)" in conflict.locator(".conflict-col.theirs").text_content()
    assert "remove /allowed_change_types/2" in conflict.locator(".conflict-col.mine").text_content()
    _shot(bob, "merge-remove.png")
    bob.page.click('fieldset.conflict input[value="theirs"]')
    bob.page.click("#save-merge")
    bob.saved()
    assert "/allowed_change_types/2" not in _paths(folder, DEPLOY)
    assert len(_paths(folder, DEPLOY)) == 5


def test_two_additions_are_both_kept(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    alice = browse(server.url)
    alice.open(CART)
    bob = alice.another(same_browser_profile=False)
    bob.expected_statuses.add(409)
    bob.open(CART)
    alice.page.click('#artifact [data-path="/items/0/name"] .pick')
    alice.op(11, "value").fill("Kibble")
    alice.settle()
    bob.page.click('#artifact [data-path="/items/0/sku"] .pick')
    bob.op(11, "value").fill("SKU-2")
    bob.settle()
    _save(alice, "alice")
    alice.saved()
    _reopen(bob, CART)  # his draft, restored, is on a version that is gone: the merge is shown
    _save(bob, "bob")
    bob.page.wait_for_selector("#conflict[open]")
    body = bob.page.text_content("#conflict-body") or ""
    assert (
        "alice: added op 12 (/items/0/name)" in body and "you: added op 12 (/items/0/sku)" in body
    )
    assert "Nothing was changed differently" in body
    _shot(bob, "merge-two-additions.png")
    bob.page.click("#save-merge")
    bob.saved()
    assert _paths(folder, CART)[-2:] == ["/items/0/name", "/items/0/sku"]


# ---------------------------------------------------------------------------- items 4, 6, 8, 9


def test_a_file_broken_on_disk_while_open_keeps_the_work_and_merges_once_fixed(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    b = browse(server.url)
    b.expected_statuses.add(409)
    b.open(CART)
    b.op(1, "value").fill("70")
    b.settle()
    good = _data(folder, CART)
    (folder / f"{CART}.json").write_text('{"id": "half', encoding="utf-8")
    _save(b, "bob")
    b.page.wait_for_selector("#conflict[open]")
    assert "cannot be merged now" in b.page.text_content("#conflict-body")
    assert b.page.is_disabled("#save-merge")
    b.page.click("#decide-later")
    b.expect(b.page.locator("#save-state")).to_have_text(re.compile("stay in this browser"))
    good["request"] = "Fixed by hand."
    _write(folder, CART, good)
    b.page.keyboard.press("Control+s")
    b.saved()
    saved = _data(folder, CART)
    assert (saved["request"], saved["gold"][1]["value"]) == ("Fixed by hand.", 70)


def test_a_merge_with_a_rule_broken_on_disk_is_fixed_on_the_page(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    b = browse(server.url)
    b.expected_statuses.add(409)
    b.open(CART)
    b.op(1, "value").fill("70")
    b.settle()
    broken = _data(folder, CART)
    broken["size"] = 11
    _write(folder, CART, broken)
    _save(b, "bob")
    b.expect(b.page.locator("#save-state")).to_have_text(re.compile("breaks a rule"))
    b.page.click("#fix-size")
    b.settle()
    b.page.keyboard.press("Control+s")
    b.saved()
    saved = load_case(folder / f"{CART}.json")
    assert saved.size == 50 and saved.gold[1].value == 70


def test_review_flags_follow_their_operations(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    draft = _data(folder, INVOICE)
    draft["annotation"] = {
        "status": "draft",
        "history": [],
        "draft": {"flags": [{"gold": 3, "reason": "tax?"}, {"gold": 4, "reason": "total?"}]},
    }
    _write(folder, INVOICE, draft)
    b = browse(server.url)
    b.open(INVOICE)
    b.page.click('#gold .op[data-index="1"] button[title="delete"]')
    b.settle()
    _save(b, "carol")
    b.saved()
    saved = _data(folder, INVOICE)
    flags = saved["annotation"]["draft"]["flags"]
    assert [(saved["gold"][f["gold"]]["path"], f["reason"]) for f in flags] == [
        ("/tax", "tax?"),
        ("/total", "total?"),
    ]


def test_a_number_the_page_cannot_hold_is_refused_where_it_is_typed(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    before = (folder / f"{INVOICE}.json").read_bytes()
    b = browse(server.url)
    b.open(INVOICE)
    b.page.fill("#annotator", "alice")
    for typed in ("12345678901234567891", "1e400"):
        b.op(1, "value").fill(typed)
        b.settle()
        assert any(typed in m for m in b.messages("/gold/1/value"))
        assert b.page.is_disabled("#save")
        b.page.keyboard.press("Control+s")
        b.expect(b.page.locator("#save-state")).to_have_text(re.compile("Not saved: fix"))
    assert (folder / f"{INVOICE}.json").read_bytes() == before
    b.op(1, "value").fill('"12345678901234567891"')  # as text, it is kept exactly
    b.settle()
    b.page.keyboard.press("Control+s")
    b.saved()
    assert _data(folder, INVOICE)["gold"][1]["value"] == "12345678901234567891"


# ---------------------------------------------------------------------------- smaller items


def test_the_list_and_an_open_case_follow_the_disk_without_a_reload(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    late = folder / "late.json"
    late.write_text('{"id": ', encoding="utf-8")
    b = browse(server.url)
    b.page.goto(f"{server.url}#0/late.json")  # a deep link to a file broken at load
    b.expect(b.page.locator("#case-error-text")).to_contain_text("cannot be edited here")
    case = _data(folder, CART)
    late.write_text(dump_case({**case, "id": "late/1"}), encoding="utf-8")  # fixed
    b.expect(b.page.locator("#case-id")).to_have_text("late/1", timeout=HANG_LIMIT_MS)
    (folder / "new.json").write_text(dump_case({**case, "id": "new/1"}), encoding="utf-8")
    b.expect(b.page.locator("#case-count")).to_have_text("6 of 6 cases", timeout=HANG_LIMIT_MS)
    b.open(ORG)  # an open case without unsaved changes shows the version on disk
    changed = _data(folder, ORG)
    changed["request"] = "Changed by a git checkout."
    _write(folder, ORG, changed)
    b.expect(b.page.locator("#request")).to_have_value(changed["request"], timeout=HANG_LIMIT_MS)
    b.expect(b.page.locator("#notice")).to_contain_text("changed on disk")


def test_a_case_open_in_two_tabs_is_announced_in_both(
    server: AnnotateProcess, browse: Callable[[str], Browser]
) -> None:
    first = browse(server.url)
    first.open(CART)
    second = first.another(same_browser_profile=True)
    second.open(CART)
    assert "also open in another tab" in second.page.text_content("#notice")
    first.expect(first.page.locator("#notice")).to_contain_text("also open in another tab")


def test_five_people_saving_one_case_at_once_lose_nothing(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    first = browse(server.url)
    people = [first, *(first.another(same_browser_profile=False) for _ in range(4))]
    edits = {0: "Finance Lead", 1: "budget-x", 2: "ledger-x", 3: "expense-x", 5: "queue-x"}
    for person, (index, value) in zip(people, edits.items(), strict=True):
        person.expected_statuses.add(409)
        person.open(ORG)
        person.page.fill("#annotator", f"person {index}")
        person.op(index, "value").fill(value)
    for person in people:
        person.settle()
    for person in people:  # within a few tenths of a second
        person.page.keyboard.press("Control+s")
    for person in people:
        person.saved()  # each save went through: none was told to try again, no dialog
        assert person.page.locator("#conflict[open]").count() == 0
    case = _data(folder, ORG)
    assert {i: case["gold"][i]["value"] for i in edits} == edits
    assert len(case["annotation"]["history"]) == 5
    assert load_case(folder / f"{ORG}.json").id == ORG


def test_a_merge_the_checks_refuse_leaves_the_dialog_usable(
    server: AnnotateProcess, folder: Path, browse: Callable[[str], Browser]
) -> None:
    b = browse(server.url)
    b.expected_statuses.add(409)
    b.open(CART)
    b.op(1, "value").fill("70")
    b.settle()
    theirs = _data(folder, CART)  # both changed op 2, and the file's size is wrong now
    theirs["gold"][1]["value"] = 71
    theirs["size"] = 11
    _write(folder, CART, theirs)
    _save(b, "bob")
    b.page.wait_for_selector("#conflict[open]")
    b.page.click('fieldset.conflict input[value="mine"]')
    b.page.click("#save-merge")
    b.expect(b.page.locator(".merge-problems")).to_contain_text("breaks a rule")
    assert b.page.locator("#conflict[open]").count() == 1  # still open, still usable
    assert b.page.is_enabled("#save-merge") and b.page.is_enabled("#decide-later")
    b.page.click("#edit-merge")
    b.page.click("#fix-size")
    b.settle()
    b.page.keyboard.press("Control+s")
    b.saved()
    saved = load_case(folder / f"{CART}.json")
    assert saved.size == 50 and saved.gold[1].value == 70
