"""The chain protocols as objects (core/protocols.py) and a turn view's identity
(core/chain.py's ``TurnView``): what each protocol starts a turn from, what a turn adds to
the conversation, how it is scored, which calls it shares, which view it probes; turn 0 is the
same view in every protocol, and a view is named by what it shows."""

from __future__ import annotations

import pytest
from helpers.order_chains import GOLD, order_chain, plain

from pytest_revprop.api import Outcome
from pytest_revprop.core.chain import chain_turns, teacher_patch, teacher_view, turn_view
from pytest_revprop.core.protocols import PROTOCOLS, Free, Off, Teacher, protocol
from pytest_revprop.core.scoring import apply_patch
from pytest_revprop.util.jsonutil import MISSING
from pytest_revprop.vocabulary import CHAIN_PROTOCOLS


def test_every_option_value_names_one_protocol_and_no_other_name_does() -> None:
    assert tuple(PROTOCOLS) == CHAIN_PROTOCOLS
    assert [type(protocol(name)) for name in CHAIN_PROTOCOLS] == [Off, Teacher, Free]
    with pytest.raises(ValueError, match="unknown chain protocol 'loop'"):
        protocol("loop")


def test_off_runs_turn_0_alone_and_the_chains_every_turn() -> None:
    case = order_chain()
    assert [s.index for s in protocol("off").steps(case, None)] == [0]
    for name in ("teacher", "free"):
        assert [s.index for s in protocol(name).steps(case, None)] == [0, 1, 2]
        assert [s.index for s in protocol(name).steps(case, 1)] == [0, 1]
    assert not protocol("off").chained and protocol("teacher").chained


def test_teacher_starts_from_the_canonical_document_and_free_from_the_model_s() -> None:
    case = order_chain()
    step = chain_turns(case)[1]
    mine = {"the": "model's own"}
    assert protocol("teacher").start(step, mine) is step.artifact
    assert protocol("free").start(step, mine) is mine


def test_a_turn_adds_the_teacher_s_patch_or_the_model_s_own() -> None:
    case = order_chain()
    step = chain_turns(case)[0]
    wrong = plain(GOLD[0])[:1]
    after = apply_patch(case.artifact, wrong)
    assert protocol("teacher").history_entry(case, step, wrong, after) == teacher_patch(case, 0)
    assert protocol("free").history_entry(case, step, wrong, after) == wrong
    assert protocol("free").history_entry(case, step, wrong, MISSING) == []


def test_free_judges_the_document_made_and_teacher_the_reply_on_its_view() -> None:
    case = order_chain()
    view = teacher_view(case, 1)
    right = plain(GOLD[1])
    after = apply_patch(view.artifact, right)
    for name in ("teacher", "free"):
        assert protocol(name).score(case, view, 1, Outcome(right), after).completed
    bad = [{"op": "replace", "path": "/nowhere/x", "value": 1}]
    score = protocol("free").score(case, view, 1, Outcome(bad), MISSING)
    assert not score.valid and score.outcome.error == "apply_error"
    assert (protocol("teacher").scoring, protocol("off").scoring) == ("single", "single")
    assert protocol("free").scoring == "free"


def test_only_free_keeps_each_method_s_calls_and_probes_no_view() -> None:
    case = order_chain()
    assert [protocol(n).shares_calls for n in CHAIN_PROTOCOLS] == [True, True, False]
    assert protocol("off").probe(case, None) is case
    assert protocol("teacher").probe(case, None) == teacher_view(case, 2)
    assert protocol("teacher").probe(case, 1) == teacher_view(case, 1)
    assert protocol("free").probe(case, None) is None


def test_turn_0_is_the_case_itself_in_every_protocol_and_later_views_are_named_by_what_they_show() -> (
    None
):
    case = order_chain()
    assert case.view_id == case.id
    assert turn_view(case, 0, case.artifact, []).view_id == case.id
    assert teacher_view(case, 0).view_id == case.id
    later = teacher_view(case, 1)
    assert later.view_id.startswith(f"{case.id}#1:") and later.turn == 1
    assert turn_view(case, 1, later.artifact, [teacher_patch(case, 0)]).view_id == later.view_id
    # the same turn after another history, or from another document, is another view
    wrong = plain(GOLD[0])[:1]
    other = turn_view(case, 1, apply_patch(case.artifact, wrong), [wrong])
    assert other.view_id != later.view_id
    assert turn_view(case, 1, case.artifact, [teacher_patch(case, 0)]).view_id != later.view_id
    assert turn_view(case, 0, later.artifact, []).view_id != case.id
