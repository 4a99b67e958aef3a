"""The record sink and its files: records and replies on disk as they arrive, each reply's text
once, results.json in its fixed shape and order from the lines on disk, and samples read back
with their replies (``read_samples``, ``revprop samples``), also from a run cut short."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.records import a_record

from pytest_revprop import cli
from pytest_revprop.errors import UserError
from pytest_revprop.reporting.aggregate import summarize
from pytest_revprop.reporting.replystore import REPLIES_DIR, ReplyReader, ReplyWriter, reply_key
from pytest_revprop.reporting.results import load_results, open_results
from pytest_revprop.reporting.samples import SampleFile, read_samples
from pytest_revprop.reporting.sink import RecordSink, SentTexts
from pytest_revprop.vocabulary import FIXED_RESULT_KEYS, RESULT_KEYS


def _reply(key: str | None, content: str, reasoning: str | None = None) -> dict[str, Any]:
    return {
        "role": "sample",
        "seed": 0,
        "content": content,
        "reasoning": reasoning,
        "finish_reason": "stop",
        "input_tokens": 10,
        "output_tokens": 5,
        "reasoning_tokens": 2,
        "latency_s": 0.5,
        "cost_usd": 0.001,
        "cached": False,
        "key": key,
    }


def _record(
    case: str, model: str, method: str, seed: int, *replies: dict[str, Any], completed: bool = True
) -> dict[str, Any]:
    return a_record(
        case, completed, model=model, method=method, k=1 if method == "j+h" else 3, seed=seed,
        cost_usd=0.001 * len(replies), latency_s=0.5, calls=len(replies),
        patch=[{"op": "replace", "path": "/a", "value": seed}], request="Change a.",
        replies=list(replies),
    )  # fmt: skip


SHARED = _reply("a" * 64, "[1]", "long thought " * 100)
RECORDS = [
    _record("c2", "m", "med", 0, SHARED, _reply("b" * 64, "[2]", "other")),
    _record("c1", "m", "j+h", 0, SHARED, completed=False),
    _record("c1", "m", "med", 0, SHARED, _reply("c" * 64, "[3]")),
    _record("c1", "a-model", "j+h", 0, _reply(None, "[]", "reference")),
]


def _stored(folder: Path) -> dict[str, dict[str, Any]]:
    store = ReplyReader(folder / REPLIES_DIR)
    return store.get_many(store.index)


def test_records_and_replies_are_on_disk_as_each_record_arrives(tmp_path: Path) -> None:
    sink = RecordSink(tmp_path / "reports")
    assert not (tmp_path / "reports").exists()  # nothing touched before the first record
    sink.add(RECORDS[0])
    lines = (tmp_path / "reports" / "samples.jsonl").read_text().splitlines()
    assert [json.loads(line)["case"] for line in lines] == ["c2"]
    assert set(_stored(tmp_path / "reports")) == {"a" * 64, "b" * 64}
    sink.add(RECORDS[1])
    assert len((tmp_path / "reports" / "samples.jsonl").read_text().splitlines()) == 2
    sink.close()


def test_each_reply_text_is_stored_once_and_records_refer_to_it_by_key(tmp_path: Path) -> None:
    sink = RecordSink(tmp_path)
    for record in RECORDS:
        sink.add(record)
    sink.finish({})
    stored = _stored(tmp_path)
    assert len(stored) == 4  # a, b, c and the reference reply's text hash
    assert stored["a" * 64] == {"content": "[1]", "reasoning": "long thought " * 100}
    text = (tmp_path / "samples.jsonl").read_text()
    assert "long thought" not in text and text.count('"key": "' + "a" * 64) == 3
    reference = reply_key(_reply(None, "[]", "reference"))
    assert reference.startswith("t") and stored[reference]["reasoning"] == "reference"


def test_results_json_keeps_its_shape_and_the_report_order(tmp_path: Path) -> None:
    sink = RecordSink(tmp_path)
    for record in RECORDS:
        sink.add(record)
    doc = sink.finish({"split": "test"})
    written = load_results(tmp_path / "results.json")
    assert list(written) == ["meta", "summary", "results"]
    assert written["meta"]["split"] == "test" and "version" in written["meta"]
    assert written["summary"] == doc["summary"] == summarize(RECORDS)
    order = [(r["model"], r["method"], r["case"]) for r in written["results"]]
    assert order == [
        ("a-model", "j+h", "c1"),
        ("m", "j+h", "c1"),
        ("m", "med", "c1"),
        ("m", "med", "c2"),
    ]
    assert all(list(row) == list(RESULT_KEYS) for row in written["results"])
    assert set(FIXED_RESULT_KEYS) <= set(written["results"][0])
    by_case = {(r["model"], r["method"], r["case"]): r for r in RECORDS}
    for row in written["results"]:
        expected = by_case[row["model"], row["method"], row["case"]]
        assert row == {key: expected.get(key) for key in RESULT_KEYS}
    # samples.jsonl is in the same order, and the outcome table too
    samples = [(r["model"], r["method"], r["case"]) for r in SampleFile(tmp_path / "samples.jsonl")]
    assert samples == order
    assert [(r["model"], r["method"], r["case"]) for r in doc["results"]] == order


def test_a_samples_replies_read_back_equal_the_replies_it_was_given(tmp_path: Path) -> None:
    sink = RecordSink(tmp_path)
    for record in RECORDS:
        sink.add(record)
    sink.finish({})
    (back,) = read_samples(tmp_path, case="c1", model="m", method="med")
    assert back["replies"] == RECORDS[2]["replies"]
    assert [r["case"] for r in read_samples(tmp_path / "results.json", seed=0, model="m")] == [
        "c1",
        "c1",
        "c2",
    ]
    (bare,) = read_samples(tmp_path, case="c2", with_replies=False)
    assert "content" not in bare["replies"][0] and bare["replies"][0]["key"] == "a" * 64
    read_back = [dict(r) for r in sink.records()][2]
    assert {k: read_back[k] for k in RECORDS[2]} == {**RECORDS[2]}
    assert all(read_back[k] is None for k in set(read_back) - set(RECORDS[2]))


def test_the_same_item_arriving_twice_keeps_its_last_record(tmp_path: Path) -> None:
    sink = RecordSink(tmp_path)
    sink.add(RECORDS[1])
    sink.add({**RECORDS[1], "completed": True, "miss": 0})
    assert len(sink) == 1
    doc = sink.finish({})
    (row,) = load_results(tmp_path / "results.json")["results"]
    assert row["completed"] is True and doc["summary"][0]["completion_rate"] == 1.0
    assert len((tmp_path / "samples.jsonl").read_text().splitlines()) == 1


def test_a_worker_sends_each_reply_text_once_and_the_sink_finds_it_by_key(tmp_path: Path) -> None:
    sent = SentTexts()
    first, second = (sent.strip(record) for record in RECORDS[:2])
    assert first["replies"][0]["content"] == "[1]"
    assert "content" not in second["replies"][0] and second["replies"][0]["key"] == "a" * 64
    assert RECORDS[1]["replies"][0]["content"] == "[1]"  # the record itself is left alone
    sink = RecordSink(tmp_path)
    sink.add(first)
    sink.add(second)
    sink.finish({})
    (back,) = read_samples(tmp_path, case="c1")
    assert back["replies"] == RECORDS[1]["replies"]


def test_a_run_cut_short_mid_line_leaves_every_whole_record_readable(tmp_path: Path) -> None:
    sink = RecordSink(tmp_path)
    for record in RECORDS[:3]:
        sink.add(record)
    sink.close()
    with (tmp_path / "samples.jsonl").open("a") as handle:
        handle.write('{"case": "c9", "model": "m", "met')  # killed while writing
    store = sorted((tmp_path / REPLIES_DIR).iterdir())[-1]
    with store.open("a") as handle:
        handle.write('revpropReply({"key":"d')
    samples = list(read_samples(tmp_path))
    assert [s["case"] for s in samples] == ["c2", "c1", "c1"]  # arrival order: not sorted yet
    assert samples[2]["replies"] == RECORDS[2]["replies"]
    # the next writer of the store cuts the broken line off, so a browser can load the file
    ReplyWriter(tmp_path / REPLIES_DIR).close()
    assert store.read_text().endswith(");\n")


def test_samples_command_prints_a_samples_calls_with_replies_and_reasoning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sink = RecordSink(tmp_path)
    for record in RECORDS:
        sink.add(record)
    sink.finish({})
    assert cli.main(["samples", str(tmp_path), "--case", "c2", "--method", "med"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["replies"] == RECORDS[0]["replies"]
    assert cli.main(["samples", str(tmp_path), "--case", "nope"]) == 2
    assert "no sample matches" in capsys.readouterr().err


def test_results_json_is_streamed_row_by_row_whatever_its_layout(tmp_path: Path) -> None:
    doc = {
        "results": [{"case": f"c{i}", "model": "m", "method": "j", "text": "x" * 9000} for i in range(300)],
        "meta": {"split": "test"},
        "summary": [{"model": "m", "method": "j", "completion_rate": 0.5}],
    }  # fmt: skip
    for indent in (None, 1):
        path = tmp_path / f"results-{indent}.json"
        path.write_text(json.dumps(doc, indent=indent))
        opened = open_results(path)
        assert opened["meta"] == doc["meta"] and opened["summary"] == doc["summary"]
        assert len(opened["results"]) == 300 and list(opened["results"]) == doc["results"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**doc, "results": [{"case": "c"}]}))
    with pytest.raises(UserError, match=r"results\[0\] lacks 'model', 'method'"):
        list(open_results(broken)["results"])
