"""``revprop cases``: build the shipped benchmark from the scenario programs, check it, count it.

The scenario programs live in ``benchmark_cases/scenarios/<domain>.py`` (package
``pytest_revprop.benchmark_cases.scenarios``); each module ends with a list ``SCENARIOS``.
The build writes ``<scenario-id>/<size>.json`` for every scenario and size into the
checkout's ``benchmark_cases/`` (or ``--out DIR``), never into an installed package, and
keeps each scenario's split from ``split.json`` (:mod:`pytest_revprop.authoring.split`).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_revprop.authoring.assembly import build_case
from pytest_revprop.authoring.checkout import cases_folder
from pytest_revprop.authoring.counts import stats_command
from pytest_revprop.authoring.scenario import Scenario, ScenarioError
from pytest_revprop.authoring.split import (
    Split,
    frozen_split,
    moves,
    read_split,
    redrawn_split,
    scenario_attributes,
    split_text,
)
from pytest_revprop.core.cases import ANNOTATION_FIELD, SPLIT_FILE, dump_case
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import BENCHMARK_SIZES as SIZES

SCENARIO_PACKAGE = "pytest_revprop.benchmark_cases.scenarios"
_CASE_FILE = re.compile(r"^\d+\.json$")


# --------------------------------------------------------------------------- discovery


def discover(package: str | None = None, broken: list[str] | None = None) -> list[Scenario]:
    """Every scenario of every module in ``package`` (default: the shipped scenario programs),
    sorted by id. Each module (names starting with ``_`` are skipped) ends with a list
    ``SCENARIOS`` of :class:`Scenario`; duplicate ids are an error. A module that does not
    import or has no such list is an error, or, when ``broken`` is given, is reported there
    and skipped."""
    package = package or SCENARIO_PACKAGE
    pkg = importlib.import_module(package)
    found: dict[str, tuple[Scenario, str]] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        name = f"{package}.{info.name}"
        try:
            scenarios = _declared(importlib.import_module(name), name)
        except Exception as exc:
            message = (
                str(exc)
                if isinstance(exc, UserError)
                else f"scenario module {name} does not import: {type(exc).__name__}: {exc}"
            )
            if broken is None:
                raise UserError(message) from None
            broken.append(message)
            continue
        for scenario in scenarios:
            if scenario.id in found:
                raise UserError(
                    f"duplicate scenario id {scenario.id!r} in {name} and {found[scenario.id][1]}"
                )
            found[scenario.id] = (scenario, name)
    return [found[k][0] for k in sorted(found)]


def scenario_programs() -> Path:
    """The folder of the scenario programs Python imports."""
    return Path(importlib.import_module(SCENARIO_PACKAGE).__path__[0])


def _declared(module: Any, name: str) -> list[Scenario]:
    """The module's ``SCENARIOS`` list, checked."""
    scenarios = getattr(module, "SCENARIOS", None)
    if not isinstance(scenarios, list):
        raise UserError(f"scenario module {name} has no list SCENARIOS")
    for scenario in scenarios:
        if not isinstance(scenario, Scenario):
            raise UserError(f"{name}: SCENARIOS holds {type(scenario).__name__}, not Scenario")
    return scenarios


# --------------------------------------------------------------------------- build


@dataclass
class BuildResult:
    """What a build made: each case file's text by relative path (``SCENARIO/SIZE.json``), the
    errors of the scenarios that failed, the split, and each scenario's attributes.
    """

    files: dict[str, str]  # relative path "<scenario>/<size>.json" -> text
    errors: list[str]
    split: Split | None
    attributes: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def split_file(self) -> str:
        """The text of split.json for this build."""
        assert self.split is not None
        return split_text(self.split.assigned)


def shipped_annotation() -> dict[str, Any]:
    """The ``annotation`` of a shipped case: ``reviewed`` with an empty history. A scenario
    program writes the gold and the build checks it (the gold applies, completes the case, and
    the direct edit alone does not), so a shipped case starts as checked; the first edit in
    `revprop annotate` makes it ``changed`` (since review) until a second person reviews it."""
    return {"status": "reviewed", "history": []}


