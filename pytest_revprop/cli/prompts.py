"""``revprop prompts``: where the shipped prompt templates are, and a copy of them to edit for
``--revprop-prompts=DIR`` (docs/protocol.md, "Prompts")."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from pytest_revprop.core.prompts import shipped_template_names
from pytest_revprop.errors import UserError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="revprop prompts",
        description="The shipped prompt templates: print their folder, or copy them into a"
        " folder of yours to edit and pass as --revprop-prompts=DIR (a file you leave out"
        " keeps the shipped template).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("path", help="print the folder of the shipped templates")
    copy = sub.add_parser(
        "copy",
        help="copy shipped templates into DIR (all, or those named); never overwrites",
    )
    copy.add_argument("dir", type=Path, metavar="DIR", help="folder to copy into (made if needed)")
    copy.add_argument(
        "names", nargs="*", metavar="NAME", help="template names, e.g. system revise (default: all)"
    )
    return parser


def _shipped_folder() -> Path:
    return Path(str(resources.files("pytest_revprop").joinpath("prompts")))


def prompts_main(argv: Sequence[str]) -> int:
    """``revprop prompts path|copy``: see each subcommand's ``--help``."""
    args = _parser().parse_args(list(argv))
    if args.command == "path":
        print(_shipped_folder())
        return 0
    known = shipped_template_names()
    names = [n[: -len(".md")] if n.endswith(".md") else n for n in args.names] or known
    for name in names:
        if name not in known:
            raise UserError(f"no shipped template {name!r} (known: {', '.join(known)})")
    folder: Path = args.dir
    existing = [folder / f"{name}.md" for name in names if (folder / f"{name}.md").exists()]
    if existing:
        raise UserError(f"{existing[0]} exists; nothing copied (remove it or name other templates)")
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        text = (_shipped_folder() / f"{name}.md").read_text(encoding="utf-8")
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    print(f"copied {len(names)} template(s) into {folder}")
    return 0
