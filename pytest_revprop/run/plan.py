"""The run plan: what a ``pytest --revprop-model=...`` run is, built once from its option
values before any item runs, with the checks the run passes first. No pytest here: the plugin
reads each option once (command line, else ini file, else default), builds the plan with
``RunPlan.from_options`` and asks it from then on; the tests build plans from plain dicts.

The plan is a frozen value, the same in every process of a run: what a run builds up as it
goes (the models pointed at the servers started for it, a worker's share of the spending
ceiling, what each worker spent, the items the ceiling cut) is state of the plugin's role
objects (``plugin.controller``, ``plugin.worker``), never written back into the plan.

The checks, in the order a run makes them:

- **building the plan** (pytest's configure, in every process): the options fit together
  (``--revprop-update-baseline`` has a file), every model is named once, the cases load, the
  transport is known, the run's scope holds (``scope.run_scope``: a ceiling's models are
  priced, a shard gets cases), every method is known and has an item at the k values given;
- **the baseline** (configure, in the controller): ``comparable_baseline`` reads the file to
  compare with, which must share a (model, method, k) with the run and, within those, a
  (case, seed);
- **before the first item** (the session's start, once the servers are up):
  ``check_cache_folder`` (the response cache can be written) and ``check_credentials`` (every
  model with calls to make has its key).
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pytest_revprop.core.cases import BENCHMARK_DIR, Case, instance_seed, select_cases
from pytest_revprop.core.protocols import protocol
from pytest_revprop.core.registry import MethodRegistry, builtin_registry
from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import ModelConfig, PresetRegistry, load_config, resolve_model
from pytest_revprop.run.instances import (
    INSTANCES_DIR,
    MAX_INSTANCE_TURNS,
    Instances,
    fresh_instances,
)
from pytest_revprop.run.items import ItemSpec, RunSettings, item_specs
from pytest_revprop.run.options import OPTIONS_BY_NAME
from pytest_revprop.run.scope import RunScope, run_scope
from pytest_revprop.vocabulary import BENCHMARK_MARKERS, BENCHMARK_SIZES

if TYPE_CHECKING:
    from pytest_revprop.run.runner import Runner

Label = Callable[[str], str]
"""Where the value of an option comes from, for messages: ``--revprop-k``, or
``revprop_k in pytest.ini`` (the plugin's ``option_source.option_label``)."""


def flag_label(name: str) -> str:
    """The option's command-line spelling: the label when the plan is built from a dict."""
    return OPTIONS_BY_NAME[name].flag


def option_values(given: Mapping[str, Any]) -> dict[str, Any]:
    """Every plugin option's value: ``given``, else the option's default (False for a flag)."""
    values = {}
    for name, option in OPTIONS_BY_NAME.items():
        value = given.get(name)
        if value is None:
            value = False if option.is_flag else option.default
        values[name] = value
    return values


@dataclass(frozen=True)
class RunPlan:
    """One run: its cases, models (as the options name them), settings (methods, k, seeds,
    ...), its items in order and where its outputs go; ``scope`` is its part (a shard's
    cases), its spending ceiling and whether it only estimates. Frozen: nothing writes to a
    plan once it is built."""

    cases: tuple[Case, ...]
    models: tuple[ModelConfig, ...]
    settings: RunSettings
    specs: tuple[ItemSpec, ...]
    values: Mapping[str, Any]
    """Every plugin option's value in effect, by name (``revprop_model``: its dest and ini key)."""
    label: Label = field(default=flag_label, repr=False)
    scope: RunScope = field(default_factory=RunScope)
    left_out: int = 0
    """A chain run's selected cases without follow-ups, which have no item."""
    instances: Instances = field(default_factory=Instances)
    """The run's fresh instances (``--revprop-instances``): their folders and what did not build."""

    # ------------------------------------------------------------------ building

    @classmethod
    def from_options(
        cls,
        given: Mapping[str, Any],
        *,
        rootdir: Path | None = None,
        registry: MethodRegistry | None = None,
        presets: PresetRegistry | None = None,
        label: Label = flag_label,
        environ: Mapping[str, str] | None = None,
    ) -> RunPlan:
        """The plan of the option values ``given`` (missing ones take their defaults).
        ``rootdir``: where ``[tool.revprop]`` is looked up (default: the working folder);
        ``registry`` and ``presets``: the methods and model presets registered through the
        hooks (default: the built-in methods, no registered presets); ``environ``: where an
        automatic shard is read (default: ``os.environ``). Raises UserError, one line naming
        the option (through ``label``), for options that do not make a run."""
        values = option_values(given)
        registry = registry or builtin_registry()
        if values["revprop_update_baseline"] and values["revprop_baseline"] is None:
            raise UserError(
                f"{label('revprop_update_baseline')} needs a baseline file: "
                "--revprop-baseline=FILE or revprop_baseline in the ini file"
            )
        overrides = load_config(rootdir or Path.cwd())
        registered = presets.presets if presets is not None else {}
        models = [
            resolve_model(
                name,
                api_bases=values["revprop_api_base"] or (),
                overrides=overrides,
                registered=registered,
            )
            for name in values["revprop_model"]
        ]
        if len({m.name for m in models}) != len(models):
            raise UserError(f"the same model is named twice in {label('revprop_model')}")
        instances = run_instances(values)
        cases = select_cases(
            values["revprop_cases"],
            values["revprop_split"],
            values["revprop_sizes"],
            values["revprop_case"],
            chains=protocol(values["revprop_chain"]).chained,  # an off run never uses follow-ups
            extra=instances.folders,
        )
        settings = run_settings(values, registry)
        cases, left_out = chain_cases(cases, settings.chain, label)
        cases, scope = run_scope(
            cases, models, settings, values.__getitem__, label, environ=environ
        )
        specs = item_specs(cases, models, settings)
        plan = cls(
            tuple(cases), tuple(models), settings, tuple(specs), MappingProxyType(values), label,
            scope=scope, left_out=left_out, instances=instances,
        )  # fmt: skip
        plan.check_items()
        return plan

    def check_items(self) -> None:
        """Every method named in ``--revprop-method`` has an item: a method that uses k has
        none when every k given is below its ``min_k``. Methods that ``all`` or ``paper``
        stand for are skipped quietly below their ``min_k``, unless the run has no item."""
        named = set(self.values["revprop_method"])
        with_items = {spec.method for spec in self.specs}
        for name in self.settings.methods:
            if name in with_items or (name not in named and self.specs):
                continue
            method = self.settings.registry.get(name)
            ks = ",".join(map(str, sorted(set(self.settings.k_values))))
            raise UserError(
                f"no item: min_k of {name} is {method.min_k}, {self.label('revprop_k')} gives {ks}"
            )

    # ------------------------------------------------------------------ what the run asks

    @property
    def cases_path(self) -> Path:
        """Where the run's cases are read from."""
        return Path(self.values["revprop_cases"] or BENCHMARK_DIR)

    @property
    def report_dir(self) -> Path:
        """The reports folder (``--revprop-report``)."""
        return Path(self.values["revprop_report"])

    @property
    def baseline_path(self) -> Path | None:
        """The baseline file (``--revprop-baseline``), None when the run names none."""
        path = self.values["revprop_baseline"]
        return None if path is None else Path(path)

    @property
    def comparing(self) -> bool:
        """Whether the run compares with a baseline (rather than writing one, or neither)."""
        return self.baseline_path is not None and not self.values["revprop_update_baseline"]

    def value(self, name: str) -> Any:
        """The value in effect of plugin option ``name``."""
        return self.values[name]

    def spec_of(self, node_name: str) -> ItemSpec | None:
        """The item whose pytest node id is ``node_name``; None for another test's."""
        return self._by_node.get(node_name)

    @functools.cached_property
    def _by_node(self) -> dict[str, ItemSpec]:
        """The items by node id, made when first asked (a memo, not a change of the plan)."""
        return {spec.node_name(): spec for spec in self.specs}

    def markers(self) -> list[str]:
        """The run's markers as ini lines (``name: description``): the cases' domains and
        patterns, the selection markers, one per artifact size."""
        lines = [
            f"{name}: RevPropBench cases of {name}"
            for name in {c.domain for c in self.cases} | {c.pattern for c in self.cases}
        ]
        lines += [f"{name}: RevPropBench selection marker" for name in BENCHMARK_MARKERS]
        lines += [
            f"size{size}: cases whose artifact has {size} leaves"
            for size in {c.size for c in self.cases}
        ]
        return lines

    def estimate_lines(self) -> list[str]:
        """The lines of ``--revprop-plan`` (``scope.RunScope.estimate_lines``): the run's items
        counted against the cache, nothing sent; then, for a run with a baseline or a
        ``--revprop-detect``, what its gate could see (``estimate.gate_sight_lines``)."""
        lines = self.scope.estimate_lines(self.cases, self.models, self.settings, self.specs)
        chain = self.settings.protocol
        if chain.chained:
            turns = sum(len(chain.steps(c, self.settings.turns)) for c in self.cases)
            lines.insert(
                1,
                f"chains ({self.settings.chain}): {len(self.cases)} cases, {turns} turns in "
                "all; every turn's calls are counted",
            )
        detect = self.values.get("revprop_detect")
        if self.baseline_path is not None or detect is not None:
            from pytest_revprop.run.estimate import gate_sight_lines

            lines += gate_sight_lines(
                len(self.cases),
                len(self.settings.seeds),
                detect,
                metric=self.values["revprop_gate_metric"],
            )
        return lines

    def header(self, models: Sequence[ModelConfig] | None = None) -> str:
        """The lines pytest prints above the items (``run.header``); ``models``: the plan's
        made ready (pointed at the servers started for the run), default the plan's own."""
        from pytest_revprop.run.header import run_header

        return run_header(
            self.models if models is None else models,
            self.settings,
            split=self.values["revprop_split"],
            cases_path=self.values["revprop_cases"] or BENCHMARK_DIR,
            n_cases=len(self.cases),
            n_items=len(self.specs),
            left_out=self.left_out,
            instances=self.instances,
            n_fresh=sum(instance_seed(c.id) is not None for c in self.cases),
            report_dir=self.report_dir,
        )

    def meta(self, spent_usd: float = 0.0, cut_items: int = 0) -> dict[str, Any]:
        """What results.json's ``meta`` says of the run (the sink adds versions and times),
        the scope's fields included; ``spent_usd``: what the run's calls cost, ``cut_items``:
        the items its spending ceiling left unrun."""
        return {
            "cases_path": str(self.cases_path),
            "split": self.values["revprop_split"],
            "models": {
                m.name: {"litellm_model": m.litellm_model, "kind": m.kind} for m in self.models
            },
            "methods": list(self.settings.methods),
            "method_info": {
                name: info
                for name, info in self.settings.registry.info().items()
                if name in self.settings.methods
            },
            "k_values": list(self.settings.k_values),
            "seeds": list(self.settings.seeds),
            "prompts": self.settings.prompts.fingerprint(),
            **self.chain_meta(),
            **self.instances_meta(),
            **self.scope.meta(spent_usd, cut_items),
        }

    def instances_meta(self) -> dict[str, Any]:
        """``meta.instances`` of a run with fresh instances: their seeds, folder and how many
        scenario sizes did not build; nothing otherwise."""
        if not self.instances.seeds:
            return {}
        return {
            "instances": {
                "seeds": list(self.instances.seeds),
                "folder": str(self.report_dir / INSTANCES_DIR),
                "not_built": len(self.instances.errors),
            }
        }

    def chain_meta(self) -> dict[str, Any]:
        """``meta.chain`` of a chain run (its protocol and ``--revprop-turns``, None: all);
        nothing for an ``off`` run, whose meta is as it always was."""
        if not self.settings.protocol.chained:
            return {}
        return {"chain": {"protocol": self.settings.chain, "turns": self.settings.turns}}

    # ------------------------------------------------------------------ checks before items

    def comparable_baseline(self) -> dict[str, Any] | None:
        """The baseline to compare with, read and checked against the run's groups; None
        when not comparing. UserError when it cannot be read or shares no group."""
        if not self.comparing:
            return None
        from pytest_revprop.reporting.gate import groups_of, read_comparable_baseline

        items = [
            {"case": s.case, "model": s.model, "method": s.method, "k": s.k, "seed": s.seed}
            for s in self.specs
        ]
        assert self.baseline_path is not None
        return read_comparable_baseline(
            self.baseline_path,
            groups_of(items),
            items,
            protocol=self.settings.chain,
            metric=self.values["revprop_gate_metric"],
        )

    def check_cache_folder(self) -> None:
        """Stop before any item when the response cache folder cannot be made or written to
        (a run whose models all are reference solvers makes no call and leaves it alone)."""
        folder = self.settings.cache_dir
        if folder is None or all(m.kind == "reference" for m in self.models):
            return
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=folder).close()
        except OSError as exc:
            raise UserError(
                f"cannot write the response cache folder {folder}: {exc.strerror or exc}; "
                "choose another with --revprop-cache=DIR, or pass --revprop-no-cache"
            ) from None

    def check_credentials(
        self, runner: Runner, models: Sequence[ModelConfig] | None = None
    ) -> None:
        """Stop before any item when a model with calls to make has no key: its variable is
        unset. A rerun that the cache answers makes no call and needs no key (``runner``, the
        run's, knows what the cache holds); ``models``: the plan's made ready (default its own)."""
        from pytest_revprop.llm.credentials import missing_key

        for model in self.models if models is None else models:
            message = missing_key(model)
            if message and runner.makes_calls([s for s in self.specs if s.model == model.name]):
                raise UserError(message)


