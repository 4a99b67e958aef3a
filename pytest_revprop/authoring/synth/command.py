"""``revprop synth``: the command line of model-drafted cases.

Four forms: ``revprop synth CARD...`` drafts cases from scenario cards; ``--paraphrase
CASE...`` rewords existing cases; ``--example [NAME]`` prints a commented card;
``--source-ids RESULTS.json VARIANTS...`` renames a run's results on reworded variants to
their sources' ids, so that ``revprop compare`` pairs each original with its variant.

The models are resolved as a run resolves them (presets, ``[tool.revprop]``, litellm
strings, ``--api-base``); the embedded model's llama.cpp server is started here and stopped
at the end; every server is checked before the first call. One line per draft reports its
outcome, turns, failed checks and cost; the exit status is 0 when every draft became a case
(or was skipped: its file holds a person's work), 1 otherwise (rejected, stopped by the
budget, or a failed call), 2 for unusable input.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_revprop.authoring.synth.cards import (
    EXAMPLE_CARDS,
    Card,
    example_card_text,
    load_cards,
)
from pytest_revprop.authoring.synth.generate import check_templates
from pytest_revprop.authoring.synth.gold_draft import GOLD_RULES
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
from pytest_revprop.llm.budget import Ceiling, require_prices
from pytest_revprop.llm.transports import TRANSPORTS
from pytest_revprop.run.options import (
    parse_api_bases,
    parse_concurrency,
    parse_retries,
    parse_seconds,
)

if TYPE_CHECKING:
    from pytest_revprop.llm.client import Client
    from pytest_revprop.llm.presets import ModelConfig
    from pytest_revprop.servers.embedded import EmbeddedServer

DEFAULT_OUT = Path("synth-drafts")
DEFAULT_CACHE = Path(".revprop-cache")


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value

    return parse


def _usd(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an amount in USD, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="revprop synth",
        description=(
            "Draft new cases with a model from scenario cards (TOML; --example prints one), "
            "or reword existing cases (--paraphrase). Drafts are valid case files with "
            "annotation.status 'draft', to review in `revprop annotate`; rejected drafts go "
            "to OUT/__rejected__/ with their reasons. Rerunning resumes from the cache."
        ),
    )
    add = parser.add_argument
    add(
        "paths",
        nargs="*",
        metavar="PATH",
        help="cards (.toml files or folders of them); with --paraphrase, case files or folders",
    )
    add(
        "--example",
        nargs="?",
        const=EXAMPLE_CARDS[0],
        choices=EXAMPLE_CARDS,
        metavar="NAME",
        help=f"print a commented example card and exit ({', '.join(EXAMPLE_CARDS)}; default {EXAMPLE_CARDS[0]})",
    )
    add(
        "--paraphrase",
        action="store_true",
        help="reword the cases named by PATH instead of drafting from cards",
    )
    add(
        "--source-ids",
        type=Path,
        metavar="RESULTS.json",
        help="rewrite a run's results on reworded variants (PATH: the variants) with their sources' ids, for revprop compare",
    )
    add(
        "--variant",
        type=_count(1),
        metavar="N",
        help="with --source-ids: use variant N of each case (when there are several)",
    )
    add(
        "--model",
        metavar="M",
        help="the writer: a preset, a [tool.revprop] model or a litellm model string",
    )
    add("--gold-model", metavar="M", help="the model that drafts the gold (default: the writer)")
    add(
        "--out",
        type=Path,
        metavar="DIR",
        help=f"where drafts go (default: {DEFAULT_OUT}); with --source-ids, the file written (default: stdout)",
    )
    add(
        "--drafts",
        type=_count(1),
        default=1,
        metavar="N",
        help="drafts per card or case, with writer seeds 0..N-1 (default: 1)",
    )
    add(
        "--gold-rule",
        choices=GOLD_RULES,
        default="maj",
        help="how the gold samples are merged (default: maj)",
    )
    add(
        "--gold-samples",
        type=_count(1),
        default=3,
        metavar="K",
        help="j+h samples merged into the gold (default: 3)",
    )
    add(
        "--max-reasks",
        type=_count(0),
        default=2,
        metavar="N",
        help="re-asks of a step that fails its checks (default: 2)",
    )
    add(
        "--max-cost",
        type=_usd,
        metavar="USD",
        help="a ceiling on new spending: no call is sent that could take it past USD "
        "(cached replies are free; needs the models' prices)",
    )
    add(
        "--api-base",
        type=parse_api_bases,
        default=(),
        metavar="URL[,URL...]",
        help="server(s) of the models, as --revprop-api-base",
    )
    add(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
        metavar="DIR",
        help=f"response cache, shared with runs (default: {DEFAULT_CACHE})",
    )
    add("--no-cache", action="store_true", help="neither read nor write the cache (no resuming)")
    add(
        "--concurrency",
        type=parse_concurrency,
        default=8,
        metavar="N",
        help="requests in flight (default: 8)",
    )
    add(
        "--retries",
        type=parse_retries,
        default=5,
        metavar="N",
        help="attempts per model call (default: 5)",
    )
    add(
        "--timeout",
        type=parse_seconds,
        metavar="S",
        help="seconds per attempt (default: the model's)",
    )
    add(
        "--prompts",
        type=Path,
        metavar="DIR",
        help="folder of prompt templates replacing the shipped ones file by file",
    )
    add(
        "--transport",
        choices=TRANSPORTS,
        help="how calls are sent (default: $REVPROP_TRANSPORT, else litellm)",
    )
    add(
        "-v",
        "--verbose",
        action="store_true",
        help="a line per step and per failed check, not only per draft",
    )
    return parser


def synth_main(argv: Sequence[str]) -> int:
    """``revprop synth``: see the module docstring."""
    args = _parser().parse_args(list(argv))
    if args.example:
        sys.stdout.write(example_card_text(args.example))
        return 0
    if args.source_ids is not None:
        return _source_ids(args)
    if not args.paths:
        raise UserError("name at least one card (or, with --paraphrase, one case)")
    if not args.model:
        raise UserError("--model is required: the model that writes the drafts")
    prompts = Prompts(args.prompts)
    check_templates(prompts)
    jobs = _case_jobs(args) if args.paraphrase else _card_jobs(args)
    return _run(args, prompts, jobs)


Job = tuple[str, Callable[..., Awaitable[Outcome]]]
"""A draft to make: its name, and the coroutine function that makes it (called with the
settings, the event callback or None, and the keyword ``priority``)."""


def _card_jobs(args: argparse.Namespace) -> list[Job]:
    cards = [card for path in _card_files(args.paths) for card in load_cards(path)]
    seen: dict[str, Card] = {}
    for card in cards:
        first = seen.setdefault(card.id, card)
        if first.source != card.source:
            raise UserError(f"cards {first.label} and {card.label} share the id {card.id!r}")
    return [
        (card.id, partial(card_draft, card, n)) for card in cards for n in range(1, args.drafts + 1)
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


def _case_jobs(args: argparse.Namespace) -> list[Job]:
    loaded = load_cases(args.paths)
    if loaded.errors:
        raise UserError(f"cannot reword a broken case: {loaded.errors[0]}")
    if not loaded.cases:
        raise UserError(f"no case file under {', '.join(args.paths)}")
    return [
        (case.id, partial(paraphrase_draft, case, n))
        for case in loaded.cases
        for n in range(1, args.drafts + 1)
    ]


# ------------------------------------------------------------------------------ models


def _model(name: str, args: argparse.Namespace, servers: list[EmbeddedServer]) -> ModelConfig:
    from pytest_revprop.llm.presets import load_config, resolve_model

    model = resolve_model(name, api_bases=args.api_base, overrides=load_config(Path.cwd()))
    if model.kind == "reference":
        raise UserError(
            f"{name} is a reference solver: it answers from a case's gold and cannot write one"
        )
    if args.max_cost is not None:
        require_prices(model, "--max-cost")
    from pytest_revprop.servers.startup import ready_models

    (model,) = ready_models([model], servers, option="--api-base")
    return model


def _client(model: ModelConfig, args: argparse.Namespace, ceiling: Ceiling) -> Client:
    from pytest_revprop.llm.client import Client
    from pytest_revprop.llm.types import RetryPolicy

    client = Client(
        model,
        cache_dir=None if args.no_cache else args.cache,
        concurrency=min(args.concurrency, model.max_concurrency or args.concurrency),
        retry=RetryPolicy(max_attempts=args.retries, attempt_timeout_s=args.timeout),
        transport=args.transport,
        ceiling=ceiling,
    )
    client.prepare()
    return client


def _roles(
    args: argparse.Namespace, servers: list[EmbeddedServer], ceiling: Ceiling
) -> tuple[Role, Role]:
    """The writer and the gold model, their clients sharing the run's ceiling."""
    writer_model = _model(args.model, args, servers)
    gold_model = None
    if args.gold_model and args.gold_model != args.model:
        gold_model = _model(args.gold_model, args, servers)
    writer = Role(_client(writer_model, args, ceiling), args.model)
    if gold_model is None:
        return writer, writer
    return writer, Role(_client(gold_model, args, ceiling), args.gold_model)


