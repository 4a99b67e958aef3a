"""``revprop compare A.json B.json``: two runs compared per (model, method, k) with the paired
exact McNemar test; with ``--fail-on-regression``, the baseline gate's exit status.

The work is :mod:`pytest_revprop.reporting.compare`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from pytest_revprop.reporting.compare import compare_files, render_markdown, render_text
from pytest_revprop.reporting.stats import DEFAULT_ALPHA
from pytest_revprop.run.options import (
    parse_alpha,
    parse_drop_points,
    parse_gate_metric,
    parse_max_drop,
)
from pytest_revprop.vocabulary import GATE_METRICS, REGRESSION_EXIT


def compare_main(argv: Sequence[str]) -> int:
    """``revprop compare A.json B.json [--max-drop 2] [--alpha 0.05] [--detect D] [--markdown]
    [--fail-on-regression]``."""
    parser = argparse.ArgumentParser(
        prog="revprop compare",
        description="Compare two results.json files per (model, method, k)"
        " with the paired exact McNemar test.",
    )
    parser.add_argument(
        "a", type=Path, metavar="A.json", help="the base run (e.g. the committed baseline)"
    )
    parser.add_argument("b", type=Path, metavar="B.json", help="the new run")
    parser.add_argument(
        "--max-drop",
        type=parse_max_drop,
        default=2.0,
        metavar="POINTS",
        help="largest tolerated drop, in points, of the rate --metric compares: the completion "
        "rate, or with --metric pass_all_seeds the share of cases passing at every seed "
        "(default: 2)",
    )
    parser.add_argument(
        "--alpha",
        type=parse_alpha,
        default=DEFAULT_ALPHA,
        metavar="ALPHA",
        help=f"significance level of the McNemar test (default: {DEFAULT_ALPHA})",
    )
    parser.add_argument(
        "--metric",
        type=parse_gate_metric,
        default="completion",
        metavar="{" + ",".join(GATE_METRICS) + "}",
        help="what the test compares per (model, method, k): completion (default; pairs of "
        "case and seed), pass_all_seeds (pairs of cases: a case passes when it passes at "
        "every seed both runs scored) or chain (two chain runs' chain completion)",
    )
    parser.add_argument(
        "--detect",
        type=parse_drop_points,
        metavar="POINTS",
        help="also say, per (model, method, k), how many cases and seeds detect a drop of this "
        "many points with 80%% power (at the share of pairs that flipped between A and B)",
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print Markdown (for a pull-request comment)"
    )
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help=f"exit {REGRESSION_EXIT} when any (model, method, k) regressed, as the plugin's "
        "--revprop-baseline gate does",
    )
    args = parser.parse_args(list(argv))
    found = compare_files(args.a, args.b, args.metric, detect=args.detect, alpha=args.alpha)
    render = render_markdown if args.markdown else render_text
    print(
        render(
            found.comparison,
            str(args.a),
            str(args.b),
            args.max_drop,
            args.alpha,
            found.beyond,
            args.metric,
            notes=found.notes,
            why=found.why,
        ),
        end="",
    )
    regressed = found.comparison.regressions(args.max_drop, args.alpha)
    return REGRESSION_EXIT if args.fail_on_regression and regressed else 0
