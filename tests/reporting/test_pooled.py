"""Several runs given to ``revprop report`` (reporting/pooled.py): runs of the reported run's
protocol made with other fresh instances pool their records into the robustness tables and the
completion-by-turn figure's shipped and fresh lines; the other protocol's run is drawn beside;
anything else is refused in one line."""

from __future__ import annotations

import csv
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.chain_records import chain_meta, chain_record
from helpers.chromium import CHROMIUM
from hypothesis import given
from hypothesis import strategies as st

from pytest_revprop import cli
from pytest_revprop.reporting.pooled import pool_note, pooled_records, sort_runs
from pytest_revprop.reporting.robustness import robustness_rows
from pytest_revprop.reporting.sink import RecordSink

CASE = "invoice-qty/10"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _run(folder: Path, seed: int, fresh: list[list[Any]], *, turns: int = 3, **meta: Any) -> Path:
    """A free chain run of j+h over the shipped case (completes it at both sample seeds) and
    the fresh instance of ``seed`` (one chain per sample seed, turns as ``fresh`` says)."""
    sink = RecordSink(folder)
    for sample in (0, 1):
        sink.add(chain_record(CASE, "free", [True] * turns, seed=sample))
    for sample, spec in enumerate(fresh):
        sink.add(chain_record(f"{CASE}@{seed}", "free", spec, seed=sample))
    run_meta = {
        **chain_meta("free", turns),
        "instances": {"seeds": [seed], "folder": str(folder / "instances"), "not_built": 0},
        **meta,
    }
    sink.finish(run_meta)
    return folder / "results.json"


def _pooled_report(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two free runs, of instance seeds 1 and 2, reported together: (first, second, report
    folder). Of each run's two fresh chains, seed 1 completes one, seed 2 none."""
    one = _run(tmp_path / "one", 1, [[True, True, True], ["miss", True, True]])
    two = _run(tmp_path / "two", 2, [["miss", "miss", True], [True, "miss", "miss"]])
    out = tmp_path / "pooled"
    assert cli.main(["report", str(one), str(two), "--out", str(out)]) == 0
    return one, two, out


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


def test_two_runs_of_other_seeds_pool_into_robustness_and_the_turn_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two, out = _pooled_report(tmp_path)
    assert str(out / "report.md") in capsys.readouterr().out
    md = (out / "report.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| m | j+h | 1 | 100.0 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # shipped 2 of 2 (counted once though both runs hold it); fresh 1 of 4; seeds 1 and 2
    assert cells[3] == "100.0" and cells[5] == "25.0" and cells[7] == "1,2"
    assert cells[8] == "0.0-100.0" and cells[10] == "invoice-qty"  # seed 2: 0 of 2
    assert "Robustness pools 2 runs of this protocol" in md
    assert "\nPooled with runs made with other fresh instances" in md.split("## Robustness")[1]
    assert f"this run, {one} (created" in md and f"run 2, {two} (created" in md
    assert "2 records held by an earlier run too" in md
    by_turn = _csv(out / "completion_by_turn.csv")
    fresh = [r["completion_rate"] for r in by_turn if r["cases"] == "fresh"]
    assert fresh == ["0.5", "0.5", "0.75"]  # the four fresh chains of both runs, turn by turn
    # the rest of the report is the first run's: its summary counts its own four chains
    alone = tmp_path / "alone"
    assert cli.main(["report", str(one), "--out", str(alone)]) == 0
    alone_md = (alone / "report.md").read_text()
    assert md.split("## Robustness")[0] == alone_md.split("## Robustness")[0]
    assert (
        "Robustness pools" not in alone_md
        and "Pooled with" not in alone_md
        and "| 100.0 | 50.0 |" not in md
    )


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_a_pooled_report_reads_in_a_real_browser(tmp_path: Path, new_page: Any) -> None:
    """report.html of two pooled runs, in Chromium: the note names both runs, the robustness
    table counts both seeds and the shipped chains once, and the turn figure is drawn."""
    one, two, out = _pooled_report(tmp_path)
    page = new_page(1400, 1000)
    page.goto((out / "report.html").as_uri())
    notes = " ".join(page.locator("ul.notes li").all_text_contents())
    assert "Robustness pools 2 runs of this protocol" in notes
    assert str(one) in notes and str(two) in notes
    block = page.locator("section.table-block", has_text="shipped cases against fresh instances")
    assert block.is_visible()
    assert (block.locator("p.note").text_content() or "").startswith("Pooled with runs made")
    cells = block.locator("tbody tr").first.locator("td").all_text_contents()
    assert cells[3] == "100.0" and cells[5] == "25.0" and cells[7] == "1,2"
    drawn = "img => img.complete && img.naturalWidth"
    assert page.eval_on_selector("#figure-completion_by_turn img", drawn) > 200
    block.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "pooled_report.png"))