# ------------------------------------------------------------------------------ the run


def _run(args: argparse.Namespace, prompts: Prompts, jobs: list[Job]) -> int:
    servers: list[EmbeddedServer] = []
    try:
        budget = Ceiling(args.max_cost)
        writer, gold = _roles(args, servers, budget)
        settings = Settings(
            out=args.out or DEFAULT_OUT,
            prompts=prompts,
            writer=writer,
            gold=gold,
            max_reasks=args.max_reasks,
            gold_rule=args.gold_rule,
            gold_k=args.gold_samples,
        )
        outcomes = asyncio.run(_all(jobs, settings, budget, verbose=args.verbose))
    finally:
        for server in servers:
            server.stop()
    print(_summary(outcomes, budget, settings.out))
    return 0 if all(o.status in ("draft", "skipped") for o in outcomes) else 1


async def _all(
    jobs: list[Job], settings: Settings, budget: Ceiling, *, verbose: bool
) -> list[Outcome]:
    done: list[Outcome] = []

    async def one(index: int, name: str, job: Callable[..., Awaitable[Outcome]]) -> Outcome:
        def event(line: str) -> None:
            print(f"  {name}: {line}", flush=True)

        # earlier drafts first: under a budget, the run finishes drafts before it starts more
        outcome = await job(settings, event if verbose else None, priority=-index)
        done.append(outcome)
        print(progress_line(outcome, len(done), len(jobs), budget), flush=True)
        return outcome

    return list(await asyncio.gather(*(one(i, name, job) for i, (name, job) in enumerate(jobs))))


