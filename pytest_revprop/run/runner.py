"""Running an evaluation: the work items, the background event loop that runs them all
concurrently, and the plain result records they produce. No pytest here.

A plain pytest run hands all of its items to one background event loop when collection
ends, which runs up to ``ITEMS_AHEAD`` of them ahead of the tests; the model clients bound the
requests in flight and share one response cache, so items that share calls overlap their work
and no call is made twice. A test item then only waits for its result. An xdist worker cannot
know which items it will be handed: it makes the calls of its share of the cases ahead
(``worker_share``; cache claims keep a call from being made twice across workers) and runs
each item it is handed on demand, that item's calls first.
docs/architecture.md describes this flow; docs/interfaces.md the records' fields.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import functools
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_revprop.core.cases import Case
from pytest_revprop.core.chain import reference_patch
from pytest_revprop.core.methods import (
    REFERENCE_SOLVERS,
    Ask,
    MethodRun,
    SampleArtifacts,
    client_ask,
    reference_ask,
)
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.core.registry import MethodRegistry, builtin_registry, run_method
from pytest_revprop.core.scoring import Score
from pytest_revprop.llm.budget import BudgetReached, Ceiling
from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.llm.types import Reply, RetryPolicy
from pytest_revprop.run.chains import ChainCut, ChainRun, TurnRun, last_teacher_view, run_chain
from pytest_revprop.run.records import chain_record, result_record, score_chain
from pytest_revprop.util.memo import Memo
from pytest_revprop.vocabulary import CHAIN_OFF, PAPER_SEEDS, CallRole, ResultRecord

Run = MethodRun | ChainRun
"""What an item's work gives: a method run, or a chain's runs turn by turn (``run.chains``)."""

CANCEL_GRACE_S = 2.0
"""How long cancelled work may take to unwind when a run stops."""
ITEMS_AHEAD = 2048
"""Items scheduled and not yet taken by ``result``, at most: the loop keeps this many ahead of
the tests (thousands of calls, far more than any server's slots), and a process holds the
replies of these items only, not of the whole run."""
PREFETCH_AHEAD = 1024
"""Method runs made ahead for other processes (``prefetch``) in progress at once."""
SCORES_KEPT = 4096
"""Scores remembered for sharing between items with the same final patch (items of one case
come together, so recent ones are the ones shared)."""


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
        return label if self.chain == CHAIN_OFF else f"{label}-{self.chain}"

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
        if chain != CHAIN_OFF and not case.followups:
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


def calls_cover(
    specs: Sequence[ItemSpec], registry: MethodRegistry | None = None
) -> list[ItemSpec]:
    """The specs whose calls include every call of ``specs`` (for making calls ahead).

    From what each method declares (registry.MethodSpec), per case, model and base seed:
    methods of one call group make the same calls at one k (the parallel rules), so one of
    them is kept; a method that another one ``includes`` (``j+h``: the first sample of
    ``reflect`` and of every parallel rule) is dropped; every other method is kept. So it is
    in ``teacher`` chains, whose turns show every method the same conversation; every item of
    a ``free`` chain is kept, its later turns showing the method's own patches.
    """
    registry = registry or builtin_registry()
    first_of_group: dict[tuple[str, str, str, int, int], str] = {}
    included: set[tuple[str, str, str, int]] = set()
    for s in specs:
        method = registry.get(s.method)
        if method.call_group is not None:
            first_of_group.setdefault((s.case, s.model, method.call_group, s.k, s.seed), s.method)
        for name in method.includes:
            included.add((s.case, s.model, name, s.seed))
    kept = []
    for s in specs:
        if s.chain == "free":
            kept.append(s)
            continue
        group = registry.get(s.method).call_group
        if group is not None and first_of_group[(s.case, s.model, group, s.k, s.seed)] != s.method:
            continue
        if (s.case, s.model, s.method, s.seed) in included:
            continue
        kept.append(s)
    return kept


def worker_share(
    specs: Sequence[ItemSpec], index: int, count: int, registry: MethodRegistry | None = None
) -> list[ItemSpec]:
    """The specs whose calls xdist worker ``index`` of ``count`` makes ahead: every
    ``count``-th case (cases cost about the same), reduced by ``calls_cover``."""
    cases = list(dict.fromkeys(s.case for s in specs))
    mine = set(cases[index % max(count, 1) :: max(count, 1)])
    return calls_cover([s for s in specs if s.case in mine], registry)


URGENT = 100
"""Priority boost for the calls of an item a test is waiting for and no one had started."""


class Runner:
    """Runs items' methods on one background event loop; ``result(spec)`` blocks until an
    item's method run is done, then scores it in the calling thread.

    ``start(specs)`` schedules items for ``result``. ``prefetch(specs)`` starts method runs
    (their calls) for items another process may end up reporting: ``result`` then reuses the
    run, or starts one with its calls ahead of everything queued. The event loop only makes
    calls and combines replies; scoring and record building happen in the thread that asks,
    so the loop answers the network promptly and keeps the server's slots busy. Scores are
    shared by items with the same final patch. ``max_cost_usd`` is the spending ceiling of
    this process's calls (``llm/budget.py``; an xdist worker's share of the run's), None: none.
    """

    def __init__(
        self,
        cases: Sequence[Case],
        models: Sequence[ModelConfig],
        settings: RunSettings,
        *,
        max_cost_usd: float | None = None,
    ) -> None:
        self.cases = {c.id: c for c in cases}
        self.models = {m.name: m for m in models}
        self.settings = settings
        self.prompts = settings.prompts.remembering()
        self.artifacts = SampleArtifacts()
        self.ceiling = Ceiling(max_cost_usd, name="--revprop-max-cost")
        """Every call of the run holds its worst case under it (no limit: it only counts)."""
        self.clients: dict[str, Client] = {
            m.name: Client(
                m,
                cache_dir=settings.cache_dir,
                concurrency=min(settings.concurrency, m.max_concurrency or settings.concurrency),
                retry=settings.retry,
                transport=settings.transport,
                ceiling=self.ceiling,
            )
            for m in models
            if m.kind != "reference"
        }
        self._futures: dict[ItemSpec, concurrent.futures.Future[Run]] = {}
        self._records: dict[ItemSpec, ResultRecord] = {}
        self._taken: set[ItemSpec] = set()
        self._runs: dict[ItemSpec, asyncio.Future[Run]] = {}
        self._waiting: collections.deque[tuple[ItemSpec, int]] = collections.deque()
        self._queued: set[ItemSpec] = set()
        self._prefetching: collections.deque[ItemSpec] = collections.deque()
        self._prefetch_active = 0
        self._scores: Memo[tuple[str, str], Score] = Memo(SCORES_KEPT)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._prepared: set[str] = set()
        self._first_calls_checked: set[tuple[str, str, object, int]] = set()

    def _ask(self, case: Case, model: ModelConfig, boost: int, turn: int | None = None) -> Ask:
        """How ``case``'s calls reach ``model`` (``turn``: of a chain, whose view ``case`` is)."""
        if model.kind == "reference":
            solver = model.name if model.name in REFERENCE_SOLVERS else "noop"
            if turn is None:
                return reference_ask(case, solver)
            chain = self.cases[case.id]
            return reference_ask(case, solver, patch=reference_patch(chain, turn, solver))
        ask = client_ask(self.clients[model.name], structured=self.settings.structured)
        if not boost:
            return ask

        async def boosted(
            messages: list[dict[str, str]], seed: int, role: CallRole, priority: int
        ) -> Reply:
            return await ask(messages, seed, role, priority + boost)

        return boosted

    def _method_run(self, spec: ItemSpec, boost: int) -> asyncio.Future[Run]:
        """The (shared) run of ``spec``, started now if no one started it. Loop only."""
        run = self._runs.get(spec)
        if run is None:
            run = self._runs[spec] = asyncio.ensure_future(self._work(spec, boost))
        return run

    async def _work(self, spec: ItemSpec, boost: int) -> Run:
        """The method run of ``spec``, or its chain's turns one after another."""
        case = self.cases[spec.case]
        if spec.chain == CHAIN_OFF:
            return await self._turn(spec, boost, case, 0)
        turn = functools.partial(self._turn, spec, boost)
        return await run_chain(case, spec.chain, self.settings.turns, turn)

    async def _turn(self, spec: ItemSpec, boost: int, case: Case, turn: int) -> MethodRun:
        """The method run of ``spec`` on ``case`` (a chain's turn ``turn``: the turn's view,
        whose prompts and samples' artifacts are its own, not the case's)."""
        return await run_method(
            self.settings.registry.get(spec.method),
            case,
            self._ask(
                case, self.models[spec.model], boost, None if spec.chain == CHAIN_OFF else turn
            ),
            k=spec.k,
            seed=spec.seed,
            prompts=self.prompts if turn == 0 else self.settings.prompts,
            artifacts=self.artifacts if turn == 0 else None,
            turn=turn,
        )

    async def _run(self, spec: ItemSpec, boost: int = 0) -> Run:
        return await self._method_run(spec, boost)

    def _record(self, spec: ItemSpec, run: Run) -> ResultRecord:
        record = self._records.get(spec)
        if record is None:
            case = self.cases[spec.case]
            if isinstance(run, ChainRun):
                record = self._chain_record(case, spec, run)
            else:
                record = result_record(case, spec, run, self._score(case, run))
            self._records[spec] = record
        return record

    def _chain_record(self, case: Case, spec: ItemSpec, chain: ChainRun) -> ResultRecord:
        """A chain's record: its turns scored here (teacher turns shared like single ones)."""

        def score_turn(turn: TurnRun) -> Score:
            place = f"{chain.protocol}:{turn.index}" if turn.index else ""
            return self._score(turn.view, turn.run, place)

        scores = score_chain(case, chain, score_turn)
        last = chain.turns[-1]
        base = result_record(last.view, spec, last.run, scores[-1], credit=False)
        return chain_record(case, chain, scores, base)

    def _score(self, case: Case, run: MethodRun, place: str = "") -> Score:
        """The run's score, shared by the items of ``case`` whose final patch is the same
        (``place``: a chain's turn after the first, scored on its own view)."""
        patch = run.outcome.patch
        if patch is None or place.startswith("free"):
            return run.score(case)
        key = (case.id + place, json.dumps(patch, sort_keys=True, ensure_ascii=False))
        return self._scores.get(key, lambda: run.score(case))

    def _prepare_clients(self, specs: Sequence[ItemSpec]) -> None:
        """Do the clients' one-off work (importing litellm) before the first
        call is scheduled, as part of start-up, for the models that have calls to make: a
        warm rerun makes none and never imports litellm. Looks up each distinct first call
        (methods that declare the same one share it) once per run, until one is missing."""
        for name, client in self.clients.items():
            if name in self._prepared:
                continue
            seen = self._first_calls_checked
            for spec in specs:
                first = (
                    name,
                    spec.case,
                    self.settings.registry.get(spec.method).first_call,
                    spec.seed,
                )
                if spec.model != name or first in seen:
                    continue
                seen.add(first)
                if not self._first_call_cached(spec):
                    client.prepare()
                    self._prepared.add(name)
                    break

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="revprop-loop", daemon=True
            )
            self._thread.start()
        return self._loop

    def start(self, specs: Sequence[ItemSpec], *, boost: int = 0) -> None:
        """Schedule every spec (idempotent per spec): up to ``ITEMS_AHEAD`` items not yet
        taken by ``result`` run at once; the rest wait their turn, in order."""
        self._prepare_clients(
            [spec for spec in specs if spec not in self._futures and spec not in self._queued]
        )
        for spec in specs:
            if spec not in self._futures and spec not in self._queued:
                self._waiting.append((spec, boost))
                self._queued.add(spec)
        self._schedule()

    def _schedule(self, urgent: ItemSpec | None = None) -> None:
        """Hand items to the loop (one hand-off): ``urgent`` now, then waiting ones while
        fewer than ``ITEMS_AHEAD`` are scheduled and not taken."""
        batch: list[tuple[ItemSpec, int, concurrent.futures.Future[Run]]] = []

        def add(spec: ItemSpec, boost: int) -> None:
            future: concurrent.futures.Future[Run] = concurrent.futures.Future()
            self._futures[spec] = future
            batch.append((spec, boost, future))

        if urgent is not None and urgent not in self._futures:
            self._queued.discard(urgent)
            self._prepare_clients([urgent])
            add(urgent, URGENT)
        while self._waiting and len(self._futures) < ITEMS_AHEAD:
            spec, boost = self._waiting.popleft()
            if spec in self._queued:  # else it was started out of turn
                self._queued.discard(spec)
                add(spec, boost)

        def begin() -> None:
            for spec, boost, future in batch:
                if not future.cancelled():
                    _chain(asyncio.ensure_future(self._run(spec, boost)), future)

        if batch:
            self._ensure_loop().call_soon_threadsafe(begin)

    def prefetch(self, specs: Sequence[ItemSpec]) -> None:
        """Start the calls of ``specs`` (their method runs) without scoring them, at most
        ``PREFETCH_AHEAD`` at a time; not those whose first call is cached already (a rerun:
        nothing to make ahead, and the work would only hold up the loop the items asked for
        need). With a cache, a finished run is let go (its replies are in the cache; an item
        that wants it later reads them from there), so a process holds the runs in progress."""
        pending = [spec for spec in specs if not self._first_call_cached(spec)]
        self._prepare_clients(pending)

        def begin() -> None:
            self._prefetching.extend(pending)
            self._prefetch_more()

        self._ensure_loop().call_soon_threadsafe(begin)

    def makes_calls(self, specs: Sequence[ItemSpec]) -> bool:
        """Whether some of ``specs`` has a first call the cache does not hold (a call to make)."""
        return any(
            spec.model in self.clients and not self._first_call_cached(spec) for spec in specs
        )

    def _prefetch_more(self) -> None:
        """Start waiting prefetch runs while fewer than PREFETCH_AHEAD are in progress. Loop only."""
        while self._prefetching and self._prefetch_active < PREFETCH_AHEAD:
            spec = self._prefetching.popleft()
            if spec in self._runs:
                continue
            run = self._method_run(spec, 0)
            self._prefetch_active += 1
            run.add_done_callback(functools.partial(self._prefetched, spec))

    def _prefetched(self, spec: ItemSpec, run: asyncio.Future[Run]) -> None:
        self._prefetch_active -= 1
        if not run.cancelled():
            run.exception()  # retrieved, so asyncio does not log it; the item raises it when asked
        cached = self.settings.cache_dir is not None
        if cached and spec not in self._futures and self._runs.get(spec) is run:
            del self._runs[spec]
        self._prefetch_more()

    def _first_call_cached(self, spec: ItemSpec) -> bool:
        """Whether the cache holds the first call of ``spec`` at its base seed, as its method
        declares it (registry.MethodSpec.first_call); False when it declares none."""
        client = self.clients.get(spec.model)
        first_call = self.settings.registry.get(spec.method).first_call
        if client is None or client.cache is None or first_call is None:
            return False
        case, prompts = self.cases[spec.case], self.prompts
        if spec.chain == "teacher":  # its last turn's: a prompt that depends on no reply
            case, prompts = last_teacher_view(case, self.settings.turns), self.settings.prompts
        messages = first_call(prompts, case)
        request = client.make_request(messages, spec.seed, self.settings.structured)
        return client.cache.path(request.cache_key()).exists()

    def result(self, spec: ItemSpec, timeout: float | None = None) -> ResultRecord:
        """The record of ``spec`` (started now, ahead of everything, if it was not running).
        Taking it lets go of the item's run and record, and makes room for the next item."""
        if spec not in self._futures:
            self._schedule(urgent=spec)
        try:
            run = self._futures[spec].result(timeout)
            record = self._record(spec, run)
        except BudgetReached:  # the ceiling left it unrun: taken all the same
            self._let_go(spec)
            self._schedule()
            raise
        self._let_go(spec)
        self._schedule()
        if isinstance(run, ChainRun) and run.cut is not None:
            raise ChainCut(f"{record['reason']}", record)
        return record

    def _let_go(self, spec: ItemSpec) -> None:
        self._taken.add(spec)
        self._futures.pop(spec, None)
        self._records.pop(spec, None)
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closing
                self._loop.call_soon_threadsafe(self._runs.pop, spec, None)

    def done(self) -> list[ResultRecord]:
        """Records of every finished item not taken by ``result`` yet (in spec order): the
        items asked for or started, and those whose calls ``prefetch`` made ahead and still
        holds. Call it after ``close``: the loop no longer changes the runs."""
        runs: dict[ItemSpec, asyncio.Future[Run] | concurrent.futures.Future[Run]]
        runs = {**dict(self._runs), **self._futures}
        return [
            self._record(spec, run.result())
            for spec, run in sorted(runs.items())
            if spec not in self._taken
            and run.done()
            and not run.cancelled()
            and run.exception() is None
        ]

    def close(self, *, finish_in_flight: bool = False) -> None:
        """Stop all work. With ``finish_in_flight`` (a process leaving while others go on, which
        may be waiting for its claims), requests in flight first finish into the cache. Then
        unfinished calls are cancelled and unwind, so their cache claims are released;
        finished records stay available from ``done()``."""
        if self._loop is not None and finish_in_flight:
            for client in self.clients.values():
                timeout = client.attempt_timeout_s
                with contextlib.suppress(Exception):
                    asyncio.run_coroutine_threadsafe(
                        client.finish_in_flight(timeout), self._loop
                    ).result(timeout + 1.0)
        self._waiting.clear()
        self._queued.clear()
        for future in self._futures.values():
            future.cancel()
        if self._loop is not None:
            loop = self._loop
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(_cancel_tasks(), loop).result(CANCEL_GRACE_S + 1.0)
            loop.call_soon_threadsafe(loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=5)
            if self._thread is None or not self._thread.is_alive():
                loop.close()  # else its selector is closed by the collector, late and noisily
            self._loop = None

    def held_runs(self) -> int:
        """Method runs this process holds: items scheduled and not taken, runs in progress."""
        if self._loop is None:
            return 0

        async def count() -> int:
            return len(self._runs)

        return asyncio.run_coroutine_threadsafe(count(), self._loop).result(5.0)

    def stats(self) -> dict[str, dict[str, int]]:
        """Each model client's call counters (``ClientStats``), by model name."""
        return {name: client.stats.to_dict() for name, client in self.clients.items()}

    def run_all(self, specs: Sequence[ItemSpec]) -> list[ResultRecord]:
        """Run specs to completion (library use, benchmarks); records in spec order."""
        self.start(specs)
        return [self.result(s) for s in specs]


def _chain(task: asyncio.Future[Run], future: concurrent.futures.Future[Run]) -> None:
    """Copy ``task``'s outcome to ``future`` (read from other threads); cancelling ``future``
    cancels ``task``."""

    def copy(done: asyncio.Future[Run]) -> None:
        if done.cancelled():
            future.cancel()
        elif not future.set_running_or_notify_cancel():
            return
        elif done.exception() is not None:
            future.set_exception(done.exception())
        else:
            future.set_result(done.result())

    def cancel(done: concurrent.futures.Future[Run]) -> None:
        loop = task.get_loop()
        if done.cancelled() and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)

    task.add_done_callback(copy)
    future.add_done_callback(cancel)


async def _cancel_tasks() -> None:
    """Cancel every other task on the running loop and give them a moment to unwind."""
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=CANCEL_GRACE_S)
