"""The plain records items produce (``item_record``), composed of parts: a single revision's
(``result_record``: the item's fields, a verdict, the answer and its notes, usage) and a
chain's (``chain_record``: the item's fields, the chain's verdict and its turns, usage), its
turns scored as their protocol scores them (``score_chain``). No pytest here; the runner calls
them in the thread that asks for a record, never on its event loop. docs/interfaces.md
describes the fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from pytest_revprop.core.cases import Case
from pytest_revprop.core.chain import turn_regressions
from pytest_revprop.core.credit import partial_credit
from pytest_revprop.core.method_context import MethodRun
from pytest_revprop.core.outcome import Outcome
from pytest_revprop.core.scoring import Score
from pytest_revprop.run.chains import ChainRun, TurnRun
from pytest_revprop.vocabulary import CHAIN_RECORD_KEYS, INFRASTRUCTURE_ERRORS, ResultRecord


class ItemNames(Protocol):
    """What names an item in its record (``runner.ItemSpec`` has it)."""

    @property
    def model(self) -> str:
        """The model's name."""
        ...

    @property
    def method(self) -> str:
        """The method's name."""
        ...

    @property
    def k(self) -> int:
        """The method's k."""
        ...

    @property
    def seed(self) -> int:
        """The base seed."""
        ...


RECORD_KEYS = tuple(ResultRecord.__annotations__)
"""A record's fields in their documented order (docs/interfaces.md); a chain's adds its own."""


def _item_fields(case: Case, spec: ItemNames) -> dict[str, Any]:
    """What names the item and its case."""
    return {
        "case": case.id,
        "model": spec.model,
        "method": spec.method,
        "k": spec.k,
        "seed": spec.seed,
        "domain": case.domain,
        "pattern": case.pattern,
        "size": case.size,
        "split": case.split,
        "request": case.request,
    }


def _verdict(score: Score) -> dict[str, Any]:
    """A single revision's verdict: the score's."""
    return {
        "completed": score.completed,
        "valid": score.valid,
        "error": score.outcome.error,
        "miss": score.miss,
        "over_edit": score.over_edit,
        "wrong_value": score.wrong_value,
        "reason": score.outcome.reason,
        "findings": [f.to_dict() for f in score.findings],
    }


def _usage(run: MethodRun) -> dict[str, Any]:
    """What the method's run spent and the replies it read: the run's."""
    return {
        "cost_usd": run.cost_usd,
        "latency_s": run.latency_s,
        "calls": len(run.calls),
        "replies": [c.to_dict() for c in run.calls],
        "failed_call": run.failed_call,
    }


def _notes(outcome: Outcome) -> dict[str, Any]:
    """The method's answer and its notes: the outcome's."""
    return {
        "patch": outcome.patch,
        "selection_fallback": outcome.selection_fallback,
        "map_valid": outcome.map_valid,
        "map_edges": outcome.map_edges,
        "map_dropped": outcome.map_dropped,
    }


def _composed(*parts: Mapping[str, Any], extra: Sequence[str] = ()) -> ResultRecord:
    fields: dict[str, Any] = {}
    for part in parts:
        fields.update(part)
    return {key: fields[key] for key in (*RECORD_KEYS, *extra)}  # type: ignore[return-value]


def result_record(
    case: Case, spec: ItemNames, run: MethodRun, score: Score | None = None
) -> ResultRecord:
    """The plain-data record of one item (results.json row plus what reports need), composed:
    the item's fields, the verdict (the score's: completion, validity, error, reason, failure
    counts and findings), the method's answer and notes (its outcome's), the usage (the run's:
    cost, latency, calls and their replies) and the partial credit. ``score`` is
    ``run.score(case)`` when the caller has it already; it may be a score shared with items of
    the same final patch, so the patch comes from the run."""
    score = run.score(case) if score is None else score
    found = partial_credit(case, score)
    credit = {"cascade_recall": found.cascade_recall, "preservation": found.preservation}
    return _composed(
        _item_fields(case, spec), _verdict(score), _notes(run.outcome), _usage(run), credit
    )


# ------------------------------------------------------------------------------ judging


ScoreTurn = Callable[[Case, ChainRun, TurnRun], Score]
"""How the runner scores a turn: ``turn_score``, or one it shares between items."""


def turn_score(case: Case, chain: ChainRun, turn: TurnRun) -> Score:
    """A turn's score, as the chain's protocol scores it (``Protocol.score``)."""
    return chain.protocol.score(case, turn.view, turn.index, turn.run.outcome, turn.after)


def score_chain(case: Case, chain: ChainRun, score_turn: ScoreTurn = turn_score) -> list[Score]:
    """Each turn's score (``score_turn``: by default ``turn_score``)."""
    return [score_turn(case, chain, turn) for turn in chain.turns]


def _regressions(case: Case, turn: TurnRun) -> list[str]:
    """The places an earlier turn got right that ``turn``'s patch broke (``turn_regressions``
    from the document the turn started from: the canonical one in ``teacher``, the model's own
    in ``free``), as pointers."""
    patch = turn.run.outcome.patch
    if turn.index == 0 or patch is None:
        return []
    return turn_regressions(case, turn.index, turn.view.artifact, patch)


# ------------------------------------------------------------------------------ the record


def _failure_words(score: Score) -> str:
    if score.outcome.reason:
        return score.outcome.reason
    return f"miss {score.miss}, over edit {score.over_edit}, wrong value {score.wrong_value}"


