"""The ``revprop`` command: the dispatcher of its subcommands.

Each command family's front end (its arguments, what it prints, its exit status) is a module
of this package, over the work of the family's own modules; it is imported only when its
command runs, so ``revprop validate`` and ``revprop score`` start without loading litellm or
matplotlib. docs/interfaces.md lists every command, its output and its exit statuses.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

from pytest_revprop.errors import UserError

# command -> ("module:function", one-line help). Each function takes argv and returns an exit code.
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": (
        "pytest_revprop.cli.check:validate_main",
        "validate case files or folders of them",
    ),
    "score": (
        "pytest_revprop.cli.check:score_main",
        "score one raw model reply against one case",
    ),
    "merge": (
        "pytest_revprop.cli.check:merge_main",
        "combine sample replies as or/and/maj/med do",
    ),
    "cases": (
        "pytest_revprop.cli.cases:cases_main",
        "build the shipped benchmark, or print case statistics",
    ),
    "annotate": (
        "pytest_revprop.cli.annotate:annotate_main",
        "annotate case files in a local web app; --agreement compares two annotators",
    ),
    "synth": (
        "pytest_revprop.cli.synth:synth_main",
        "draft cases with a model from scenario cards, or reword existing cases",
    ),
    "serve": (
        "pytest_revprop.cli.serve:serve_main",
        "start (or print) the vLLM server command for a model preset",
    ),
    "report": (
        "pytest_revprop.cli.report:report_main",
        "figures, tables and an HTML sample browser from results.json",
    ),
    "samples": (
        "pytest_revprop.cli.report:samples_main",
        "print a run's samples with their replies and reasoning (filter by case, model, ...)",
    ),
    "combine": (
        "pytest_revprop.cli.combine:combine_main",
        "merge the reports folders of a run's shards (--revprop-shard) into one",
    ),
    "compare": (
        "pytest_revprop.cli.compare:compare_main",
        "compare two results.json files (paired McNemar test)",
    ),
    "prompts": (
        "pytest_revprop.cli.prompts:prompts_main",
        "print the shipped prompt templates' folder, or copy them to edit",
    ),
}


def _usage() -> str:
    lines = ["usage: revprop COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<10} {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += [
        "",
        "options:",
        "  -h, --help   print this list and exit",
        "  --version    print the version and exit",
        "",
        "Run 'revprop COMMAND --help' for a command's options.",
    ]
    return "\n".join(lines)


def _load(target: str) -> Callable[[Sequence[str]], int]:
    module_name, func_name = target.split(":")
    func: Callable[[Sequence[str]], int] = getattr(importlib.import_module(module_name), func_name)
    return func


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        print(_usage())
        return 0 if args else 2
    if args[0] == "--version":
        from pytest_revprop import __version__

        print(f"revprop {__version__}")
        return 0
    name = args[0]
    if name not in COMMANDS:
        print(
            f"revprop: unknown command {name!r} (choose from {', '.join(COMMANDS)})",
            file=sys.stderr,
        )
        return 2
    try:
        return _load(COMMANDS[name][0])(args[1:])
    except UserError as exc:
        print(f"revprop {name}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"revprop {name}: interrupted", file=sys.stderr)
        return 130