def api_bases(models: Sequence[ModelConfig]) -> dict[str, list[str]]:
    """Each model's API bases, for the processes that did not start the servers."""
    return {m.name: list(m.api_bases) for m in models}


def with_api_bases(
    models: Sequence[ModelConfig], bases: Mapping[str, Sequence[str]]
) -> list[ModelConfig]:
    """``models`` pointed at ``bases`` (``api_bases`` of the process that started them)."""
    return [m.replace(api_bases=tuple(bases.get(m.name, m.api_bases))) for m in models]


def chain_cases(cases: Sequence[Case], chain: str, label: Label) -> tuple[list[Case], int]:
    """The cases a run of ``chain`` has items for, and how many of ``cases`` it leaves out:
    all of them for ``off``, else those with follow-ups; UserError when a chain run has none."""
    if not protocol(chain).chained:
        return list(cases), 0
    chained = [case for case in cases if case.followups]
    if not chained:
        raise UserError(
            f"{label('revprop_chain')}={chain}: none of the {len(cases)} selected cases has "
            "follow-ups (a chain needs them; --revprop-chain=off runs single revisions)"
        )
    return chained, len(cases) - len(chained)


def run_instances(values: Mapping[str, Any]) -> Instances:
    """The fresh instances a run asks for (``--revprop-instances``), made or found in its
    reports folder: as many follow-ups as ``--revprop-turns`` (at least 3, at most 20), at the
    sizes the run selects."""
    seeds = values["revprop_instances"]
    if not seeds:
        return Instances()
    turns = min(MAX_INSTANCE_TURNS, max(3, values["revprop_turns"] or 0))
    sizes = values["revprop_sizes"] or BENCHMARK_SIZES
    return fresh_instances(seeds, Path(values["revprop_report"]), turns, sizes)


