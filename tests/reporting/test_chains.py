"""Chain runs in the summary: the chain fields of the summary rows (worked out by hand), the
chain table of the terminal summary and summary.md, and the sink writing chain rows; an off
run's files are byte for byte what they were before chains existed (a snapshot)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers.chain_records import chain_meta, chain_record

from pytest_revprop.reporting.aggregate import markdown_summary, summarize, summary_text
from pytest_revprop.reporting.chains import CHAIN_RESULT_KEYS, chain_table, turn_outcomes
from pytest_revprop.reporting.results import load_results
from pytest_revprop.reporting.sink import RecordSink

DATA = Path(__file__).parent / "data"

FREE = [
    chain_record("a/10", "free", [True, True, True], seed=0),
    chain_record("b/10", "free", [True, "miss", True], seed=0, regressions=[0, 0, 2]),
    chain_record("a/10", "free", [True, True, "no_patch"], seed=1),
    chain_record("b/10", "free", ["over_edit", True], seed=1, regressions=[0, 1]),
    # its turn 1 call failed: an infrastructure error, left out of the chain and turn 1 rates
    chain_record("c/10", "free", ["call_failed", True], seed=1),
]


def test_summary_rows_of_a_chain_run_add_the_chain_fields() -> None:
    [row] = summarize(FREE)
    assert row["chain"] == "free"
    # chains scored: 4 (c's record has the infrastructure error); completed every turn: a seed 0
    assert row["chain_completion"] == pytest.approx(1 / 4)
    # turn 0 ran in 5 chains, c's errored: 3 of 4; turn 1: 4 of 5 ran it, 3 of them completed
    # (b seed 0 missed; c's turn 1 completed though its chain errored); turn 2: 2 of 3
    assert row["turn_completion"] == pytest.approx([3 / 4, 4 / 5, 2 / 3])
    # turns before failure among the scored chains: 3, 1, 2, 0 -> 6 / 4
    assert row["turns_before_failure"] == pytest.approx(6 / 4)
    assert row["regressions"] == 3
    assert row["regressions_per_chain"] == pytest.approx(3 / 4)
    assert row["completion_rate"] == pytest.approx((1 / 2 + 0 / 2) / 2)  # by seed, as ever
    assert row["errors"] == 1


def test_regressions_per_chain_divides_by_the_chains_whose_regressions_it_adds() -> None:
    # the second chain's turn 2 failed for good: an error chain, left out of every chain mean
    records = [
        chain_record("a/10", "free", [True, True, True], regressions=[0, 1, 0]),
        chain_record("b/10", "free", [True, "miss", "call_failed"], regressions=[0, 3, 0]),
    ]
    [row] = summarize(records)
    assert row["errors"] == 1 and row["chain_completion"] == 1.0
    assert row["regressions"] == 1 and row["regressions_per_chain"] == 1.0


def test_turn_outcomes_read_from_the_turns_or_given() -> None:
    record = chain_record(turns=[True, "miss", "call_failed"])
    assert turn_outcomes(record) == (1, 0, -1)
    assert turn_outcomes({"turn_outcomes": [1, 1]}) == (1, 1)
    assert turn_outcomes({"case": "x"}) == ()


def test_rows_without_chain_records_have_no_chain_field() -> None:
    off = {k: v for k, v in FREE[0].items() if k not in CHAIN_RESULT_KEYS}
    [row] = summarize([off])
    assert not {"chain", "chain_completion", "turn_completion"} & set(row)
    assert chain_table([row])[1] == []


def test_the_chain_table_has_a_column_per_turn() -> None:
    summary = summarize([*FREE, chain_record("a/10", "free", [True], method="med", k=3)])
    header, rows = chain_table(summary)
    assert header[4:9] == ["chains", "chain %", "turn 0 %", "turn 1 %", "turn 2 %"]
    assert rows[0][:9] == ["m", "j+h", "1", "free", "4", "25.0", "75.0", "80.0", "66.7"]
    assert rows[0][9:] == ["1.50", "3", "0.75"]
    assert rows[1][5:9] == ["100.0", "100.0", "–", "–"]  # med ran one turn


def test_terminal_summary_and_summary_md_show_the_chains() -> None:
    summary = summarize(FREE)
    text = summary_text(summary)
    assert "chains (completion by turn" in text
    assert re.search(r"turn 0 %\s+turn 1 %\s+turn 2 %", text)
    doc = {"meta": chain_meta("free"), "summary": summary, "results": FREE}
    md = markdown_summary(doc)
    assert "## Chains" in md
    assert "| m | j+h | 1 | free | 4 | 25.0 | 75.0 | 80.0 | 66.7 | 1.50 | 3 | 0.75 |" in md
    assert "`b/10` m j+h k1 s0: miss 1, over edit 0, wrong value 0 (first failed turn: 1)" in md


def test_the_sink_writes_chain_rows_and_their_summary(tmp_path: Path) -> None:
    sink = RecordSink(tmp_path)
    for record in FREE:
        sink.add(record)
    doc = sink.finish(chain_meta("free"))
    written = load_results(tmp_path / "results.json")
    assert written["summary"] == doc["summary"] == summarize(FREE)
    row = next(r for r in written["results"] if r["case"] == "b/10" and r["seed"] == 0)
    assert list(row)[-4:] == list(CHAIN_RESULT_KEYS)
    assert [t["completed"] for t in row["turns"]] == [True, False, True]
    assert row["turns_completed"] == 1 and row["regressions"] == 2
    line = json.loads((tmp_path / "samples.jsonl").read_text().splitlines()[0])
    assert line["chain"] == "free" and "request" in line["turns"][0]
    assert "## Chains" in (tmp_path / "summary.md").read_text()


def _off_records() -> list[dict[str, object]]:
    return json.loads((DATA / "off_records.json").read_text())


def test_an_off_run_writes_what_it_wrote_before_chains(tmp_path: Path) -> None:
    """The snapshot was written by the sink before chains existed, from the same records."""
    sink = RecordSink(tmp_path)
    for record in _off_records():
        sink.add(record)
    sink.finish({"split": "test", "seeds": [0, 1], "k_values": [1, 3]})
    for name in ("results.json", "summary.md", "samples.jsonl"):
        got = (tmp_path / name).read_text()
        want = (DATA / f"off_{name}").read_text()
        created = re.compile(r'"created": "[^"]*"')
        assert created.sub("", got) == created.sub("", want), name


def test_shards_of_different_chain_protocols_are_not_one_run(tmp_path: Path) -> None:
    from pytest_revprop.errors import UserError
    from pytest_revprop.reporting.combine import check_shards

    def meta(index: int, chain: dict[str, object] | None) -> dict[str, object]:
        shard = {"shard": {"index": index, "count": 2}}
        return shard if chain is None else {**shard, "chain": chain}

    one, two = tmp_path / "one", tmp_path / "two"
    teacher, free = chain_meta("teacher")["chain"], chain_meta("free")["chain"]
    assert check_shards({one: meta(1, None), two: meta(2, None)}) == [one, two]
    assert check_shards({one: meta(1, teacher), two: meta(2, teacher)}) == [one, two]
    for other in (free, None, {"protocol": "teacher", "turns": 2}):
        with pytest.raises(UserError, match="different runs: their chain protocols and turns"):
            check_shards({one: meta(1, teacher), two: meta(2, other)})
