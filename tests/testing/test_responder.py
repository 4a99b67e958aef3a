"""The scripted models: both find every turn of a chain that a prompt shows, in either
protocol and every context; ``attentive`` answers as the fair double does under the shipped
prompts and a harmless rewording, and worse, in its documented ways, when a prompt drops
what the shipped ones ask or show."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_revprop.core.cases import BENCHMARK_DIR, Case, load_cases
from pytest_revprop.core.chain import teacher_view, turn_view
from pytest_revprop.core.extraction import InvalidReply, extract_patch
from pytest_revprop.core.patching import apply_operations
from pytest_revprop.core.prompts import Prompts, default_prompts
from pytest_revprop.testing.locate import locate
from pytest_revprop.testing.responder import NO_REQUEST, _direct, _gold, attentive, respond

CONTEXTS = ("j", "h", "j+h")


@cache
def chains() -> list[Case]:
    return [c for c in load_cases([str(BENCHMARK_DIR)]).cases if c.followups]


def body(messages: list[dict[str, str]], seed: int = 0) -> dict[str, Any]:
    return {"messages": messages, "seed": seed}


def patch_of(reply: dict[str, Any]) -> list[dict[str, Any]] | None:
    try:
        return extract_patch(reply["content"])
    except InvalidReply:
        return None


@pytest.mark.parametrize("index", range(0, 150, 15))
def test_every_turn_of_a_chain_is_found_in_teacher_and_in_free(index: int) -> None:
    case = chains()[index % len(chains())]
    document, history = case.artifact, []
    for turn in range(len(case.revisions)):
        for view in (
            teacher_view(case, turn) if turn else case,
            turn_view(case, turn, document, history),
        ):
            for context in CONTEXTS:
                shown = locate(default_prompts().revision_messages(view, context)[-1]["content"])
                assert shown is not None and (shown.case.id, shown.turn) == (case.id, turn)
        # free: the model made only the direct edits, so its document drifts from the canonical
        direct = _direct(turn_view(case, turn, document, history))
        document, history = apply_operations(document, direct), [*history, direct]


def test_a_follow_up_shown_on_the_original_document_gets_its_own_gold_not_turn_zeros() -> None:
    # free, the model answered turn 0 with []: turn 1 starts from the case's own artifact
    for case in chains()[:30]:
        view = turn_view(case, 1, case.artifact, [[]])
        reply = respond(body(default_prompts().revision_messages(view, "j")))
        turn_one = {op["path"] for op in _gold(teacher_view(case, 1))}
        patch = patch_of(reply)
        if patch:
            assert {op["path"] for op in patch} - {"/reviewed_by_assistant"} <= turn_one


def test_a_prompt_without_the_current_request_is_asked_what_to_change(tmp_path: Path) -> None:
    (tmp_path / "revise.md").write_text("$context\n\nPlease make the change.\n")
    prompts = Prompts(tmp_path)
    case = chains()[0]
    reply = respond(body(prompts.revision_messages(teacher_view(case, 2), "j+h")))
    assert reply["content"] == NO_REQUEST


def prompts_with_system(folder: Path, edit: Any) -> Prompts:
    folder.mkdir(exist_ok=True)
    (folder / "system.md").write_text(edit(default_prompts().render("system")))
    return Prompts(folder)


def answers(prompts: Prompts, responder: Any, seeds: range = range(2)) -> list[Any]:
    found = []
    for case in chains()[::25]:
        for turn in range(len(case.revisions)):
            view = teacher_view(case, turn) if turn else case
            for context in CONTEXTS:
                for seed in seeds:
                    messages = prompts.revision_messages(view, context)
                    found.append(responder(body(messages, seed))["content"])
    return found


def test_attentive_answers_as_the_fair_double_under_the_shipped_and_a_reworded_prompt(
    tmp_path: Path,
) -> None:
    shipped = answers(default_prompts(), respond)
    assert answers(default_prompts(), attentive) == shipped
    reworded = prompts_with_system(tmp_path, lambda s: s.replace("Your job is", "Your task is"))
    assert answers(reworded, attentive) == shipped


def test_asked_to_explain_first_it_lists_operations_in_prose_and_no_patch_is_found(
    tmp_path: Path,
) -> None:
    prose = prompts_with_system(
        tmp_path, lambda s: s + "\nFirst explain your reasoning in a short paragraph, then answer."
    )
    fair = answers(default_prompts(), respond)
    changed = answers(prose, attentive)
    for before, after in zip(fair, changed, strict=True):
        if before.startswith("["):  # a bare array: now written out in prose
            assert patch_of({"content": after}) is None and '{"op"' in after
        else:  # a fenced block or prose already: as before
            assert after == before


def test_without_words_that_ask_for_dependents_it_makes_only_the_direct_edits(
    tmp_path: Path,
) -> None:
    terse = prompts_with_system(
        tmp_path, lambda s: "Apply the user's change as a JSON Patch array; reply with it only."
    )
    for case in chains()[::10]:
        for context in CONTEXTS:
            reply = attentive(body(terse.revision_messages(case, context)))
            patch = patch_of(reply) or []
            direct = {op["path"] for op in _direct(case)} | {"/reviewed_by_assistant"}
            assert {op["path"] for op in patch} <= direct


def test_without_the_reference_data_a_substitution_gets_only_its_direct_edits(
    tmp_path: Path,
) -> None:
    (tmp_path / "context_reference.md").write_text("(details withheld)\n")
    hidden = Prompts(tmp_path)
    cases = [c for c in load_cases([str(BENCHMARK_DIR)]).cases if c.reference is not None]
    assert cases
    for case in cases[:10]:
        for seed in range(3):
            patch = patch_of(attentive(body(hidden.revision_messages(case, "j+h"), seed))) or []
            direct = {op["path"] for op in _direct(case)} | {"/reviewed_by_assistant"}
            assert {op["path"] for op in patch} <= direct


@settings(max_examples=40, deadline=None)
@given(
    index=st.integers(0, 149),
    turn=st.integers(0, 3),
    seed=st.integers(0, 50),
    context=st.sampled_from(CONTEXTS),
    cut=st.sampled_from(["none", "dependents", "explain", "reword"]),
)
def test_law_attentive_never_adds_an_operation_the_fair_double_would_not_make(
    tmp_path_factory: pytest.TempPathFactory,
    index: int,
    turn: int,
    seed: int,
    context: str,
    cut: str,
) -> None:
    case = chains()[index % len(chains())]
    turn = min(turn, len(case.revisions) - 1)
    view = teacher_view(case, turn) if turn else case
    edits = {
        "none": lambda s: s,
        "dependents": lambda s: "Reply with a JSON Patch array for the user's change only.",
        "explain": lambda s: s + "\nExplain your reasoning first, then give the patch.",
        "reword": lambda s: s.replace("Your job is", "Your task is"),
    }
    prompts = prompts_with_system(tmp_path_factory.mktemp("p"), edits[cut])
    fair = patch_of(respond(body(default_prompts().revision_messages(view, context), seed)))
    mine = patch_of(attentive(body(prompts.revision_messages(view, context), seed)))
    assert mine is None or all(op in (fair or []) for op in mine)
