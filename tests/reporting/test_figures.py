from __future__ import annotations

import copy
import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.revprop_report_data import CASES, make_results, make_samples

from pytest_revprop import cli
from pytest_revprop.errors import UserError
from pytest_revprop.reporting.figures import (
    plot_completion_by_method,
    plot_cost_vs_completion,
    plot_failure_composition,
)
from pytest_revprop.reporting.replystore import REPLIES_DIR, ReplyReader
from pytest_revprop.reporting.report import write_report
from pytest_revprop.reporting.report_tables import report_tables
from pytest_revprop.reporting.samples import SampleFile


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    return make_results()


def _bar_containers(ax: Any) -> list[Any]:
    from matplotlib.container import BarContainer

    return [c for c in ax.containers if isinstance(c, BarContainer)]


def test_completion_figure_has_one_bar_series_per_method_with_error_bars(
    results: dict[str, Any],
) -> None:
    figure = plot_completion_by_method(results)
    (ax,) = figure.axes
    assert ax.get_ylabel() == "completion rate (%)"
    assert ax.get_xlabel() == "model"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["m-small", "m-large"]
    bars = _bar_containers(ax)
    assert [b.get_label() for b in bars] == ["j+h", "med", "select"]
    assert all(b.errorbar is not None for b in bars)
    heights = {b.get_label(): [round(p.get_height(), 6) for p in b.patches] for b in bars}
    # the largest k of each method: med/select at k=5
    assert heights == {"j+h": [25.0, 75.0], "med": [75.0, 100.0], "select": [75.0, 100.0]}


def test_completion_error_bars_are_the_seed_std_clipped_to_0_100(results: dict[str, Any]) -> None:
    bars = _bar_containers(plot_completion_by_method(results).axes[0])
    segments = bars[0].errorbar.lines[2][0].get_segments()  # j+h: m-small, m-large
    std = 100 * (0.5**0.5) / 2  # seeds 0.5 and 0.0 -> sample std 0.3536
    (_, low), (_, high) = segments[0]
    assert (low, high) == pytest.approx((0.0, 25.0 + std))  # 25 - 35.4 clipped at 0
    (_, low), (_, high) = segments[1]
    assert (low, high) == pytest.approx((75.0 - std, 100.0))


def test_failure_composition_stacks_the_four_kinds_per_method(results: dict[str, Any]) -> None:
    figure = plot_failure_composition(results)
    visible = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["m-small", "m-large"]
    small = visible[0]
    bars = _bar_containers(small)
    assert [b.get_label() for b in bars] == ["miss", "over edit", "wrong value", "invalid"]
    counts = {b.get_label(): [p.get_height() for p in b.patches] for b in bars}
    # methods j+h, med (k=5), select (k=5) of m-small, totals from the hand-made behaviours
    assert counts == {
        "miss": [5, 0, 0],
        "over edit": [0, 1, 0],
        "wrong value": [0, 0, 1],
        "invalid": [1, 0, 0],
    }
    assert [t.get_text() for t in small.get_xticklabels()] == ["j+h", "med", "select"]
    colors = {b.get_label(): b.patches[0].get_facecolor() for b in bars}
    assert len(set(colors.values())) == 4


def test_cost_figure_draws_one_curve_per_method_over_k(results: dict[str, Any]) -> None:
    figure = plot_cost_vs_completion(results)
    assert figure is not None
    small = next(ax for ax in figure.axes if ax.get_title() == "m-small")
    assert small.get_xlabel() == "cost per sample (USD)"
    points = {
        str(line.get_label()): np.asarray(line.get_xydata()).ravel().tolist()
        for line in small.get_lines()
    }
    assert points == {
        "j+h": pytest.approx([0.001, 25.0]),
        "med": pytest.approx([0.003, 50.0, 0.005, 75.0]),  # (cost, completion %) at k = 3 and 5
        "select": pytest.approx([0.0045, 50.0, 0.0075, 75.0]),
    }


