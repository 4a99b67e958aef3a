"""Counts of a case set by domain, pattern, size and split, and gold ops per size; counts of
the scenarios' follow-ups by pattern and how many interact with an earlier revision.

What ``revprop cases stats`` prints, and the follow-up line of ``revprop cases check`` and
``revprop cases build --check``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_revprop.authoring.scenario import Scenario
from pytest_revprop.util.jsonutil import is_within
from pytest_revprop.vocabulary import PATTERNS


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
        "followups": _followup_stats(cases),
    }


def _followup_stats(cases: Sequence[Any]) -> dict[str, Any]:
    """The follow-ups of the case files: how many (per size), and how many interact with an
    earlier revision of their chain (:func:`chain_interactions`, read from the files)."""
    per_size: Counter[int] = Counter()
    interacting = 0
    for case in cases:
        per_size[case.size] += len(case.followups)
        if case.followups:
            interacting += sum(chain_interactions(case.to_dict()))
    total = sum(per_size.values())
    return {
        "total": total,
        "by_size": {str(size): per_size[size] for size in sorted(per_size)},
        "interacting": interacting,
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
    followups = stats["followups"]
    if followups["total"]:
        sizes = ", ".join(f"size {k}: {v}" for k, v in followups["by_size"].items())
        share = 100 * followups["interacting"] / followups["total"]
        lines += [
            "",
            f"follow-ups {followups['total']} ({sizes}); {followups['interacting']} interact"
            f" with an earlier revision ({share:.0f}%)",
        ]
    lines += ["", "pattern distribution (scenarios)"]
    total = max(1, sum(stats["scenarios_by_pattern"].values()))
    for k, v in stats["scenarios_by_pattern"].items():
        lines.append(f"  {k:<18} {v:>3}  {'#' * v}  {100 * v / total:.0f}%")
    return "\n".join(lines)


# --------------------------------------------------------------------------- follow-ups


def pointers_overlap(a: str, b: str) -> bool:
    """Whether pointer ``a`` equals, contains or lies inside pointer ``b``, token by token:
    ``/items/1`` holds ``/items/1/qty`` but not ``/items/10``."""
    return is_within(a, b) or is_within(b, a)


def chain_interactions(case: Mapping[str, Any]) -> list[bool]:
    """For each follow-up of a case (as its file holds it): whether it interacts with an earlier
    revision of the chain, i.e. one of its direct gold paths (what its request edits) equals,
    contains or lies inside a place the case's own revision or an earlier follow-up changed
    (any of their gold paths, each as written, in the canonical document before its own turn).
    Sharing only a dependent (a total both revisions recompute) is not an interaction."""
    earlier = [str(op["path"]) for op in case["gold"]]
    hits: list[bool] = []
    for followup in case.get("followups") or ():
        direct = [str(op["path"]) for op in followup["gold"] if op.get("kind") == "direct"]
        hits.append(any(pointers_overlap(p, q) for p in direct for q in earlier))
        earlier += [str(op["path"]) for op in followup["gold"]]
    return hits


@dataclass(frozen=True)
class FollowupCounts:
    """The scenarios' follow-ups: how many of each pattern, and how many interact with an
    earlier revision of their chain."""

    by_pattern: dict[str, int]
    interacting: int

    @property
    def total(self) -> int:
        """The number of follow-ups."""
        return sum(self.by_pattern.values())


def followup_counts(
    built: Iterable[tuple[Scenario, Mapping[int, Mapping[str, Any]]]],
) -> FollowupCounts:
    """Count the follow-ups of each scenario once (the sizes share them): its pattern is the
    one its :class:`~pytest_revprop.authoring.scenario.Revision` declares, and it interacts
    when it does so in at least one size (:func:`chain_interactions`). ``built`` pairs each
    scenario with its built cases by size."""
    by_pattern: Counter[str] = Counter()
    interacting = 0
    for scenario, cases in built:
        if scenario.followups is None:
            continue
        patterns: dict[int, str] = {}
        interacts: dict[int, bool] = {}
        for size, case in sorted(cases.items()):
            for index, revision in enumerate(scenario.followups(scenario.params(size))):
                patterns.setdefault(index, revision.pattern)
            for index, hit in enumerate(chain_interactions(case)):
                interacts[index] = interacts.get(index, False) or hit
        by_pattern.update(patterns.values())
        interacting += sum(interacts.get(index, False) for index in patterns)
    order: dict[str, int] = {name: i for i, name in enumerate(PATTERNS)}
    ranked = sorted(by_pattern.items(), key=lambda kv: (-kv[1], order.get(kv[0], len(order))))
    return FollowupCounts(dict(ranked), interacting)


def format_followup_counts(counts: FollowupCounts) -> str:
    """One line, e.g. ``follow-ups: 33 (arithmetic 6, ...); 20 interact with an earlier
    revision (61%)``; patterns by count, most first."""
    if not counts.total:
        return "follow-ups: 0"
    patterns = ", ".join(f"{name} {n}" for name, n in counts.by_pattern.items())
    share = 100 * counts.interacting / counts.total
    return (
        f"follow-ups: {counts.total} ({patterns}); {counts.interacting} interact with an"
        f" earlier revision ({share:.0f}%)"
    )
