"""The tentative gold of a draft: the project's own methods, run on the draft as a case.

A gold model answers the finished case k times with the ``j+h`` prompt (seeds s to s+k-1),
and the samples are merged by ``and`` or ``maj`` exactly as ``pytest_revprop.core.methods`` does
in a run (so the calls are the run's calls, and share its cache). On top of the merged patch:

- **kind**: an operation at the place the request names (the writer's ``edit``) is
  ``direct``; when none is, the operation whose place contains it is, and is flagged; every
  other operation is ``cascade``;
- **flags**: an operation on which not all k samples agree (a sample agrees when its
  artifact holds, at the operation's place, what the merged artifact holds there; an invalid
  sample agrees with nothing) is flagged with how many made it;
- **left out**: changes some valid samples proposed that the merge did not take, with how
  many samples proposed each (most first, ties in sample order), for the annotator;
- **plain operations**: gold operations keep only ``op``, ``path`` and ``value``; ``test``
  operations are dropped, and a patch that moves or copies becomes the plain difference
  between the document and the merged one.

The draft is refused (not flagged) when no sample gave a patch that applies, or when the
merged patch does not make the requested change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.cases import Case
from pytest_revprop.core.extraction import InvalidReply, extract_patch
from pytest_revprop.core.merge import sample_artifacts
from pytest_revprop.core.method_context import Ask
from pytest_revprop.core.patching import PatchError, apply_operations, check_operations, diff
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.core.registry import run_method
from pytest_revprop.llm.types import Reply, canonical_json
from pytest_revprop.util.jsonutil import MISSING, is_within, json_equal, resolve

GOLD_RULES = ("maj", "and")
"""The merge rules a draft's gold may use: a change needs most, or all, samples."""


class GoldFailed(Exception):
    """No usable tentative gold; ``reasons`` say why, ``samples`` are what each gold sample
    answered (``{"seed", "reply"}``, for the rejected draft's record)."""

    def __init__(self, reasons: list[str], samples: list[dict[str, Any]] | None = None) -> None:
        self.reasons = reasons
        self.samples = samples or []
        super().__init__("; ".join(reasons))


@dataclass
class GoldDraft:
    """The gold operations (with ``kind``), the flags and proposals left out, and the calls."""

    gold: list[dict[str, Any]]
    flags: list[dict[str, Any]]
    left_out: list[dict[str, Any]]
    seeds: list[int]
    rule: str
    valid_samples: int
    notes: list[str] = field(default_factory=list)


async def draft_gold(
    case: Case,
    edit: dict[str, Any],
    ask: Ask,
    *,
    rule: str,
    k: int,
    seed: int,
    prompts: Prompts,
    turn: int = 0,
) -> GoldDraft:
    """The tentative gold of ``case`` (its own ``gold`` is ignored) for the request's ``edit``;
    ``turn``: the chain's turn ``case`` is the view of (0: the case's own revision).

    Raises GoldFailed when no sample applies or the merge misses the requested change.
    """
    if rule not in GOLD_RULES:
        raise ValueError(f"gold rule must be one of {', '.join(GOLD_RULES)}, got {rule!r}")
    run = await run_method(rule, case, ask, k=k, seed=seed, prompts=prompts, turn=turn)
    replies = [{"seed": c.seed, "reply": c.reply.content} for c in run.calls]
    outcome = run.outcome
    if outcome.patch is None:
        reason = f"no gold sample gave a usable patch ({outcome.error}): {outcome.reason}"
        raise GoldFailed([reason], replies)
    base = case.artifact
    merged = _applied(base, outcome.patch)
    if merged is MISSING:
        raise GoldFailed(["the merged gold patch does not apply to the document"], replies)
    if not _makes_edit(base, merged, edit):
        reason = f"the {rule} of {k} gold samples does not make the requested change {edit}"
        raise GoldFailed([reason], replies)
    samples = sample_artifacts(base, [_patch_of(c.reply) for c in run.calls if c.role == "sample"])
    patch = plain_operations(base, outcome.patch, merged)
    places = _places(base, patch)
    kinds, flags = _kinds(places, edit, base)
    flags += _disagreements(places, merged, samples, k, kinds)
    gold = [op | {"kind": kind} for op, kind in zip(patch, kinds, strict=True)]
    draft = GoldDraft(
        gold=gold,
        flags=sorted(flags, key=lambda f: f["gold"]),
        left_out=_left_out(base, merged, samples),
        seeds=list(range(seed, seed + k)),
        rule=rule,
        valid_samples=sum(1 for s in samples if s is not MISSING),
    )
    if all(kind == "direct" for kind in kinds):
        draft.notes.append(
            "the gold holds no cascade operation: the samples found nothing else the request "
            "forces, or did not agree on it"
        )
    return draft