def progress_line(outcome: Outcome, done: int, total: int, budget: Ceiling) -> str:
    """One draft's line: outcome, turns, failed checks, its cost and the run's spending."""
    tally = outcome.tally
    parts = [
        f"[{done}/{total}] {outcome.id}: {outcome.status}",
        f"turns {outcome.turns}",
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
    return line


def _summary(outcomes: list[Outcome], budget: Ceiling, out: Path) -> str:
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
    if counts["skipped"]:
        line += (
            f"\n{counts['skipped']} skipped: their case files hold a person's work "
            "(kept, not overwritten)"
        )
    if counts["stopped"]:
        line += "\nstopped by --max-cost: rerun with a higher budget to resume from the cache"
    return line


# ------------------------------------------------------------------------------ --source-ids


def _source_ids(args: argparse.Namespace) -> int:
    """Write the results file with each variant's rows renamed to its source's id."""
    from pytest_revprop.reporting.results import load_results

    sources = variant_sources(args.paths, args.variant)
    renamed = results_as_sources(load_results(args.source_ids), sources, str(args.source_ids))
    text = json.dumps(renamed, indent=2, ensure_ascii=False) + "\n"
    if args.out is None:
        sys.stdout.write(text)
        return 0
    args.out.write_text(text, encoding="utf-8")
    rows = len(renamed["results"])
    print(f"{rows} results of {len(sources)} variants, renamed to their sources, in {args.out}")
    return 0
