"""`revprop annotate` helps find places: deep links with Back/Forward, `+` on a place that has an
operation, expandable patches, "stands for" kept on save, and a layout that fits 1024 px.
Playwright drives Debian's Chromium against the command run as a server process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.annotate_helpers import BROWSER_TESTS, AnnotateProcess, annotate_server

INVOICE = "invoice-workshop-hours/10"
ORG = "org-role-change/10"
TRAVEL = "travel-shift-departure/100"

pytestmark = BROWSER_TESTS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AnnotateProcess]:
    """One server for the module: only the last test saves, and to a field no other reads."""
    for srv, _ in annotate_server(tmp_path_factory, (INVOICE, ORG, TRAVEL)):
        yield srv


def test_a_link_opens_its_case_and_back_and_forward_go_through_the_cases(
    server: AnnotateProcess, browse: Any
) -> None:
    with browse(server.url) as b:
        page = b.page
        page.goto(f"{server.url}#{ORG}")
        b.expect(page.locator("#case-id")).to_have_text(ORG)
        page.click(f'.case-item:has(.case-id:text-is("{INVOICE}"))')
        b.expect(page.locator("#case-id")).to_have_text(INVOICE)
        assert page.url.endswith(f"#{INVOICE}")
        page.go_back()
        b.expect(page.locator("#case-id")).to_have_text(ORG)
        page.go_forward()
        b.expect(page.locator("#case-id")).to_have_text(INVOICE)
        page.goto(f"{server.url}#no-such/case")
        b.expect(page.locator("#placeholder")).to_contain_text("No case no-such/case")
        b.settle()
        assert b.problems == [] and b.outside == []


def test_plus_on_a_place_with_an_operation_goes_to_it_and_patches_expand(
    server: AnnotateProcess, tmp_path: Path, browse: Any
) -> None:
    with browse(server.url) as b:
        page = b.page
        b.open(INVOICE)
        count = page.locator("#gold .op").count()
        page.click('#artifact [data-path="/total"] .pick')  # op 5 sets /total already
        assert page.locator("#gold .op").count() == count
        assert page.evaluate("document.activeElement.dataset.field") == "value"
        assert page.evaluate("document.activeElement.closest('.op').dataset.index") == "4"
        assert "op 5 already changes /total" in page.text_content("#save-state")
        b.open(TRAVEL)
        long_patch = page.locator(".long-patch").first
        assert long_patch.locator("pre").is_hidden()
        long_patch.locator("summary").click()
        assert "Scottish Highlands" in long_patch.locator("pre").text_content()
        page.fill("#path-search", "pet_sitter from")
        assert page.text_content("#search-count") == "1 of 1"
        assert page.locator('#artifact [data-path="/pet_sitter/from"].hit-current').count() == 1
        old = page.locator('#preview [data-path="/pet_sitter/from"]')
        assert old.locator("del.old").text_content() == '"2025-08-03"'
        assert old.locator(".val").text_content() == '"2025-08-04"'
        b.shot(tmp_path / "annotate-places.png")
        assert b.problems == [] and b.outside == []


def test_stands_for_is_kept_on_save_and_the_page_fits_1024_px(
    server: AnnotateProcess, tmp_path: Path, browse: Any
) -> None:
    with browse(server.url) as b:
        page = b.page
        page.set_viewport_size({"width": 1024, "height": 900})
        b.open(INVOICE)
        page.fill("#annotator", "alice")
        b.op(4, "match").select_option("regex_match")
        b.op(4, "value").fill(r"^1285\.\d$")
        b.op(4, "example").fill("1285.2")
        b.settle()
        page.click("#save")
        b.saved()
        b.settle()
        assert b.op(4, "example").input_value() == "1285.2"
        page.reload()
        page.wait_for_selector("#gold .op")
        b.settle()
        assert b.op(4, "example").input_value() == "1285.2"
        assert b.messages("/gold/4/value") == []
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 1024
        right = page.evaluate(
            "Math.max(...[...document.querySelectorAll('.annotation *')]"
            ".map(e => e.getBoundingClientRect().right))"
        )
        assert right <= 1024
        b.shot(tmp_path / "annotate-1024.png")
        assert b.problems == [] and b.outside == []
