"""The report of chain runs: report.md's chain table, the completion-by-turn figure and its CSV
(one run: its protocol; ``revprop report TEACHER.json FREE.json``: both), the page's chain data,
and, in a real browser, the chain view of report.html; an off run's report has none of it."""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.chain_records import chain_meta, chain_record
from helpers.chromium import CHROMIUM
from helpers.revprop_report_data import CASES, make_results, make_samples

from pytest_revprop import cli
from pytest_revprop.reporting.figures import plot_completion_by_turn, render_figures
from pytest_revprop.reporting.html import write_html
from pytest_revprop.reporting.html_data import DATA_DIR
from pytest_revprop.reporting.report import write_report
from pytest_revprop.reporting.samples import SampleFile
from pytest_revprop.reporting.sink import RecordSink

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CASE = "invoice-qty/10"


def _records(protocol: str) -> list[dict[str, Any]]:
    """Two seeds of j+h and med over the invoice case: j+h completes turn 0 and 2 but misses at
    turn 1 at seed 0 (free: turn 2 over-edits too, one place broken again); med completes all."""
    second = [True, "miss", "over_edit" if protocol == "free" else True]
    return [
        chain_record(CASE, protocol, second, seed=0, regressions=[0, 0, 1]),
        chain_record(CASE, protocol, [True, True, True], seed=1),
        chain_record(CASE, protocol, [True, True, True], method="med", k=3, seed=0),
        chain_record(CASE, protocol, [True, True, "no_patch"], method="med", k=3, seed=1),
    ]


def _run(folder: Path, protocol: str) -> dict[str, Any]:
    sink = RecordSink(folder)
    for record in _records(protocol):
        sink.add(record)
    return sink.finish(chain_meta(protocol))


