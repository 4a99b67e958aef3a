"""``revprop report`` (figures, tables and the HTML sample browser from a results.json) and
``revprop samples`` (a run's samples with their replies, filtered).

The work is :mod:`pytest_revprop.reporting.report` and :mod:`pytest_revprop.reporting.samples`;
matplotlib is imported when ``revprop report`` draws, never by another command.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from pytest_revprop.errors import UserError
from pytest_revprop.reporting.samples import SAMPLES_FILE, SampleFile, read_samples


def report_main(argv: Sequence[str]) -> int:
    """``revprop report RESULTS.json [OTHER.json...] [--out DIR] [--cases PATH] [--samples FILE]``."""
    parser = argparse.ArgumentParser(
        prog="revprop report",
        description="Figures, tables and an offline HTML sample browser from a results.json.",
    )
    parser.add_argument(
        "results",
        type=Path,
        metavar="RESULTS.json",
        help="results.json written by --revprop-report",
    )
    parser.add_argument(
        "others",
        type=Path,
        nargs="*",
        metavar="OTHER.json",
        help="a run of the same protocol made with other fresh instances (--revprop-instances), "
        "pooled with the first for robustness; or, for chain runs, the other protocol's run (a "
        "free run beside a teacher run, or the reverse), drawn and tabled beside its chains",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="output folder (default: the folder of RESULTS.json)",
    )
    parser.add_argument(
        "--cases",
        type=Path,
        default=None,
        metavar="PATH",
        help="case files or folder for the sample browser "
        "(default: the run's cases_path, else the shipped benchmark)",
    )
    parser.add_argument(
        "--samples",
        type=Path,
        default=None,
        metavar="FILE",
        help="samples.jsonl with the raw replies, their text in the replies/ folder beside it "
        "(default: samples.jsonl beside RESULTS.json, if any)",
    )
    args = parser.parse_args(list(argv))
    # here, not at the top: `revprop samples` starts without the report's modules
    from pytest_revprop.reporting.pooled import sort_runs
    from pytest_revprop.reporting.report import default_cases, load_case_dicts, write_report
    from pytest_revprop.reporting.results import open_results

    results = open_results(args.results)
    others = [open_results(path) for path in args.others]
    given = sort_runs(
        [(str(args.results), results), *zip(map(str, args.others), others, strict=True)]
    )
    len(results["results"])  # every row read and checked before anything is written
    samples_path = args.samples or args.results.parent / SAMPLES_FILE
    if args.samples and not samples_path.is_file():
        raise UserError(f"samples file {samples_path}: no such file")
    samples = SampleFile(samples_path) if samples_path.is_file() else None
    cases = load_case_dicts(args.cases) if args.cases else default_cases(results)
    written = write_report(
        results,
        args.out or args.results.parent,
        samples=samples,
        cases=cases,
        others=given.beside,
        pooled=given.pooled,
        pool_names=given.pool_names,
    )
    for path in written:
        print(path)
    return 0


def samples_main(argv: Sequence[str]) -> int:
    """``revprop samples FOLDER [--case ID] [--model M] [--method X] [--k K] [--seed S]``."""
    parser = argparse.ArgumentParser(
        prog="revprop samples",
        description="Print a run's samples with their calls' replies and reasoning, "
        "one JSON object per line.",
    )
    parser.add_argument(
        "folder",
        type=Path,
        metavar="FOLDER",
        help="the run's reports folder (or its results.json or samples.jsonl)",
    )
    parser.add_argument(
        "--case", default=None, metavar="ID", help="case id, e.g. invoice-workshop-hours/10"
    )
    parser.add_argument("--model", default=None, metavar="M", help="only this model's samples")
    parser.add_argument("--method", default=None, metavar="X", help="only this method's samples")
    parser.add_argument("--k", type=int, default=None, metavar="K", help="only this k")
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="only this seed")
    parser.add_argument("--no-replies", action="store_true", help="leave out the replies' text")
    parser.add_argument(
        "--indent", type=int, default=None, metavar="N", help="indent the JSON by N spaces"
    )
    args = parser.parse_args(list(argv))
    matched = 0
    for record in read_samples(
        args.folder,
        case=args.case,
        model=args.model,
        method=args.method,
        k=args.k,
        seed=args.seed,
        with_replies=not args.no_replies,
    ):
        print(json.dumps(record, ensure_ascii=False, indent=args.indent))
        matched += 1
    if not matched:
        raise UserError(f"samples {args.folder}: no sample matches")
    return 0
