"""``revprop cases``: build the shipped benchmark, check its scenarios, show or re-draw the
dev/test split, count a case set, generate fresh instances and long chains.

The work is :mod:`pytest_revprop.authoring.build` (discovery, the build, the files on disk),
:mod:`pytest_revprop.authoring.instances` (fresh instances) and
:mod:`pytest_revprop.authoring.counts`; this module parses the arguments and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_revprop.authoring.assembly import build_case
from pytest_revprop.authoring.build import (
    BuildResult,
    build_all,
    differences,
    discover,
    scenario_programs,
    shipped_annotation,
    write_files,
    write_text,
)
from pytest_revprop.authoring.checkout import cases_folder, find_checkout
from pytest_revprop.authoring.counts import (
    case_stats,
    chain_interactions,
    followup_counts,
    format_followup_counts,
    format_stats,
)
from pytest_revprop.authoring.instances import (
    DEFAULT_TURNS,
    MAX_TURNS,
    generate_all,
    generate_case,
)
from pytest_revprop.authoring.scenario import Scenario, ScenarioError
from pytest_revprop.authoring.split import Split, moves, read_split
from pytest_revprop.core.cases import BENCHMARK_DIR, SPLIT_FILE, load_cases
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import BENCHMARK_SIZES as SIZES


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
    check.add_argument(
        "--seeds",
        type=int,
        default=0,
        metavar="N",
        help="also generate each scenario that declares inputs and moves with seeds 1..N, at"
        f" every size with {MAX_TURNS} follow-ups (default 0: the shipped cases only)",
    )
    stats = sub.add_parser(
        "stats", help="counts by domain, pattern, size, split; gold ops per size"
    )
    stats.add_argument("path", type=Path, nargs="+", help="case file or folder")
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    generate = sub.add_parser(
        "generate",
        help="write fresh instances and long chains of the scenarios that generate",
        description="Draw fresh inputs for every scenario that declares its inputs and moves"
        " (or those chosen), with a chain of seeded moves, and write one case file per scenario"
        " and size: DIR/<scenario>/<size>@<seed>.json. The same seed writes the same files."
        " A scenario that cannot build is reported in one line (exit 1); the others are written.",
    )
    generate.add_argument("--seed", type=int, required=True, help="the instance seed (>= 0)")
    generate.add_argument("--out", type=Path, required=True, help="folder to write into")
    generate.add_argument(
        "--turns",
        type=int,
        default=DEFAULT_TURNS,
        help=f"follow-ups per case (default {DEFAULT_TURNS}, at most {MAX_TURNS})",
    )
    generate.add_argument(
        "--sizes", type=int, nargs="+", default=list(SIZES), help="sizes (default: 10 50 100)"
    )
    generate.add_argument(
        "--scenarios",
        nargs="+",
        default=None,
        metavar="ID-PREFIX",
        help="scenario id prefix or domain",
    )
    return parser


def cases_main(argv: Sequence[str]) -> int:
    """``revprop cases build|split|check|stats``: see each subcommand's ``--help``."""
    args = _parser().parse_args(list(argv))
    if args.command == "build":
        return _build_command(args.out, args.check, args.keep_going)
    if args.command == "split":
        return _split_command(args.out, args.redraw)
    if args.command == "check":
        return _check_command(args.names, args.seeds)
    if args.command == "generate":
        return _generate_command(args.seed, args.out, args.turns, args.sizes, args.scenarios)
    return _stats_command(args.path, args.json)


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
        built = [
            (s, {size: json.loads(result.files[f"{s.id}/{size}.json"]) for size in SIZES})
            for s in scenarios
            if f"{s.id}/{SIZES[0]}.json" in result.files
        ]
        print(format_followup_counts(followup_counts(built)))
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


def _check_command(names: Sequence[str], seeds: int = 0) -> int:
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
    built: list[tuple[Scenario, dict[int, dict[str, Any]]]] = []
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
        built.append((scenario, {c["size"]: c for c in cases}))
        if seeds and scenario.generates:
            failed += not _check_generated(scenario, seeds)
    print(format_followup_counts(followup_counts(built)))
    print(f"{len(scenarios) + len(mine) - failed} ok, {failed} failed")
    return 1 if failed else 0


def _check_generated(scenario: Scenario, seeds: int) -> bool:
    """Generate ``scenario`` with seeds 1..``seeds`` at every size with the longest chains,
    strictly (a move whose revision does not build fails it); print one line (``gen`` with the
    share of follow-ups that interact, or ``FAIL``)."""
    hits: list[bool] = []
    for seed in range(1, seeds + 1):
        for size in SIZES:
            try:
                case = generate_case(scenario, size, seed, MAX_TURNS, strict=True)
                hits += chain_interactions(case)
            except ScenarioError as exc:
                print(f"FAIL {exc}")
                return False
    share = 100 * sum(hits) / max(1, len(hits))
    print(
        f"gen  {scenario.id:<40} seeds 1-{seeds} x {len(SIZES)} sizes x {MAX_TURNS} follow-ups;"
        f" {share:.0f}% interact"
    )
    return True


def _stats_command(paths: Sequence[Path], as_json: bool) -> int:
    """Print the counts of the cases under ``paths`` (a table, or JSON); exit status 0."""
    for path in paths:
        if not path.exists():
            raise UserError(f"no such file or folder: {path}")
    loaded = load_cases(list(paths))
    for error in loaded.errors:
        print(f"skipped: {error}", file=sys.stderr)
    if not loaded.cases:
        raise UserError(f"no valid case files in {' '.join(str(p) for p in paths)}")
    stats = case_stats(loaded.cases)
    print(json.dumps(stats, indent=2) if as_json else format_stats(stats))
    return 0


def _generate_command(
    seed: int, out: Path, turns: int, sizes: Sequence[int], names: Sequence[str] | None
) -> int:
    """Write the generated case files of ``seed``; exit 1 when a scenario does not build."""
    if seed < 0:
        raise UserError(f"--seed must be 0 or more, got {seed}")
    if not 0 <= turns <= MAX_TURNS:
        raise UserError(f"--turns must be 0 to {MAX_TURNS}, got {turns}")
    unknown = sorted(set(sizes) - set(SIZES))
    if unknown:
        raise UserError(
            f"--sizes: no size {', '.join(map(str, unknown))} (one of {', '.join(map(str, SIZES))})"
        )
    target = cases_folder(out, True, scenario_programs())
    scenarios = [
        s
        for s in discover()
        if not names or any(s.id.startswith(n) or s.domain == n for n in names)
    ]
    if names and not scenarios:
        raise UserError(f"no scenario matches {' '.join(names)}")
    chosen = [s for s in scenarios if s.generates]
    if not chosen:
        raise UserError(
            "none of the scenarios chosen declares its inputs and moves, so none generates"
        )
    splits = read_split(find_checkout(Path.cwd()) or BENCHMARK_DIR)  # the scenarios' split
    result = generate_all(chosen, seed, splits, shipped_annotation(), turns, sorted(set(sizes)))
    written = sum(write_text(target / rel, text) for rel, text in sorted(result.files.items()))
    for error in result.errors:
        print(f"error: {error}", file=sys.stderr)
    left = len(scenarios) - len(chosen)
    print(
        f"{len(result.files)} case files of seed {seed} in {target} ({written} written) from"
        f" {len(chosen)} scenario(s), {turns} follow-up(s) each"
        + (f"; {left} scenario(s) chosen do not generate yet" if left else "")
        + (f"; {len(result.errors)} did not build" if result.errors else "")
    )
    return 1 if result.errors else 0