def test_one_runs_report_tables_and_draws_its_protocol(tmp_path: Path) -> None:
    doc = _run(tmp_path, "teacher")
    written = write_report(doc, tmp_path, samples=SampleFile(tmp_path / "samples.jsonl"))
    names = {p.name for p in written}
    assert {"completion_by_turn.png", "completion_by_turn.csv"} <= names
    with (tmp_path / "completion_by_turn.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {r["protocol"] for r in rows} == {"teacher"}
    jh = [r["completion_rate"] for r in rows if r["method"] == "j+h"]
    assert jh == ["1.0", "0.5", "1.0"]
    md = (tmp_path / "report.md").read_text()
    assert "![completion_by_turn](completion_by_turn.png)" in md
    assert "## Chains: completion by turn" in md
    assert "| m | j+h | 1 | teacher | 2 | 50.0 | 100.0 | 50.0 | 100.0 | 2.00 | 1 | 0.50 |" in md
    assert "| m | med | 3 | teacher | 2 | 50.0 | 100.0 | 100.0 | 50.0 | 2.50 | 0 | 0.00 |" in md


def test_a_run_with_fresh_instances_draws_shipped_and_fresh_chains_apart(tmp_path: Path) -> None:
    sink = RecordSink(tmp_path)
    for record in _records("free"):
        sink.add(record)
    # the same two seeds on a fresh instance: j+h fails turn 0 at both, med completes
    fresh = f"{CASE}@1"
    sink.add(chain_record(fresh, "free", ["miss", True, True], seed=0))
    sink.add(chain_record(fresh, "free", ["miss", "miss", True], seed=1))
    sink.add(chain_record(fresh, "free", [True, True, True], method="med", k=3, seed=0))
    sink.add(chain_record(fresh, "free", [True, True, True], method="med", k=3, seed=1))
    doc = sink.finish(chain_meta("free"))
    write_report(doc, tmp_path, samples=SampleFile(tmp_path / "samples.jsonl"))
    with (tmp_path / "completion_by_turn.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    jh = {(r["cases"], r["turn"]): r["completion_rate"] for r in rows if r["method"] == "j+h"}
    assert [jh[("shipped", t)] for t in "012"] == ["1.0", "0.5", "0.5"]
    assert [jh[("fresh", t)] for t in "012"] == ["0.0", "0.5", "1.0"]
    assert {r["cases"] for r in rows} == {"shipped", "fresh"}
    figure = plot_completion_by_turn(rows_as_numbers(rows))
    assert figure is not None
    labels = [t.get_text() for t in figure.legends[0].get_texts()]
    assert labels[-2:] == ["shipped cases", "fresh cases"]


def rows_as_numbers(rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    return [
        {**r, "turn": int(r["turn"]), "completion_rate": float(r["completion_rate"])} for r in rows
    ]


def test_report_given_a_teacher_and_a_free_run_draws_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(tmp_path / "teacher", "teacher")
    _run(tmp_path / "free", "free")
    out = tmp_path / "both"
    args = ["report", str(tmp_path / "teacher/results.json"), str(tmp_path / "free/results.json")]
    assert cli.main([*args, "--out", str(out)]) == 0
    assert str(out / "completion_by_turn.png") in capsys.readouterr().out
    with (out / "completion_by_turn.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [r["protocol"] for r in rows if r["method"] == "j+h"] == ["teacher"] * 3 + ["free"] * 3
    assert [r["completion_rate"] for r in rows if r["method"] == "j+h"][3:] == ["1.0", "0.5", "0.5"]
    md = (out / "report.md").read_text()
    assert re.search(r"\| m \| j\+h \| 1 \| teacher \|.*\n\| m \| med \| 3 \| teacher \|", md)
    assert "| m | j+h | 1 | free | 2 | 50.0 | 100.0 | 50.0 | 50.0 |" in md


@pytest.mark.parametrize(
    ("second", "words"),
    [
        ("teacher", "is a teacher chain run like"),
        ("off", "is a run without chains (off) and"),
    ],
)
def test_report_refuses_a_second_run_of_no_other_protocol(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], second: str, words: str
) -> None:
    _run(tmp_path / "a", "teacher")
    other = tmp_path / "b" / "results.json"
    if second == "off":
        other.parent.mkdir()
        other.write_text(json.dumps(make_results()))
    else:
        _run(other.parent, second)
    assert cli.main(["report", str(tmp_path / "a/results.json"), str(other)]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_an_off_runs_report_has_no_chain_figure_table_or_view(tmp_path: Path) -> None:
    results = make_results()
    pngs, data, _ = render_figures(results)
    assert "completion_by_turn" not in pngs and "completion_by_turn" not in data
    page = write_html(results, make_samples(results), CASES, tmp_path / "report.html")
    text = page.read_text()
    assert "chain-view" not in text and '"chain"' not in text and "Chains" not in text


def _case_file(folder: Path) -> dict[str, Any]:
    text = (folder / DATA_DIR / "c00000.js").read_text()
    match = re.fullmatch(r'revpropCase\(0, (".*")\);\n', text, re.DOTALL)
    assert match is not None
    parsed: dict[str, Any] = json.loads(json.loads(match.group(1)))
    return parsed


def test_the_pages_data_holds_each_chain_samples_turns(tmp_path: Path) -> None:
    doc = _run(tmp_path, "free")
    write_report(doc, tmp_path, samples=SampleFile(tmp_path / "samples.jsonl"), cases=CASES)
    page = (tmp_path / "report.html").read_text()
    assert "chain-view" in page  # the chain view's script is in
    data = _case_file(tmp_path)
    first = data["samples"]["0"]
    assert first["chain"] == "free" and first["after"] is None
    assert [t["completed"] for t in first["turns"]] == [True, False, False]
    turn = first["turns"][1]
    assert data["findings"][turn["findings"]][0]["kind"] == "miss"
    assert data["patches"][turn["patch"]] == [
        {"op": "replace", "path": "/items/1/price", "value": 11}
    ]
    assert data["case"]["followups"] == []  # the hand-made case has none


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_the_chain_view_shows_each_turn_and_where_the_chain_went_wrong(
    tmp_path: Path, new_page: Any
) -> None:
    doc = _run(tmp_path, "free")
    write_report(doc, tmp_path, samples=SampleFile(tmp_path / "samples.jsonl"), cases=CASES)
    page = new_page(1400, 1100)
    page.goto((tmp_path / "report.html").as_uri())
    subs = page.locator(".sample-item .sub").all_text_contents()
    assert subs[0].endswith("seed 0 · free, first failed turn 1 of 3")
    assert subs[1].endswith("seed 1 · free, all 3 turns")
    page.click(".sample-item")  # j+h seed 0: misses at turn 1
    page.wait_for_selector("#chain-view")
    cards = page.locator(".turn-card")
    assert cards.count() == 3
    outcomes = page.eval_on_selector_all(
        ".turn-card", "els => els.map(e => e.getAttribute('data-outcome'))"
    )
    assert outcomes == ["completed", "failed", "failed"]
    first = page.locator(".turn-card.first-failure")
    assert first.count() == 1 and first.get_attribute("data-turn") == "1"
    assert "the chain first went wrong here" in (first.text_content() or "")
    assert "replace /items/1/price = 11" in (first.text_content() or "")
    assert page.locator(".turn-card.first-failure tr.kind-miss").count() == 1
    assert "regressions 1" in (cards.nth(2).text_content() or "")
    regressed = cards.nth(2).locator("ul.regressed li").all_text_contents()
    assert regressed == ["/items/0/price"]  # the place named, not only counted
    assert "1 of 3 turns completed; first failed at turn 1" in (
        page.text_content(".chain-head") or ""
    )
    assert not page.is_visible("#side-after") and not page.is_visible("table.gold")
    page.wait_for_selector("#sample-detail[data-state=ready]")
    whos = page.locator(".reply .who").all_text_contents()
    assert [w.split(" · ")[0] for w in whos] == ["turn 0", "turn 1", "turn 2"]
    assert page.text_content(".reply[data-reply='1'] .reply-content") == (
        '[{"op": "replace", "path": "/items/1/price", "value": 11}]'
    )
    page.locator("#chain-view").scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "chain_report.png"))
    # another chain sample: the view follows the selection
    page.locator(".sample-item").nth(1).click()
    page.wait_for_function(
        "() => document.querySelector('.chain-head')"
        " && document.querySelector('.chain-head').textContent.includes('all 3 turns')"
    )
    assert page.locator(".turn-card.first-failure").count() == 0


@pytest.mark.parametrize("models", [1, 3])
def test_the_turn_figures_legend_is_whole_and_clear_of_title_and_panels(models: int) -> None:
    rows = [
        {"protocol": protocol, "model": f"model-{m}", "method": method, "k": 1, "turn": turn,
         "completion_rate": 0.9 - 0.1 * turn}
        for protocol in ("teacher", "free")
        for m in range(models)
        for method in ("j", "h", "j+h", "reflect", "or", "and", "maj", "med", "select", "dep")
        for turn in range(4)
    ]  # fmt: skip
    figure = plot_completion_by_turn(rows)
    assert figure is not None
    figure.savefig(io.BytesIO(), format="png", dpi=110)
    renderer = figure.canvas.get_renderer()
    [legend] = figure.legends
    box = legend.get_window_extent(renderer)
    edge = figure.bbox
    assert edge.x0 - 1 <= box.x0 and box.x1 <= edge.x1 + 1
    assert edge.y0 - 1 <= box.y0 and box.y1 <= edge.y1 + 1
    title = figure._suptitle.get_window_extent(renderer)
    assert not box.overlaps(title)
    for ax in figure.axes:
        if ax.get_visible():
            assert not box.overlaps(ax.get_tightbbox(renderer))
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[-2:] == ["teacher", "free"] and len(labels) == 12


def test_every_method_of_the_turn_figure_has_a_colour_far_from_the_others() -> None:
    """The ten built-ins and three registered methods: no two share a colour a reader could
    confuse (CIE76 delta E: the protocol's nine keep tab10's colours, whose closest pair,
    purple and pink, is 28 apart; dep and registered methods are at least 40 from every
    other), and none is the grey of "invalid" or the black of the protocols' legend."""
    from matplotlib.colors import to_hex

    from pytest_revprop.reporting.figures import color_distance

    methods = ["j", "h", "j+h", "reflect", "or", "and", "maj", "med", "select", "dep"]
    methods += ["mine", "theirs", "zz-last"]
    rows = [
        {"protocol": "teacher", "model": "m", "method": method, "k": 1, "turn": turn,
         "completion_rate": 0.5}
        for method in methods
        for turn in range(2)
    ]  # fmt: skip
    figure = plot_completion_by_turn(rows)
    assert figure is not None
    [legend] = figure.legends
    colors = {
        text.get_text(): to_hex(handle.get_color())
        for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True)
        if text.get_text() in methods
    }
    assert sorted(colors) == sorted(methods)
    for a, b in itertools.combinations(methods, 2):
        apart = 25 if {a, b} <= set(methods[:9]) else 40
        assert color_distance(colors[a], colors[b]) >= apart, (a, colors[a], b, colors[b])
    for method, color in colors.items():
        assert min(color_distance(color, c) for c in ("#999999", "#000000")) >= 25, method
