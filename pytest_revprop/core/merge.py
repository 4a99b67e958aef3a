"""Combining parallel samples as the rule-based methods of docs/protocol.md do, on artifacts.

``or`` / ``and`` / ``maj`` merge unit by unit; ``med`` returns the medoid sample whole.
Invalid samples (patch None or a patch that does not apply) propose no change in or/and/maj
and are left out of med; when every sample is invalid the result is invalid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_revprop.core.patching import PatchError, apply_operations, check_operations, diff
from pytest_revprop.util.jsonutil import MISSING, iter_leaves, json_equal
from pytest_revprop.vocabulary import MERGE_RULES


@dataclass(frozen=True)
class MergeResult:
    """The samples combined by one rule: the merged artifact, the patch that makes it from the
    original, and the sample returned whole (``med``; else None). ``artifact`` and ``patch`` are
    None when every sample is invalid.
    """

    artifact: Any  # None when every sample is invalid
    patch: list[dict[str, Any]] | None
    chosen: int | None  # index of the sample returned whole, else None

    def to_dict(self) -> dict[str, Any]:
        """The result in builtin types."""
        return {"artifact": self.artifact, "patch": self.patch, "chosen": self.chosen}


def sample_artifacts(base: Any, patches: Sequence[list[dict[str, Any]] | None]) -> list[Any]:
    """Each sample's artifact, or MISSING for an invalid sample."""
    out: list[Any] = []
    for patch in patches:
        if patch is None:
            out.append(MISSING)
            continue
        try:
            out.append(apply_operations(base, check_operations(patch)))
        except PatchError:
            out.append(MISSING)
    return out


def _merge_place(base: Any, samples: list[Any], valid: list[bool], rule: str) -> Any:
    """Merge one place; ``samples`` hold each sample's value there (MISSING: absent)."""
    present = [s for s, ok in zip(samples, valid, strict=True) if ok]
    if isinstance(base, dict) and all(isinstance(s, dict) for s in present):
        keys = list(base)
        for sample in present:
            keys += [k for k in sample if k not in keys]
        merged: dict[str, Any] = {}
        for key in keys:
            value = _merge_place(
                base.get(key, MISSING),
                [
                    s.get(key, MISSING) if ok else MISSING
                    for s, ok in zip(samples, valid, strict=True)
                ],
                valid,
                rule,
            )
            if value is not MISSING:
                merged[key] = value
        return merged
    if isinstance(base, list) and all(isinstance(s, list) and len(s) == len(base) for s in present):
        return [
            _merge_place(
                item,
                [s[i] if ok else MISSING for s, ok in zip(samples, valid, strict=True)],
                valid,
                rule,
            )
            for i, item in enumerate(base)
        ]
    return _merge_unit(base, samples, valid, rule)


def _merge_unit(base: Any, samples: list[Any], valid: list[bool], rule: str) -> Any:
    k = len(samples)
    proposals = [s for s, ok in zip(samples, valid, strict=True) if ok and not json_equal(s, base)]
    if not proposals:
        return base
    if rule == "or":
        return proposals[0]
    votes: list[tuple[Any, int]] = []
    for proposal in proposals:
        for index, (value, count) in enumerate(votes):
            if json_equal(value, proposal):
                votes[index] = (value, count + 1)
                break
        else:
            votes.append((proposal, 1))
    needed = k if rule == "and" else k // 2 + 1
    for value, count in votes:
        if count >= needed:
            return value
    return base


def _leaf_disagreement(pa: dict[str, Any], pb: dict[str, Any]) -> float:
    pointers = pa.keys() | pb.keys()
    if not pointers:
        return 0.0
    differing = sum(
        1 for p in pointers if p not in pa or p not in pb or not json_equal(pa[p], pb[p])
    )
    return differing / len(pointers)


def disagreement(a: Any, b: Any) -> float:
    """Share of leaf (pointer, value) pairs that differ or exist in only one artifact."""
    return _leaf_disagreement(dict(iter_leaves(a)), dict(iter_leaves(b)))


def medoid_index(artifacts: Sequence[Any]) -> int | None:
    """Index of the valid artifact with the smallest mean disagreement (ties: the earliest)."""
    valid = [i for i, art in enumerate(artifacts) if art is not MISSING]
    if not valid:
        return None
    if len(valid) == 1:
        return valid[0]
    leaves = {i: dict(iter_leaves(artifacts[i])) for i in valid}
    best, best_score = valid[0], float("inf")
    for i in valid:
        total = sum(_leaf_disagreement(leaves[i], leaves[j]) for j in valid if j != i)
        mean = total / (len(valid) - 1)
        if mean < best_score:
            best, best_score = i, mean
    return best


def merge_patches(
    base: Any,
    patches: Sequence[list[dict[str, Any]] | None],
    rule: str,
    artifacts: Sequence[Any] | None = None,
) -> MergeResult:
    """Combine k sample patches under ``rule`` (or/and/maj/med) against the artifact ``base``.

    ``artifacts``: ``sample_artifacts(base, patches)`` when the caller has them already; they
    are only read (the result may share parts with them).
    """
    if rule not in MERGE_RULES:
        raise ValueError(f"unknown merge rule {rule!r}; choose from {', '.join(MERGE_RULES)}")
    artifacts = sample_artifacts(base, patches) if artifacts is None else list(artifacts)
    valid = [art is not MISSING for art in artifacts]
    if not any(valid):
        return MergeResult(None, None, None)
    if rule == "med":
        index = medoid_index(artifacts)
        assert index is not None
        return MergeResult(artifacts[index], patches[index], index)
    merged = _merge_place(base, artifacts, valid, rule)
    for index, art in enumerate(artifacts):
        if valid[index] and json_equal(art, merged):
            return MergeResult(merged, patches[index], index)
    return MergeResult(merged, diff(base, merged), None)


__all__ = [
    "MergeResult",
    "disagreement",
    "medoid_index",
    "merge_patches",
    "sample_artifacts",
]
