"""The frozen dev/test split: ``benchmark_cases/split.json``, its balance, and the re-draw.

The split is drawn once and committed, so that adding a scenario never moves another one
between dev and test (dev baselines keep pairing). A build reads it: a scenario listed there
keeps its split, a scenario missing from it goes to test, a scenario no longer built leaves
the file. The build then checks the balance of dev and reports where it falls short; only an
explicit re-draw (``revprop cases split --redraw``, :func:`choose_dev`) moves scenarios.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_revprop.core.cases import SPLIT_FILE
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import SPLITS

DEV_COUNT = 10
SPLIT_SEED = 42
MAX_DRAWS = 300_000
DRAWN = (
    "Drawn by `revprop cases split --redraw`: the first random.Random(42).sample(sorted ids, 10)"
    " that balances dev by domain, pattern and propagation size; a scenario added later goes"
    " to test. Edit only through that command."
)


# --------------------------------------------------------------------------- the file


def read_split(folder: Path) -> dict[str, str]:
    """The committed split in ``folder`` (scenario id -> "dev"/"test"); empty when there is none."""
    path = folder / SPLIT_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"{path}: not readable JSON ({exc})") from None
    scenarios = data.get("scenarios") if isinstance(data, dict) else None
    if not isinstance(scenarios, dict) or any(v not in SPLITS for v in scenarios.values()):
        raise UserError(f'{path}: expected {{"drawn": ..., "scenarios": {{id: "dev" or "test"}}}}')
    return dict(scenarios)


def split_text(assigned: Mapping[str, str]) -> str:
    """The text of split.json: how it was drawn, then every scenario's split sorted by id."""
    body = {"drawn": DRAWN, "scenarios": dict(sorted(assigned.items()))}
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------- attributes


