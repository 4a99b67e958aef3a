"""Snapshot tests of the `revprop synth` prompt templates (the writer's and the rewording's):
a wording change shows up as a reviewed diff (`--snapshot-update` after an intended change)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from helpers.handmade_cases import travel_case

from pytest_revprop.authoring.synth.asking import REASK_TEMPLATE
from pytest_revprop.authoring.synth.cards import example_card_text, parse_card
from pytest_revprop.authoring.synth.followups import followup_message
from pytest_revprop.authoring.synth.generate import (
    check_templates,
    request_message,
    system_message,
    turn_message,
)
from pytest_revprop.authoring.synth.paraphrase import paraphrase_messages
from pytest_revprop.core.prompts import Prompts
from pytest_revprop.errors import UserError

CARD = parse_card(example_card_text("invoice-discount"))
SO_FAR = {"client": "Harbor Lane Bakery", "currency": "USD", "line": {"hours": 12, "rate": 85}}


def test_writer_system_prompt(snapshot) -> None:
    assert system_message(CARD, Prompts()) == snapshot


@pytest.mark.parametrize("turn", [1, 3])
def test_writer_turn_prompt(snapshot, turn: int) -> None:
    assert turn_message(CARD, Prompts(), turn, SO_FAR if turn > 1 else {}) == snapshot


def test_writer_request_prompt(snapshot) -> None:
    assert request_message(CARD, Prompts(), SO_FAR) == snapshot


@pytest.mark.parametrize("listed", [False, True])
def test_writer_followup_prompt(snapshot, listed: bool) -> None:
    listing = ("The user raises the hourly rate.", "The user corrects the hours.")
    card = replace(CARD, followups=listing) if listed else replace(CARD, proposed_followups=3)
    assert followup_message(card, Prompts(), 1, SO_FAR) == snapshot


def test_reask_prompt(snapshot) -> None:
    reasons = "- the turn adds 4 primitive values; at most 3 per turn"
    assert Prompts().render(REASK_TEMPLATE, reasons=reasons, attempt="2", attempts="3") == snapshot


def test_paraphrase_prompt(snapshot) -> None:
    assert paraphrase_messages(travel_case(), Prompts()) == snapshot


def test_a_user_template_replaces_the_shipped_one(tmp_path: Path) -> None:
    (tmp_path / "synth_request.md").write_text("Ask for: $edit")
    message = request_message(CARD, Prompts(tmp_path), SO_FAR)
    assert message["content"] == f"Ask for: {CARD.edit}"


def test_a_broken_user_template_fails_before_the_run(tmp_path: Path) -> None:
    (tmp_path / "synth_system.md").write_text("Costs $ 5")
    with pytest.raises(UserError, match=r"synth_system\.md"):
        check_templates(Prompts(tmp_path))
