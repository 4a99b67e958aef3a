"""``revprop annotate``: the annotation web app, or the agreement report.

The work is :mod:`pytest_revprop.authoring.annotate` (the case store, the model's proposals,
the app, the agreement report). The web app (and aiohttp with it) is imported only when the
server starts, so the agreement report and every other command start without it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_revprop.errors import UserError
from pytest_revprop.run.options import parse_local_port

DEFAULT_PORT = 8765
"""A fixed default: the page keeps unsaved work per origin, so the port should not change."""
DEFAULT_MODEL = "smollm2-135m"
"""The model the page proposes gold with: the small embedded one, free and offline."""
ANNOTATOR_ENV = "REVPROP_ANNOTATOR"
"""The environment variable with the annotator's name."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="revprop annotate",
        description=(
            "Annotate case files in a local web app (127.0.0.1 only): review and edit each "
            "case's gold patch with live validation, ask a model for a tentative gold, save "
            "with your name in the case's history. With --agreement, compare two folders of "
            "annotated cases instead."
        ),
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="folders of case files, or files")
    parser.add_argument(
        "--port", type=parse_local_port, default=DEFAULT_PORT,
        help=f"port on 127.0.0.1 (default: {DEFAULT_PORT}; 0: any free port)",
    )  # fmt: skip
    parser.add_argument(
        "--annotator", default=os.environ.get(ANNOTATOR_ENV, ""), metavar="NAME",
        help=f"your name in the history (default: ${ANNOTATOR_ENV}, else asked on the page)",
    )  # fmt: skip
    parser.add_argument("--no-browser", action="store_true", help="only print the URL")
    parser.add_argument(
        "--watch", type=_seconds, default=2.0, metavar="SECONDS",
        help="how often an open page looks for changes to the case files on disk, made by "
        "another person or tool (default: 2)",
    )  # fmt: skip
    parser.add_argument(
        "--model", default=DEFAULT_MODEL, metavar="M",
        help="model the page proposes gold with: a preset or litellm model string"
        f" (default: {DEFAULT_MODEL})",
    )  # fmt: skip
    parser.add_argument(
        "--api-base", default="", metavar="URL[,URL...]",
        help="server(s) for the model, as --revprop-api-base",
    )  # fmt: skip
    parser.add_argument(
        "--cache", type=Path, default=Path(".revprop-cache"), metavar="DIR",
        help="response cache shared with evaluation runs (default: .revprop-cache)",
    )  # fmt: skip
    parser.add_argument("--no-cache", action="store_true", help="make every model call afresh")
    parser.add_argument(
        "--agreement", nargs=2, metavar=("DIR_A", "DIR_B"),
        help="report whether two annotators' golds agree, case by case, and exit",
    )  # fmt: skip
    parser.add_argument("--markdown", action="store_true", help="the agreement report in Markdown")
    return parser


def _seconds(text: str) -> float:
    """``--watch``: a number of seconds, at least 0.05 and at most an hour."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0.05 <= seconds <= 3600:
        raise argparse.ArgumentTypeError(f"{text}: give between 0.05 and 3600 seconds")
    return seconds


def page_settings(args: argparse.Namespace) -> dict[str, Any]:
    """What the page learns of the command line (``/api/session``): the annotator's name, the
    model it proposes gold with, and how often it looks at the disk (``watch_s``)."""
    return {"annotator": args.annotator.strip(), "model": args.model, "watch_s": args.watch}


def annotate_main(argv: Sequence[str]) -> int:
    """``revprop annotate``: serve the annotation app, or print the agreement report."""
    args = _parser().parse_args(list(argv))
    if args.agreement:
        return _agreement_main(args.agreement, markdown=args.markdown, paths=args.paths)
    if args.markdown:
        raise UserError("--markdown goes with --agreement")
    from pytest_revprop.authoring.annotate.assist import Assistant
    from pytest_revprop.authoring.annotate.store import CaseStore

    store = CaseStore(args.paths)
    assistant = Assistant(
        cache_dir=None if args.no_cache else args.cache,
        api_bases=[b for b in args.api_base.split(",") if b.strip()],
    )
    from pytest_revprop.authoring.annotate.app import serve

    asyncio.run(
        serve(
            store, assistant, page_settings(args), port=args.port, open_browser=not args.no_browser
        )
    )
    return 0


def _agreement_main(folders: Sequence[str], *, markdown: bool, paths: Sequence[str]) -> int:
    if paths:
        raise UserError("--agreement takes its two folders and no other path")
    for folder in folders:
        if not Path(folder).exists():
            raise UserError(f"{folder}: no such file or folder")
    from pytest_revprop.authoring.annotate.agreement import (
        agreement,
        render_markdown,
        render_text,
    )

    report = agreement(folders[0], folders[1])
    render = render_markdown if markdown else render_text
    sys.stdout.write(render(report, folders))
    return 0