def run_settings(values: Mapping[str, Any], registry: MethodRegistry) -> RunSettings:
    """The runner's settings from the option values (all of them, as ``option_values``)."""
    from pytest_revprop.core.prompts import Prompts
    from pytest_revprop.llm.transports import TRANSPORT_ENV, TRANSPORTS
    from pytest_revprop.llm.types import RetryPolicy

    from_env = os.environ.get(TRANSPORT_ENV)
    if values["revprop_transport"] is None and from_env and from_env not in TRANSPORTS:
        raise UserError(f"{TRANSPORT_ENV}={from_env!r}: choose {' or '.join(TRANSPORTS)}")
    retry = RetryPolicy(
        max_attempts=values["revprop_retries"],
        base_delay=values["revprop_retry_delay"],
        attempt_timeout_s=values["revprop_timeout"],
    )
    return RunSettings(
        methods=registry.expand(values["revprop_method"]),
        k_values=values["revprop_k"],
        seeds=values["revprop_seeds"],
        cache_dir=None if values["revprop_no_cache"] else Path(values["revprop_cache"]),
        concurrency=values["revprop_concurrency"],
        structured=values["revprop_structured"],
        prompts=Prompts(values["revprop_prompts"]),
        retry=retry,
        transport=values["revprop_transport"],
        registry=registry,
        chain=values["revprop_chain"],
        turns=values["revprop_turns"],
    )


__all__ = [
    "Label",
    "RunPlan",
    "api_bases",
    "chain_cases",
    "flag_label",
    "option_values",
    "run_settings",
    "with_api_bases",
]
