from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.child_pytest import TWO_WORKERS
from helpers.chromium import CHROMIUM
from helpers.handmade_cases import invoice_case, travel_case, write_cases
from helpers.revprop_report_data import CASES, EVIL, make_results, make_samples

from pytest_revprop.llm.cache import ResponseCache
from pytest_revprop.reporting.html import sample_outcome, write_html
from pytest_revprop.reporting.html_data import DATA_DIR, case_file_name
from pytest_revprop.reporting.replystore import REPLIES_DIR, ReplyReader
from pytest_revprop.reporting.samples import read_samples
from pytest_revprop.testing.fakeserver import FakeServer

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


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


def _page_data(report: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_data_element(report.read_text()))
    return data


def _case_file(report: Path, number: int) -> dict[str, Any]:
    """What report.js gets from ``revpropCase(n, "<JSON>");``."""
    text = (report.parent / DATA_DIR / case_file_name(number)).read_text()
    match = re.fullmatch(r"revpropCase\((\d+), (\".*\")\);\n", text, re.DOTALL)
    assert match is not None and int(match.group(1)) == number
    data: dict[str, Any] = json.loads(json.loads(match.group(2)))
    return data


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


def test_untrusted_text_cannot_leave_the_data_element_or_the_data_files(report: Path) -> None:
    page = report.read_text()
    assert (
        page.count("</script>") == 2
    )  # the data element and the page script, nothing from the data
    data = _data_element(page)
    assert "<" not in data and ">" not in data and "&" not in data
    invoice = _page_data(report)["cases"][0]
    assert invoice["id"] == "invoice-qty/10"
    # in a data file the JSON is one JavaScript string literal, intact after the round trip
    assert EVIL in _case_file(report, 0)["case"]["conversation"][1]["user"]
    texts = ReplyReader(report.parent / REPLIES_DIR)
    assert any(EVIL in t["content"] for t in texts.get_many(texts.index).values())


def test_the_page_can_fetch_nothing(report: Path) -> None:
    page = report.read_text()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert csp is not None and "default-src &#x27;none&#x27;" in csp.group(1)
    assert "&#x27;strict-dynamic&#x27;" in csp.group(1)  # the hashed script loads data files
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


def test_the_page_indexes_every_sample_and_each_case_file_shares_its_parts(
    results: dict[str, Any], report: Path
) -> None:
    samples = make_samples(results)
    data = _page_data(report)
    assert [c["id"] for c in data["cases"]] == ["invoice-qty/10", "trip-shift/10"]
    assert len(data["index"]["case"]) == len(samples) == 40
    first = _case_file(report, 0)
    assert sorted(first) == ["artifacts", "case", "findings", "patches", "samples"]
    mine = [s for s in samples if s["case"] == "invoice-qty/10"]
    assert len(first["samples"]) == len(mine) == 20
    # each distinct valid patch gives a distinct artifact here; the invalid sample has none
    valid_patches = {json.dumps(s["patch"]) for s in mine if s["patch"] is not None}
    assert len(first["artifacts"]) == len(valid_patches)
    assert len(first["patches"]) == len({json.dumps(s["patch"]) for s in mine})
    detail = first["samples"]["0"]  # m-small j+h invoice seed 0: misses subtotal, tax, total
    assert [f["path"] for f in first["findings"][detail["findings"]]] == [
        "/subtotal",
        "/tax",
        "/total",
    ]
    assert detail["request"] is None  # the same as the case's
    after = first["artifacts"][detail["after"]]
    assert after["lines"][0]["qty"] == 2 and after["subtotal"] == 36.0
    assert first["case"]["expected"]["total"] == 26.4
    everything = [d for n in range(2) for d in _case_file(report, n)["samples"].values()]
    invalid = [d for d in everything if d["after_error"]]
    assert len(invalid) == 1 and invalid[0]["after"] is None
    assert invalid[0]["after_error"] == "no patch"


def test_each_reply_text_is_stored_once_beside_the_page_and_found_from_its_sample(
    results: dict[str, Any], report: Path
) -> None:
    samples = make_samples(results)
    store = ReplyReader(report.parent / REPLIES_DIR)
    given = {(r["content"], r["reasoning"]) for s in samples for r in s["replies"]}
    stored = store.get_many(store.index)
    assert len(stored) == len(given) < sum(len(s["replies"]) for s in samples)
    detail = _case_file(report, 0)["samples"]["0"]
    (reply, *_) = detail["replies"]
    assert "content" not in reply and store.file_of(reply["key"]) == reply["file"]
    assert stored[reply["key"]]["content"] == samples[0]["replies"][0]["content"]


def test_long_reasoning_is_kept_whole(results: dict[str, Any], tmp_path: Path) -> None:
    sample = dict(make_samples(results)[0])
    long = "x" * 300_000
    sample["replies"] = [{"role": "sample", "content": "[]", "reasoning": long}]
    sample["latency_s"] = float("nan")
    out = write_html(results, [sample], CASES, tmp_path / "report.html")
    store = ReplyReader(tmp_path / REPLIES_DIR)
    (text,) = store.get_many(store.index).values()
    assert text["reasoning"] == long
    assert _case_file(out, 0)["samples"]["0"]["latency_s"] is None  # JSON.parse has no NaN


def test_a_sample_without_its_case_still_lists(results: dict[str, Any], tmp_path: Path) -> None:
    out = write_html(results, results["results"], {}, tmp_path / "r.html")
    data = _page_data(out)
    assert len(data["index"]["case"]) == 40
    assert [c["domain"] for c in data["cases"]] == ["invoice", "travel_itinerary"]
    file = _case_file(out, 0)
    assert file["case"] is None
    assert all(d["replies"] == [] for d in file["samples"].values())


