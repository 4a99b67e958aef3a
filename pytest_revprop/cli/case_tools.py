"""`revprop validate`, `revprop score` and `revprop merge` (fast: no litellm on this path).

Their arguments, outputs and exit statuses are fixed by docs/interfaces.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

from pytest_revprop.core.cases import Case, CaseError, load_case, load_cases
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import MERGE_RULES, SCORE_FIELDS

MAX_REPLY_BYTES = 16 * 1024 * 1024


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as UserError (one line, exit 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError(f"{message} (see 'revprop {self.prog.split()[-1]} --help')")


STDIN = "-"
"""The REPLY argument that reads the reply from standard input."""


def read_reply(path: str) -> str:
    """A reply: UTF-8 text, not binary, not huge. ``-`` reads standard input; a path that is
    not a regular file but can be read as a stream (a pipe, e.g. bash's ``<(cmd)``, which
    passes ``/dev/fd/N``) is read to its end. Raises UserError."""
    if path == STDIN:
        if sys.stdin is None:
            raise UserError("reply on stdin: there is no standard input")
        return _decode("reply on stdin", _read_limited(sys.stdin.buffer, "reply on stdin"))
    label = f"reply file {path}"
    file = Path(path)
    if file.is_file():
        size = file.stat().st_size
        if size > MAX_REPLY_BYTES:
            raise UserError(f"{label}: {size} bytes is too large (limit {MAX_REPLY_BYTES})")
        return _decode(label, file.read_bytes())
    if not file.exists() or file.is_dir():
        raise UserError(f"{label}: no such file")
    try:
        with file.open("rb") as stream:
            return _decode(label, _read_limited(stream, label))
    except OSError as exc:
        raise UserError(f"{label}: cannot be read ({exc.strerror or exc})") from None


def _read_limited(stream: BinaryIO, label: str) -> bytes:
    raw = stream.read(MAX_REPLY_BYTES + 1)
    if len(raw) > MAX_REPLY_BYTES:
        raise UserError(f"{label}: more than {MAX_REPLY_BYTES} bytes is too large")
    return raw


def _decode(label: str, raw: bytes) -> str:
    if b"\x00" in raw:
        raise UserError(f"{label}: binary content (NUL bytes), expected a text reply")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{label}: not UTF-8 text (byte {exc.start})") from None


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
    parser.add_argument(
        "reply", metavar="REPLY", help="a text file with the model's raw reply ('-': stdin)"
    )
    parser.add_argument("--details", action="store_true", help="include reason and findings")
    args = parser.parse_args(argv)
    from pytest_revprop.core.scoring import score_reply

    case = _case(args.case)
    score = score_reply(case, read_reply(args.reply)).to_dict()
    if not args.details:
        score = {k: score[k] for k in SCORE_FIELDS}
    print(json.dumps(score, ensure_ascii=False))
    return 0


def merge_main(argv: Sequence[str]) -> int:
    parser = _Parser(
        prog="revprop merge", description="Combine raw sample replies as the parallel methods do."
    )
    parser.add_argument("--rule", required=True, choices=MERGE_RULES)
    parser.add_argument("case", metavar="CASE")
    parser.add_argument(
        "replies", nargs="+", metavar="REPLY", help="text files with raw replies ('-': stdin, once)"
    )
    args = parser.parse_args(argv)
    if args.replies.count(STDIN) > 1:
        raise UserError("stdin holds one reply: give '-' at most once")
    from pytest_revprop.core.extraction import InvalidReply, extract_patch
    from pytest_revprop.core.merge import merge_patches

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
