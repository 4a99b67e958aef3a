"""The baseline gate (``--revprop-baseline``): pair a run with a committed baseline and name
the regressions and improvements; and the baseline file itself (``--revprop-update-baseline``).

A (model, method, k) regressed when its completion rate fell by more than ``max_drop``
points AND the paired exact McNemar p < 0.05; it improved under the mirror rule. Pairs where
a model call failed are left out (``stats.pair_outcomes``). ``revprop compare`` applies the
same rule through the same ``stats.PairGroup``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from pytest_revprop.reporting.results import load_results
from pytest_revprop.reporting.stats import PairedComparison, PairGroup, pair_outcomes

__all__ = ["BASELINE_KEYS", "GateResult", "gate", "read_baseline", "write_baseline"]

BASELINE_KEYS = ("case", "model", "method", "k", "seed", "completed", "valid", "error")
"""What a baseline keeps of each result record: enough to pair and compare outcomes."""


class GateResult(TypedDict):
    comparison: PairedComparison
    regressions: list[PairGroup]
    improvements: list[PairGroup]


def write_baseline(path: Path, doc: Mapping[str, Any]) -> None:
    """Write a baseline from a results document: its meta, summary and trimmed results."""
    baseline = {
        "meta": doc.get("meta", {}),
        "summary": doc["summary"],
        "results": [{k: r.get(k) for k in BASELINE_KEYS} for r in doc["results"]],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(baseline, indent=1) + "\n", encoding="utf-8")


def read_baseline(path: Path) -> dict[str, Any]:
    """A baseline (or any results.json) checked for what the gate needs: its results list."""
    return load_results(path, with_summary=False)


def gate(
    baseline: Mapping[str, Any], records: Sequence[Mapping[str, Any]], max_drop: float
) -> GateResult:
    """Compare ``records`` with the baseline's results: the paired comparison, its
    regressions and its improvements, each group holding the samples that flipped."""
    comparison = pair_outcomes(baseline["results"], list(records))
    return {
        "comparison": comparison,
        "regressions": comparison.regressions(max_drop),
        "improvements": [g for g in comparison.groups if g.is_improvement(max_drop)],
    }
