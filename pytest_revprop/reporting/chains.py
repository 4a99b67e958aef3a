"""Revision chains in the reports: what a chain run (``--revprop-chain=teacher|free``) adds
to the summary rows, the chain table of the terminal summary, summary.md and report.md, the
data of the completion-by-turn figure, and the protocol checks of the gate and ``revprop
compare``.

A chain record (one item per chain) carries ``chain`` (the protocol), ``turns`` (one dict per
turn run), ``turns_completed`` (turns completed before the first failure) and ``regressions``
(summed over turns); its ``completed`` says every turn completed. Records of an ``off`` run
carry none of these, and nothing here changes what their reports show. Pure Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.core.cases import instance_seed
from pytest_revprop.errors import UserError
from pytest_revprop.vocabulary import CHAIN_RECORD_KEYS, INFRASTRUCTURE_ERRORS

__all__ = [
    "CHAIN_RESULT_KEYS",
    "CHAIN_SUMMARY_FIELDS",
    "OFF",
    "ChainTally",
    "chain_table",
    "check_protocols",
    "is_chain_doc",
    "protocol_of",
    "run_name",
    "turn_figure_rows",
    "turn_outcomes",
]

OFF = "off"
"""The protocol of a run without chains (``--revprop-chain=off``, and every run before it)."""
CHAIN_RESULT_KEYS = CHAIN_RECORD_KEYS
"""What a chain record adds to its results.json row and samples.jsonl line (after the keys
every row has); a record without ``chain`` writes none of them."""
CHAIN_SUMMARY_FIELDS = (
    "chain",
    "chain_completion",
    "turn_completion",
    "turns_before_failure",
    "regressions",
    "regressions_per_chain",
)
"""What a chain run's summary rows add, in the order results.json writes them."""
TURN_DONE, TURN_FAILED, TURN_ERROR = 1, 0, -1
"""A turn's outcome in ``turn_outcomes``: completed, not completed, its call or method failed."""


def turn_outcomes(record: Mapping[str, Any]) -> tuple[int, ...]:
    """Per turn run, ``TURN_DONE``, ``TURN_FAILED`` or ``TURN_ERROR`` (an infrastructure error:
    left out of that turn's completion): the record's own ``turn_outcomes`` when it has them
    (the sink's outcome table), else read from its ``turns``."""
    given = record.get("turn_outcomes")
    if isinstance(given, list | tuple):
        return tuple(int(v) for v in given)
    outcomes = []
    for turn in record.get("turns") or []:
        if not isinstance(turn, Mapping):
            continue
        if turn.get("error") in INFRASTRUCTURE_ERRORS:
            outcomes.append(TURN_ERROR)
        else:
            outcomes.append(TURN_DONE if turn.get("completed") else TURN_FAILED)
    return tuple(outcomes)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass
class ChainTally:
    """What the chain fields of one (model, method, k) need, gathered one record at a time."""

    protocol: str | None = None
    chains: int = 0
    """Chains scored: every chain whose record is not an infrastructure error."""
    completed: int = 0
    by_turn: list[list[int]] = field(default_factory=list)  # turn -> [completed, ran]
    turns_completed: int = 0
    regressions: int = 0
    """The regressions of the chains scored (an error chain's are not: per-chain means divide
    by the chains they add up)."""

    def add(self, record: Mapping[str, Any]) -> None:
        """Count a chain record (a record without ``chain`` is not counted)."""
        protocol = record.get("chain")
        if not protocol:
            return
        self.protocol = self.protocol or str(protocol)
        for index, outcome in enumerate(turn_outcomes(record)):
            while len(self.by_turn) <= index:
                self.by_turn.append([0, 0])
            if outcome != TURN_ERROR:
                self.by_turn[index][0] += outcome == TURN_DONE
                self.by_turn[index][1] += 1
        if record.get("error") in INFRASTRUCTURE_ERRORS:
            return
        self.chains += 1
        self.regressions += _count(record.get("regressions"))
        self.completed += bool(record.get("completed"))
        self.turns_completed += _count(record.get("turns_completed"))

    def figures(self) -> dict[str, Any]:
        """The summary row's additions (``CHAIN_SUMMARY_FIELDS``); {} when no chain record
        was counted (an ``off`` run's rows stay as they were)."""
        if self.protocol is None:
            return {}
        n = self.chains
        return {
            "chain": self.protocol,
            "chain_completion": self.completed / n if n else None,
            "turn_completion": [done / ran if ran else None for done, ran in self.by_turn],
            "turns_before_failure": self.turns_completed / n if n else None,
            "regressions": self.regressions,
            "regressions_per_chain": self.regressions / n if n else None,
        }


# ------------------------------------------------------------------------------ protocols


def protocol_of(doc: Mapping[str, Any]) -> str:
    """A results document's protocol: ``meta.chain.protocol`` (``teacher`` or ``free``), or
    ``off`` for a run without chains."""
    meta = doc.get("meta")
    chain = meta.get("chain") if isinstance(meta, Mapping) else None
    protocol = chain.get("protocol") if isinstance(chain, Mapping) else None
    return str(protocol) if protocol else OFF


def is_chain_doc(doc: Mapping[str, Any]) -> bool:
    """Whether a results document holds chains: its meta says so, or a summary row does."""
    if protocol_of(doc) != OFF:
        return True
    return any(isinstance(r, Mapping) and r.get("chain") for r in doc.get("summary") or [])


def run_name(protocol: str) -> str:
    """How a message names a run of ``protocol``: ``a teacher chain run``, or ``a run without
    chains (off)``."""
    return "a run without chains (off)" if protocol == OFF else f"a {protocol} chain run"


