"""Shards: one run split into N disjoint parts that separate hosts run, then combine.

``--revprop-shard=I/N`` runs part I (1 to N) of the run. A part is a set of whole cases: every
item of a case (all its models, methods, k and seeds) stays in one shard, so the response
cache still shares their calls. Cases go to shards by expected calls (``estimate``: the
distinct calls a case's items make, counted with no cache), the largest first, each to the
part with the fewest calls so far (ties: the fewest leaves, then the lowest number). The
split is a pure function of the selected cases and the run's settings, so every host computes
the same one, and the N parts together are exactly the unsharded run.

``--revprop-shard=auto`` takes I and N from the engine that started the process: a Slurm
array job or a Kubernetes Indexed Job (``JOB_COMPLETION_INDEX``, with the count in
``REVPROP_SHARD_COUNT``, which the Job's manifest sets to its ``completions``).

Under Slurm, ``REVPROP_SHARD_COUNT`` (exported by the job script) is the count when set, and
the task id is the shard number: the array is numbered from 1 (``--array=1-N``), so a later
submission of some of its tasks (``sbatch --array=3``, ``--array=2,4``) gets the shards of the
whole array. Without it, the count is ``SLURM_ARRAY_TASK_COUNT``, which is the count of the
tasks of this submission only; ``auto`` then takes it only for a whole array as one submits
it (from 0 or 1, every step taken, at least two tasks) and refuses anything else, which a
partial resubmission looks like, rather than compute another split. docs/scale-out.md shows
both engines.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_revprop.errors import UserError

if TYPE_CHECKING:
    from pytest_revprop.core.cases import Case

AUTO = "auto"
COUNT_VARIABLE = "REVPROP_SHARD_COUNT"
"""The shard count: a Kubernetes Indexed Job's (Kubernetes gives the index only), and a Slurm
array's whole size (Slurm's own count is that of one submission)."""
SLURM_VARIABLES = ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN")
KUBERNETES_VARIABLES = ("JOB_COMPLETION_INDEX", COUNT_VARIABLE)
_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True, order=True)
class Shard:
    """Part ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1 or not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index}/{self.count}: need 1 <= I <= N")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def to_dict(self) -> dict[str, int]:
        """The shard as results.json's ``meta.shard`` writes it."""
        return {"index": self.index, "count": self.count}


def parse_shard(text: str) -> Shard | str:
    """``I/N`` (1 <= I <= N) or ``auto`` (an argparse ``type=``)."""
    if text.strip() == AUTO:
        return AUTO
    match = _SHARD.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"shard must be I/N (e.g. 2/3) or auto, got {text!r}")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise argparse.ArgumentTypeError(
            f"shard I/N needs 1 <= I <= N, got {text.strip()!r} (shards are numbered from 1)"
        )
    return Shard(index, count)


def shard_from_environment(environ: Mapping[str, str], option: str = "--revprop-shard") -> Shard:
    """The shard of this process under Slurm or Kubernetes (``auto``); UserError naming the
    variables when it finds neither, or when what it finds makes no shard it can trust."""
    if "SLURM_ARRAY_TASK_ID" in environ:
        if COUNT_VARIABLE in environ:
            return _slurm_with_count(environ, option)
        return _slurm_whole_array(environ, option)
    if "JOB_COMPLETION_INDEX" in environ:
        index = _whole(environ, "JOB_COMPLETION_INDEX", option)
        if COUNT_VARIABLE not in environ:
            raise UserError(
                f"{option}=auto: a Kubernetes Indexed Job (JOB_COMPLETION_INDEX={index}) but no "
                f"{COUNT_VARIABLE}: set it to the Job's completions in the pod template"
            )
        count = _whole(environ, COUNT_VARIABLE, option)
        return _shard(index + 1, count, "Kubernetes Indexed Job", option)
    raise UserError(
        f"{option}=auto found neither a Slurm array job ({', '.join(SLURM_VARIABLES)}) nor a "
        f"Kubernetes Indexed Job ({' with '.join(KUBERNETES_VARIABLES)}): give "
        f"{option}=I/N instead"
    )


def _slurm_with_count(environ: Mapping[str, str], option: str) -> Shard:
    """The task id is the shard number (the array numbered from 1), the count the exported
    one: the same shard in the first submission and in a resubmission of some tasks."""
    task = _whole(environ, "SLURM_ARRAY_TASK_ID", option)
    count = _whole(environ, COUNT_VARIABLE, option)
    if count < 1:
        raise UserError(f"{option}=auto: {COUNT_VARIABLE} must be at least 1, got {count}")
    numbering = f"number the array's tasks 1 to {count} (--array=1-{count})"
    for name in ("SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX"):
        if name in environ and not 1 <= _whole(environ, name, option) <= count:
            raise UserError(
                f"{option}=auto: {name}={environ[name].strip()} is not a shard of "
                f"{COUNT_VARIABLE}={count}: the task ids are the shard numbers, so {numbering}"
            )
    if not 1 <= task <= count:
        raise UserError(
            f"{option}=auto: SLURM_ARRAY_TASK_ID={task} is not a shard of {COUNT_VARIABLE}="
            f"{count}: the task ids are the shard numbers, so {numbering}"
        )
    return Shard(task, count)