def turn_entries(case: Case, chain: ChainRun, scores: Sequence[Score]) -> list[dict[str, Any]]:
    """The record's ``turns``: one entry per turn run (``vocabulary.TURN_FIELDS``)."""
    entries = []
    for turn, score in zip(chain.turns, scores, strict=True):
        run = turn.run
        regressed = _regressions(case, turn)
        entries.append(
            {
                "turn": turn.index,
                "completed": score.completed,
                "valid": score.valid,
                "error": score.outcome.error,
                "reason": None if score.completed else _failure_words(score),
                "miss": score.miss,
                "over_edit": score.over_edit,
                "wrong_value": score.wrong_value,
                "calls": len(run.calls),
                "prompt_tokens": sum(c.reply.input_tokens for c in run.calls),
                "completion_tokens": sum(c.reply.output_tokens for c in run.calls),
                "cost_usd": run.cost_usd,
                "latency_s": run.latency_s,
                "patch": run.outcome.patch,
                "findings": [{**f.to_dict(), "turn": turn.index} for f in score.findings],
                "regressions": len(regressed),
                "regressed": regressed,
                "request": turn.view.request,
            }
        )
    return entries


def chain_error(turns: Sequence[Mapping[str, Any]], *, cut: bool = False) -> str | None:
    """A chain's ``error``: the turn's that failed for good (``call_failed``,
    ``method_failed``: it ended the chain, whatever earlier turns did), ``call_failed`` for a
    chain the ceiling cut, else the first turn's that is not None."""
    ended = next((t["error"] for t in turns if t["error"] in INFRASTRUCTURE_ERRORS), None)
    if ended is not None:
        return str(ended)
    if cut:
        return "call_failed"
    return next((t["error"] for t in turns if t["error"] is not None), None)


def _chain_verdict(chain: ChainRun, turns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A chain's verdict over its turns (docs/interfaces.md, "Chain records"): completed and
    valid by every turn, failure counts summed, the error, reason and findings of the turn it
    tells of (the one that failed for good, else the first not completed); a chain the ceiling
    cut is not completed, its reason naming the turn that was not run."""
    told = [i for i, t in enumerate(turns) if t["error"] in INFRASTRUCTURE_ERRORS] or [
        i for i, t in enumerate(turns) if not t["completed"]
    ]
    failed = turns[told[0]] if told else None
    reason = None if failed is None else f"turn {failed['turn']}: {failed['reason']}"
    if chain.cut is not None:
        reason = f"turn {len(turns)}: not run: {chain.cut}"
    return {
        "completed": failed is None and chain.cut is None,
        "valid": all(t["valid"] for t in turns),
        "error": chain_error(turns, cut=chain.cut is not None),
        "miss": sum(t["miss"] for t in turns),
        "over_edit": sum(t["over_edit"] for t in turns),
        "wrong_value": sum(t["wrong_value"] for t in turns),
        "reason": reason,
        "findings": [] if failed is None else failed["findings"],
        "failed_call": None if not told else chain.turns[told[0]].run.failed_call,
        "cascade_recall": None,
        "preservation": None,
        "chain": chain.protocol.name,
        "turns": turns,
        "turns_completed": next((i for i, t in enumerate(turns) if not t["completed"]), len(turns)),
        "regressions": sum(t["regressions"] for t in turns),
    }


def _chain_usage(chain: ChainRun) -> dict[str, Any]:
    """What a chain's turns spent (summed: they run one after another) and its replies, each
    naming its turn."""
    runs = [turn.run for turn in chain.turns]
    return {
        "cost_usd": chain.cost_usd,
        "latency_s": sum(run.latency_s for run in runs),
        "calls": sum(len(run.calls) for run in runs),
        "replies": [
            {**call.to_dict(), "turn": tr.index} for tr in chain.turns for call in tr.run.calls
        ],
    }


def chain_record(
    case: Case, spec: ItemNames, chain: ChainRun, scores: Sequence[Score]
) -> ResultRecord:
    """The record of a chain item (docs/interfaces.md, "Chain records"), composed: the item's
    fields, the chain's verdict and its turns, its usage, and the last turn's answer and notes
    (``selection_fallback``: whether some turn fell back)."""
    turns = turn_entries(case, chain, scores)
    notes = _notes(chain.turns[-1].run.outcome)
    fallbacks = [tr.run.outcome.selection_fallback for tr in chain.turns]
    if fallbacks[-1] is not None:
        notes["selection_fallback"] = any(bool(f) for f in fallbacks)
    return _composed(
        _item_fields(case, spec),
        notes,
        _chain_usage(chain),
        _chain_verdict(chain, turns),
        extra=CHAIN_RECORD_KEYS,
    )


def item_record(
    case: Case, spec: ItemNames, run: ChainRun, score_turn: ScoreTurn = turn_score
) -> ResultRecord:
    """The record of an item's run: a chain's (``chain_record``), or for a protocol that runs
    no chain its one turn's, scored by ``score_turn``."""
    scores = score_chain(case, run, score_turn)
    if run.protocol.chained:
        return chain_record(case, spec, run, scores)
    [turn] = run.turns
    return result_record(case, spec, turn.run, scores[0])


__all__ = [
    "RECORD_KEYS",
    "ItemNames",
    "ScoreTurn",
    "chain_error",
    "chain_record",
    "item_record",
    "result_record",
    "score_chain",
    "turn_entries",
    "turn_score",
]
