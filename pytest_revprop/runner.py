"""Running an evaluation: the work items, the background event loop that runs them all
concurrently, and the plain result records they produce. No pytest here.

Every process (a plain pytest run, or each xdist worker) schedules ALL of its items at once on
one background event loop; the model clients bound the requests in flight and share one
response cache, so items that share calls overlap their work and no call is made twice
(across xdist workers, cache claims keep it so). A test item then only waits for its result.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cases import Case
from .client import Client, RetryPolicy
from .methods import (
    K_METHODS,
    METHODS,
    MIN_K,
    REFERENCE_SOLVERS,
    Ask,
    MethodRun,
    client_ask,
    reference_ask,
    run_method,
)
from .models import ModelConfig
from .prompts import Prompts

PAPER_SEEDS = (0, 42, 84, 126, 168)


@dataclass(frozen=True, order=True)
class ItemSpec:
    """One evaluation item: a method run on a case for a model at a base seed."""

    case: str
    model: str
    method: str
    k: int
    seed: int

    @property
    def key(self) -> tuple[str, str, str, int, int]:
        return (self.case, self.model, self.method, self.k, self.seed)

    def label(self) -> str:
        return f"{self.model}-{self.method}-k{self.k}-s{self.seed}"


@dataclass
class RunSettings:
    methods: Sequence[str]
    k_values: Sequence[int] = (5,)
    seeds: Sequence[int] = PAPER_SEEDS
    cache_dir: Path | None = Path(".revprop-cache")
    concurrency: int = 32
    structured: bool = False
    prompts: Prompts = field(default_factory=Prompts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)


def expand_methods(methods: Iterable[str]) -> list[str]:
    out: list[str] = []
    for method in methods:
        for name in METHODS if method == "all" else [method]:
            if name not in out:
                out.append(name)
    return out


def item_specs(cases: Sequence[Case], models: Sequence[ModelConfig], settings: RunSettings) -> list[ItemSpec]:
    """All items in a stable order: case, model, method, k, seed. Methods whose calls do not
    depend on k (j, h, j+h) get k=1; select is skipped below its minimum k."""
    specs = []
    for case in cases:
        for model in models:
            for method in settings.methods:
                ks = sorted(set(settings.k_values)) if method in K_METHODS else [1]
                for k in ks:
                    if k < MIN_K.get(method, 1):
                        continue
                    for seed in settings.seeds:
                        specs.append(ItemSpec(case.id, model.name, method, k, seed))
    return specs


def result_record(case: Case, spec: ItemSpec, run: MethodRun) -> dict[str, Any]:
    """The plain-data record of one item (results.json row plus what reports need)."""
    score = run.score(case)
    return {
        "case": case.id,
        "model": spec.model,
        "method": spec.method,
        "k": spec.k,
        "seed": spec.seed,
        "completed": score.completed,
        "valid": score.valid,
        "error": score.error,
        "miss": score.miss,
        "over_edit": score.over_edit,
        "wrong_value": score.wrong_value,
        "cost_usd": run.cost_usd,
        "latency_s": run.latency_s,
        "calls": len(run.calls),
        "patch": run.patch,
        "reason": score.reason,
        "findings": [f.to_dict() for f in score.findings],
        "selection_fallback": run.selection_fallback,
        "domain": case.domain,
        "pattern": case.pattern,
        "size": case.size,
        "split": case.split,
        "request": case.request,
        "replies": [c.to_dict() for c in run.calls],
    }


class Runner:
    """Schedules items on a background event loop; ``result(spec)`` blocks until it is done."""

    def __init__(self, cases: Sequence[Case], models: Sequence[ModelConfig], settings: RunSettings) -> None:
        self.cases = {c.id: c for c in cases}
        self.models = {m.name: m for m in models}
        self.settings = settings
        self.clients: dict[str, Client] = {
            m.name: Client(m, cache_dir=settings.cache_dir, concurrency=settings.concurrency, retry=settings.retry)
            for m in models
            if m.kind != "reference"
        }
        self._futures: dict[ItemSpec, concurrent.futures.Future[dict[str, Any]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def _ask(self, case: Case, model: ModelConfig) -> Ask:
        if model.kind == "reference":
            solver = model.name if model.name in REFERENCE_SOLVERS else "noop"
            return reference_ask(case, solver)
        return client_ask(self.clients[model.name], structured=self.settings.structured)

    async def _run(self, spec: ItemSpec) -> dict[str, Any]:
        case = self.cases[spec.case]
        run = await run_method(
            spec.method, case, self._ask(case, self.models[spec.model]),
            k=spec.k, seed=spec.seed, prompts=self.settings.prompts,
        )  # fmt: skip
        # Scoring and record building are CPU work: keep them off the request path.
        return result_record(case, spec, run)

    def start(self, specs: Sequence[ItemSpec]) -> None:
        """Schedule every spec now (idempotent per spec)."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name="revprop-loop", daemon=True)
            self._thread.start()
        for spec in specs:
            if spec not in self._futures:
                self._futures[spec] = asyncio.run_coroutine_threadsafe(self._run(spec), self._loop)

    def result(self, spec: ItemSpec, timeout: float | None = None) -> dict[str, Any]:
        if spec not in self._futures:
            self.start([spec])
        return self._futures[spec].result(timeout)

    def done(self) -> list[dict[str, Any]]:
        """Records of every finished item (in spec order)."""
        return [
            f.result()
            for _, f in sorted(self._futures.items())
            if f.done() and not f.cancelled() and f.exception() is None
        ]

    def close(self) -> None:
        for future in self._futures.values():
            future.cancel()
        if self._loop is not None:
            loop = self._loop
            loop.call_soon_threadsafe(loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=5)
            self._loop = None

    def stats(self) -> dict[str, dict[str, int]]:
        return {name: client.stats.to_dict() for name, client in self.clients.items()}

    def run_all(self, specs: Sequence[ItemSpec]) -> list[dict[str, Any]]:
        """Run specs to completion (library use, benchmarks); records in spec order."""
        self.start(specs)
        return [self.result(s) for s in specs]
