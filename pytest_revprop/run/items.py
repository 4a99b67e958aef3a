"""The items of a run and the one way an item runs: what names an item (``ItemSpec``), how a run
runs its items (``RunSettings``), the items of a run in order, and ``run_item``, the turns of
an item's method run as its protocol says, used by the runner and the estimate alike. No
pytest here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_revprop.core.cases import Case
from pytest_revprop.core.method_context import Ask, MethodRun, SampleArtifacts
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.core.protocols import Protocol, protocol
from pytest_revprop.core.registry import MethodRegistry, builtin_registry, run_method
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.llm.types import RetryPolicy
from pytest_revprop.run.chains import ChainRun, run_chain
from pytest_revprop.vocabulary import CHAIN_OFF, PAPER_SEEDS


@dataclass(frozen=True, order=True, slots=True)
class ItemSpec:
    """One evaluation item: a method run on a case for a model at a base seed (slots: every
    process holds one per item of the run)."""

    case: str
    model: str
    method: str
    k: int
    seed: int
    chain: str = CHAIN_OFF
    """The run's chain protocol: ``off`` (one revision), ``teacher`` or ``free`` (a chain)."""

    def label(self) -> str:
        """The item's part of its node id: ``MODEL-METHOD-kK-sSEED``, then ``-PROTOCOL`` for
        a chain (``m-med-k5-s42-free``)."""
        label = f"{self.model}-{self.method}-k{self.k}-s{self.seed}"
        return f"{label}-{self.chain}" if protocol(self.chain).chained else label

    def node_name(self) -> str:
        """The pytest item's name and node id, e.g. ``invoice-workshop-hours/10[m-med-k5-s42]``
        (a chain's: ``cart-free-shipping/10[m-med-k5-s42-teacher]``)."""
        return f"{self.case}[{self.label()}]"


@dataclass(frozen=True)
class RunSettings:
    """How a run runs its items, from its option values: the methods (expanded), the k values
    and base seeds, the response cache, the calls in flight, the prompts, retries, transport
    and the method registry. Frozen: every process of a run builds the same settings once."""

    methods: Sequence[str]
    k_values: Sequence[int] = (5,)
    seeds: Sequence[int] = PAPER_SEEDS
    cache_dir: Path | None = Path(".revprop-cache")
    concurrency: int = 32
    structured: bool = False
    prompts: Prompts = field(default_factory=Prompts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    transport: str | None = None
    """``litellm`` (default) or ``direct``; None: the REVPROP_TRANSPORT environment variable."""
    registry: MethodRegistry = field(default_factory=builtin_registry)
    """Where method names are looked up (under pytest: filled through the hook)."""
    chain: str = CHAIN_OFF
    """The chain protocol (``--revprop-chain``): ``off``, ``teacher`` or ``free``."""
    turns: int | None = None
    """The follow-ups a chain runs at most (``--revprop-turns``; None: all of them)."""

    @property
    def protocol(self) -> Protocol:
        """The chain protocol as an object (``core.protocols``)."""
        return protocol(self.chain)


def item_specs(
    cases: Sequence[Case], models: Sequence[ModelConfig], settings: RunSettings
) -> list[ItemSpec]:
    """All items in a stable order: case, model, method, k, seed. Methods that do not use k
    (j, h, j+h, dep) get k=1; a method is skipped below its minimum k (select: 3). A chain
    run (``settings.chain``) has items only for the cases with follow-ups."""
    methods = [settings.registry.get(name) for name in settings.methods]
    chain = settings.chain
    specs = []
    for case in cases:
        if protocol(chain).chained and not case.followups:
            continue
        for model in models:
            for method_spec in methods:
                method = method_spec.name
                ks = sorted(set(settings.k_values)) if method_spec.uses_k else [1]
                for k in ks:
                    if k < method_spec.min_k:
                        continue
                    for seed in settings.seeds:
                        specs.append(ItemSpec(case.id, model.name, method, k, seed, chain))
    return specs


AskFor = Callable[[Case, int], Ask]
"""How an item's calls at a turn reach its model: ``ask_for(view, turn)``."""


async def run_item(
    case: Case,
    spec: ItemSpec,
    settings: RunSettings,
    ask_for: AskFor,
    *,
    prompts: Prompts,
    artifacts: SampleArtifacts | None = None,
) -> ChainRun:
    """Run the item ``spec`` of ``case``: its method on each turn its protocol runs (one for
    ``off``), on the turn's view, asking through ``ask_for``. ``prompts`` and ``artifacts``
    remember by view (``Case.view_id``), so every turn shares them."""
    method = settings.registry.get(spec.method)

    async def run_turn(view: Case, index: int) -> MethodRun:
        return await run_method(
            method,
            view,
            ask_for(view, index),
            k=spec.k,
            seed=spec.seed,
            prompts=prompts,
            artifacts=artifacts,
            turn=index,
        )

    return await run_chain(case, settings.protocol, settings.turns, run_turn)


__all__ = ["AskFor", "ItemSpec", "RunSettings", "item_specs", "run_item"]
