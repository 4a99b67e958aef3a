"""``revprop cases``: build the shipped benchmark from the scenario programs, check it, count it.

The scenario programs live in ``benchmark_cases/scenarios/<domain>.py`` (package
``pytest_revprop.benchmark_cases.scenarios``); each module lists its scenarios in a
module-level ``SCENARIOS``. The build writes ``<scenario-id>/<size>.json`` for every
scenario and size, and assigns the dev/test split (see :func:`choose_dev`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import pkgutil
import random
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_revprop.authoring.assembly import build_case, dump_case
from pytest_revprop.authoring.scenario import SIZES, Scenario, ScenarioError
from pytest_revprop.errors import UserError

SCENARIO_PACKAGE = "pytest_revprop.benchmark_cases.scenarios"
DEV_COUNT = 10
SPLIT_SEED = 42
MAX_DRAWS = 300_000
_CASE_FILE = re.compile(r"^\d+\.json$")


# --------------------------------------------------------------------------- discovery


def discover(package: str | None = None, broken: list[str] | None = None) -> list[Scenario]:
    """Every scenario of every module in ``package`` (default: the shipped scenario programs),
    sorted by id; duplicate ids are an error. A module that does not import is an error, or,
    when ``broken`` is given, is reported there and skipped."""
    package = package or SCENARIO_PACKAGE
    pkg = importlib.import_module(package)
    found: dict[str, tuple[Scenario, str]] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        name = f"{package}.{info.name}"
        try:
            module = importlib.import_module(name)
        except Exception as exc:
            message = f"scenario module {name} does not import: {type(exc).__name__}: {exc}"
            if broken is None:
                raise UserError(message) from None
            broken.append(message)
            continue
        for scenario in getattr(module, "SCENARIOS", []):
            if not isinstance(scenario, Scenario):
                raise UserError(f"{name}: SCENARIOS holds {type(scenario).__name__}, not Scenario")
            if scenario.id in found:
                raise UserError(
                    f"duplicate scenario id {scenario.id!r} in {name} and {found[scenario.id][1]}"
                )
            found[scenario.id] = (scenario, name)
    return [found[k][0] for k in sorted(found)]


def benchmark_dir() -> Path:
    try:
        from pytest_revprop.cases import BENCHMARK_DIR
    except ImportError:
        return Path(__file__).resolve().parent.parent / "benchmark_cases"
    return Path(BENCHMARK_DIR)


# --------------------------------------------------------------------------- split


def _bands(n_values: int, available: int) -> tuple[int, int]:
    lo, hi = DEV_COUNT // n_values, math.ceil(DEV_COUNT / n_values)
    return min(lo, available), min(hi, available)


def propagation_buckets(gold_counts: Mapping[str, int]) -> dict[str, str]:
    """low/mid/high by rank of the gold-op count at size 100 (ties broken by id)."""
    ranked = sorted(gold_counts, key=lambda s: (gold_counts[s], s))
    names = ("low", "mid", "high")
    return {s: names[i * 3 // len(ranked)] for i, s in enumerate(ranked)}


@dataclass(frozen=True)
class SplitResult:
    dev: tuple[str, ...]
    violations: int
    draws: int


def choose_dev(attributes: Mapping[str, Mapping[str, str]]) -> SplitResult:
    """The dev scenarios: seeded rejection sampling of 10-sets, balanced on every attribute.

    ``attributes`` maps scenario id -> {"domain": ..., "pattern": ..., "bucket": ...}. For an
    attribute with c distinct values, each value must occur floor(10/c)..ceil(10/c) times in
    the dev set (capped by how many scenarios have it). Candidates are ``rng.sample`` of the
    sorted ids with ``random.Random(42)``; the first that meets every band wins. If none does
    within MAX_DRAWS (a set still filling up), the candidate with the fewest violations wins.
    Fewer than 10 scenarios: no dev set.
    """
    ids = sorted(attributes)
    if len(ids) < DEV_COUNT:
        return SplitResult((), 0, 0)
    names = sorted({a for attrs in attributes.values() for a in attrs})
    bands: dict[str, dict[str, tuple[int, int]]] = {}
    for name in names:
        counts = Counter(attributes[s][name] for s in ids)
        bands[name] = {v: _bands(len(counts), c) for v, c in counts.items()}
    rng = random.Random(SPLIT_SEED)
    best: tuple[int, list[str]] | None = None
    for draw in range(1, MAX_DRAWS + 1):
        candidate = rng.sample(ids, DEV_COUNT)
        bad = _violations(candidate, attributes, bands)
        if best is None or bad < best[0]:
            best = (bad, candidate)
        if bad == 0:
            return SplitResult(tuple(sorted(candidate)), 0, draw)
    assert best is not None
    return SplitResult(tuple(sorted(best[1])), best[0], MAX_DRAWS)


def _violations(
    candidate: Sequence[str],
    attributes: Mapping[str, Mapping[str, str]],
    bands: Mapping[str, Mapping[str, tuple[int, int]]],
) -> int:
    total = 0
    for name, allowed in bands.items():
        counts = Counter(attributes[s][name] for s in candidate)
        for value, (lo, hi) in allowed.items():
            n = counts.get(value, 0)
            total += max(0, lo - n) + max(0, n - hi)
    return total


# --------------------------------------------------------------------------- build


@dataclass
class BuildResult:
    files: dict[str, str]  # relative path "<scenario>/<size>.json" -> text
    errors: list[str]
    split: SplitResult | None


def build_all(scenarios: Iterable[Scenario], keep_going: bool = False) -> BuildResult:
    """Every case text of ``scenarios``, split assigned. Errors are collected per scenario."""
    cases: dict[str, dict[int, dict[str, Any]]] = {}
    errors: list[str] = []
    scenario_list = list(scenarios)
    for scenario in scenario_list:
        try:
            cases[scenario.id] = {size: build_case(scenario, size) for size in SIZES}
        except ScenarioError as exc:
            errors.append(str(exc))
        except Exception as exc:
            errors.append(f"scenario {scenario.id}: {type(exc).__name__}: {exc}")
    if errors and not keep_going:
        return BuildResult({}, errors, None)
    attributes = {
        sid: {
            "domain": sizes[100]["domain"],
            "pattern": sizes[100]["pattern"],
        }
        for sid, sizes in cases.items()
    }
    buckets = (
        propagation_buckets({sid: len(sizes[100]["gold"]) for sid, sizes in cases.items()})
        if cases
        else {}
    )
    for sid, bucket in buckets.items():
        attributes[sid]["bucket"] = bucket
    split = choose_dev(attributes)
    files: dict[str, str] = {}
    for sid in sorted(cases):
        for size, case in cases[sid].items():
            case["split"] = "dev" if sid in split.dev else "test"
            files[f"{sid}/{size}.json"] = dump_case(case)
    return BuildResult(files, errors, split)


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
    written = 0
    for rel, text in sorted(files.items()):
        path = out / rel
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        written += 1
    removed = stale_files(out, files)
    for path in removed:
        path.unlink()
    for folder in {p.parent for p in removed}:
        if not any(folder.iterdir()):
            folder.rmdir()
    return written, len(removed)


# --------------------------------------------------------------------------- stats


def case_stats(cases: Sequence[Any]) -> dict[str, Any]:
    """Counts by domain, pattern, size and split; gold ops per size (direct / cascade)."""
    by = {
        name: dict(sorted(Counter(str(getattr(c, name)) for c in cases).items()))
        for name in ("domain", "pattern", "size", "split")
    }
    by["size"] = dict(sorted(Counter(c.size for c in cases).items()))
    gold: dict[str, dict[str, Any]] = {}
    for size in sorted({c.size for c in cases}):
        group = [c for c in cases if c.size == size]
        direct = [sum(op.kind == "direct" for op in c.gold) for c in group]
        cascade = [sum(op.kind == "cascade" for op in c.gold) for c in group]
        gold[str(size)] = {
            "cases": len(group),
            "direct_total": sum(direct),
            "cascade_total": sum(cascade),
            "direct_mean": round(sum(direct) / len(group), 2),
            "cascade_mean": round(sum(cascade) / len(group), 2),
        }
    scenarios = {c.scenario: c.pattern for c in cases}
    return {
        "cases": len(cases),
        "scenarios": len(scenarios),
        "by_domain": by["domain"],
        "by_pattern": by["pattern"],
        "by_size": {str(k): v for k, v in by["size"].items()},
        "by_split": by["split"],
        "gold_ops_by_size": gold,
        "scenarios_by_pattern": dict(sorted(Counter(scenarios.values()).items())),
    }


def format_stats(stats: Mapping[str, Any]) -> str:
    lines = [f"{stats['cases']} cases, {stats['scenarios']} scenarios"]
    for title, name in (
        ("domain", "by_domain"),
        ("pattern", "by_pattern"),
        ("size", "by_size"),
        ("split", "by_split"),
    ):
        lines += ["", f"{title:<20} cases"]
        lines += [f"  {k:<18} {v:>5}" for k, v in stats[name].items()]
    lines += ["", "gold ops   cases  direct(total/mean)  cascade(total/mean)"]
    for size, g in stats["gold_ops_by_size"].items():
        lines.append(
            f"  {size:<8} {g['cases']:>5}  {g['direct_total']:>6} / {g['direct_mean']:<8.2f}"
            f"  {g['cascade_total']:>6} / {g['cascade_mean']:.2f}"
        )
    lines += ["", "pattern distribution (scenarios)"]
    total = max(1, sum(stats["scenarios_by_pattern"].values()))
    for k, v in stats["scenarios_by_pattern"].items():
        lines.append(f"  {k:<18} {v:>3}  {'#' * v}  {100 * v / total:.0f}%")
    return "\n".join(lines)


# --------------------------------------------------------------------------- command line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="revprop cases", description="Build, check or count benchmark cases."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="regenerate every case file from the scenario programs")
    build.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output folder (default: the shipped benchmark_cases)",
    )
    build.add_argument(
        "--check",
        action="store_true",
        help="compare with the files on disk instead of writing; exit 1 on differences",
    )
    build.add_argument(
        "--keep-going",
        action="store_true",
        help="write the scenarios that build even when others fail (exit 1)",
    )
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
    if args.command == "check":
        return _check_command(args.names)
    return _stats_command(args.path, args.json)


def _build_command(out: Path | None, check: bool, keep_going: bool) -> int:
    target = out if out is not None else benchmark_dir()
    if target.exists() and not target.is_dir():
        raise UserError(f"--out {target} is not a folder")
    broken: list[str] = []
    result = build_all(discover(broken=broken if keep_going else None), keep_going=keep_going)
    result.errors[:0] = broken
    for error in result.errors:
        print(f"error: {error}", file=sys.stderr)
    if result.errors and not keep_going:
        print(f"{len(result.errors)} scenario(s) failed; nothing written", file=sys.stderr)
        return 1
    if result.split is not None and result.split.violations:
        print(
            f"note: the dev split misses its balance by {result.split.violations} (set still incomplete?)",
            file=sys.stderr,
        )
    if check:
        diffs = differences(target, result.files)
        for line in diffs:
            print(line)
        print(f"{len(result.files)} case files expected, {len(diffs)} difference(s)")
        return 1 if diffs or result.errors else 0
    written, removed = write_files(target, result.files)
    dev = ", ".join(result.split.dev) if result.split and result.split.dev else "none"
    print(
        f"{len(result.files)} case files in {target} ({written} written, {removed} stale removed); dev: {dev}"
    )
    return 1 if result.errors else 0


def _check_command(names: Sequence[str]) -> int:
    broken: list[str] = []
    scenarios = [
        s
        for s in discover(broken=broken)
        if not names or any(s.id == n or s.id.startswith(n) or s.domain == n for n in names)
    ]
    mine = [m for m in broken if not names or any(f".{n} does not import" in m for n in names)]
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


def _stats_command(paths: Sequence[Path], as_json: bool) -> int:
    from pytest_revprop.cases import load_cases

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
