"""report.html's ``solved`` filter and the tables beyond the paper, in a real browser."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.chromium import CHROMIUM
from helpers.revprop_report_data import CASES, make_results, make_samples

from pytest_revprop.reporting.report import write_report

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
INVOICE = "invoice-qty/10"


def _solved_run() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The report tests' run (2 models, 5 groups each, 2 cases, 2 seeds: 40 samples) with
    every invoice sample failed and every trip sample completed: the invoice is solved by
    none, the trip by all."""
    results = make_results()
    samples = make_samples(results)
    for record in [*results["results"], *samples]:
        done = record["case"] != INVOICE
        record.update(completed=done, valid=True, error=None)
    return results, samples


def test_each_case_of_the_page_says_how_the_run_solved_it(tmp_path: Path) -> None:
    results, samples = _solved_run()
    write_report(results, tmp_path, samples=samples, cases=CASES)
    page = (tmp_path / "report.html").read_text()
    match = re.search(r'id="revprop-data">(.*?)</script>', page, re.DOTALL)
    assert match is not None
    data = json.loads(match.group(1))
    assert {c["id"]: c["solved"] for c in data["cases"]} == {
        INVOICE: "by none",
        "trip-shift/10": "by all",
    }
    markdown = (tmp_path / "report.md").read_text()
    assert f"| no (model, method, k) completes it at any seed | 1 | {INVOICE} |" in markdown


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_the_solved_filter_lists_the_samples_of_the_cases_no_group_completes(
    tmp_path: Path, page: Any
) -> None:
    results, samples = _solved_run()
    write_report(results, tmp_path, samples=samples, cases=CASES)
    page.goto((tmp_path / "report.html").as_uri())
    options = page.eval_on_selector_all(
        "#filter-solved option", "els => els.map(e => e.textContent)"
    )
    assert options == ["all", "by none", "by all"]
    page.select_option("#filter-solved", "by none")
    assert page.text_content("#sample-count") == "20 of 40 samples"
    cases = page.eval_on_selector_all(
        ".sample-item .case-id", "els => [...new Set(els.map(e => e.textContent))]"
    )
    assert cases == [INVOICE]
    page.select_option("#filter-solved", "by all")
    assert page.text_content("#sample-count") == "20 of 40 samples"
    assert page.locator("#table-where").count() == 1
    assert page.locator("#table-solved td", has_text=INVOICE).count() == 1
    page.select_option("#filter-solved", "by none")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#filters").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "report-solved.png"))
    page.locator("#table-where").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "report-where.png"))
