"""The gate and ``revprop compare`` on chain runs: ``--revprop-gate-metric=chain`` gates chain
completion like the completion rate (paired by case and seed, McNemar), and runs of different
protocols (off, teacher, free) are refused in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.chain_records import chain_meta, chain_record

from pytest_revprop import cli
from pytest_revprop.errors import UserError
from pytest_revprop.reporting.aggregate import summarize
from pytest_revprop.reporting.gate import gate, gate_lines, gate_section, read_comparable_baseline
from pytest_revprop.reporting.stats import GroupKey

ALL_DONE = [True, True, True]
BROKEN = [True, "miss", True]


def _run(protocol: str, failed: int, n: int = 10) -> list[dict[str, Any]]:
    """n chains; the first ``failed`` of them miss at turn 1."""
    return [
        chain_record(f"c{i}/10", protocol, BROKEN if i < failed else ALL_DONE) for i in range(n)
    ]


def _doc(protocol: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    meta = chain_meta(protocol) if protocol != "off" else {"split": "test"}
    return {"meta": meta, "summary": summarize(records), "results": records}


def test_the_chain_metric_flags_a_drop_of_chain_completion() -> None:
    baseline = _doc("teacher", _run("teacher", 0))
    run = _run("teacher", 8)  # 8 chains flipped down: p = 2 / 2**8
    result = gate(baseline, run, 2.0, metric="chain", run_meta=chain_meta("teacher"))
    assert [g.key for g in result["regressions"]] == [GroupKey("m", "j+h", 1)]
    lines = gate_lines(result)
    assert lines[0].startswith(
        "REGRESSION m j+h k1: chains 100.0% -> 20.0% (-80.0 pts, flips 8 down"
    )
    assert "c0/10 seed 0" in lines[1]
    last, _ = gate_section(result, None, 2.0)[-1]
    assert last.startswith("revprop: regression of chain completion beyond 2.0 points")


def test_the_chain_metric_without_chains_is_refused() -> None:
    off = [{k: v for k, v in r.items() if k != "chain"} for r in _run("teacher", 0)]
    with pytest.raises(
        UserError, match=r"gate-metric=chain gates chain completion, and this run has no chains"
    ):
        gate(_doc("off", off), off, 2.0, metric="chain", run_meta={"split": "test"})


@pytest.mark.parametrize(
    ("base", "run", "words"),
    [
        (
            "off",
            "teacher",
            "the baseline file is a run without chains (off) and this run is a teacher chain run",
        ),
        (
            "free",
            "teacher",
            "the baseline file is a free chain run and this run is a teacher chain run",
        ),
        (
            "teacher",
            "off",
            "the baseline file is a teacher chain run and this run is a run without chains",
        ),
    ],
)
def test_a_baseline_of_another_protocol_is_refused_in_one_line(
    base: str, run: str, words: str
) -> None:
    records = (
        _run(run, 0)
        if run != "off"
        else [{k: v for k, v in r.items() if k != "chain"} for r in _run("teacher", 0)]
    )
    baseline = _doc(base, _run(base, 0) if base != "off" else records)
    run_meta = chain_meta(run) if run != "off" else {"split": "test"}
    for metric in ("completion", "pass_all_seeds"):
        with pytest.raises(UserError) as caught:
            gate(baseline, records, 2.0, metric=metric, run_meta=run_meta)  # type: ignore[arg-type]
        assert words in str(caught.value) and "\n" not in str(caught.value)
    # without the run's meta the records' own protocol tells
    with pytest.raises(UserError, match="only runs of the same protocol"):
        gate(baseline, records, 2.0)


def test_a_baseline_of_another_protocol_is_refused_before_any_item_runs(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(_doc("free", _run("free", 0))))
    groups = [GroupKey("m", "j+h", 1)]
    assert read_comparable_baseline(path, groups, protocol="free", metric="chain")
    with pytest.raises(UserError, match="is a free chain run and this run is a teacher chain run"):
        read_comparable_baseline(path, groups, protocol="teacher")


def _write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc))
    return path


def test_compare_names_the_protocol_and_gates_chain_completion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path / "a.json", _doc("free", _run("free", 0)))
    b = _write(tmp_path / "b.json", _doc("free", _run("free", 8)))
    status = cli.main(["compare", str(a), str(b), "--metric", "chain", "--fail-on-regression"])
    out = capsys.readouterr().out
    assert status == 6
    assert "Protocol: A and B are both free chain runs" in out
    assert "Regression: chain completion (chains with every turn completed) down by more" in out


def test_compare_refuses_runs_of_different_protocols(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path / "a.json", _doc("teacher", _run("teacher", 0)))
    b = _write(tmp_path / "b.json", _doc("free", _run("free", 0)))
    assert cli.main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"run A ({a}) is a teacher chain run and run B ({b}) is a free chain run" in err
    off = [{k: v for k, v in r.items() if k != "chain"} for r in _run("teacher", 0)]
    c = _write(tmp_path / "c.json", _doc("off", off))
    assert cli.main(["compare", str(c), str(c), "--metric", "chain"]) == 2
    assert "hold no chains" in capsys.readouterr().err
