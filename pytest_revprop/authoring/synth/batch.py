"""A batch of model-drafted cases: the jobs, the models and servers, the run, its lines.

The work behind ``revprop synth`` (:mod:`pytest_revprop.cli.synth` parses its arguments).
The models are resolved as a run resolves them (presets, ``[tool.revprop]``, litellm
strings, ``--api-base``); the embedded model's llama.cpp server is started here and stopped
at the end; every server is checked before the first call. One line per draft reports its
outcome, turns, failed checks and cost. :func:`source_ids` renames a run's results on
reworded variants to their sources' ids, so that ``revprop compare`` pairs each original
with its variant.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_revprop.authoring.synth.cards import (
    Card,
    load_cards,
)
from pytest_revprop.authoring.synth.paraphrase import results_as_sources, variant_sources
from pytest_revprop.authoring.synth.pipeline import (
    Outcome,
    Role,
    Settings,
    card_draft,
    paraphrase_draft,
)
from pytest_revprop.core.cases import load_cases
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.errors import UserError
from pytest_revprop.llm.budget import Ceiling, OrderedCeiling, require_prices

if TYPE_CHECKING:
    from pytest_revprop.llm.client import Client
    from pytest_revprop.llm.presets import ModelConfig
    from pytest_revprop.servers.embedded import EmbeddedServer


@dataclass(frozen=True)
class BatchOptions:
    """How a batch drafts: its models, their calls, where the drafts go.

    Attributes:
        model: the writer (a preset, a ``[tool.revprop]`` model or a litellm model string).
        gold_model: the model that drafts the gold; None: the writer.
        out: the folder the drafts go to.
        api_bases: the models' servers, as ``--revprop-api-base``.
        cache_dir: the response cache; None: every call afresh, nothing kept.
        concurrency: requests in flight (at most each model's own limit).
        retries: attempts per model call.
        timeout_s: seconds per attempt; None: the model's.
        transport: how calls are sent; None: ``$REVPROP_TRANSPORT``, else litellm.
        max_cost_usd: the ceiling on new spending; None: no ceiling.
        max_reasks: re-asks of a step that fails its checks.
        gold_rule: how the gold samples are merged.
        gold_samples: samples merged into the gold.
        verbose: a line per step and per failed check, not only per draft.
    """

    model: str
    gold_model: str | None
    out: Path
    api_bases: Sequence[str] = ()
    cache_dir: Path | None = None
    concurrency: int = 8
    retries: int = 5
    timeout_s: float | None = None
    transport: str | None = None
    max_cost_usd: float | None = None
    max_reasks: int = 2
    gold_rule: str = "maj"
    gold_samples: int = 3
    verbose: bool = False


@dataclass(frozen=True)
class Job:
    """A draft to make.

    Attributes:
        name: what its verbose lines start with (the card's or the case's id).
        make: the coroutine function that makes it (called with the settings, the event
            callback or None, and the keyword ``priority``).
        steps: the writer's steps it plans without re-asks (a card's turns, request and
            follow-ups' requests; a rewording: one).
        golds: the golds it drafts (``Settings.gold_k`` calls each: a card's own revision's,
            and each follow-up's).
    """

    name: str
    make: Callable[..., Awaitable[Outcome]]
    steps: int = 1
    golds: int = 0

    def calls(self, settings: Settings) -> int:
        """The calls it plans when nothing is re-asked (under a budget, the drafts after it
        keep room for them: a draft's follow-ups are part of it)."""
        return self.steps + settings.gold_k * self.golds


def card_jobs(paths: Sequence[str], drafts: int) -> list[Job]:
    """``drafts`` drafts of each card in ``paths`` (card files, or folders of them)."""
    cards = [card for path in _card_files(paths) for card in load_cards(path)]
    seen: dict[str, Card] = {}
    for card in cards:
        first = seen.setdefault(card.id, card)
        if first.source != card.source:
            raise UserError(f"cards {first.label} and {card.label} share the id {card.id!r}")
    return [
        Job(
            card.id,
            partial(card_draft, card, n),
            steps=card.max_turns + 1 + card.followup_count,
            golds=1 + card.followup_count,
        )
        for card in cards
        for n in range(1, drafts + 1)
    ]


def _card_files(paths: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(path.rglob("*.toml"))
            if not found:
                raise UserError(f"{path}: no .toml card in this folder")
            files += found
        else:
            files.append(path)
    return files


def case_jobs(paths: Sequence[str], drafts: int) -> list[Job]:
    """``drafts`` reworded variants of each case in ``paths`` (case files, or folders)."""
    loaded = load_cases(paths)
    if loaded.errors:
        raise UserError(f"cannot reword a broken case: {loaded.errors[0]}")
    if not loaded.cases:
        raise UserError(f"no case file under {', '.join(paths)}")
    return [
        Job(case.id, partial(paraphrase_draft, case, n))
        for case in loaded.cases
        for n in range(1, drafts + 1)
    ]


# ------------------------------------------------------------------------------ models


def _model(name: str, options: BatchOptions, servers: list[EmbeddedServer]) -> ModelConfig:
    from pytest_revprop.llm.presets import load_config, resolve_model

    model = resolve_model(name, api_bases=options.api_bases, overrides=load_config(Path.cwd()))
    if model.kind == "reference":
        raise UserError(
            f"{name} is a reference solver: it answers from a case's gold and cannot write one"
        )
    if options.max_cost_usd is not None:
        require_prices(model, "--max-cost")
    from pytest_revprop.servers.startup import ready_models

    (model,) = ready_models([model], servers, option="--api-base")
    return model


def _client(model: ModelConfig, options: BatchOptions, ceiling: Ceiling) -> Client:
    from pytest_revprop.llm.client import Client
    from pytest_revprop.llm.types import RetryPolicy

    client = Client(
        model,
        cache_dir=options.cache_dir,
        concurrency=min(options.concurrency, model.max_concurrency or options.concurrency),
        retry=RetryPolicy(max_attempts=options.retries, attempt_timeout_s=options.timeout_s),
        transport=options.transport,
        ceiling=ceiling,
    )
    client.prepare()
    return client


def _roles(
    options: BatchOptions, servers: list[EmbeddedServer], ceiling: Ceiling
) -> tuple[Role, Role]:
    """The writer and the gold model, their clients sharing the run's ceiling."""
    writer_model = _model(options.model, options, servers)
    gold_name = options.gold_model
    gold_model = None
    if gold_name and gold_name != options.model:
        gold_model = _model(gold_name, options, servers)
    writer = Role(_client(writer_model, options, ceiling), options.model)
    if gold_model is None or not gold_name:
        return writer, writer
    return writer, Role(_client(gold_model, options, ceiling), gold_name)


# ------------------------------------------------------------------------------ the run


def run_batch(
    options: BatchOptions, prompts: Prompts, jobs: list[Job]
) -> tuple[list[Outcome], Ceiling]:
    """Make every draft of ``jobs``, printing a line per draft as it ends (and, when
    ``options.verbose``, per step); the outcomes in job order, and the spending ceiling."""
    servers: list[EmbeddedServer] = []
    try:
        # drafts spend in order: under a ceiling, the first ones finish, the later ones stop
        budget = OrderedCeiling(options.max_cost_usd, unit="draft")
        writer, gold = _roles(options, servers, budget)
        settings = Settings(
            out=options.out,
            prompts=prompts,
            writer=writer,
            gold=gold,
            max_reasks=options.max_reasks,
            gold_rule=options.gold_rule,
            gold_k=options.gold_samples,
        )
        outcomes = asyncio.run(_all(jobs, settings, budget, verbose=options.verbose))
    finally:
        for server in servers:
            server.stop()
    return outcomes, budget


def all_made(outcomes: Sequence[Outcome]) -> bool:
    """Whether every draft became a case with every follow-up its card asks for, or was
    skipped (its file holds a person's work)."""
    return all(
        o.status in ("draft", "skipped") and (o.chain is None or o.chain.failed is None)
        for o in outcomes
    )


async def _all(
    jobs: list[Job], settings: Settings, budget: OrderedCeiling, *, verbose: bool
) -> list[Outcome]:
    done: list[Outcome] = []

    async def one(index: int, job: Job) -> Outcome:
        def event(line: str) -> None:
            print(f"  {job.name}: {line}", flush=True)

        # earlier drafts first: their calls get the free slots and the budget's room first,
        # and a draft's calls leave room for every draft ahead of it to finish
        with budget.lane(-index, calls=job.calls(settings)) as lane:
            outcome = await job.make(settings, event if verbose else None, priority=-index)
            if outcome.status == "draft":
                lane.finished(outcome.tally.cost_usd)
        done.append(outcome)
        print(progress_line(outcome, len(done), len(jobs), budget), flush=True)
        return outcome

    return list(await asyncio.gather(*(one(i, job) for i, job in enumerate(jobs))))


def progress_line(outcome: Outcome, done: int, total: int, budget: Ceiling) -> str:
    """One draft's line: outcome, turns, failed checks, its cost and the run's spending."""
    tally = outcome.tally
    parts = [
        f"[{done}/{total}] {outcome.id}: {outcome.status}",
        f"turns {outcome.turns}",
        *_followups_made(outcome),
        f"checks failed {tally.checks_failed}",
        f"calls {tally.calls} ({tally.cached} cached)",
        f"cost ${tally.cost_usd:.4f}",
        f"spent so far ${budget.spent_usd:.4f}",
    ]
    line = " · ".join(parts)
    if outcome.path is not None:
        line += f" -> {outcome.path}"
    if outcome.reason:
        line += f"\n    {outcome.reason}"
    failed = outcome.chain.failed if outcome.chain is not None else None
    if failed is not None and outcome.status == "draft":
        line += (
            f"\n    follow-up {failed.number} failed at its {failed.step}: {failed.reasons[0]}; "
            f"kept with {failed.number - 1} follow-up(s)"
        )
    return line


def _followups_made(outcome: Outcome) -> list[str]:
    """The progress line's follow-up part: made of asked (a chained card's drafts only)."""
    chain = outcome.chain
    if chain is None:
        return []
    return [f"follow-ups {len(chain.followups)} of {chain.asked}"]


def summary(outcomes: Sequence[Outcome], budget: Ceiling, out: Path) -> str:
    """The batch's last lines: the drafts by outcome, the calls, the spending, the folder."""
    counts = {
        status: sum(1 for o in outcomes if o.status == status)
        for status in ("draft", "rejected", "stopped", "failed", "skipped")
    }
    calls = sum(o.tally.calls for o in outcomes)
    cached = sum(o.tally.cached for o in outcomes)
    spending = f"new spending ${budget.spent_usd:.4f}"
    if budget.limit_usd is not None:
        spending += f" of the ${budget.limit_usd:.4f} ceiling"
    line = (
        f"{counts['draft']} draft(s), {counts['rejected']} rejected, {counts['stopped']} stopped, "
        f"{counts['failed']} failed; {calls} calls ({cached} from the cache); {spending}; in {out}"
    )
    chained = [o.chain for o in outcomes if o.chain is not None]
    if chained:
        made = sum(len(c.followups) for c in chained)
        failed = sum(c.failed is not None for c in chained)
        untried = sum(c.untried for c in chained if c.failed is not None)
        line += f"\nfollow-ups: {made} drafted, {failed} failed" + (
            f", {untried} not tried (after a failed one)" if untried else ""
        )
    if counts["skipped"]:
        line += (
            f"\n{counts['skipped']} skipped: their case files hold a person's work "
            "(kept, not overwritten)"
        )
    if counts["stopped"]:
        line += "\n" + budget_stop(outcomes, budget)
    return line


SHOWN = 8
"""Drafts named in each list of the budget's lines; more are counted."""


def budget_stop(outcomes: Sequence[Outcome], budget: Ceiling) -> str:
    """The lines of a run the budget stopped: what it spent, why the rest of the ceiling
    stays unspent, which drafts ended before it ran out (in order) and which it stopped."""
    stopped = [o for o in outcomes if o.status == "stopped"]
    ended = [o for o in outcomes if o.status != "stopped"]
    limit = f" of the ${budget.limit_usd:.4f} ceiling" if budget.limit_usd is not None else ""
    lines = [
        f"stopped by --max-cost: ${budget.spent_usd:.4f} spent{limit}; a call is sent only if "
        f"its worst case fits (its whole prompt and all its output tokens: up to "
        f"${budget.largest_usd:.4f} a call here)",
        f"  finished: {_listed([f'{o.id} ({o.status})' for o in ended])}",
        f"  stopped: {_listed([_stop_note(o) for o in stopped])}",
        "rerun with a higher --max-cost to resume the stopped drafts from the cache",
    ]
    return "\n".join(lines)


def _stop_note(outcome: Outcome) -> str:
    if outcome.path is None:
        return f"{outcome.id} (not started)"
    turns = outcome.turns
    after = f" after {turns} turn{'' if turns == 1 else 's'}" if turns else ""
    return f"{outcome.id} (saved{after})"


def _listed(names: Sequence[str]) -> str:
    if not names:
        return "none"
    shown = ", ".join(names[:SHOWN])
    return shown if len(names) <= SHOWN else f"{shown} and {len(names) - SHOWN} more"


# ------------------------------------------------------------------------------ --source-ids


def source_ids(
    results: Path, variants: Sequence[str], variant: int | None
) -> tuple[dict[str, Any], int]:
    """The results document in ``results`` with each reworded variant's rows renamed to its
    source's id (the variants: case files or folders in ``variants``; ``variant``: which one
    of each case, when there are several); and the number of variants."""
    from pytest_revprop.reporting.results import load_results

    sources = variant_sources(variants, variant)
    return results_as_sources(load_results(results), sources, str(results)), len(sources)
