from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from chromium import CHROMIUM, CHROMIUM_ARGS
from revprop_report_data import CASES, EVIL, make_results, make_samples

from pytest_revprop.reporting import html as html_report
from pytest_revprop.reporting.html import (
    MAX_REASONING_CHARS,
    build_payload,
    sample_outcome,
    write_html,
)

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    return make_results()


@pytest.fixture(scope="module")
def report(results: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html") / "report.html"
    return write_html(results, make_samples(results), CASES, out)


def _data_element(page: str) -> str:
    match = re.search(
        r'<script type="application/json" id="revprop-data">(.*?)</script>', page, re.DOTALL
    )
    assert match is not None
    return match.group(1)


@pytest.mark.parametrize(
    ("record", "outcome"),
    [
        ({"completed": True, "valid": True, "error": None}, "completed"),
        ({"completed": False, "valid": True, "error": None}, "failed"),
        ({"completed": False, "valid": False, "error": "apply_error"}, "invalid"),
        ({"completed": False, "valid": False, "error": "truncated"}, "invalid"),
        ({"completed": False, "valid": False, "error": "call_failed"}, "error"),
    ],
)
def test_each_sample_record_gets_one_outcome(record: dict[str, Any], outcome: str) -> None:
    assert sample_outcome(record) == outcome


def test_untrusted_text_cannot_leave_the_data_element(report: Path) -> None:
    page = report.read_text()
    assert (
        page.count("</script>") == 2
    )  # the data element and the page script, nothing from the data
    data = _data_element(page)
    assert "<" not in data and ">" not in data and "&" not in data
    payload = json.loads(data)
    assert any(EVIL in text for text in payload["texts"])  # intact after the round trip
    assert EVIL in payload["cases"]["invoice-qty/10"]["conversation"][1]["user"]


def test_the_page_can_fetch_nothing(report: Path) -> None:
    page = report.read_text()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert csp is not None and "default-src &#x27;none&#x27;" in csp.group(1)
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert 'src="data:image/png;base64,' in page


def _page_head(page: str) -> str:
    match = re.search(r'<p class="meta">(.*?)</p>', page)
    assert match is not None
    return match.group(1)


def test_the_header_names_each_model_with_what_it_calls_not_a_python_dict(report: Path) -> None:
    head = _page_head(report.read_text())
    assert "models: m-small (openai/m-small), m-large (openai/m-large) · " in head
    assert "{" not in head and "&#x27;" not in head


@pytest.mark.parametrize(
    ("models", "shown"),
    [
        ({"gold": {"litellm_model": "", "kind": "reference"}}, "gold (reference)"),
        ({"m": {"litellm_model": "m", "kind": "litellm"}}, "m"),
        (
            {"tiny": {"litellm_model": "openai/tiny", "kind": "embedded"}},
            "tiny (openai/tiny, embedded)",
        ),
        (["a", "b"], "a, b"),
    ],
)
def test_each_form_of_meta_models_reads_as_names_with_their_model_and_kind(
    results: dict[str, Any], tmp_path: Path, models: Any, shown: str
) -> None:
    doc = {**results, "meta": {**results["meta"], "models": models}}
    page = write_html(doc, [], {}, tmp_path / "report.html", figures={}, tables=[]).read_text()
    assert f"models: {shown} · methods: " in _page_head(page)


def test_payload_shares_cases_texts_and_artifacts(results: dict[str, Any]) -> None:
    samples = make_samples(results)
    payload = build_payload(results, samples, CASES)
    assert len(payload["samples"]) == 40
    assert sorted(payload["cases"]) == ["invoice-qty/10", "trip-shift/10"]
    texts = payload["texts"]
    assert len(set(texts)) == len(texts) < sum(len(s["replies"]) for s in samples)
    assert sum(t.startswith("thinking about") for t in texts) == 2  # one reasoning text per case
    # each distinct valid patch gives a distinct artifact here; the invalid sample has none
    valid_patches = {json.dumps(s["patch"]) for s in samples if s["patch"] is not None}
    assert len(payload["artifacts"]) == len(valid_patches)
    assert len(payload["patches"]) == len(valid_patches) + 1  # and null
    first = payload["samples"][0]
    assert [f["path"] for f in payload["findings"][first["findings"]]] == [
        "/subtotal",
        "/tax",
        "/total",
    ]
    assert first["request"] is None  # the same as the case's
    first = payload["samples"][0]  # m-small j+h invoice seed 0: misses subtotal, tax, total
    after = payload["artifacts"][first["after"]]
    assert after["lines"][0]["qty"] == 2 and after["subtotal"] == 36.0
    assert payload["cases"]["invoice-qty/10"]["expected"]["total"] == 26.4
    invalid = [s for s in payload["samples"] if s["outcome"] == "invalid"]
    assert (
        len(invalid) == 1
        and invalid[0]["after"] is None
        and invalid[0]["after_error"] == "no patch"
    )


def test_long_reasoning_is_cut_and_non_finite_numbers_become_null(results: dict[str, Any]) -> None:
    sample = dict(make_samples(results)[0])
    sample["replies"] = [
        {"role": "sample", "content": "[]", "reasoning": "x" * (MAX_REASONING_CHARS + 50)}
    ]
    sample["latency_s"] = float("nan")
    payload = build_payload(results, [sample], CASES)
    reasoning = payload["texts"][payload["samples"][0]["replies"][0]["reasoning"]]
    assert reasoning.startswith("x" * MAX_REASONING_CHARS)
    assert reasoning.endswith("[... 50 more characters in samples.jsonl]")
    assert payload["samples"][0]["latency_s"] is None


def test_reasoning_beyond_the_report_budget_is_left_to_samples_jsonl(
    results: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(html_report, "REASONING_BUDGET_CHARS", 25)
    sample = dict(make_samples(results)[0])
    sample["replies"] = [
        {"content": "[]", "reasoning": text} for text in ("a" * 20, "b" * 10, "a" * 20, "c" * 5)
    ]
    payload = build_payload(results, [sample], CASES)
    shown = [payload["texts"][r["reasoning"]] for r in payload["samples"][0]["replies"]]
    assert shown == ["a" * 20, html_report.OVER_BUDGET, "a" * 20, "c" * 5]  # a repeat costs nothing


def test_a_sample_without_its_case_still_lists(results: dict[str, Any], tmp_path: Path) -> None:
    out = write_html(results, results["results"], {}, tmp_path / "r.html")
    payload = json.loads(_data_element(out.read_text()))
    assert payload["cases"] == {} and len(payload["samples"]) == 40
    assert all(s["replies"] == [] for s in payload["samples"])


# ---------------------------------------------------------------------------- real browser


def _texts(page: Any, selector: str, attribute: str) -> list[str]:
    values: list[str] = page.eval_on_selector_all(
        selector, f"els => els.map(e => e.getAttribute('{attribute}'))"
    )
    return values


def _pick(page: Any, **filters: str) -> None:
    for name in ("model", "method", "k", "seed", "outcome", "domain", "pattern", "size"):
        page.select_option(f"#filter-{name}", filters.get(name, ""))


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_the_report_lists_and_filters_samples_in_a_real_headless_browser(report: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    url = report.as_uri()
    requests: list[str] = []
    problems: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("request", lambda request: requests.append(request.url))
            page.on(
                "console",
                lambda m: (
                    problems.append(f"console {m.type}: {m.text}")
                    if m.type in {"error", "warning"}
                    else None
                ),
            )
            page.on("pageerror", lambda error: problems.append(f"page error: {error}"))

            def on_dialog(dialog: Any) -> None:
                problems.append(f"dialog: {dialog.message}")
                dialog.dismiss()

            page.on("dialog", on_dialog)
            page.goto(url)

            head = page.text_content(".page-head .meta") or ""
            assert "models: m-small (openai/m-small), m-large (openai/m-large)" in head
            assert page.text_content("#sample-count") == "40 of 40 samples"
            assert page.locator(".sample-item").count() == 40
            _pick(page, model="m-small")
            assert page.text_content("#sample-count") == "20 of 40 samples"
            _pick(page, model="m-small", outcome="failed")
            assert page.locator(".sample-item").count() == 8
            assert set(_texts(page, ".sample-item", "data-outcome")) == {"failed"}
            _pick(page, outcome="invalid")
            assert page.locator(".sample-item").count() == 1
            _pick(page, domain="travel_itinerary", method="select", k="5")
            assert page.locator(".sample-item").count() == 4

            # m-small, j+h, invoice, seed 0: misses /subtotal, /tax and /total
            _pick(page, model="m-small", method="j+h", seed="0", domain="invoice")
            page.click(".sample-item")
            after = "#side-after [data-kind]"
            assert _texts(page, after, "data-path") == ["/subtotal", "/tax", "/total"]
            assert set(_texts(page, after, "data-kind")) == {"miss"}
            assert _texts(page, "#side-before [data-kind]", "data-path") == [
                "/subtotal",
                "/tax",
                "/total",
            ]
            assert page.locator("tr.gold-op[data-kind=direct]").count() == 1
            assert page.locator("tr.gold-op[data-kind=cascade]").count() == 5
            assert page.locator("#side-after .node.changed").count() == 2  # qty and amount
            swatches = page.eval_on_selector_all(
                "#legend .swatch", "els => els.map(e => getComputedStyle(e).backgroundColor)"
            )
            assert len(swatches) == 4 and len(set(swatches)) == 4
            # the reply is shown as text, not markup
            assert EVIL in page.text_content(".reply-content")
            assert page.locator("#sample-detail img, #sample-detail script").count() == 0
            assert not page.is_visible("details.reasoning pre")
            # the review toggle hides every place that is neither changed, flagged nor gold
            assert page.is_visible('#side-after [data-path="/client"]')
            page.check("#only-notable")
            assert not page.is_visible('#side-after [data-path="/client"]')
            assert not page.is_visible('#side-before [data-path="/lines/0/price"]')
            assert page.is_visible('#side-after [data-path="/subtotal"]')
            assert page.is_visible('#side-after [data-path="/lines/0/qty"]')
            page.uncheck("#only-notable")

            # m-small, med k=3, trip, seed 42: over-edits /hotel
            _pick(page, model="m-small", method="med", k="3", seed="42", domain="travel_itinerary")
            page.click(".sample-item")
            assert _texts(page, "#side-after [data-kind]", "data-path") == ["/hotel"]
            assert _texts(page, "#side-after [data-kind]", "data-kind") == ["over_edit"]

            # m-small, select k=5, trip, seed 42: a wrong value at /days/1/date
            _pick(
                page, model="m-small", method="select", k="5", seed="42", domain="travel_itinerary"
            )
            page.click(".sample-item")
            assert _texts(page, "#side-after [data-kind]", "data-kind") == ["wrong_value"]
            colors = {
                kind: page.eval_on_selector(
                    f"#legend .swatch.{kind}", "e => getComputedStyle(e).backgroundColor"
                )
                for kind in ("miss", "over_edit", "wrong_value")
            }
            assert (
                page.eval_on_selector(
                    "#side-after .hl-wrong_value", "e => getComputedStyle(e).backgroundColor"
                )
                == colors["wrong_value"]
            )

            # the first failed sample again, for the screenshot
            _pick(page, model="m-small", method="j+h", seed="0", domain="invoice")
            page.click(".sample-item")
            page.locator("#samples").scroll_into_view_if_needed()
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "report.png"))
        finally:
            browser.close()
    assert problems == []
    assert requests == [url]