def build_all(
    scenarios: Iterable[Scenario],
    committed: Mapping[str, str] | None,
    keep_going: bool = False,
    broken: Sequence[str] = (),
) -> BuildResult:
    """Every case text of ``scenarios``, each scenario's split taken from ``committed``
    (split.json; a scenario missing there goes to test) or, when ``committed`` is None,
    re-drawn. Errors (``broken``: modules that did not import) are collected per scenario;
    without ``keep_going`` any error means no files."""
    cases: dict[str, dict[int, dict[str, Any]]] = {}
    errors = list(broken)
    for scenario in scenarios:
        try:
            cases[scenario.id] = {size: build_case(scenario, size) for size in SIZES}
        except ScenarioError as exc:
            errors.append(str(exc))
        except Exception as exc:
            errors.append(f"scenario {scenario.id}: {type(exc).__name__}: {exc}")
    if errors and not keep_going:
        return BuildResult({}, errors, None)
    attributes = scenario_attributes({sid: sizes[SIZES[-1]] for sid, sizes in cases.items()})
    split = (
        redrawn_split(attributes)
        if committed is None
        else frozen_split(committed, attributes, complete=not errors)
    )
    files: dict[str, str] = {}
    for sid in sorted(cases):
        for size, case in cases[sid].items():
            case["split"] = split.assigned[sid]
            case[ANNOTATION_FIELD] = shipped_annotation()
            files[f"{sid}/{size}.json"] = dump_case(case)
    return BuildResult(files, errors, split, attributes)


# --------------------------------------------------------------------------- files


def generated_folders(out: Path) -> list[Path]:
    """Folders under ``out`` that hold only case files (``NN.json``): the build's own output."""
    if not out.is_dir():
        return []
    folders = []
    for child in sorted(out.iterdir()):
        if child.is_dir():
            entries = list(child.iterdir())
            if entries and all(e.is_file() and _CASE_FILE.match(e.name) for e in entries):
                folders.append(child)
    return folders


def stale_files(out: Path, files: Mapping[str, str]) -> list[Path]:
    """Generated case files under ``out`` that the current build does not produce."""
    wanted = {out / rel for rel in files}
    stale = []
    for folder in generated_folders(out):
        stale += [f for f in sorted(folder.iterdir()) if f not in wanted]
    return stale


def differences(out: Path, files: Mapping[str, str]) -> list[str]:
    """How ``out`` differs from ``files``: ``missing:``, ``differs:`` and ``stale:`` lines."""
    diffs = []
    for rel, text in sorted(files.items()):
        path = out / rel
        if not path.is_file():
            diffs.append(f"missing: {rel}")
        elif path.read_text(encoding="utf-8") != text:
            diffs.append(f"differs: {rel}")
    diffs += [f"stale: {p.relative_to(out).as_posix()}" for p in stale_files(out, files)]
    return diffs


def write_files(out: Path, files: Mapping[str, str]) -> tuple[int, int]:
    """Write the case files and delete stale generated ones; returns (written, removed)."""
    written = sum(write_text(out / rel, text) for rel, text in sorted(files.items()))
    removed = stale_files(out, files)
    for path in removed:
        path.unlink()
    for folder in {p.parent for p in removed}:
        if not any(folder.iterdir()):
            folder.rmdir()
    return written, len(removed)


def write_text(path: Path, text: str) -> bool:
    """Write ``text`` (UTF-8) unless the file already holds it; whether it wrote."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return True


# --------------------------------------------------------------------------- command line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="revprop cases",
        description="Build, check or count benchmark cases; show or re-draw the dev/test split.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser(
        "build",
        help="regenerate every case file from the scenario programs",
        description="Regenerate every case file and split.json from the scenario programs. Each"
        " scenario keeps its split from split.json; a scenario not in it goes to test (no"
        " existing scenario ever moves); the build reports when dev falls out of balance.",
    )
    out_help = "benchmark folder (default: the checkout's benchmark_cases, found from here)"
    build.add_argument("--out", type=Path, default=None, help=out_help)
    build.add_argument(
        "--check",
        action="store_true",
        help="compare with the files on disk instead of writing; exit 1 on differences"
        " (outside a checkout: the shipped cases)",
    )
    build.add_argument(
        "--keep-going",
        action="store_true",
        help="write the scenarios that build even when others fail (exit 1)",
    )
    split = sub.add_parser(
        "split",
        help="show the dev/test split and its balance, or re-draw it",
        description="Show split.json: the dev scenarios, the balance of dev, scenarios not yet"
        " in it. With --redraw, draw the whole split afresh (random.Random(42) samples of 10"
        " dev scenarios balanced by domain, pattern and propagation size), print what moved,"
        " and rewrite split.json and the case files.",
    )
    split.add_argument("--redraw", action="store_true", help="re-draw the split (moves scenarios)")
    split.add_argument("--out", type=Path, default=None, help=out_help)
    check = sub.add_parser(
        "check", help="validate scenarios without writing (all, or those matching NAME)"
    )
    check.add_argument("names", nargs="*", metavar="NAME", help="scenario id, id prefix, or domain")
    stats = sub.add_parser(
        "stats", help="counts by domain, pattern, size, split; gold ops per size"
    )
    stats.add_argument("path", type=Path, nargs="+", help="case file or folder")
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


def cases_main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    if args.command == "build":
        return _build_command(args.out, args.check, args.keep_going)
    if args.command == "split":
        return _split_command(args.out, args.redraw)
    if args.command == "check":
        return _check_command(args.names)
    return stats_command(args.path, args.json)


def _failed(result: BuildResult, keep_going: bool) -> bool:
    """Print the build's errors; whether the command stops here."""
    for error in result.errors:
        print(f"error: {error}", file=sys.stderr)
    if result.errors and not keep_going:
        print(f"{len(result.errors)} scenario(s) failed; nothing written", file=sys.stderr)
        return True
    return False