def plain_operations(base: Any, patch: list[dict[str, Any]], merged: Any) -> list[dict[str, Any]]:
    """``patch`` as gold operations can be: only ``add``/``remove``/``replace`` with their
    ``path`` and ``value`` (``test`` operations dropped); a patch that moves or copies is
    replaced by the plain difference from ``base`` to ``merged``."""
    ops = [op for op in patch if op["op"] != "test"]
    if any(op["op"] not in ("add", "remove", "replace") for op in ops):
        return diff(base, merged)
    return [
        {"op": op["op"], "path": op["path"]}
        | ({} if op["op"] == "remove" else {"value": op["value"]})
        for op in ops
    ]


def _applied(base: Any, patch: list[dict[str, Any]]) -> Any:
    try:
        return apply_operations(base, check_operations(patch))
    except PatchError:
        return MISSING


def _patch_of(reply: Reply) -> list[dict[str, Any]] | None:
    if reply.finish_reason == "length":
        return None
    try:
        return extract_patch(reply.content)
    except InvalidReply:
        return None


def _concrete_edit_path(base: Any, edit: dict[str, Any]) -> str:
    path: str = edit["path"]
    if edit["op"] == "add" and path.endswith("/-"):
        parent = resolve(base, path[:-2])
        if isinstance(parent, list):
            return f"{path[:-2]}/{len(parent)}"
    return path


def _makes_edit(base: Any, merged: Any, edit: dict[str, Any]) -> bool:
    path = _concrete_edit_path(base, edit)
    if edit["op"] == "replace":
        return json_equal(resolve(merged, path), edit["value"])
    parent_path = path.rsplit("/", 1)[0]
    before, after = resolve(base, parent_path), resolve(merged, parent_path)
    if not isinstance(before, list) or not isinstance(after, list):
        return False
    if edit["op"] == "add":
        return len(after) == len(before) + 1 and any(json_equal(v, edit["value"]) for v in after)
    return len(after) == len(before) - 1


def _places(base: Any, patch: list[dict[str, Any]]) -> list[str]:
    """Each operation's place, with an appending ``-`` made the index it appends at."""
    places = []
    state = base
    for op in patch:
        path = op["path"]
        if op["op"] == "add" and path.endswith("/-"):
            parent = resolve(state, path[:-2])
            if isinstance(parent, list):
                path = f"{path[:-2]}/{len(parent)}"
        places.append(path)
        state = apply_operations(state, [op])
    return places


def _kinds(
    places: list[str], edit: dict[str, Any], base: Any
) -> tuple[list[str], list[dict[str, Any]]]:
    target = _concrete_edit_path(base, edit)
    kinds = ["direct" if place == target else "cascade" for place in places]
    flags: list[dict[str, Any]] = []
    if "direct" not in kinds:
        holder = next((i for i, p in enumerate(places) if is_within(target, p)), None)
        if holder is not None:
            kinds[holder] = "direct"
            flags.append(
                {
                    "gold": holder,
                    "reason": f"the requested change of {target} is inside this larger "
                    "operation: split it so that the direct edit stands alone",
                }
            )
    return kinds, flags


def _disagreements(
    places: list[str], merged: Any, samples: list[Any], k: int, kinds: list[str]
) -> list[dict[str, Any]]:
    flags = []
    for index, place in enumerate(places):
        want = resolve(merged, place)
        agree = sum(
            1
            for sample in samples
            if sample is not MISSING and json_equal(resolve(sample, place), want)
        )
        if agree < k:
            flags.append(
                {
                    "gold": index,
                    "reason": f"samples disagree on this {kinds[index]} operation "
                    f"({agree} of {k} make it)",
                }
            )
    return flags


def _left_out(base: Any, merged: Any, samples: list[Any]) -> list[dict[str, Any]]:
    counts: dict[tuple[str, str], dict[str, Any]] = {}
    for sample in samples:
        if sample is MISSING:
            continue
        for op in diff(base, sample):
            proposed = MISSING if op["op"] == "remove" else op["value"]
            if json_equal(resolve(merged, op["path"]), proposed):
                continue
            key = (op["path"], "remove" if proposed is MISSING else canonical_json(proposed))
            entry = counts.setdefault(
                key,
                {"path": op["path"], "samples": 0}
                | ({"remove": True} if proposed is MISSING else {"value": proposed}),
            )
            entry["samples"] += 1
    return sorted(counts.values(), key=lambda e: (-e["samples"], e["path"]))
