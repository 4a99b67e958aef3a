"""``revprop synth``: cases drafted by a model from scenario cards, or reworded.

Four forms: ``revprop synth CARD...`` drafts cases from scenario cards; ``--paraphrase
CASE...`` rewords existing cases; ``--example [NAME]`` prints a commented card;
``--source-ids RESULTS.json VARIANTS...`` renames a run's results on reworded variants to
their sources' ids, so that ``revprop compare`` pairs each original with its variant.

The work is :mod:`pytest_revprop.authoring.synth.batch`. The exit status is 0 when every
draft became a case (or was skipped: its file holds a person's work), 1 otherwise
(rejected, stopped by the budget, or a failed call), 2 for unusable input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_revprop.authoring.synth.batch import (
    BatchOptions,
    all_made,
    card_jobs,
    case_jobs,
    run_batch,
    source_ids,
    summary,
)
from pytest_revprop.authoring.synth.cards import EXAMPLE_CARDS, example_card_text
from pytest_revprop.authoring.synth.generate import check_templates
from pytest_revprop.authoring.synth.gold_draft import GOLD_RULES
from pytest_revprop.cli.args import usd, whole_number
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.errors import UserError
from pytest_revprop.llm.transports import TRANSPORTS
from pytest_revprop.run.options import (
    parse_api_bases,
    parse_concurrency,
    parse_retries,
    parse_seconds,
)

DEFAULT_OUT = Path("synth-drafts")
"""Where drafts go without ``--out``."""
DEFAULT_CACHE = Path(".revprop-cache")
"""The response cache without ``--cache``: the one evaluation runs use."""


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
        help="print a commented example card and exit"
        f" ({', '.join(EXAMPLE_CARDS)}; default {EXAMPLE_CARDS[0]})",
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
        help="rewrite a run's results on reworded variants (PATH: the variants)"
        " with their sources' ids, for revprop compare",
    )
    add(
        "--variant",
        type=whole_number(1),
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
        help=f"where drafts go (default: {DEFAULT_OUT});"
        " with --source-ids, the file written (default: stdout)",
    )
    add(
        "--drafts",
        type=whole_number(1),
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
        type=whole_number(1),
        default=3,
        metavar="K",
        help="j+h samples merged into the gold (default: 3)",
    )
    add(
        "--max-reasks",
        type=whole_number(0),
        default=2,
        metavar="N",
        help="re-asks of a step that fails its checks (default: 2)",
    )
    add(
        "--max-cost",
        type=usd,
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
    jobs = (case_jobs if args.paraphrase else card_jobs)(args.paths, args.drafts)
    options = BatchOptions(
        model=args.model,
        gold_model=args.gold_model,
        out=args.out or DEFAULT_OUT,
        api_bases=args.api_base,
        cache_dir=None if args.no_cache else args.cache,
        concurrency=args.concurrency,
        retries=args.retries,
        timeout_s=args.timeout,
        transport=args.transport,
        max_cost_usd=args.max_cost,
        max_reasks=args.max_reasks,
        gold_rule=args.gold_rule,
        gold_samples=args.gold_samples,
        verbose=args.verbose,
    )
    outcomes, budget = run_batch(options, prompts, jobs)
    print(summary(outcomes, budget, options.out))
    return 0 if all_made(outcomes) else 1


def _source_ids(args: argparse.Namespace) -> int:
    """Write the results file with each variant's rows renamed to its source's id."""
    renamed, variants = source_ids(args.source_ids, args.paths, args.variant)
    text = json.dumps(renamed, indent=2, ensure_ascii=False) + "\n"
    if args.out is None:
        sys.stdout.write(text)
        return 0
    args.out.write_text(text, encoding="utf-8")
    rows = len(renamed["results"])
    print(f"{rows} results of {variants} variants, renamed to their sources, in {args.out}")
    return 0