def propagation_buckets(gold_counts: Mapping[str, int]) -> dict[str, str]:
    """low/mid/high by rank of the gold-op count at size 100 (ties broken by id)."""
    ranked = sorted(gold_counts, key=lambda s: (gold_counts[s], s))
    names = ("low", "mid", "high")
    return {s: names[i * 3 // len(ranked)] for i, s in enumerate(ranked)}


def scenario_attributes(largest: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """Domain, pattern and propagation bucket of each scenario, from its size-100 case."""
    buckets = propagation_buckets({sid: len(case["gold"]) for sid, case in largest.items()})
    return {
        sid: {"domain": case["domain"], "pattern": case["pattern"], "bucket": buckets[sid]}
        for sid, case in largest.items()
    }


def _bands(attributes: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, tuple[int, int]]]:
    """For an attribute with c values, each value wants floor(10/c)..ceil(10/c) dev scenarios
    (capped by how many scenarios have it)."""
    names = sorted({a for attrs in attributes.values() for a in attrs})
    bands: dict[str, dict[str, tuple[int, int]]] = {}
    for name in names:
        counts = Counter(attrs[name] for attrs in attributes.values())
        lo, hi = DEV_COUNT // len(counts), math.ceil(DEV_COUNT / len(counts))
        bands[name] = {v: (min(lo, c), min(hi, c)) for v, c in sorted(counts.items())}
    return bands


def _misses(
    dev: Sequence[str],
    attributes: Mapping[str, Mapping[str, str]],
    bands: Mapping[str, Mapping[str, tuple[int, int]]],
) -> list[tuple[str, str, int, int, int]]:
    """(attribute, value, dev count, low, high) for every band ``dev`` falls outside."""
    out = []
    for name, allowed in bands.items():
        counts = Counter(attributes[s][name] for s in dev if s in attributes)
        for value, (lo, hi) in allowed.items():
            n = counts.get(value, 0)
            if not lo <= n <= hi:
                out.append((name, value, n, lo, hi))
    return out


def imbalance(dev: Sequence[str], attributes: Mapping[str, Mapping[str, str]]) -> list[str]:
    """How the dev set misses its size and bands, one phrase each; empty when balanced.

    Fewer than 10 scenarios: dev should be empty, and there are no bands.
    """
    wanted = DEV_COUNT if len(attributes) >= DEV_COUNT else 0
    found = [f"dev has {len(dev)} scenarios, wants {wanted}"] if len(dev) != wanted else []
    if not wanted:
        return found
    for name, value, n, lo, hi in _misses(dev, attributes, _bands(attributes)):
        found.append(f"{name} {value} has {n} in dev, wants {lo if lo == hi else f'{lo}-{hi}'}")
    return found


# --------------------------------------------------------------------------- drawing


@dataclass(frozen=True)
class SplitResult:
    """The dev scenarios chosen, how many band violations they leave, and how many draws it took."""

    dev: tuple[str, ...]
    violations: int
    draws: int


def choose_dev(attributes: Mapping[str, Mapping[str, str]]) -> SplitResult:
    """The dev scenarios: seeded rejection sampling of 10-sets, balanced on every attribute.

    ``attributes`` maps scenario id -> {"domain": ..., "pattern": ..., "bucket": ...}. For an
    attribute with c distinct values, each value must occur floor(10/c)..ceil(10/c) times in
    the dev set (capped by how many scenarios have it). Candidates are ``rng.sample`` of the
    sorted ids with ``random.Random(42)``; the first that meets every band wins. If none does
    within MAX_DRAWS, the candidate with the fewest violations wins. Fewer than 10 scenarios:
    no dev set.
    """
    ids = sorted(attributes)
    if len(ids) < DEV_COUNT:
        return SplitResult((), 0, 0)
    bands = _bands(attributes)
    rng = random.Random(SPLIT_SEED)
    best: tuple[int, list[str]] | None = None
    for draw in range(1, MAX_DRAWS + 1):
        candidate = rng.sample(ids, DEV_COUNT)
        bad = sum(
            max(0, lo - n) + max(0, n - hi)
            for _, _, n, lo, hi in _misses(candidate, attributes, bands)
        )
        if best is None or bad < best[0]:
            best = (bad, candidate)
        if bad == 0:
            return SplitResult(tuple(sorted(candidate)), 0, draw)
    assert best is not None
    return SplitResult(tuple(sorted(best[1])), best[0], MAX_DRAWS)


# --------------------------------------------------------------------------- a build's split


@dataclass(frozen=True)
class Split:
    """A build's split: every scenario's, and how it came from the committed one."""

    assigned: dict[str, str]
    added: tuple[str, ...] = ()
    """Built scenarios that split.json did not list: they went to test."""
    dropped: tuple[str, ...] = ()
    """Scenarios split.json listed that the build no longer has: left out of the file."""
    imbalance: tuple[str, ...] = ()

    @property
    def dev(self) -> tuple[str, ...]:
        """The dev scenarios' ids, sorted."""
        return tuple(sorted(s for s, where in self.assigned.items() if where == "dev"))


def frozen_split(
    committed: Mapping[str, str], attributes: Mapping[str, Mapping[str, str]], complete: bool
) -> Split:
    """The committed split extended to the built scenarios, moving none of them.

    ``attributes`` holds the scenarios that built. When the build is not ``complete`` (some
    scenarios failed), the entries of scenarios that did not build stay and the balance is not
    judged.
    """
    assigned = {sid: committed.get(sid, "test") for sid in sorted(attributes)}
    added = tuple(sid for sid in assigned if sid not in committed)
    gone = tuple(sorted(sid for sid in committed if sid not in attributes))
    if not complete:
        assigned.update((sid, committed[sid]) for sid in gone)
        return Split(dict(sorted(assigned.items())), added)
    dev = [sid for sid, where in assigned.items() if where == "dev"]
    return Split(assigned, added, gone, tuple(imbalance(dev, attributes)))


def redrawn_split(attributes: Mapping[str, Mapping[str, str]]) -> Split:
    """A new split of every scenario in ``attributes`` (:func:`choose_dev`)."""
    dev = set(choose_dev(attributes).dev)
    assigned = {sid: "dev" if sid in dev else "test" for sid in sorted(attributes)}
    return Split(assigned, imbalance=tuple(imbalance(sorted(dev), attributes)))


def moves(before: Mapping[str, str], after: Mapping[str, str]) -> dict[str, list[str]]:
    """Scenarios in both splits whose split changed, by direction ("test -> dev", ...)."""
    out: dict[str, list[str]] = {}
    for sid in sorted(set(before) & set(after)):
        if before[sid] != after[sid]:
            out.setdefault(f"{before[sid]} -> {after[sid]}", []).append(sid)
    return out
