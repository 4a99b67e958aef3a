"""`revprop validate`, `revprop score` and `revprop merge` (fast: no litellm on this path).

Their arguments, outputs and exit statuses are fixed by docs/interfaces.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_revprop.cases import Case, CaseError, load_case, load_cases
from pytest_revprop.errors import UserError

MAX_REPLY_BYTES = 16 * 1024 * 1024


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as UserError (one line, exit 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError(f"{message} (see 'revprop {self.prog.split()[-1]} --help')")


def read_reply(path: str) -> str:
    """A reply text file: UTF-8 text, not binary, not huge. Raises UserError."""
    file = Path(path)
    if not file.is_file():
        raise UserError(f"reply file {path}: no such file")
    size = file.stat().st_size
    if size > MAX_REPLY_BYTES:
        raise UserError(f"reply file {path}: {size} bytes is too large (limit {MAX_REPLY_BYTES})")
    raw = file.read_bytes()
    if b"\x00" in raw:
        raise UserError(f"reply file {path}: binary content (NUL bytes), expected a text reply")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"reply file {path}: not UTF-8 text (byte {exc.start})") from None


def _case(path: str) -> Case:
    if not Path(path).is_file():
        raise UserError(f"case file {path}: no such file")
    try:
        return load_case(path)
    except CaseError as exc:
        raise UserError(f"case is not usable: {exc}") from None


def validate_main(argv: Sequence[str]) -> int:
    parser = _Parser(prog="revprop validate", description="Validate case files or folders of them.")
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only broken files")
    args = parser.parse_args(argv)
    result = load_cases(args.paths)
    for error in result.errors:
        print(error)
    if not result.cases and not result.errors:
        raise UserError(f"no case files (*.json) found under {', '.join(args.paths)}")
    if not args.quiet:
        status = "all valid" if not result.errors else f"{len(result.errors)} broken"
        print(f"{len(result.cases)} valid case(s), {status}", file=sys.stderr)
    return 0 if not result.errors else 1


def score_main(argv: Sequence[str]) -> int:
    parser = _Parser(
        prog="revprop score", description="Score one raw model reply against one case."
    )
    parser.add_argument("case", metavar="CASE")
    parser.add_argument("reply", metavar="REPLY", help="a text file with the model's raw reply")
    parser.add_argument("--details", action="store_true", help="include reason and findings")
    args = parser.parse_args(argv)
    from pytest_revprop.scoring import score_reply

    case = _case(args.case)
    score = score_reply(case, read_reply(args.reply)).to_dict()
    if not args.details:
        score = {
            k: score[k] for k in ("completed", "valid", "error", "miss", "over_edit", "wrong_value")
        }
    print(json.dumps(score, ensure_ascii=False))
    return 0


def merge_main(argv: Sequence[str]) -> int:
    parser = _Parser(
        prog="revprop merge", description="Combine raw sample replies as the parallel methods do."
    )
    parser.add_argument("--rule", required=True, choices=["or", "and", "maj", "med"])
    parser.add_argument("case", metavar="CASE")
    parser.add_argument("replies", nargs="+", metavar="REPLY")
    args = parser.parse_args(argv)
    from pytest_revprop.extraction import InvalidReply, extract_patch
    from pytest_revprop.merge import merge_patches

    case = _case(args.case)
    patches: list[list[dict[str, Any]] | None] = []
    for path in args.replies:
        try:
            patches.append(extract_patch(read_reply(path)))
        except InvalidReply:
            patches.append(None)
    print(
        json.dumps(merge_patches(case.artifact, patches, args.rule).to_dict(), ensure_ascii=False)
    )
    return 0
