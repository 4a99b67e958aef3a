"""`revprop annotate` in a real browser: Playwright driving Debian's Chromium against the
command run as a server process. Screenshots are kept in each test's tmp folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.annotate_helpers import (
    BROWSER_TESTS,
    AnnotateProcess,
    assert_validates,
    copy_cases,
    run_async,
)
from helpers.chromium import HANG_LIMIT_MS

from pytest_revprop.core.cases import BENCHMARK_DIR, dump_case, load_case

INVOICE = "invoice-workshop-hours/10"

pytestmark = BROWSER_TESTS


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return copy_cases(tmp_path / "cases")


def _on_disk(folder: Path, case_id: str) -> Any:
    return load_case(folder / f"{case_id}.json")


def test_an_annotator_edits_checks_and_saves_a_gold(
    server: AnnotateProcess, folder: Path, tmp_path: Path, browse: Any
) -> None:
    path = folder / f"{INVOICE}.json"
    with browse(server.url) as b:
        page = b.page
        b.open()
        assert page.text_content("#case-count") == "3 of 3 cases"
        assert page.locator(".case-item .badge.reviewed").count() == 3  # shipped: reviewed
        b.open(INVOICE)
        assert page.locator("#gold .op").count() == 5
        assert page.locator('#preview [data-path="/total"].mark-changed').count() == 1
        assert "tests propagation" in page.text_content("#verdicts")

        b.op(1, "value").fill("1191")  # edit a value: the preview follows
        b.settle()
        assert "1191" in page.text_content('#preview [data-path="/lines/0/amount"]')
        b.op(2, "kind").select_option("direct")  # change a kind
        b.op(3, "optional").check()  # mark an op optional
        b.op(4, "match").select_option("regex_match")  # change a matcher
        assert b.op(4, "value").input_value() == r"1285\.2"
        assert b.op(4, "example").input_value() == "1285.2"
        b.op(4, "value").fill(r"^12\d\d\.2$")
        b.settle()
        b.op(4, "value").fill(r"^99")
        b.settle()
        assert any(
            "does not match the value it stands for" in t for t in b.messages("/gold/4/value")
        )
        b.op(4, "value").fill(r"^1285\.")
        b.settle()
        assert b.messages("/gold/4/value") == []

        page.click('#artifact [data-path="/client"] .pick')  # add an op from the tree
        assert page.locator("#gold .op").count() == 6
        assert b.op(5, "path").input_value() == "/client"
        assert b.op(5, "value").input_value() == "Harbor Lane Bakery"
        assert b.op(5, "kind").input_value() == "cascade"
        b.settle()
        assert any("changes nothing" in t for t in b.messages("/gold/5/value"))
        b.op(5, "value").fill("Harbor Lane Bakery Ltd")
        b.settle()
        assert b.messages("/gold/5/value") == []
        assert page.locator('#preview [data-path="/client"].mark-changed').count() == 1
        page.click('#gold .op[data-index="2"] button[title="delete"]')  # delete one (/subtotal)
        assert page.locator("#gold .op").count() == 5

        b.op(1, "path").fill("/lines/3/amount")  # a bad path shows its error
        b.settle()
        errors = b.messages("/gold/1/path")
        assert errors and "does not apply" in errors[0]
        assert b.op(1, "path").get_attribute("aria-invalid") == "true"
        assert page.is_disabled("#save")
        b.op(1, "path").fill("/lines/0/amount")  # and it goes when fixed
        b.settle()
        assert b.messages("/gold/1/path") == []
        assert page.is_enabled("#save")

        page.fill("#history-note", "amount and client by hand")
        page.click("#save")
        assert "Enter your name" in page.text_content("#save-state")
        page.fill("#annotator", "alice")
        page.click("#save")
        b.saved()
        b.settle()
        assert page.text_content("#case-status") == "changed since review"
        assert page.is_disabled("#save") and page.is_disabled("#discard")
        b.shot(tmp_path / "annotate-saved.png")
        assert b.problems == [] and b.outside == []

    case = _on_disk(folder, INVOICE)
    assert [(g.path, g.kind, g.match, g.optional) for g in case.gold] == [
        ("/lines/0/quantity", "direct", "strict", False),
        ("/lines/0/amount", "cascade", "strict", False),
        ("/tax", "cascade", "strict", True),
        ("/total", "cascade", "regex_match", False),
        ("/client", "cascade", "strict", False),
    ]
    assert case.gold[1].value == 1191 and case.gold[3].value == r"^1285\."
    assert case.gold[4].value == "Harbor Lane Bakery Ltd"
    assert case.annotation is not None
    [entry] = case.annotation["history"]
    assert (entry["annotator"], entry["action"], entry["note"]) == (
        "alice",
        "edited",
        "amount and client by hand",
    )
    assert path.read_text(encoding="utf-8") == dump_case(case.to_dict())
    assert_validates(path)


def test_an_unsaved_change_survives_a_reload(
    server: AnnotateProcess, folder: Path, tmp_path: Path, browse: Any
) -> None:
    before = (folder / f"{INVOICE}.json").read_bytes()
    with browse(server.url) as b:
        page = b.page
        b.open(INVOICE)
        page.fill("#request", "Please bill 14 hours for the workshop.")
        b.op(0, "value").fill("15")
        page.reload()
        page.wait_for_selector("#gold .op")
        b.settle()
        assert page.text_content("#case-id") == INVOICE
        assert page.input_value("#request") == "Please bill 14 hours for the workshop."
        assert b.op(0, "value").input_value() == "15"
        assert "unsaved changes are restored" in page.text_content("#notice")
        assert page.locator(".case-item[aria-selected=true] .unsaved").count() == 1
        page.select_option("#filter-status", "unsaved")
        assert page.text_content("#case-count") == "1 of 3 cases"
        b.shot(tmp_path / "annotate-restored.png")
        page.click("#discard")
        b.settle()
        assert b.op(0, "value").input_value() == "14"
        assert page.text_content("#case-count") == "0 of 3 cases"
        assert b.problems == [] and b.outside == []
    assert (folder / f"{INVOICE}.json").read_bytes() == before


def test_the_keyboard_reaches_every_case_and_broken_files_are_listed(
    folder: Path, tmp_path: Path, browse: Any
) -> None:
    (folder / "broken.json").write_text('{"id": "half a case"', encoding="utf-8")
    with (
        AnnotateProcess(
            [str(folder), "--port", "0", "--model", "gold", "--annotator", "bob"], cwd=tmp_path
        ) as srv,
        browse(srv.url) as b,
    ):
        page = b.page
        b.open()
        assert page.text_content("#case-count") == "4 of 4 cases"
        broken = page.locator(".case-item.status-error")
        assert broken.count() == 1 and "json:" in broken.text_content()
        page.focus("#case-list")
        ids = []
        for key in ("ArrowDown", "ArrowDown", "ArrowDown", "ArrowDown", "Home", "End"):
            page.keyboard.press(key)
            b.settle()
            ids.append(page.text_content("#case-id"))
        assert ids[0] == "broken.json" or ids[0].endswith("broken.json")
        assert ids[1:] == [
            INVOICE,
            "org-remove-member/10",
            "travel-shift-departure/10",
            ids[0],
            "travel-shift-departure/10",
        ]
        page.keyboard.press("Home")
        b.settle()
        assert "cannot be edited here" in page.text_content("#case-error")
        page.keyboard.press("/")
        page.keyboard.type("org remove")
        assert page.text_content("#case-count") == "1 of 4 cases"
        page.keyboard.press("Escape")
        page.fill("#filter-text", "")
        page.keyboard.press("Alt+ArrowDown")
        b.settle()
        assert page.text_content("#case-id") == INVOICE
        page.focus('#artifact [data-path="/currency"] .pick')
        page.keyboard.press("Enter")
        assert b.op(5, "path").input_value() == "/currency"
        page.keyboard.type('"EUR"')
        page.keyboard.press("Control+a")  # select the value field's text, replace it
        page.keyboard.type("EUR")
        b.settle()
        page.keyboard.press("Control+s")
        b.saved()
        assert page.input_value("#annotator") == "bob"
        b.shot(tmp_path / "annotate-keyboard.png")
        assert b.problems == [] and b.outside == []
    case = _on_disk(folder, INVOICE)
    assert case.gold[-1].path == "/currency" and case.gold[-1].value == "EUR"


def test_a_proposal_is_accepted_op_by_op_and_questioned(
    server: AnnotateProcess, folder: Path, tmp_path: Path, browse: Any
) -> None:
    with browse(server.url) as b:
        page = b.page
        b.open("org-remove-member/10")
        page.click("#propose")  # the gold solver proposes the case's gold
        page.wait_for_selector(".proposal-ops li")
        assert page.locator(".proposal-ops li").count() == 5
        assert page.locator(".proposal-ops li.accepted").count() == 5  # all in the gold
        for _ in range(3):
            page.click('#gold .op[data-index="0"] button[title="delete"]')
        assert page.locator("#gold .op").count() == 2
        assert page.locator(".proposal-ops li.accepted").count() == 2
        kinds = page.eval_on_selector_all(".proposed-kind", "els => els.map(e => e.value)")
        assert kinds == ["direct", "cascade", "cascade", "cascade", "cascade"]
        page.click('.proposal-ops li[data-index="0"] .accept')
        assert page.locator("#gold .op").count() == 3
        assert (
            b.op(0, "kind").input_value() == "direct"
            and b.op(0, "path").input_value() == "/members/1"
        )
        page.click('.proposal-ops li[data-index="1"] .why')
        page.click("#ask")
        page.wait_for_selector("#answer .answer-text, #answer .error-text")
        assert "reference solver" in page.text_content("#answer")
        page.click("#accept-all")
        paths = page.eval_on_selector_all(
            '#gold [data-field="path"]', "els => els.map(e => e.value)"
        )
        assert paths == [  # accepted ops take the model's order
            "/members/1",
            "/members/0/backup",
            "/headcount",
            "/license/seats",
            "/license/monthly_cost_usd",
        ]
        page.click('#gold .op[data-index="2"] button[title="move up"]')  # reorder
        paths = page.eval_on_selector_all(
            '#gold [data-field="path"]', "els => els.map(e => e.value)"
        )
        assert paths[1:3] == ["/headcount", "/members/0/backup"]
        page.click('#gold .op[data-index="1"] button[title="move down"]')
        b.settle()
        assert page.locator("#general-messages li.error").count() == 0
        assert page.is_disabled("#discard")  # back to the saved gold exactly
        b.shot(tmp_path / "annotate-proposal.png")
        assert b.problems == [] and b.outside == []


def test_the_whole_shipped_benchmark_opens(tmp_path: Path, browse: Any) -> None:
    with (
        AnnotateProcess(
            [str(BENCHMARK_DIR), "--port", "0", "--model", "gold"], cwd=tmp_path
        ) as srv,
        browse(srv.url) as b,
    ):
        b.page.goto(srv.url)
        b.expect(b.page.locator("#case-count")).to_have_text(
            "150 of 150 cases", timeout=HANG_LIMIT_MS
        )
        import time

        seconds = time.perf_counter() - srv.started_at
        (tmp_path / "open-150.txt").write_text(f"{seconds:.2f}\n", encoding="utf-8")
        assert b.page.locator(".case-item .badge.error").count() == 0
        assert b.problems == [] and b.outside == []


def _synth_draft(fake_server: Any, tmp_path: Path, card_text: str, writer: Any) -> Path:
    """The file of one draft `revprop synth` writes for ``card_text`` from the scripted server
    (``writer``), under ``tmp_path / "drafts"``."""
    from helpers.scripted_writer import model

    from pytest_revprop.authoring.synth.cards import parse_card
    from pytest_revprop.authoring.synth.pipeline import Role, Settings, card_draft
    from pytest_revprop.core.prompts import Prompts
    from pytest_revprop.llm.client import Client

    server = fake_server(responder=writer)
    client = Client(model(server.base_url), cache_dir=tmp_path / "cache", concurrency=4)
    settings = Settings(
        out=tmp_path / "drafts",
        prompts=Prompts(),
        writer=Role(client, "fake"),
        gold=Role(client, "fake-gold"),
        max_reasks=2,
        gold_rule="maj",
    )
    card = parse_card(card_text, Path("cards/invoice-discount.toml"))
    outcome = run_async(card_draft(card, 1, settings))
    assert outcome.status == "draft" and outcome.path is not None
    return outcome.path


def test_a_synth_draft_opens_as_a_draft_and_an_annotator_saves_it(
    fake_server: Any, tmp_path: Path, browse: Any
) -> None:
    """The two tools meet in the middle: a draft `revprop synth` wrote from the scripted
    server opens in the annotation tool with its flags, and saving it records the annotator."""
    from helpers.scripted_writer import ScriptedWriter

    from pytest_revprop.authoring.synth.cards import example_card_text

    path = _synth_draft(
        fake_server, tmp_path, example_card_text("invoice-discount"), ScriptedWriter()
    )
    draft_id = load_case(path).id
    drafts = tmp_path / "drafts"
    with (
        AnnotateProcess(
            [str(drafts), "--port", "0", "--model", "gold", "--annotator", "carol"], cwd=tmp_path
        ) as srv,
        browse(srv.url) as b,
    ):
        page = b.page
        b.open()
        item = page.locator(f'.case-item:has(.case-id:text-is("{draft_id}"))')
        assert item.get_attribute("data-status") == "draft"
        b.open(draft_id)
        assert page.text_content("#case-status") == "draft"
        assert page.locator('[data-pointer^="/gold"]').count() == 0  # the draft checks clean
        b.shot(tmp_path / "annotate-synth-draft.png")
        page.keyboard.press("Control+s")
        b.saved()
        assert page.text_content("#case-status") == "annotated"
        assert b.problems == [] and b.outside == []
    saved = load_case(path)
    assert saved.annotation is not None
    assert [h["action"] for h in saved.annotation["history"]][-1] == "edited"
    assert saved.annotation["history"][-1]["annotator"] == "carol"
    assert saved.annotation["draft"]["models"]  # the drafting record survives the save


def test_a_synth_chain_draft_opens_turn_by_turn_with_each_turns_flags(
    fake_server: Any, tmp_path: Path, browse: Any
) -> None:
    """docs/synth.md's chain: a card that asks for three follow-ups, drafted on the scripted
    server (follow-up 2's gold seed 2 leaves out the total: a flag), is accepted by `revprop
    validate` and opens in the page as four turns, each checking clean with its own flags."""
    from helpers.scripted_writer import FOLLOWUPS, ScriptedWriter

    from pytest_revprop.authoring.synth.cards import example_card_text

    gold = json.dumps(FOLLOWUPS[1]["gold"][:-1])
    writer = ScriptedWriter({"followup 2 gold 2": [gold]})
    card = example_card_text("invoice-discount") + "\nfollowups = 3\n"
    path = _synth_draft(fake_server, tmp_path, card, writer)
    assert_validates(path)
    data = json.loads(path.read_text("utf-8"))
    notes = data["annotation"]["draft"]["followups"]
    assert [len(n["flags"]) for n in notes] == [0, 1, 0]
    with (
        AnnotateProcess(
            [str(tmp_path / "drafts"), "--port", "0", "--model", "gold"], cwd=tmp_path
        ) as srv,
        browse(srv.url) as b,
    ):
        page = b.page
        b.open(data["id"])
        item = page.locator(f'.case-item:has(.case-id:text-is("{data["id"]}"))')
        assert "4 turns" in item.text_content()
        marks = page.eval_on_selector_all(".turn-tab", "els => els.map(e => e.dataset.flags)")
        assert marks == [str(len(data["annotation"]["draft"]["flags"])), "0", "1", "0"]
        assert page.locator(".turn-tab.has-error").count() == 0  # every turn checks clean
        b.turn(2)
        assert page.input_value("#request") == FOLLOWUPS[1]["request"]
        flagged = page.locator("#gold .op:has(.flag)")
        assert flagged.count() == 1
        assert flagged.get_attribute("data-index") == str(notes[1]["flags"][0]["gold"])
        assert "samples disagree" in flagged.locator(".flag").text_content()
        b.shot(tmp_path / "annotate-synth-chain.png")
        assert b.problems == [] and b.outside == []
