"""Shards (run/sharding.py, run/scope.py): the split of a run into whole-case parts, ``auto`` under
Slurm and Kubernetes, and the refusals of ``revprop combine`` (reporting/combine.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.records import a_record

from pytest_revprop.core.cases import select_cases
from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import resolve_model
from pytest_revprop.reporting.combine import combine
from pytest_revprop.reporting.sink import RecordSink
from pytest_revprop.run.estimate import expected_calls
from pytest_revprop.run.items import RunSettings
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


def _slurm(task: int, tasks: str, **extra: str) -> dict[str, str]:
    """The SLURM_ARRAY_* variables Slurm 22.05 sets for task ``task`` of ``--array=tasks``
    (as a real slurmd set them: the step is 1 unless the range gives one)."""
    spec, _, step = tasks.partition(":")
    ids = sorted(
        n
        for part in spec.split(",")
        for n in range(int(part.split("-")[0]), int(part.split("-")[-1]) + 1, int(step or 1))
    )
    return {
        "SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_TASK_COUNT": str(len(ids)),
        "SLURM_ARRAY_TASK_MIN": str(ids[0]), "SLURM_ARRAY_TASK_MAX": str(ids[-1]),
        "SLURM_ARRAY_TASK_STEP": step or "1", **extra,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        (_slurm(3, "1-3"), Shard(3, 3)),
        (_slurm(0, "0-3"), Shard(1, 4)),
        (_slurm(5, "1-7:2"), Shard(3, 4)),
        ({"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"},
         Shard(3, 3)),
        # with the whole array's size exported, the task id is the shard, whatever was resubmitted
        (_slurm(2, "1-4", REVPROP_SHARD_COUNT="4"), Shard(2, 4)),
        (_slurm(3, "3", REVPROP_SHARD_COUNT="4"), Shard(3, 4)),
        (_slurm(4, "2,4", REVPROP_SHARD_COUNT="4"), Shard(4, 4)),
        (_slurm(1, "1", REVPROP_SHARD_COUNT="1"), Shard(1, 1)),
        ({"JOB_COMPLETION_INDEX": "1", "REVPROP_SHARD_COUNT": "3"}, Shard(2, 3)),
    ],
)  # fmt: skip
def test_auto_reads_slurm_and_kubernetes(environ: dict[str, str], expected: Shard) -> None:
    assert shard_from_environment(environ) == expected


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        # what a resubmission of some tasks of --array=1-4 sets, with no count exported
        (_slurm(3, "3"), "cannot trust SLURM_ARRAY_TASK_COUNT=1 as the shard count: this "
         "submission has 1 task from 3 to 3, which a resubmission"),
        (_slurm(2, "2,4"), "cannot trust SLURM_ARRAY_TASK_COUNT=2 .* 2 tasks from 2 to 4"),
        (_slurm(1, "1,3"), "cannot trust SLURM_ARRAY_TASK_COUNT=2 .* 2 tasks from 1 to 3"),
        (_slurm(4, "3-4"), "cannot trust SLURM_ARRAY_TASK_COUNT=2 .* export REVPROP_SHARD_COUNT=N"),
        (_slurm(1, "1"), "cannot trust SLURM_ARRAY_TASK_COUNT=1 .* or give --revprop-shard=I/N"),
        (_slurm(14, "10-14:2"), "cannot trust SLURM_ARRAY_TASK_COUNT=3"),
        (_slurm(2, "1-7:2"),
         "SLURM_ARRAY_TASK_ID=2 is not a task of the array starting at SLURM_ARRAY_TASK_MIN=1 "
         "with step 2"),
        # an exported count the array does not fit
        (_slurm(0, "0-3", REVPROP_SHARD_COUNT="4"), r"SLURM_ARRAY_TASK_MIN=0 is not a shard of "
         r"REVPROP_SHARD_COUNT=4: the task ids are the shard numbers, so number the array's "
         r"tasks 1 to 4 \(--array=1-4\)"),
        (_slurm(2, "1-5", REVPROP_SHARD_COUNT="4"), "SLURM_ARRAY_TASK_MAX=5 is not a shard of "
         "REVPROP_SHARD_COUNT=4"),
        ({"SLURM_ARRAY_TASK_ID": "5", "REVPROP_SHARD_COUNT": "4"},
         "SLURM_ARRAY_TASK_ID=5 is not a shard of REVPROP_SHARD_COUNT=4"),
        (_slurm(1, "1-4", REVPROP_SHARD_COUNT="0"), "REVPROP_SHARD_COUNT must be at least 1"),
        (_slurm(1, "1-4", REVPROP_SHARD_COUNT="four"),
         "REVPROP_SHARD_COUNT must be a whole number, got 'four'"),
    ],
)  # fmt: skip
def test_auto_refuses_a_slurm_count_it_cannot_trust(environ: dict[str, str], message: str) -> None:
    with pytest.raises(UserError, match=message) as refused:
        shard_from_environment(environ)
    assert "\n" not in str(refused.value)


def test_auto_says_what_it_did_not_find() -> None:
    with pytest.raises(UserError, match=r"found neither a Slurm array job .* nor a Kubernetes"):
        shard_from_environment({})
    with pytest.raises(UserError, match="no REVPROP_SHARD_COUNT"):
        shard_from_environment({"JOB_COMPLETION_INDEX": "0"})
    with pytest.raises(UserError, match="gives shard 4 of 3"):
        shard_from_environment({"JOB_COMPLETION_INDEX": "3", "REVPROP_SHARD_COUNT": "3"})


# ------------------------------------------------------------------------------ combine


def _record(case: str, seed: int) -> dict[str, Any]:
    replies = [{"role": "sample", "seed": seed, "content": f"[] {case}", "key": None}]
    return a_record(case, seed=seed, split="dev", request="r", replies=replies)


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
