"""Hostile input: each known escape as a test (a bad record, deep nesting, the
pointer pattern, work per reply, regex size, one verdict per reply, forbidden pointers).

Time bounds are CPU seconds of the test's thread (``time.thread_time``): generous limits that
a hang or an exponential path exceeds by far, whatever else the machine is running."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.handmade_cases import invoice_case, make_case, write_cases
from helpers.records import a_record

from pytest_revprop.cli.check import merge_main, score_main, validate_main
from pytest_revprop.core.cases import CaseError, case_schema
from pytest_revprop.core.extraction import MAX_REPLY_CHARS, InvalidReply, extract_patch
from pytest_revprop.core.registry import run_method
from pytest_revprop.core.scoring import score_reply
from pytest_revprop.llm.types import Reply
from pytest_revprop.reporting.samples import read_samples
from pytest_revprop.reporting.sink import RecordSink
from pytest_revprop.util.strictjson import MAX_DEPTH, loads_strict

SURROGATE_REPLY = '[{"op": "replace", "path": "/total", "value": "\\ud800"}]'
DEEP_REPLY = json.dumps([{"op": "replace", "path": "/total", "value": 1}])[:-2] + (
    ', "x": ' + "[" * 900 + "]" * 900 + "}]"
)
INF_REPLY = '[{"op": "replace", "path": "/total", "value": 1e400}]'


def _case_file(tmp_path: Path) -> str:
    write_cases(tmp_path / "cases", [invoice_case()])
    return str(next((tmp_path / "cases").rglob("*.json")))


def _reply_file(tmp_path: Path, text: str, name: str = "reply.txt") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _record(case: str, seed: int, **extra: Any) -> dict[str, Any]:
    return a_record(case, seed=seed, **extra)


# ---------------------------------------------------------------- 1. one bad record


def test_a_record_that_cannot_be_written_loses_no_other_record(tmp_path: Path) -> None:
    sink = RecordSink(tmp_path / "report")
    sink.add(_record("a/10", 0))
    sink.add(_record("b/10", 0, reason="got \ud800", findings=[{"got": "\udfff"}]))
    sink.add(_record("c/10", 0, patch=object()))  # not JSON at all
    sink.add(_record("d/10", 0, replies=[{"content": "text \ud800", "seed": 0}]))
    sink.add(_record("e/10", 0))
    sink.finish({})
    rows = json.loads((tmp_path / "report" / "results.json").read_text("utf-8"))["results"]
    by_case = {row["case"]: row for row in rows}
    assert sorted(by_case) == ["a/10", "b/10", "c/10", "d/10", "e/10"]
    assert by_case["b/10"]["reason"] == "got \ud800"  # escaped on disk, the same once read
    assert by_case["c/10"]["error"] == "method_failed"
    assert "could not be written" in by_case["c/10"]["reason"]
    samples = {s["case"]: s for s in read_samples(tmp_path / "report")}
    assert samples["d/10"]["replies"][0]["content"] == "text \ud800"


def test_score_and_merge_give_a_lone_surrogate_reply_a_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = _case_file(tmp_path)
    reply = _reply_file(tmp_path, SURROGATE_REPLY)
    assert score_main(["--details", case, reply]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["valid"], out["error"]) == (False, "no_patch")
    assert "lone surrogate" in out["reason"]
    assert merge_main(["--rule", "maj", case, reply, reply]) == 0
    assert json.loads(capsys.readouterr().out) == {"artifact": None, "patch": None, "chosen": None}


# ---------------------------------------------------------------- 2. deep nesting


def test_a_reply_nested_900_deep_is_invalid_with_a_reason_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = invoice_case()
    score = score_reply(case, DEEP_REPLY)
    assert not score.valid and score.outcome.error in {"no_patch", "not_a_patch", "apply_error"}
    assert score.outcome.reason
    run = asyncio.run(run_method("j+h", case, _answer(DEEP_REPLY), k=1, seed=0))
    assert run.outcome.error == score.outcome.error and run.outcome.error != "method_failed"
    case_file, reply = _case_file(tmp_path), _reply_file(tmp_path, DEEP_REPLY)
    assert score_main([case_file, reply]) == 0
    assert json.loads(capsys.readouterr().out)["error"] == score.outcome.error
    assert merge_main(["--rule", "or", case_file, reply]) == 0
    assert json.loads(capsys.readouterr().out)["artifact"] is None


def test_a_case_nested_600_deep_is_one_line_and_the_folder_still_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_cases(tmp_path / "cases", [invoice_case()])
    data = invoice_case().to_dict()
    data["reference"] = json.loads("[" * 600 + "]" * 600)
    (folder / "deep.json").write_text(json.dumps(data))
    assert validate_main([str(folder)]) == 1
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert len(lines) == 1 and "deep.json: json at /reference/0/0" in lines[0]
    assert f"nests deeper than {MAX_DEPTH} levels" in lines[0]
    assert "1 valid case(s), 1 broken" in out.err


# ---------------------------------------------------------------- 3. the pointer pattern


def test_the_schema_pointer_pattern_is_linear_and_the_case_is_refused_fast() -> None:
    pattern = case_schema()["definitions"]["pointer"]["pattern"]
    started = time.thread_time()
    assert re.search(pattern, "/" * 40 + "~") is None
    assert re.search(pattern, "/a~0b/~1/c") is not None
    with pytest.raises(CaseError, match="schema at /gold/0/path"):
        make_case(
            {"total": 1}, [{"op": "replace", "path": "/" * 40 + "~", "value": 2, "kind": "direct"}]
        )
    assert time.thread_time() - started < 2


# ---------------------------------------------------------------- 4. work per reply


def test_a_reply_near_the_size_limit_is_searched_in_bounded_time() -> None:
    text = ("```\n" * MAX_REPLY_CHARS)[: MAX_REPLY_CHARS - 9_010]  # 1,990,990 characters
    started = time.thread_time()
    with pytest.raises(InvalidReply):
        extract_patch(text)
    assert time.thread_time() - started < 0.4  # 0.02 s now; 0.8 s with a lazy fence regex


def test_catastrophic_regex_gold_ops_cost_a_bounded_time_per_reply() -> None:
    artifact = {f"f{i}": "a" * 28 for i in range(30)}
    gold = [
        {"op": "replace", "path": f"/f{i}", "value": "(a|aa)+$", "match": "regex_match",
         "kind": "direct"}
        for i in range(30)
    ]  # fmt: skip
    case = make_case(artifact, gold)
    reply = json.dumps(
        [{"op": "replace", "path": f"/f{i}", "value": "a" * 40 + "!"} for i in range(30)]
    )
    started = time.thread_time()
    score = score_reply(case, reply)
    assert time.thread_time() - started < 5
    assert score.valid and not score.completed


# ---------------------------------------------------------------- 5. regex size


def test_a_regex_that_explodes_when_compiled_is_refused_quickly() -> None:
    started = time.thread_time()
    with pytest.raises(CaseError, match=r"regex at /gold/0/value: .*expands to more than"):
        make_case(
            {"memo": "x"},
            [{"op": "replace", "path": "/memo", "value": "((a{1000}){1000}){1000}",
              "match": "regex_match", "kind": "direct"}],
        )  # fmt: skip
    assert time.thread_time() - started < 2


# ---------------------------------------------------------------- 6. one verdict


def _answer(text: str) -> Any:
    async def ask(messages: Any, seed: int, purpose: str, priority: int) -> Reply:
        return Reply(content=text, finish_reason="stop")

    return ask


def test_a_reply_with_1e400_gets_one_verdict_from_score_and_from_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = invoice_case()
    assert score_main(["--details", _case_file(tmp_path), _reply_file(tmp_path, INF_REPLY)]) == 0
    printed = capsys.readouterr().out
    loads_strict(printed)  # no Infinity
    command = json.loads(printed)
    run = asyncio.run(run_method("j+h", case, _answer(INF_REPLY), k=1, seed=0))
    scored = run.score(case)
    assert (
        (command["valid"], command["error"])
        == (scored.valid, scored.outcome.error)
        == (False, "no_patch")
    )
    assert "out of range" in command["reason"]


# ---------------------------------------------------------------- 7. forbidden pointers


@pytest.mark.parametrize("pointer", ["/total~2", "/total~", "/a~x/b"])
def test_pointers_the_spec_forbids_are_refused(pointer: str) -> None:
    with pytest.raises(CaseError, match="ref_equal value is not a JSON Pointer"):
        make_case(
            {"total": 1, "sum": 1},
            [{"op": "replace", "path": "/sum", "value": pointer, "match": "ref_equal",
              "kind": "direct"}],
        )  # fmt: skip
    reply = json.dumps([{"op": "replace", "path": pointer, "value": 2}])
    score = score_reply(invoice_case(), reply)
    assert (score.valid, score.outcome.error) == (False, "not_a_patch")


# ---------------------------------------------------------------- a real run


def test_a_run_of_hostile_replies_keeps_every_record_with_the_command_verdicts(
    pytester: pytest.Pytester,
) -> None:
    """The real plugin, in-process, against the fake server: a lone surrogate, 900 levels of
    nesting, ``1e400`` and the gold; every record is in results.json, and each verdict is the
    one ``revprop score``'s scorer gives the same text."""
    from helpers.faulty_runs import FAST_RETRIES, MODEL, dev_cases, results, run_options

    from pytest_revprop.core.literal import literal_gold_patch
    from pytest_revprop.testing.fakeserver import FakeServer

    case = dev_cases()[0]
    texts = [SURROGATE_REPLY, DEEP_REPLY, INF_REPLY, json.dumps(literal_gold_patch(case))]
    with FakeServer(rules=[{"seed": s, "content": t} for s, t in enumerate(texts)]) as server:
        run = pytester.runpytest(
            *run_options(
                pytester.path,
                f"--revprop-model={MODEL}",
                f"--revprop-api-base={server.base_url}",
                f"--revprop-cases={case.source}",
                "--revprop-split=all",
                "--revprop-method=j+h",
                "--revprop-seeds=0,1,2,3",
                *FAST_RETRIES,
            )
        )
    assert run.ret == 1, run.stdout.str()[-3000:] + run.stderr.str()[-3000:]
    rows = {row["seed"]: row for row in results(pytester.path)}
    assert sorted(rows) == [0, 1, 2, 3]
    for seed, text in enumerate(texts):
        expected = score_reply(case, text)
        got = (rows[seed]["valid"], rows[seed]["error"], rows[seed]["completed"])
        assert got == (expected.valid, expected.outcome.error, expected.completed), seed
    assert rows[3]["completed"] and rows[1]["error"] != "method_failed"
