"""``revprop combine DIR... --out DIR``: the reports folders of a run's shards merged into one.

The work is :mod:`pytest_revprop.reporting.combine`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_revprop.cli.args import OneLineParser
from pytest_revprop.reporting.combine import combine


def combine_main(argv: Sequence[str]) -> int:
    """``revprop combine DIR... --out DIR [--no-figures]``."""
    parser = OneLineParser(
        prog="revprop combine",
        description="Merge the reports folders of a run's shards (--revprop-shard) into one.",
    )
    parser.add_argument(
        "folders",
        nargs="+",
        type=Path,
        metavar="DIR",
        help="a shard's reports folder (its --revprop-report), one per shard",
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="the combined reports folder"
    )
    parser.add_argument(
        "--no-figures", action="store_true", help="do not write the figures and the HTML report"
    )
    args = parser.parse_args(list(argv))
    written = combine(args.folders, args.out, figures=not args.no_figures)
    for path in written:
        print(path)
    return 0
