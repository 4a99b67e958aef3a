"""`revprop validate`, `revprop score` and `revprop merge` (fast: no litellm on this path).

Their arguments, outputs and exit statuses are fixed by docs/interfaces.md.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_revprop.cli.args import STDIN, OneLineParser, read_reply, whole_number
from pytest_revprop.core.cases import BENCHMARK_DIR, Case, CaseError, load_case, load_cases
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import MERGE_RULES, SCORE_FIELDS

CASE_HELP = (
    "one case file (JSON), e.g. benchmark_cases/invoice-issue-date/10.json; a path that is not"
    " here is looked up in the shipped cases (revprop cases path), e.g. invoice-issue-date/10.json"
)


def shipped_case_path(path: str) -> str:
    """``path``, or when no such file or folder exists here, the shipped case of that name:
    ``invoice-issue-date/10.json`` (or ``benchmark_cases/invoice-issue-date/10.json``) in the
    installed package's cases folder."""
    if Path(path).exists() or Path(path).is_absolute():
        return path
    relative = Path(path)
    if relative.parts[:1] == ("benchmark_cases",):
        relative = Path(*relative.parts[1:])
    shipped = BENCHMARK_DIR / relative
    return str(shipped) if relative.parts and shipped.is_file() else path


def _case(path: str) -> Case:
    path = shipped_case_path(path)
    if Path(path).is_dir():
        raise UserError(
            f"case file {path}: a folder, not a case file (give one case's .json file; "
            "revprop validate checks folders)"
        )
    if not Path(path).is_file():
        raise UserError(f"case file {path}: no such file")
    try:
        return load_case(path)
    except CaseError as exc:
        raise UserError(f"case is not usable: {exc}") from None


def validate_main(argv: Sequence[str]) -> int:
    """``revprop validate [PATH...] [-q]``: exit 0 when every case file is valid, 1 otherwise,
    2 when a PATH does not exist or holds no case file. No PATH: the shipped cases."""
    parser = OneLineParser(
        prog="revprop validate", description="Validate case files or folders of them."
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="case files, or folders searched for *.json (default: the shipped cases,"
        " revprop cases path)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only broken files")
    args = parser.parse_args(argv)
    args.paths = args.paths or [str(BENCHMARK_DIR)]
    missing = [path for path in args.paths if not Path(path).exists()]
    if missing:
        raise UserError(f"no such file or folder: {', '.join(missing)}")
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
    """``revprop score CASE REPLY [--details]``: the reply's score as one JSON line."""
    parser = OneLineParser(
        prog="revprop score", description="Score one raw model reply against one case."
    )
    parser.add_argument("case", metavar="CASE", help=CASE_HELP)
    parser.add_argument(
        "reply", metavar="REPLY", help="a text file with the model's raw reply ('-': stdin)"
    )
    parser.add_argument("--details", action="store_true", help="include reason and findings")
    parser.add_argument(
        "--turn",
        type=whole_number(0),
        default=0,
        metavar="N",
        help="score a reply to turn N of the case's revision chain (0: its own revision; N: its"
        " N-th follow-up) as the teacher protocol asks it: from the canonical document before"
        " that turn, after the earlier turns answered by their canonical patches",
    )
    args = parser.parse_args(argv)
    from pytest_revprop.core.scoring import score_reply

    case = _turn_case(_case(args.case), args.turn)
    score = score_reply(case, read_reply(args.reply)).to_dict()
    if not args.details:
        score = {k: score[k] for k in SCORE_FIELDS}
    print(json.dumps(score, ensure_ascii=False))
    return 0


def _turn_case(case: Case, turn: int) -> Case:
    """``case`` as turn ``turn`` of its chain is scored in the teacher protocol."""
    if turn == 0:
        return case
    if turn > len(case.followups):
        raise UserError(
            f"case {case.id} has {len(case.followups)} follow-up(s): --turn takes 0 to"
            f" {len(case.followups)}, not {turn}"
        )
    from pytest_revprop.core.chain import teacher_view

    return teacher_view(case, turn)


def merge_main(argv: Sequence[str]) -> int:
    """``revprop merge --rule RULE CASE REPLY...``: the merged artifact as one JSON line."""
    parser = OneLineParser(
        prog="revprop merge", description="Combine raw sample replies as the parallel methods do."
    )
    parser.add_argument("--rule", required=True, choices=MERGE_RULES)
    parser.add_argument("case", metavar="CASE", help=CASE_HELP)
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
