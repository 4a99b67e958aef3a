"""Snapshot tests of the shipped prompt templates: a prompt change shows up as a reviewed diff
(`pytest tests/core/test_prompts.py --snapshot-update` after an intended change)."""

from __future__ import annotations

import pytest
from helpers.handmade_cases import invoice_case, travel_case

from pytest_revprop.core.prompts import Prompts, default_prompts
from pytest_revprop.errors import UserError


@pytest.mark.parametrize("context", ["j", "h", "j+h"])
def test_revision_prompt(snapshot, context: str) -> None:
    assert default_prompts().revision_messages(invoice_case(), context) == snapshot


def test_revision_prompt_with_reference_data(snapshot) -> None:
    case = invoice_case()
    data = case.to_dict() | {"reference": {"new_client": "Globex", "terms_days": 45}}
    from pytest_revprop.core.cases import Case

    assert default_prompts().revision_user_prompt(Case.from_dict(data), "j+h") == snapshot


def test_selection_prompt(snapshot) -> None:
    case = travel_case()
    candidates = [case.gold_patch, case.direct_patch]
    assert default_prompts().selection_messages(case, candidates) == snapshot


def test_reflection_prompt(snapshot) -> None:
    assert default_prompts().reflection_message({"total": 38.0}) == snapshot


def test_dependency_map_prompt(snapshot) -> None:
    assert default_prompts().dependency_map_messages(invoice_case()) == snapshot


def test_revision_prompt_with_the_dependency_map(snapshot) -> None:
    dependencies = "- /total <- /lines/0/amount, /lines/1/amount: sum of amounts"
    assert default_prompts().mapped_revision_messages(invoice_case(), dependencies) == snapshot


def test_broken_user_template_is_a_clear_error(tmp_path) -> None:
    (tmp_path / "system.md").write_text("Costs $ 5 per $item")
    with pytest.raises(UserError, match=r"system\.md"):
        Prompts(tmp_path)
    with pytest.raises(UserError, match="no such folder"):
        Prompts(tmp_path / "missing")


def test_an_unknown_placeholder_in_a_user_template_fails_when_the_templates_load(tmp_path) -> None:
    (tmp_path / "revise.md").write_text("$contxt\n\n$request\n", encoding="utf-8")
    with pytest.raises(UserError) as caught:
        Prompts(tmp_path)
    message = str(caught.value)
    assert "revise.md" in message and "unknown placeholder $contxt" in message
    assert "$context" in message and "\n" not in message


def test_a_misspelled_template_file_is_refused_naming_the_known_ones(tmp_path) -> None:
    (tmp_path / "sytem.md").write_text("You revise JSON.\n", encoding="utf-8")
    with pytest.raises(
        UserError, match=r"sytem\.md: unknown template name 'sytem' \(known: .*system"
    ):
        Prompts(tmp_path)


def test_the_fingerprint_names_each_template_its_source_and_hash(tmp_path) -> None:
    shipped = default_prompts().fingerprint()
    assert {f["source"] for f in shipped.values()} == {"shipped"}
    (tmp_path / "system.md").write_text("Revise the JSON, all of it.\n", encoding="utf-8")
    changed = Prompts(tmp_path).fingerprint()
    assert changed["system"]["source"] == "override"
    assert changed["system"]["sha256"] != shipped["system"]["sha256"]
    assert {k: v for k, v in changed.items() if k != "system"} == {
        k: v for k, v in shipped.items() if k != "system"
    }


def test_an_earlier_chain_turn_shows_its_request_with_its_reference_data() -> None:
    from helpers.chain_cases import cart_chain

    from pytest_revprop.core.cases import Case
    from pytest_revprop.core.chain import teacher_view

    data = cart_chain().to_dict() | {"reference": {"sku": "C", "price": 8}}
    case = Case.from_dict(data)
    prompts = default_prompts()
    # turn 0's prompt is the case's own (its reference data after the artifact, as ever)
    assert prompts.revision_messages(teacher_view(case, 0), "j+h") == prompts.revision_messages(
        case, "j+h"
    )
    details = prompts.render("context_reference", reference='{\n "sku": "C",\n "price": 8\n}')
    turn_1 = prompts.conversation_text(teacher_view(case, 1))
    number = len(case.conversation) + 1
    assert f"--- Turn {number} ---\nUser: Add one C at 8.\n{details}\nAssistant's patch: " in turn_1
    assert prompts.conversation_text(teacher_view(case, 2)).count(details) == 1  # turn 1 has none