def test_a_pooled_run_beside_the_other_protocols_run(tmp_path: Path) -> None:
    one = _run(tmp_path / "one", 1, [[True, True, True]])
    two = _run(tmp_path / "two", 2, [["miss", True, True]])
    sink = RecordSink(tmp_path / "teacher")
    sink.add(chain_record(CASE, "teacher", [True, True, True]))
    sink.finish(chain_meta("teacher", 3))
    teacher = tmp_path / "teacher" / "results.json"
    out = tmp_path / "out"
    assert cli.main(["report", str(one), str(teacher), str(two), "--out", str(out)]) == 0
    rows = _csv(out / "completion_by_turn.csv")
    assert {(r["protocol"], r["cases"]) for r in rows} == {
        ("free", "shipped"),
        ("free", "fresh"),
        ("teacher", "all"),
    }
    assert [r["completion_rate"] for r in rows if r["cases"] == "fresh"] == ["0.5", "1.0", "1.0"]


@pytest.mark.parametrize(
    ("second", "words"),
    [
        ("no-instances", "without fresh instances: a second run of the same protocol is pooled"),
        ("prompts", "ran different prompt templates (system): runs pooled for robustness"),
        ("turns", "runs chains of 4 follow-ups and"),
        ("teacher-twice", "are both teacher chain runs"),
    ],
)
def test_runs_that_cannot_be_pooled_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], second: str, words: str
) -> None:
    prints = {"system": {"source": "shipped", "sha256": "a"}}
    one = _run(tmp_path / "one", 1, [[True, True, True]], prompts=prints)
    runs = [str(one)]
    if second == "no-instances":
        two = _run(tmp_path / "two", 2, [[True, True, True]], instances=None)
    elif second == "prompts":
        other = {"system": {"source": "override", "sha256": "b"}}
        two = _run(tmp_path / "two", 2, [[True, True, True]], prompts=other)
    elif second == "turns":
        two = _run(tmp_path / "two", 2, [[True] * 4], turns=4, prompts=prints)
    else:
        for name in ("t1", "t2"):
            sink = RecordSink(tmp_path / name)
            sink.add(chain_record(CASE, "teacher", [True, True, True]))
            sink.finish(chain_meta("teacher", 3))
            runs.append(str(tmp_path / name / "results.json"))
        two = None
    if two is not None:
        runs.append(str(two))
    assert cli.main(["report", *runs, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err
    assert not (tmp_path / "out").exists()


def rec(case: str, seed: int, done: bool) -> dict[str, Any]:
    return {
        "case": case, "model": "m", "method": "j+h", "k": 1, "seed": seed,
        "completed": done, "error": None,
    }  # fmt: skip


RUN = st.lists(
    st.tuples(st.sampled_from(["a/10", "a/10@1", "a/10@2", "b/10", "b/10@3"]), st.integers(0, 2)),
    max_size=12,
)


@given(RUN, RUN, st.randoms())
def test_pooling_counts_each_identity_once_the_first_runs_wins(
    first: list[tuple[str, int]], second: list[tuple[str, int]], rng: random.Random
) -> None:
    """Laws: a run pooled with itself is the run; the pool holds each (case, model, method, k,
    seed) of either run once, as the first run that holds it has it; its robustness rows are
    those of that union."""
    a = {"results": [rec(c, s, rng.random() < 0.5) for c, s in dict.fromkeys(first)]}
    b = {"results": [rec(c, s, rng.random() < 0.5) for c, s in dict.fromkeys(second)]}
    assert list(pooled_records([a, a])) == a["results"]
    pool = list(pooled_records([a, b]))
    keys = [(r["case"], r["seed"]) for r in pool]
    assert len(keys) == len(set(keys)) == len(set(first) | set(second))
    held = {(r["case"], r["seed"]): r for r in a["results"]}
    assert all(r is held[(r["case"], r["seed"])] for r in pool if (r["case"], r["seed"]) in held)
    assert robustness_rows(pool) == robustness_rows([*a["results"], *(
        r for r in b["results"] if (r["case"], r["seed"]) not in held
    )])  # fmt: skip
    assert f"{len(dict.fromkeys(first)) + len(dict.fromkeys(second)) - len(pool)} records" in (
        pool_note([a, b])
    )


def test_one_run_alone_pools_nothing() -> None:
    given_runs = sort_runs([("a.json", {"meta": chain_meta("free", 3), "results": []})])
    assert given_runs.beside == [] and given_runs.pooled == []


def test_runs_without_chains_pool_too() -> None:
    def off(seed: int) -> dict[str, Any]:
        return {"meta": {"instances": {"seeds": [seed]}}, "results": [rec(f"a/10@{seed}", 0, True)]}

    given_runs = sort_runs([("a.json", off(1)), ("b.json", off(2)), ("c.json", off(3))])
    assert given_runs.beside == [] and len(given_runs.pooled) == 2
    [row] = robustness_rows(pooled_records([off(1), *given_runs.pooled]))
    assert row["instances"] == [1, 2, 3] and row["shipped"] is None
