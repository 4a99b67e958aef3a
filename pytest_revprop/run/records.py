"""The plain records items produce: a single revision's (``result_record``) and a chain's
(``chain_record``, from its turns judged by ``score_chain``). No pytest here; the runner calls
them in the thread that asks for a record, never on its event loop. docs/interfaces.md
describes the fields.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pytest_revprop.core.cases import Case
from pytest_revprop.core.chain import judge_free, turn_regressions
from pytest_revprop.core.credit import partial_credit
from pytest_revprop.core.extraction import InvalidReply
from pytest_revprop.core.methods import MethodRun
from pytest_revprop.core.outcome import Outcome
from pytest_revprop.core.scoring import Score, apply_patch, score_outcome
from pytest_revprop.run.chains import ChainRun, TurnRun
from pytest_revprop.util.jsonutil import MISSING
from pytest_revprop.vocabulary import ResultRecord


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


def result_record(
    case: Case,
    spec: ItemNames,
    run: MethodRun,
    score: Score | None = None,
    *,
    credit: bool = True,
) -> ResultRecord:
    """The plain-data record of one item (results.json row plus what reports need).

    Composed, not restated: the verdict (completion, validity, error, reason, failure counts
    and findings) is the score's, the patch and the notes are the method's outcome, the usage
    (cost, latency, calls and their replies) is the run's, and the rest names the item and
    its case. ``score`` is ``run.score(case)`` when the caller has it already; it may be a
    score shared with items of the same final patch, so the patch comes from the run.
    Without ``credit`` (a chain's base record) the partial credit is left ``None``.
    """
    score = run.score(case) if score is None else score
    outcome = run.outcome
    recall, preservation = (None, None)
    if credit:  # a chain's turns have none
        found = partial_credit(case, score)
        recall, preservation = found.cascade_recall, found.preservation
    return {
        "case": case.id,
        "model": spec.model,
        "method": spec.method,
        "k": spec.k,
        "seed": spec.seed,
        "completed": score.completed,
        "valid": score.valid,
        "error": score.outcome.error,
        "miss": score.miss,
        "over_edit": score.over_edit,
        "wrong_value": score.wrong_value,
        "cost_usd": run.cost_usd,
        "latency_s": run.latency_s,
        "calls": len(run.calls),
        "patch": outcome.patch,
        "reason": score.outcome.reason,
        "findings": [f.to_dict() for f in score.findings],
        "selection_fallback": outcome.selection_fallback,
        "map_valid": outcome.map_valid,
        "map_edges": outcome.map_edges,
        "map_dropped": outcome.map_dropped,
        "domain": case.domain,
        "pattern": case.pattern,
        "size": case.size,
        "split": case.split,
        "request": case.request,
        "replies": [c.to_dict() for c in run.calls],
        "failed_call": run.failed_call,
        "cascade_recall": recall,
        "preservation": preservation,
    }


# ------------------------------------------------------------------------------ judging


ScoreTurn = Callable[[TurnRun], Score]
"""How the runner scores a ``teacher`` turn (a single revision on its view; it may share
scores between items)."""


def score_chain(case: Case, chain: ChainRun, score_turn: ScoreTurn | None = None) -> list[Score]:
    """Each turn's score: in ``teacher`` the turn's reply on its view (``score_turn``, default
    ``score_outcome``); in ``free`` an invalid reply's own score, else ``judge_free`` of the
    document after the turn."""
    scores = []
    for turn in chain.turns:
        if chain.protocol != "free":
            score = score_turn(turn) if score_turn else score_outcome(turn.view, turn.run.outcome)
        elif turn.after is not MISSING:
            score = judge_free(case, turn.index, turn.after)
        else:  # never scored on the view: its gold need not apply to the model's document
            score = _invalid(turn)
        scores.append(score)
    return scores


def _invalid(turn: TurnRun) -> Score:
    """The score of a ``free`` turn whose reply gave no patch, or one that does not apply to
    the document the turn started from."""
    outcome = turn.run.outcome
    if outcome.patch is not None:
        try:
            apply_patch(turn.view.artifact, outcome.patch)
        except InvalidReply as exc:
            return Score.invalid(exc, outcome.patch)
    judged = Outcome(error=outcome.error or "apply_error", reason=outcome.reason)
    return Score(completed=False, valid=False, outcome=judged)


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


def chain_record(
    case: Case, chain: ChainRun, scores: Sequence[Score], base: ResultRecord
) -> ResultRecord:
    """The record of a chain item (docs/interfaces.md, "Chain records"): ``base`` is the
    single-revision record of its last turn (the item's names, the case's fields, the last
    turn's notes); the fixed fields are made the chain's as a whole, and the chain's own are
    added. A chain the ceiling cut is not completed, with error ``call_failed`` and a reason
    naming the turn that was not run."""
    turns = turn_entries(case, chain, scores)
    failed = next((t for t in turns if not t["completed"]), None)
    first_error = next((t["error"] for t in turns if t["error"] is not None), None)
    failed_run = next(
        (tr.run for tr, t in zip(chain.turns, turns, strict=True) if not t["completed"]), None
    )
    reason = None if failed is None else f"turn {failed['turn']}: {failed['reason']}"
    if chain.cut is not None:
        first_error = first_error or "call_failed"
        reason = f"turn {len(turns)}: not run: {chain.cut}"
    completed_before = next((i for i, t in enumerate(turns) if not t["completed"]), len(turns))
    fallbacks = [tr.run.outcome.selection_fallback for tr in chain.turns]
    record: dict[str, Any] = dict(base)
    record.update(
        completed=failed is None and chain.cut is None,
        valid=all(t["valid"] for t in turns),
        error=first_error,
        miss=sum(t["miss"] for t in turns),
        over_edit=sum(t["over_edit"] for t in turns),
        wrong_value=sum(t["wrong_value"] for t in turns),
        cost_usd=chain.cost_usd,
        latency_s=sum(t["latency_s"] for t in turns),
        calls=sum(t["calls"] for t in turns),
        patch=turns[-1]["patch"],
        reason=reason,
        findings=[] if failed is None else failed["findings"],
        selection_fallback=None if fallbacks[-1] is None else any(bool(f) for f in fallbacks),
        request=case.request,
        replies=[
            {**call.to_dict(), "turn": tr.index} for tr in chain.turns for call in tr.run.calls
        ],
        failed_call=None if failed_run is None else failed_run.failed_call,
        cascade_recall=None,
        preservation=None,
        chain=chain.protocol,
        turns=turns,
        turns_completed=completed_before,
        regressions=sum(t["regressions"] for t in turns),
    )
    return record  # type: ignore[return-value]


__all__ = [
    "ItemNames",
    "ScoreTurn",
    "chain_record",
    "result_record",
    "score_chain",
    "turn_entries",
]