def _listed(ids: Sequence[str], limit: int = 8) -> str:
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return ", ".join(ids[:limit]) + more


def _split_notes(split: Split) -> None:
    if split.added:
        print(f"note: not in {SPLIT_FILE}, assigned test: {_listed(split.added)}", file=sys.stderr)
    if split.dropped:
        print(
            f"note: left {SPLIT_FILE} (no such scenario): {_listed(split.dropped)}", file=sys.stderr
        )
    if split.imbalance:
        print(
            f"note: the dev split is out of balance: {'; '.join(split.imbalance)}"
            " (`revprop cases split --redraw` re-draws it, moving scenarios)",
            file=sys.stderr,
        )


def _write(target: Path, result: BuildResult) -> None:
    assert result.split is not None
    written, removed = write_files(target, result.files)
    updated = ", split.json updated" if write_text(target / SPLIT_FILE, result.split_file) else ""
    dev = ", ".join(result.split.dev) or "none"
    print(
        f"{len(result.files)} case files in {target} ({written} written, {removed} stale removed"
        f"{updated}); dev: {dev}"
    )


def _build_command(out: Path | None, check: bool, keep_going: bool) -> int:
    target = cases_folder(out, not check, scenario_programs())
    broken: list[str] = []
    scenarios = discover(broken=broken if keep_going else None)
    result = build_all(scenarios, read_split(target), keep_going, broken)
    if _failed(result, keep_going):
        return 1
    assert result.split is not None
    _split_notes(result.split)
    if check:
        diffs = differences(target, {**result.files, SPLIT_FILE: result.split_file})
        for line in diffs:
            print(line)
        print(f"{len(result.files)} case files expected, {len(diffs)} difference(s)")
        return 1 if diffs or result.errors else 0
    _write(target, result)
    return 1 if result.errors else 0


def _split_command(out: Path | None, redraw: bool) -> int:
    target = cases_folder(out, redraw, scenario_programs())
    committed = read_split(target)
    result = build_all(discover(), None if redraw else committed)
    if _failed(result, keep_going=False):
        return 1
    split = result.split
    assert split is not None
    if redraw:
        moved = moves(committed, split.assigned)
        for direction, ids in moved.items():
            print(f"moved {direction}: {', '.join(ids)}")
        if not committed:
            print(f"no {SPLIT_FILE} before: drew the split afresh")
        elif not moved:
            print("nothing moved")
        _write(target, result)
        _split_notes(split)
        return 0
    print(
        f"{target / SPLIT_FILE}: {len(split.assigned)} scenarios, {len(split.dev)} dev,"
        f" {len(split.assigned) - len(split.dev)} test"
    )
    for sid in split.dev:
        attrs = result.attributes[sid]
        print(f"  dev  {sid:<36} {attrs['domain']:<20} {attrs['pattern']:<14} {attrs['bucket']}")
    print("balance: " + ("; ".join(split.imbalance) if split.imbalance else "ok"))
    if split.added:
        print(f"not in {SPLIT_FILE} yet (the next build assigns test): {', '.join(split.added)}")
    if split.dropped:
        print(f"in {SPLIT_FILE} but no such scenario: {', '.join(split.dropped)}")
    return 0


def _check_command(names: Sequence[str]) -> int:
    broken: list[str] = []
    scenarios = [
        s
        for s in discover(broken=broken)
        if not names or any(s.id == n or s.id.startswith(n) or s.domain == n for n in names)
    ]
    mine = [m for m in broken if not names or any(f".{n} " in m for n in names)]
    for message in broken:
        if message in mine:
            print(f"FAIL {message}")
        else:
            print(f"note: {message}", file=sys.stderr)
    if not scenarios and not mine:
        raise UserError(f"no scenario matches {' '.join(names)}")
    failed = len(mine)
    for scenario in scenarios:
        try:
            cases = [build_case(scenario, size) for size in SIZES]
        except ScenarioError as exc:
            print(f"FAIL {exc}")
            failed += 1
            continue
        except Exception as exc:
            print(f"FAIL scenario {scenario.id}: {type(exc).__name__}: {exc}")
            failed += 1
            continue
        counts = " ".join(
            f"{c['size']}:{sum(op['kind'] == 'direct' for op in c['gold'])}d+"
            f"{sum(op['kind'] == 'cascade' for op in c['gold'])}c"
            for c in cases
        )
        print(f"ok   {scenario.id:<40} gold ops {counts}")
    print(f"{len(scenarios) + len(mine) - failed} ok, {failed} failed")
    return 1 if failed else 0