# ---------------------------------------------------------------------------- real browser


def _texts(page: Any, selector: str, attribute: str) -> list[str]:
    values: list[str] = page.eval_on_selector_all(
        selector, f"els => els.map(e => e.getAttribute('{attribute}'))"
    )
    return values


def _pick(page: Any, **filters: str) -> None:
    for name in ("model", "method", "k", "seed", "outcome", "domain", "pattern", "size"):
        page.select_option(f"#filter-{name}", filters.get(name, ""))


def _open(page: Any) -> None:
    """Open the first listed sample and wait until its files are loaded and shown."""
    page.click(".sample-item")
    page.wait_for_selector("#sample-detail[data-state=ready]")


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_the_report_lists_and_filters_samples_in_a_real_headless_browser(
    report: Path, page: Any, page_problems: Any
) -> None:
    url = report.as_uri()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))

    def on_dialog(dialog: Any) -> None:
        page_problems.problems.append(f"dialog: {dialog.message}")
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
    _open(page)
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
    # the reasoning is there in full, folded away until asked for
    assert not page.is_visible("details.reasoning pre")
    page.click("details.reasoning summary")
    reasoning = page.text_content("details.reasoning pre") or ""
    assert reasoning.startswith("thinking about Make that two widgets") and EVIL in reasoning
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
    _open(page)
    assert _texts(page, "#side-after [data-kind]", "data-path") == ["/hotel"]
    assert _texts(page, "#side-after [data-kind]", "data-kind") == ["over_edit"]

    # m-small, select k=5, trip, seed 42: a wrong value at /days/1/date
    _pick(page, model="m-small", method="select", k="5", seed="42", domain="travel_itinerary")
    _open(page)
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
    _open(page)
    page.locator("#samples").scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report.png"))
    # the page, then only the data files beside it, each once
    folder = report.parent.as_uri() + "/"
    assert requests[0] == url and len(set(requests)) == len(requests)
    assert {r.removeprefix(folder).split("/")[0] for r in requests[1:]} == {DATA_DIR, REPLIES_DIR}


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_a_runs_report_reaches_a_samples_replies_and_reasoning_in_a_real_browser(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, page: Any
) -> None:
    """The whole path: a run under xdist writes the report at its end, and the page, from
    file://, shows one sample's replies and reasoning exactly as the response cache has them."""
    cases = write_cases(pytester.path / "cases", [invoice_case(), travel_case()])
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    reply = {"content": "[]", "reasoning": "reasoning about request {digest} " * 30}
    with FakeServer(default=reply) as server:
        result = pytester.runpytest_subprocess(
            "--revprop-model=hosted_vllm/fake", f"--revprop-api-base={server.base_url}",
            f"--revprop-cases={cases}", "--revprop-split=all", "--revprop-method=j+h,med",
            "--revprop-k=3", "--revprop-seeds=0,1", f"--revprop-cache={pytester.path / 'cache'}",
            f"--revprop-report={pytester.path / 'reports'}", *TWO_WORKERS,
        )  # fmt: skip
    result.assert_outcomes(failed=2 * 2 * 2)
    reports = pytester.path / "reports"
    (sample,) = read_samples(reports, case="travel-shift/10", method="med", seed=1)
    cache = ResponseCache(pytester.path / "cache")
    expected = [cache.read(r["key"]) for r in sample["replies"]]
    assert [r["reasoning"] for r in sample["replies"]] == [e.reasoning for e in expected if e]
    page.goto((reports / "report.html").as_uri())
    assert page.text_content("#sample-count") == "8 of 8 samples"
    _pick(page, method="med", seed="1", domain="travel_itinerary")
    _open(page)
    contents = page.eval_on_selector_all(".reply-content", "els => els.map(e => e.textContent)")
    for summary in page.locator("details.reasoning summary").all():
        summary.click()
    reasoning = page.eval_on_selector_all(
        "details.reasoning pre", "els => els.map(e => e.textContent)"
    )
    assert len(expected) == 3 and all(e is not None for e in expected)
    assert contents == [e.content for e in expected if e]
    assert reasoning == [e.reasoning for e in expected if e]
    assert len(set(reasoning)) == 3 and all(
        r.startswith("reasoning about request") for r in reasoning
    )


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_tables_fit_a_1400_px_window_and_numbers_are_rounded_as_the_terminal_rounds_them(
    results: dict[str, Any], tmp_path: Path, page: Any
) -> None:
    """Long litellm model names, all nineteen summary columns: no table scrolls sideways in
    a 1,400 px window; a sample's cost and latency read as the terminal summary's do."""
    text = json.dumps(results)
    text = text.replace('"m-small"', '"openai/gpt-oss-20b"')
    text = text.replace('"m-large"', '"hosted_vllm/Qwen/Qwen3.5-27B"')
    renamed = json.loads(text)
    report = write_html(renamed, make_samples(renamed), CASES, tmp_path / "report.html")
    page.goto(report.as_uri())
    widths = page.eval_on_selector_all(
        "#tables table",
        "els => els.map(t => [t.scrollWidth, t.closest('.table-wrap').clientWidth])",
    )
    assert len(widths) >= 5
    assert all(table <= room for table, room in widths), widths
    summary = page.locator("#table-summary td").all_text_contents()
    assert not [c for c in summary if re.fullmatch(r"\d+\.\d{5,}", c)]  # no 6-decimal costs
    _open(page)
    facts = page.locator("table.facts tr", has_text="latency").text_content() or ""
    assert re.search(r"\d\.\d{4} / \d+\.\d{2} / \d+$", facts), facts
    who = page.locator(".reply .who").first.text_content() or ""
    assert re.search(r" · \d+\.\d{2} s", who), who
