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

from pytest_revprop.core.askers import REFERENCE_SOLVERS, client_ask, reference_ask
from pytest_revprop.core.cases import Case
from pytest_revprop.core.method_context import Ask, SampleArtifacts
from pytest_revprop.core.scoring import Score
from pytest_revprop.llm.budget import BudgetReached, Ceiling
from pytest_revprop.llm.client import Client
from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.llm.types import Reply
from pytest_revprop.run.chains import ChainCut, ChainRun, TurnRun
from pytest_revprop.run.items import ItemSpec, RunSettings, run_item
from pytest_revprop.run.records import item_record, turn_score
from pytest_revprop.util.memo import Memo
from pytest_revprop.vocabulary import CallRole, ResultRecord

Run = ChainRun
"""What an item's work gives: its method's runs turn by turn (``run.chains``; one turn for
``off``)."""

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
        self._scores: Memo[tuple[str, str, str], Score] = Memo(SCORES_KEPT)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._prepared: set[str] = set()
        self._first_calls_checked: set[tuple[str, str, object, int]] = set()

    def _ask(self, spec: ItemSpec, view: Case, turn: int, boost: int) -> Ask:
        """How the calls of ``spec`` at turn ``turn`` (on its ``view``) reach its model."""
        model = self.models[spec.model]
        if model.kind == "reference":
            solver = model.name if model.name in REFERENCE_SOLVERS else "noop"
            chain = self.cases[spec.case]
            patch = self.settings.protocol.reference_patch(chain, turn, solver)
            return reference_ask(view, solver, patch=patch)
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
        """The item's run (``items.run_item``): its method on each turn of its protocol."""
        return await run_item(
            self.cases[spec.case],
            spec,
            self.settings,
            functools.partial(self._ask, spec, boost=boost),
            prompts=self.prompts,
            artifacts=self.artifacts,
        )

    async def _run(self, spec: ItemSpec, boost: int = 0) -> Run:
        return await self._method_run(spec, boost)

    def _record(self, spec: ItemSpec, run: Run) -> ResultRecord:
        record = self._records.get(spec)
        if record is None:
            record = item_record(self.cases[spec.case], spec, run, self._score)
            self._records[spec] = record
        return record

    def _score(self, case: Case, chain: ChainRun, turn: TurnRun) -> Score:
        """A turn's score, shared by the turns of the same view and final patch that the
        run's protocol scores alike (an ``off`` item is its turn 0)."""
        patch = turn.run.outcome.patch
        if patch is None:
            return turn_score(case, chain, turn)
        protocol = chain.protocol
        shown = json.dumps(patch, sort_keys=True, ensure_ascii=False)
        key = (protocol.scoring, turn.view.view_id, shown)
        return self._scores.get(key, lambda: turn_score(case, chain, turn))

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
        declares it (registry.MethodSpec.first_call), on the view its protocol probes
        (``Protocol.probe``); False when there is none of either."""
        client = self.clients.get(spec.model)
        first_call = self.settings.registry.get(spec.method).first_call
        if client is None or client.cache is None or first_call is None:
            return False
        view = self.settings.protocol.probe(self.cases[spec.case], self.settings.turns)
        if view is None:
            return False
        messages = first_call(self.prompts, view)
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
        if run.cut is not None:
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