def check_protocols(
    base: Mapping[str, Any], new: Mapping[str, Any], base_name: str, new_name: str
) -> None:
    """UserError (one line) when two runs (their results documents, or ``{"meta": ...}``)
    ran different protocols: chains against single revisions, or teacher against free,
    measure different things and pair nothing that means the same."""
    a, b = protocol_of(base), protocol_of(new)
    if a != b:
        raise UserError(
            f"{base_name} is {run_name(a)} and {new_name} is {run_name(b)}: "
            "only runs of the same protocol (--revprop-chain) can be compared"
        )


# ------------------------------------------------------------------------------ tables


def _pct(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{100 * value:.1f}"
    return "–"


def _mean(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:.2f}"
    return "–"


def chain_table(
    summary: Iterable[Mapping[str, Any]],
) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the chain table (terminal summary, summary.md, report.md): per
    chain row its protocol, chains, chain completion, completion at each turn (``turn 0 %``,
    ``turn 1 %``, ...), the mean turns before the first failure and the regressions. No rows
    when ``summary`` has no chain row."""
    rows = [r for r in summary if r.get("chain")]
    turns = max((len(r.get("turn_completion") or []) for r in rows), default=0)
    header = [
        "model",
        "method",
        "k",
        "protocol",
        "chains",
        "chain %",
        *(f"turn {i} %" for i in range(turns)),
        "turns before failure",
        "regressions",
        "per chain",
    ]
    cells = []
    for r in rows:
        by_turn = list(r.get("turn_completion") or [])
        by_turn += [None] * (turns - len(by_turn))
        cells.append(
            [
                str(r["model"]),
                str(r["method"]),
                str(r.get("k")),
                str(r["chain"]),
                str(_count(r.get("n_items")) - _count(r.get("errors"))),
                _pct(r.get("chain_completion")),
                *(_pct(v) for v in by_turn),
                _mean(r.get("turns_before_failure")),
                str(_count(r.get("regressions"))),
                _mean(r.get("regressions_per_chain")),
            ]
        )
    return header, cells


CHAIN_TABLE_NOTE = (
    "chain %: chains with every turn completed; turn i %: chains whose turn i completed, among "
    "those that ran it (turn 0 is the case's own revision); turns before failure: mean turns "
    "completed before the first failed one; regressions: places an earlier turn got right that "
    "a later turn broke (total, and per chain)."
)


# ------------------------------------------------------------------------------ the figure


def _k(row: Mapping[str, Any]) -> int:
    k = row.get("k")
    return k if isinstance(k, int) and not isinstance(k, bool) else 1


def _main_rows(summary: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The chain rows of a summary, one per (model, method): the one at the largest k."""
    chosen: dict[tuple[str, str], Mapping[str, Any]] = {}
    for row in summary:
        if not row.get("chain"):
            continue
        key = (str(row["model"]), str(row["method"]))
        if key not in chosen or _k(row) > _k(chosen[key]):
            chosen[key] = row
    return list(chosen.values())


def turn_figure_rows(
    docs: Sequence[Mapping[str, Any]], pooled: Iterable[Mapping[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Data of the completion-by-turn figure: per run's chain row at its main k, one row per
    turn: protocol, model, method, k, cases, turn and the share of chains completing it. The
    runs of ``docs`` (one run, or a teacher and a free run) in their order. ``cases`` is
    ``all``, or, in a run with fresh instances (``--revprop-instances``), ``shipped`` and
    ``fresh``: the chains of each kind counted apart, from the run's records (``pooled``, when
    given: the first run's records pooled with its protocol's other runs)."""
    rows: list[dict[str, Any]] = []
    for index, doc in enumerate(docs):
        main = _main_rows(doc.get("summary") or [])
        records = pooled if index == 0 and pooled is not None else doc.get("results") or []
        split = _split_by_instances(records, main)
        for row in main:
            key = (str(row["model"]), str(row["method"]), row.get("k"))
            for cases, rates in split.get(key, {"all": row.get("turn_completion") or []}).items():
                for turn, rate in enumerate(rates):
                    rows.append(
                        {
                            "protocol": str(row["chain"]),
                            "model": key[0],
                            "method": key[1],
                            "k": key[2],
                            "cases": cases,
                            "turn": turn,
                            "completion_rate": rate,
                        }
                    )
    return rows


def _split_by_instances(
    records: Iterable[Mapping[str, Any]], main: Sequence[Mapping[str, Any]]
) -> dict[tuple[str, str, Any], dict[str, list[float | None]]]:
    """Per main chain row's (model, method, k): the turn completion of its shipped chains and
    of its fresh ones, when the run holds fresh instances; {} otherwise."""
    wanted = {(str(r["model"]), str(r["method"]), r.get("k")) for r in main}
    tallies: dict[tuple[str, str, Any], dict[str, ChainTally]] = {}
    fresh_seen = False
    for record in records:
        key = (str(record.get("model")), str(record.get("method")), record.get("k"))
        if key not in wanted or not record.get("chain"):
            continue
        fresh = instance_seed(str(record.get("case", ""))) is not None
        fresh_seen = fresh_seen or fresh
        kinds = tallies.setdefault(key, {"shipped": ChainTally(), "fresh": ChainTally()})
        kinds["fresh" if fresh else "shipped"].add(record)
    if not fresh_seen:
        return {}
    return {
        key: {
            kind: tally.figures()["turn_completion"]
            for kind, tally in kinds.items()
            if tally.protocol is not None
        }
        for key, kinds in tallies.items()
    }
