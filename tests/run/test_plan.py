"""The run plan (run/plan.py) built from plain option values, without pytest's machinery: what
a run is made of, and each check it passes before its first item."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.core.prompts import default_prompts
from pytest_revprop.core.registry import MethodRegistry, builtin_registry
from pytest_revprop.errors import UserError
from pytest_revprop.llm.transports import TRANSPORT_ENV
from pytest_revprop.run.plan import RunPlan, api_bases, option_values, with_api_bases
from pytest_revprop.run.runner import Runner

DEV_CASE = "cart-free-shipping/10"


def plan(registry: MethodRegistry | None = None, **given: Any) -> RunPlan:
    values = {"revprop_model": ["gold"], "revprop_case": [DEV_CASE], **given}
    return RunPlan.from_options(values, rootdir=Path.cwd(), registry=registry)


def test_defaults_fill_every_option_that_is_not_given() -> None:
    values = option_values({"revprop_model": ["gold"]})
    assert values["revprop_method"] == ["j+h"]
    assert values["revprop_k"] == [5]
    assert values["revprop_no_cache"] is False
    assert values["revprop_report"] == Path("reports")


def test_the_items_are_every_case_model_method_k_and_seed_in_order() -> None:
    made = plan(
        revprop_model=["gold", "noop"],
        revprop_method=["j+h", "med", "select"],
        revprop_k=[1, 3],
        revprop_seeds=[0, 42],
    )
    assert [m.name for m in made.models] == ["gold", "noop"]
    assert [c.id for c in made.cases] == [DEV_CASE]
    # j+h does not use k (k=1); med at 1 and 3; select only from its min_k 3
    labels = [spec.label() for spec in made.specs]
    assert labels[:6] == [
        "gold-j+h-k1-s0", "gold-j+h-k1-s42", "gold-med-k1-s0", "gold-med-k1-s42",
        "gold-med-k3-s0", "gold-med-k3-s42",
    ]  # fmt: skip
    assert len(made.specs) == 2 * (2 + 4 + 2)
    assert made.spec_of(made.specs[3].node_name()) == made.specs[3]
    assert made.spec_of("tests/test_x.py::test_y") is None


def test_the_meta_and_the_header_describe_the_run() -> None:
    made = plan(revprop_method=["med"], revprop_k=[3], revprop_seeds=[7], revprop_split="dev")
    meta = made.meta()
    assert meta["methods"] == ["med"]
    assert meta["k_values"] == [3]
    assert meta["seeds"] == [7]
    assert meta["split"] == "dev"
    assert meta["models"] == {"gold": {"litellm_model": "", "kind": "reference"}}
    assert set(meta["method_info"]) == {"med"}
    assert "revprop run: methods med; k 3; seeds 7; split dev: 1 cases" in made.header()
    assert "size10: cases whose artifact has 10 leaves" in made.markers()


def test_the_header_warns_of_a_template_that_drops_a_shipped_placeholder(tmp_path: Path) -> None:
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "revise.md").write_text("Explain first, then answer.\n\n$request\n")
    (folder / "select.md").write_text(default_prompts().template("select").template)
    header = plan(revprop_prompts=folder).header()
    warnings = [line for line in header.splitlines() if line.startswith("revprop warning")]
    assert warnings == [
        "revprop warning: prompt template revise.md leaves out $context, which the shipped"
        " template uses: the model is not shown it"
    ]
    assert "revprop warning" not in plan().header()


def test_a_method_with_no_k_at_or_above_its_min_k_is_a_usage_error() -> None:
    with pytest.raises(UserError) as caught:
        plan(revprop_method=["select"], revprop_k=[2])
    assert str(caught.value) == "no item: min_k of select is 3, --revprop-k gives 2"
    # named with others that have items: still an error, it would be missing from the report
    with pytest.raises(UserError, match="min_k of select is 3, --revprop-k gives 1,2"):
        plan(revprop_method=["j+h", "select"], revprop_k=[2, 1])
    # `all` stands for select too: skipped quietly, as long as the run has items
    assert "select" not in {s.method for s in plan(revprop_method=["all"], revprop_k=[2]).specs}


def test_a_registered_method_s_min_k_is_the_one_checked_and_the_label_names_the_ini_key() -> None:
    registry = builtin_registry()

    async def triple(ctx: Any) -> Any:
        raise NotImplementedError

    registry.register("triple", triple, uses_k=True, min_k=4)
    with pytest.raises(UserError) as caught:
        RunPlan.from_options(
            {"revprop_model": ["gold"], "revprop_case": [DEV_CASE], "revprop_method": ["triple"],
             "revprop_k": [3]},
            registry=registry,
            label=lambda name: f"{name} in pytest.ini",
        )  # fmt: skip
    assert str(caught.value) == "no item: min_k of triple is 4, revprop_k in pytest.ini gives 3"


def test_options_that_do_not_make_a_run_are_one_line_errors() -> None:
    with pytest.raises(UserError, match="--revprop-update-baseline needs a baseline file"):
        plan(revprop_update_baseline=True)
    with pytest.raises(UserError, match="the same model is named twice in --revprop-model"):
        plan(revprop_model=["gold", "gold"])
    with pytest.raises(UserError, match="no case 'nope/1'"):
        plan(revprop_case=["nope/1"])


def test_an_unknown_transport_in_the_environment_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(TRANSPORT_ENV, "pigeon")
    with pytest.raises(UserError, match=f"{TRANSPORT_ENV}='pigeon': choose litellm or direct"):
        plan()
    assert plan(revprop_transport="direct").settings.transport == "direct"


def test_the_baseline_is_read_only_when_comparing(tmp_path: Path) -> None:
    assert plan().comparable_baseline() is None
    missing = tmp_path / "nothing.json"
    assert (
        plan(revprop_baseline=missing, revprop_update_baseline=True).comparable_baseline() is None
    )
    with pytest.raises(UserError, match=r"nothing\.json"):
        plan(revprop_baseline=missing).comparable_baseline()


def test_the_cache_folder_must_be_writable_unless_no_call_is_made(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    plan(revprop_cache=blocker / "cache").check_cache_folder()  # gold makes no call
    calling = plan(revprop_model=["openai/gpt-4o-mini"], revprop_cache=blocker / "cache")
    with pytest.raises(UserError, match="cannot write the response cache folder"):
        calling.check_cache_folder()
    plan(revprop_model=["openai/gpt-4o-mini"], revprop_no_cache=True).check_cache_folder()
    fine = plan(revprop_model=["openai/gpt-4o-mini"], revprop_cache=tmp_path / "c")
    fine.check_cache_folder()
    assert (tmp_path / "c").is_dir()


def test_a_missing_key_stops_the_run_only_when_calls_are_to_be_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    made = plan(revprop_model=["openai/gpt-4o-mini", "gold"], revprop_cache=tmp_path / "c")
    runner = Runner(made.cases, made.models, made.settings)
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        made.check_credentials(runner)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    made.check_credentials(runner)


def test_other_processes_point_the_models_at_the_servers_started_for_them() -> None:
    made = plan(revprop_model=["gold", "openai/gpt-4o-mini"])
    ready = with_api_bases(made.models, {"openai/gpt-4o-mini": ["http://127.0.0.1:9/v1"]})
    assert api_bases(ready) == {"gold": [], "openai/gpt-4o-mini": ["http://127.0.0.1:9/v1"]}
    assert api_bases(made.models)["openai/gpt-4o-mini"] == []  # the plan's stay as named


def test_the_plan_is_frozen_settings_and_scope_included() -> None:
    made = plan(revprop_max_cost=1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.models = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.scope.max_cost_usd = 2.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.settings.k_values = (1,)  # type: ignore[misc]
    with pytest.raises(TypeError):
        made.values["revprop_k"] = [1]  # type: ignore[index]
    assert made.scope.max_cost_usd == 1.0
    assert made.scope.ceiling_share(4) == 0.25  # a worker's share is the worker's to work out


def test_the_plan_is_plain_data_that_json_can_describe() -> None:
    made = plan()
    assert json.loads(json.dumps(made.meta()))["methods"] == ["j+h"]
