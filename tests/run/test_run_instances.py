"""A run's fresh instances (run/instances.py, ``--revprop-instances``): made once into the
reports folder, loaded beside the run's other cases, named in the header, the meta and each
rerun line."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.core.cases import instance_seed
from pytest_revprop.errors import UserError
from pytest_revprop.plugin.failures import rerun_command
from pytest_revprop.run import instances
from pytest_revprop.run.instances import STAMP
from pytest_revprop.run.plan import RunPlan


def plan(report: Path, **given: Any) -> RunPlan:
    values = {
        "revprop_model": ["gold"],
        "revprop_split": "all",
        "revprop_sizes": [10],
        "revprop_report": report,
        **given,
    }
    return RunPlan.from_options(values, rootdir=Path.cwd())


def test_instance_seeds_are_read_from_ids() -> None:
    assert instance_seed("cart-price-drop/10@7") == 7
    assert instance_seed("cart-price-drop/10") is None
    assert instance_seed("odd@id@x") is None


def test_a_run_with_instances_loads_them_beside_the_shipped_cases_and_says_so(
    tmp_path: Path,
) -> None:
    made = plan(tmp_path, revprop_instances=[1, 2])
    fresh = sorted(c.id for c in made.cases if instance_seed(c.id) is not None)
    generating = sorted({c.scenario for c in made.cases if instance_seed(c.id) is not None})
    assert fresh == sorted(f"{s}/10@{seed}" for s in generating for seed in (1, 2))
    assert len(generating) >= 5
    assert {c.id for c in made.cases} >= {f"{s}/10" for s in generating}
    meta = made.meta()["instances"]
    assert meta == {"seeds": [1, 2], "folder": str(tmp_path / "instances"), "not_built": 0}
    stamp = json.loads((tmp_path / "instances" / "seed-1" / STAMP).read_text())
    assert stamp["seed"] == 1 and stamp["turns"] == 3 and stamp["sizes"] == [10]
    assert f"revprop instances: seeds 1,2: {len(fresh)} of the cases are fresh" in made.header()
    assert "instances" not in plan(tmp_path).meta()


def test_a_folder_made_once_is_read_not_made_again_and_a_longer_chain_remakes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan(tmp_path, revprop_instances=[3])
    made: list[int] = []
    real = instances._generate

    def counting(folder: Path, seed: int, turns: int, sizes: Any) -> list[str]:
        made.append(turns)
        return real(folder, seed, turns, sizes)

    monkeypatch.setattr(instances, "_generate", counting)
    again = plan(tmp_path, revprop_instances=[3])
    assert made == []
    longer = plan(tmp_path, revprop_instances=[3], revprop_chain="teacher", revprop_turns=6)
    assert made == [6]
    first = {c.id: c for c in again.cases}
    for case in longer.cases:
        if instance_seed(case.id) is not None:
            assert len(case.followups) == 6
            assert case.followups[:3] == first[case.id].followups  # the same chain, longer


def test_a_fresh_id_without_its_seed_is_refused_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="add --revprop-instances with its seed"):
        plan(tmp_path, revprop_case=["cart-price-drop/10@4"])
    chosen = plan(tmp_path, revprop_case=["cart-price-drop/10@4"], revprop_instances=[4])
    assert [c.id for c in chosen.cases] == ["cart-price-drop/10@4"]


def test_a_fresh_instances_rerun_line_names_its_seed() -> None:
    item = {"case": "cart-price-drop/50@12", "model": "m", "method": "j+h", "k": 1, "seed": 0}
    assert "--revprop-instances=12" in shlex.split(rerun_command(item, uses_k=False))
    shipped = {**item, "case": "cart-price-drop/50"}
    assert not any("instances" in a for a in shlex.split(rerun_command(shipped, uses_k=False)))
