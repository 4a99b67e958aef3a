"""Shards (sharding.py, scaleout.py): the split of a run into whole-case parts, ``auto`` under
Slurm and Kubernetes, and the refusals of ``revprop combine`` (reporting/combine.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.core.cases import select_cases
from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.reporting.combine import combine
from pytest_revprop.reporting.sink import RecordSink
from pytest_revprop.run.estimate import expected_calls
from pytest_revprop.run.runner import RunSettings
from pytest_revprop.run.scope import shard_cases
from pytest_revprop.run.sharding import (
    Shard,
    assign,
    parse_shard,
    shard_from_environment,
)


def test_parse_shard() -> None:
    assert parse_shard("2/3") == Shard(2, 3)
    assert parse_shard("auto") == "auto"
    for bad in ("0/3", "4/3", "3", "a/b", "1/0"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_shard(bad)


def test_parts_are_disjoint_whole_balanced_and_the_same_on_every_host() -> None:
    weights = {f"case-{i}/10": 10 + (i % 4) * 5 for i in range(23)}
    sizes = dict.fromkeys(weights, 10)
    parts = assign(weights, sizes, 4)
    assert sorted(c for part in parts for c in part) == sorted(weights)
    loads = [sum(weights[c] for c in part) for part in parts]
    assert max(loads) - min(loads) <= max(weights.values())
    # a pure function of the cases: the same parts from another ordering of them
    shuffled = dict(reversed(list(weights.items())))
    assert [set(part) for part in assign(shuffled, sizes, 4)] == [set(part) for part in parts]


def test_dev_split_shards_cover_the_run_once() -> None:
    cases = select_cases(None, "dev", None, None)
    models = [resolve_model("openai/fake")]
    settings = RunSettings(methods=["j+h", "med"], k_values=[3], seeds=[0, 1], cache_dir=None)
    weights = expected_calls(cases, models, settings)
    # at the first seed med makes 3 calls, j+h its first one: 3, times 2 seeds
    assert set(weights.values()) == {6}
    shards = [shard_cases(cases, models, settings, Shard(i, 3)) for i in (1, 2, 3)]
    ids = [c.id for part in shards for c in part]
    assert sorted(ids) == sorted(c.id for c in cases) and len(set(ids)) == len(ids)
    assert [len(part) for part in shards] == [10, 10, 10]
    with pytest.raises(UserError, match="shard 31/31 has no case"):
        shard_cases(cases, models, settings, Shard(31, 31))


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"},
         Shard(3, 3)),
        ({"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0"},
         Shard(1, 4)),
        ({"SLURM_ARRAY_TASK_ID": "14", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "10",
          "SLURM_ARRAY_TASK_STEP": "2"}, Shard(3, 3)),
        ({"JOB_COMPLETION_INDEX": "1", "REVPROP_SHARD_COUNT": "3"}, Shard(2, 3)),
    ],
)  # fmt: skip
def test_auto_reads_slurm_and_kubernetes(environ: dict[str, str], expected: Shard) -> None:
    assert shard_from_environment(environ) == expected


def test_auto_says_what_it_did_not_find() -> None:
    with pytest.raises(UserError, match=r"found neither a Slurm array job .* nor a Kubernetes"):
        shard_from_environment({})
    with pytest.raises(UserError, match="no REVPROP_SHARD_COUNT"):
        shard_from_environment({"JOB_COMPLETION_INDEX": "0"})
    with pytest.raises(UserError, match="gives shard 4 of 3"):
        shard_from_environment({"JOB_COMPLETION_INDEX": "3", "REVPROP_SHARD_COUNT": "3"})


# ------------------------------------------------------------------------------ combine


def _record(case: str, seed: int) -> dict[str, Any]:
    return {
        "case": case, "model": "m", "method": "j+h", "k": 1, "seed": seed, "completed": True,
        "valid": True, "error": None, "miss": 0, "over_edit": 0, "wrong_value": 0,
        "cost_usd": 0.0, "latency_s": 0.1, "calls": 1, "patch": [], "reason": None,
        "findings": [], "domain": "invoice", "pattern": "arithmetic", "size": 10,
        "split": "dev", "request": "r",
        "replies": [{"role": "sample", "seed": seed, "content": f"[] {case}", "key": None}],
    }  # fmt: skip


def _shard_folder(root: Path, index: int, count: int, **meta: Any) -> Path:
    folder = root / f"shard{index}-{count}"
    sink = RecordSink(folder)
    sink.add(_record(f"c{index}/10", 0))
    base = {"models": {"m": {}}, "methods": ["j+h"], "k_values": [1], "seeds": [0],
            "split": "dev", "cases_sha256": "abc", "shard": {"index": index, "count": count}}  # fmt: skip
    sink.finish({**base, **meta})
    return folder


def test_combine_merges_the_shards_and_refuses_what_is_not_one_run(tmp_path: Path) -> None:
    one, two = _shard_folder(tmp_path, 1, 2), _shard_folder(tmp_path, 2, 2)
    combine([two, one], tmp_path / "all", figures=False)
    doc = json.loads((tmp_path / "all" / "results.json").read_text())
    assert [r["case"] for r in doc["results"]] == ["c1/10", "c2/10"]
    assert "shard" not in doc["meta"] and doc["meta"]["combined_shards"] == 2
    with pytest.raises(UserError, match="shard 2/2 is missing"):
        combine([one], tmp_path / "out", figures=False)
    with pytest.raises(UserError, match="given twice"):
        combine([one, one], tmp_path / "out", figures=False)
    again = _shard_folder(tmp_path / "again", 1, 2)
    with pytest.raises(UserError, match="shard 1/2 given twice"):
        combine([one, again, two], tmp_path / "out", figures=False)
    other = _shard_folder(tmp_path / "other", 2, 2, seeds=[0, 42])
    with pytest.raises(UserError, match="different runs: their seeds differ"):
        combine([one, other], tmp_path / "out", figures=False)
    edited = _shard_folder(tmp_path / "edited", 2, 2, cases_sha256="def")
    with pytest.raises(UserError, match="case files' contents differ"):
        combine([one, edited], tmp_path / "out", figures=False)
    with pytest.raises(UserError, match="not a shard's results"):
        combine([tmp_path / "all"], tmp_path / "out", figures=False)
