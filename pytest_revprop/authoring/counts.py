"""Counts of a case set by domain, pattern, size and split, and gold ops per size.

What ``revprop cases stats`` prints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any


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
    """The case-set statistics as the terminal shows them: counts by domain, pattern, size and
    split, then the gold's operations by size.
    """
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