def test_cost_figure_falls_back_to_calls_when_no_price_is_known(results: dict[str, Any]) -> None:
    free = copy.deepcopy(results)
    for record in free["results"]:
        record["cost_usd"] = 0.0
    figure = plot_cost_vs_completion(free)
    assert figure is not None
    assert figure.axes[0].get_xlabel() == "calls per sample (no prices known)"


def _one_k(results: dict[str, Any]) -> dict[str, Any]:
    single = copy.deepcopy(results)
    single["summary"] = [r for r in single["summary"] if r["k"] != 3]
    single["results"] = [r for r in single["results"] if r["k"] != 3]
    return single


def test_cost_figure_is_skipped_with_a_note_when_one_k_ran(
    results: dict[str, Any], tmp_path: Path
) -> None:
    single = _one_k(results)
    assert plot_cost_vs_completion(single) is None
    written = write_report(single, tmp_path, samples=None, cases=None)
    assert not (tmp_path / "cost_vs_completion.png").exists()
    assert tmp_path / "completion_by_method.png" in written
    assert "Cost against completion (Figure 6) skipped" in (tmp_path / "report.md").read_text()


def _table(results: dict[str, Any], title: str) -> dict[str, list[str]]:
    (table,) = [t for t in report_tables(results) if t.title == title]
    return {row[0]: row[1:] for row in [table.header, *table.rows]}


def test_latency_table_gives_multipliers_relative_to_j_plus_h(results: dict[str, Any]) -> None:
    table = _table(results, "Latency relative to j+h")
    assert table["model"] == ["j+h latency", "med k=3", "med k=5", "select k=3", "select k=5"]
    # m-small j+h 10 s; med k=3: 10 * 1.2 * 1.2 = 14.4 s; select k=5: 10 * 2.5 * 1.4 = 35 s
    assert table["m-small"] == ["10.00 s", "1.44×", "1.68×", "3.00×", "3.50×"]


def test_cost_effectiveness_is_gain_over_extra_cost(results: dict[str, Any]) -> None:
    table = _table(results, "Cost-effectiveness")
    # m-small: med k=3 gains 25 points at 3x cost -> 25 / 2; select k=3: 25 / 3.5
    assert table["m-small"] == ["+12.50", "+12.50", "+7.14", "+7.69"]
    assert table["m-large"] == ["+0.00", "+6.25", "+7.14", "+3.85"]


def test_cost_effectiveness_is_not_available_when_the_cost_ratio_is_at_most_one(
    results: dict[str, Any],
) -> None:
    cheap = copy.deepcopy(results)
    for record in cheap["results"]:
        if record["method"] == "med" and record["k"] == 3:
            record["cost_usd"] = 0.0005 if record["model"] == "m-small" else 0.004
    table = _table(cheap, "Cost-effectiveness")
    assert table["m-small"][0] == "n/a"  # ratio 0.5
    assert table["m-large"][0] == "n/a"  # ratio 1.0


def test_a_table_relative_to_j_plus_h_with_no_figure_is_left_out(results: dict[str, Any]) -> None:
    """Reference solvers cost nothing and take no time: every multiple and effectiveness is
    n/a, so the four tables relative to j+h say nothing and are not shown."""
    free = copy.deepcopy(results)
    for record in free["results"]:
        record["cost_usd"] = record["latency_s"] = 0.0
    titles = [t.title for t in report_tables(free)]
    assert "Summary" in titles
    assert not {"Latency relative to j+h", "Cost relative to j+h", "Cost-effectiveness",
                "Latency-effectiveness"} & set(titles)  # fmt: skip
    assert "Latency relative to j+h" in [t.title for t in report_tables(results)]


