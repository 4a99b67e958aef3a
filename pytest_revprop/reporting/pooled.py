"""The runs given to ``revprop report RESULTS.json OTHER.json...`` beside the one reported.

A second results file is one of two things:

- **the other chain protocol's run** (a free run beside a teacher run, or the reverse): its
  chains join the chain table and ``completion_by_turn.png``, drawn beside the run's;
- **a run of the same protocol made with other fresh instances** (``--revprop-instances``):
  pooled with the run for robustness. Its records join the robustness tables and the shipped
  and fresh lines of ``completion_by_turn.png``; the rest of the report (summary, tables,
  browser) stays the first run's. Pooled runs must ask the same prompts (``meta.prompts``) and,
  for chains, run as many turns, or the instances would measure different things.

Pooled records count once per identity (case, model, method, k, seed): the shipped cases that
every run holds, or a seed two runs both made, count from the first run that holds them.
Pure Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.prompts import changed_templates
from pytest_revprop.errors import UserError
from pytest_revprop.reporting.chains import OFF, protocol_of, run_name

__all__ = ["GivenRuns", "pool_note", "pooled_records", "sort_runs"]

Identity = tuple[Any, ...]


@dataclass
class GivenRuns:
    """The runs given after the reported one, sorted by what the report does with them."""

    beside: list[Mapping[str, Any]] = field(default_factory=list)
    """Chain runs of another protocol, drawn and tabled beside the run's chains."""
    pooled: list[Mapping[str, Any]] = field(default_factory=list)
    """Runs of the run's protocol with other fresh instances, pooled for robustness."""
    pool_names: list[str] = field(default_factory=list)
    """The names (files) of the reported run and of the pooled runs, in order."""


def instance_seeds(doc: Mapping[str, Any]) -> list[int]:
    """The fresh-instance seeds a run's meta records (``meta.instances.seeds``); [] if none."""
    meta = doc.get("meta")
    instances = meta.get("instances") if isinstance(meta, Mapping) else None
    seeds = instances.get("seeds") if isinstance(instances, Mapping) else None
    return [int(s) for s in seeds] if isinstance(seeds, list) else []


def _meta(doc: Mapping[str, Any], name: str) -> Any:
    meta = doc.get("meta")
    return meta.get(name) if isinstance(meta, Mapping) else None


def _check_poolable(
    first: tuple[str, Mapping[str, Any]], run: tuple[str, Mapping[str, Any]]
) -> None:
    (first_name, first_doc), (name, doc) = first, run
    if not instance_seeds(doc):
        raise UserError(
            f"{name} is {run_name(protocol_of(doc))} like {first_name}, without fresh instances: "
            "a second run of the same protocol is pooled with the first for robustness, so it "
            "must have run fresh instances (--revprop-instances)"
        )
    changed = changed_templates(_meta(first_doc, "prompts"), _meta(doc, "prompts"))
    if changed:
        raise UserError(
            f"{name} and {first_name} ran different prompt templates ({', '.join(changed)}): "
            "runs pooled for robustness must ask the same"
        )
    mine, theirs = _meta(doc, "chain"), _meta(first_doc, "chain")
    turns = [c.get("turns") if isinstance(c, Mapping) else None for c in (mine, theirs)]
    if turns[0] != turns[1]:
        raise UserError(
            f"{name} runs chains of {turns[0]} follow-ups and {first_name} of {turns[1]}: "
            "runs pooled for robustness must run as many (--revprop-turns)"
        )


def sort_runs(runs: Sequence[tuple[str, Mapping[str, Any]]]) -> GivenRuns:
    """The runs after the first of ``runs`` ((name, results document) pairs, the reported run
    first), sorted into those drawn beside it and those pooled with it; UserError (one line)
    for a run that is neither, or one that cannot be pooled."""
    given = GivenRuns()
    if len(runs) < 2:
        return given
    first_name, first = runs[0]
    given.pool_names.append(first_name)
    protocol = protocol_of(first)
    seen: dict[str, str] = {protocol: first_name}
    for name, doc in runs[1:]:
        theirs = protocol_of(doc)
        if theirs == protocol:
            _check_poolable(runs[0], (name, doc))
            given.pooled.append(doc)
            given.pool_names.append(name)
            continue
        if OFF in (protocol, theirs):
            raise UserError(
                f"{name} is {run_name(theirs)} and {first_name} is {run_name(protocol)}: a "
                "second results file is a run of the same protocol with other fresh instances "
                "(pooled for robustness) or, for chain runs, the other protocol's run (drawn "
                "beside)"
            )
        if theirs in seen:
            raise UserError(
                f"{seen[theirs]} and {name} are both {theirs} chain runs: give the reported "
                f"run's protocol first to pool its runs, and one run of the other protocol"
            )
        seen[theirs] = name
        given.beside.append(doc)
    return given


def _identity(record: Mapping[str, Any]) -> Identity:
    return (
        record.get("case"),
        record.get("model"),
        record.get("method"),
        record.get("k"),
        record.get("seed"),
    )


def pooled_records(docs: Sequence[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    """The records of ``docs`` (results documents, the reported run first), one per identity:
    a record whose (case, model, method, k, seed) an earlier run holds is left out. One
    document's records as they are."""
    if len(docs) == 1:
        yield from docs[0].get("results") or []
        return
    seen: set[Identity] = set()
    for doc in docs:
        for record in doc.get("results") or []:
            key = _identity(record)
            if key not in seen:
                seen.add(key)
                yield record


def _seeds(seeds: Iterable[int]) -> str:
    return ", ".join(map(str, seeds)) or "none"


def _label(index: int, names: Sequence[str]) -> str:
    """How the note names the index-th run: this run or run N, and its file when known."""
    label = "this run" if index == 0 else f"run {index + 1}"
    return f"{label}, {names[index]}" if index < len(names) else label


def pool_note(docs: Sequence[Mapping[str, Any]], names: Sequence[str] = ()) -> str:
    """The report's note on a pool (``docs``: the reported run, then the runs pooled with it;
    ``names``: their files, as given): the runs and their instance seeds, and the records held
    by more than one run (counted once) and how many of those disagree on completion."""
    first: dict[Identity, bool] = {}
    repeated = differ = 0
    for doc in docs:
        for record in doc.get("results") or []:
            key, done = _identity(record), bool(record.get("completed"))
            if key in first:
                repeated += 1
                differ += first[key] != done
            else:
                first[key] = done
    runs = "; ".join(
        f"{_label(i, names)} (created {_meta(doc, 'created') or '?'}): "
        f"seeds {_seeds(instance_seeds(doc))}"
        for i, doc in enumerate(docs)
    )
    note = (
        f"Robustness pools {len(docs)} runs of this protocol, by instance seed: {runs}. "
        f"{repeated} records held by an earlier run too (the shipped cases every run holds, or "
        "a seed two runs made) count once, as the earlier run has them"
    )
    if differ:
        note += f"; {differ} of them differ in completion between the runs"
    return note + "."