def _slurm_whole_array(environ: Mapping[str, str], option: str) -> Shard:
    """The shard from Slurm's own variables, which describe this submission only: taken
    for a whole array (from 0 or 1, every step, two tasks or more), refused otherwise."""
    task = _whole(environ, "SLURM_ARRAY_TASK_ID", option)
    count = _whole(environ, "SLURM_ARRAY_TASK_COUNT", option)
    first = _whole(environ, "SLURM_ARRAY_TASK_MIN", option)
    step = _whole(environ, "SLURM_ARRAY_TASK_STEP", option) if (
        "SLURM_ARRAY_TASK_STEP" in environ
    ) else 1  # fmt: skip
    offset = task - first
    if step < 1 or offset < 0 or offset % step:
        raise UserError(
            f"{option}=auto: SLURM_ARRAY_TASK_ID={task} is not a task of the array "
            f"starting at SLURM_ARRAY_TASK_MIN={first} with step {step}"
        )
    last = _whole(environ, "SLURM_ARRAY_TASK_MAX", option) if (
        "SLURM_ARRAY_TASK_MAX" in environ
    ) else first + (count - 1) * step  # fmt: skip
    if count < 2 or first not in (0, 1) or (last - first) // step + 1 != count:
        tasks = f"{count} task{'s' if count != 1 else ''} from {first} to {last}"
        raise UserError(
            f"{option}=auto cannot trust SLURM_ARRAY_TASK_COUNT={count} as the shard count: "
            f"this submission has {tasks}, which a resubmission of some tasks of a larger "
            f"array looks like; export {COUNT_VARIABLE}=N (the whole array's size) in the job "
            f"script, or give {option}=I/N"
        )
    return _shard(offset // step + 1, count, "Slurm array", option)


def _whole(environ: Mapping[str, str], name: str, option: str) -> int:
    text = environ.get(name)
    if text is None:
        raise UserError(f"{option}=auto: {name} is not set")
    try:
        return int(text.strip())
    except ValueError:
        raise UserError(f"{option}=auto: {name} must be a whole number, got {text!r}") from None


def _shard(index: int, count: int, engine: str, option: str) -> Shard:
    if count < 1 or not 1 <= index <= count:
        raise UserError(f"{option}=auto: the {engine} gives shard {index} of {count}")
    return Shard(index, count)


def assign(weights: Mapping[str, int], sizes: Mapping[str, int], count: int) -> list[list[str]]:
    """The case ids of each of ``count`` parts (each list in the order of ``weights``): the
    heaviest case first, each to the lightest part so far (ties: fewer leaves, lower number).
    A pure function of its arguments."""
    loads = [(0, 0, number) for number in range(count)]
    part_of: dict[str, int] = {}
    for case in sorted(weights, key=lambda c: (-weights[c], -sizes.get(c, 0), c)):
        load, leaves, number = min(loads)
        part_of[case] = number
        loads[number] = (load + weights[case], leaves + sizes.get(case, 0), number)
    parts: list[list[str]] = [[] for _ in range(count)]
    for case in weights:
        parts[part_of[case]].append(case)
    return parts


def shard_case_ids(weights: Mapping[str, int], sizes: Mapping[str, int], shard: Shard) -> list[str]:
    """The case ids of ``shard`` (``assign``'s part), in the order of ``weights``."""
    return assign(weights, sizes, shard.count)[shard.index - 1]


def describe_parts(weights: Mapping[str, int], parts: Sequence[Sequence[str]]) -> str:
    """One line: each part's cases and expected calls (for the run's header)."""
    return ", ".join(f"{len(part)} cases/{sum(weights[c] for c in part)} calls" for part in parts)


def cases_digest(cases: Sequence[Case], *, followups: bool = True) -> str:
    """A digest of the selected cases' contents (before any split): shards of one run share
    it, and ``revprop combine`` refuses shards whose case files differ. Without
    ``followups`` (an ``off`` run, which never reads them) the follow-ups are left out, so
    that case files gaining follow-ups keep the digest of such runs."""
    digest = hashlib.sha256()
    for case in sorted(cases, key=lambda c: c.id):
        data = case.to_dict()
        if not followups:
            data.pop("followups", None)
        digest.update(json.dumps(data, sort_keys=True, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()