def test_write_report_writes_figures_with_their_data_and_the_tables(
    results: dict[str, Any], tmp_path: Path
) -> None:
    written = write_report(results, tmp_path / "out", samples=make_samples(results), cases=CASES)
    names = sorted(p.name for p in written)
    assert names == sorted(
        [
            "completion_by_method.png",
            "completion_by_method.csv",
            "failure_composition.png",
            "failure_composition.csv",
            "cost_vs_completion.png",
            "cost_vs_completion.csv",
            "where_they_fail.png",
            "where_they_fail.csv",
            "report.md",
            "report.html",
        ]
    )
    assert all(p.stat().st_size > 0 for p in written)
    assert (tmp_path / "out" / "completion_by_method.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with (tmp_path / "out" / "completion_by_method.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["model"], r["method"], r["k"], r["completion_rate"]) for r in rows] == [
        ("m-small", "j+h", "1", "0.25"),
        ("m-small", "med", "5", "0.75"),
        ("m-small", "select", "5", "0.75"),
        ("m-large", "j+h", "1", "0.75"),
        ("m-large", "med", "5", "1.0"),
        ("m-large", "select", "5", "1.0"),
    ]
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "| model | j+h | med | select |" in markdown
    assert "| m-small | 25.0 ± 35.4 | 75.0 ± 35.4 | 75.0 ± 35.4 |" in markdown
    assert "![cost_vs_completion](cost_vs_completion.png)" in markdown


def _write_cases(folder: Path) -> Path:
    for case in CASES.values():
        path = folder / (case["id"].replace("/", "_") + ".json")
        path.write_text(json.dumps(case))
    return folder


def test_report_command_writes_into_the_named_folder(
    results: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results_path = tmp_path / "run" / "results.json"
    results_path.parent.mkdir()
    results_path.write_text(json.dumps(results))
    with (results_path.parent / "samples.jsonl").open("w") as handle:
        for sample in make_samples(results):
            handle.write(json.dumps(sample) + "\n")
    (tmp_path / "cases").mkdir()
    cases = _write_cases(tmp_path / "cases")
    code = cli.main(
        ["report", str(results_path), "--out", str(tmp_path / "report"), "--cases", str(cases)]
    )
    assert code == 0
    printed = capsys.readouterr().out.split()
    assert str(tmp_path / "report" / "report.html") in printed
    page = (tmp_path / "report" / "report.html").read_text()
    assert "trip-shift/10" in page  # the cases are indexed in the page
    store = ReplyReader(tmp_path / "report" / REPLIES_DIR)  # the replies' text beside it
    texts = store.get_many(store.index).values()
    assert any(t["reasoning"].startswith("thinking about Move the whole trip") for t in texts)
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["results.json", "samples.jsonl"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{not json", "not JSON"),
        ("[1, 2]", "top level is not a JSON object"),
        ('{"summary": [], "meta": {}}', "'results' is missing or not a list"),
        (
            '{"summary": [{"model": "m", "method": "j"}], "results": []}',
            "summary[0] lacks 'completion_rate'",
        ),
        ('{"summary": [], "results": [{"case": "c", "model": "m"}]}', "results[0] lacks 'method'"),
    ],
)
def test_report_command_rejects_unusable_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    path = tmp_path / "results.json"
    if content is not None:
        path.write_text(content)
    assert cli.main(["report", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_broken_samples_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text('{"case": "a"}\n\n{oops\n')
    with pytest.raises(UserError, match="line 3 is not JSON"):
        list(SampleFile(path))


def test_a_group_without_a_rate_shows_a_dash_in_report_md_and_html_and_no_bar(
    results: dict[str, Any], tmp_path: Path
) -> None:
    errored = copy.deepcopy(results)
    key = ("m-small", "med", 5)
    (row,) = [r for r in errored["summary"] if (r["model"], r["method"], r["k"]) == key]
    row.update(completion_rate=None, completion_std=None, runs=0, completion_by_seed={})
    written = write_report(errored, tmp_path / "out", samples=None, cases=None)
    assert {p.name for p in written} >= {"report.md", "report.html", "completion_by_method.png"}
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "| m-small | 25.0 ± 35.4 | – | 75.0 ± 35.4 |" in markdown  # not 0.0 ± 0.0
    assert "| m-small | med | 5 |" in markdown and "| – |" in markdown
    assert "<td>–</td>" in (tmp_path / "out" / "report.html").read_text()
    with (tmp_path / "out" / "completion_by_method.csv").open() as handle:
        rates = {(r["model"], r["method"]): r["completion_rate"] for r in csv.DictReader(handle)}
    assert rates["m-small", "med"] == "" and rates["m-small", "select"] == "0.75"
