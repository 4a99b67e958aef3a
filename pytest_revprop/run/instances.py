"""The fresh instances of a run (``--revprop-instances=S[,S...]``): for each seed, the scenarios
that generate are drawn afresh (``revprop cases generate``, :mod:`pytest_revprop.authoring.
instances`) into the reports folder, ``<report>/instances/seed-<S>/``, where they stay with the
results, so that a run can be scored and rerun later. The run then loads them beside its
other cases and runs them as it runs shipped ones.

A folder is made once: ``generated.stamp`` records what it holds (the seed, the follow-ups per
chain, the sizes, the package version) and the scenarios that did not build; a process that
finds it as it would write it (an xdist worker, a rerun) reads the files instead of generating.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_revprop import __version__

INSTANCES_DIR = "instances"
STAMP = "generated.stamp"
"""What the folder holds (JSON; not a .json file, so that loaders never read it as a case)."""
MAX_INSTANCE_TURNS = 20
"""The longest chain ``revprop cases generate`` makes (``authoring.instances.MAX_TURNS``)."""


@dataclass(frozen=True)
class Instances:
    """A run's fresh instances: their folders (one per seed) and the one-line errors of the
    scenarios and sizes that did not build (those have no case)."""

    seeds: tuple[int, ...] = ()
    folders: tuple[Path, ...] = ()
    errors: tuple[str, ...] = ()


def fresh_instances(
    seeds: Sequence[int], report_dir: Path, turns: int, sizes: Sequence[int]
) -> Instances:
    """Make (or find) the instances of ``seeds`` at ``sizes`` with ``turns`` follow-ups each
    under ``report_dir``."""
    folders: list[Path] = []
    errors: list[str] = []
    for seed in dict.fromkeys(seeds):
        folder = report_dir / INSTANCES_DIR / f"seed-{seed}"
        wanted = {"seed": seed, "turns": turns, "sizes": sorted(sizes), "version": __version__}
        stamp = _read_stamp(folder)
        if stamp is None or {k: stamp.get(k) for k in wanted} != wanted:
            stamp = {**wanted, "errors": _generate(folder, seed, turns, sizes)}
            (folder / STAMP).write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")
        folders.append(folder)
        found = stamp.get("errors")
        errors += [str(e) for e in found] if isinstance(found, list) else []
    return Instances(tuple(dict.fromkeys(seeds)), tuple(folders), tuple(errors))


def _read_stamp(folder: Path) -> dict[str, object] | None:
    try:
        stamp = json.loads((folder / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return stamp if isinstance(stamp, dict) else None


def _generate(folder: Path, seed: int, turns: int, sizes: Sequence[int]) -> list[str]:
    """Write the instances of ``seed`` into ``folder`` (emptied first); their errors."""
    from pytest_revprop.authoring.build import discover, shipped_annotation
    from pytest_revprop.authoring.instances import generate_all
    from pytest_revprop.authoring.split import read_split
    from pytest_revprop.core.cases import BENCHMARK_DIR

    result = generate_all(
        discover(), seed, read_split(BENCHMARK_DIR), shipped_annotation(), turns, sizes
    )
    if folder.exists():
        shutil.rmtree(folder)
    for rel, text in sorted(result.files.items()):
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    folder.mkdir(parents=True, exist_ok=True)
    return result.errors
