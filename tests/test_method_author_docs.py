"""What a method author reads in docs/hooks.md holds: the section the gold error points to,
every field of ``Case``, the standalone fake server's config, the fair responder's answers,
and the prompts' methods under ``ctx.prompts``."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from pytest_revprop.api import Case
from pytest_revprop.core.cases import GoldHidden, select_cases
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.core.prompts import Prompts, default_prompts
from pytest_revprop.testing import FakeServer, post_json
from pytest_revprop.testing.fakeserver import options_from_config
from pytest_revprop.testing.responder import respond

HOOKS = (Path(__file__).resolve().parent.parent / "docs" / "hooks.md").read_text("utf-8")


def _section(heading: str) -> str:
    start = HOOKS.index(heading)
    end = HOOKS.find("\n#", start + len(heading))
    return HOOKS[start:end]


def test_the_gold_error_points_to_a_section_that_exists() -> None:
    case = select_cases(None, "dev", [10], None)[0].for_methods()
    with pytest.raises(GoldHidden) as caught:
        list(case.gold)
    pointed = re.search(r"docs/hooks\.md: ([\w ]+)", str(caught.value))
    assert pointed is not None
    assert f"### {pointed.group(1).capitalize()}\n" in HOOKS


def test_every_field_of_case_is_documented() -> None:
    table = _section("### What a method sees")
    documented = {name for cell in re.findall(r"^\| ([^|]+) \|", table, re.MULTILINE)
                  for name in re.findall(r"`(\w+)`", cell)}  # fmt: skip
    first_revision = {"artifact", "request", "reference", "gold", "theme", "followups"}
    assert all(isinstance(getattr(Case, name), property) for name in first_revision)
    assert {f.name for f in dataclasses.fields(Case)} | first_revision == documented


def test_the_prompt_messages_named_in_the_docs_are_methods_of_ctx_prompts() -> None:
    named = re.findall(r"`ctx\.prompts\.(\w+)\(", _section("### Prompts"))
    assert {"revision_messages", "selection_messages", "reflection_message"} <= set(named)
    assert all(callable(getattr(Prompts, name)) for name in named)
    assert not re.search(r"(?<!prompts\.)`revision_messages\(", HOOKS)


def test_the_documented_standalone_config_serves_the_fair_responder(tmp_path: Path) -> None:
    block = re.search(r"echo '(\{.*?\})' > fake\.json", HOOKS)
    assert block is not None
    assert "python -m pytest_revprop.testing.fakeserver --port 0 --config fake.json" in HOOKS
    config = tmp_path / "fake.json"
    config.write_text(block.group(1))
    case = select_cases(None, "dev", [10], None)[0]
    messages = default_prompts().revision_messages(case, "j+h")
    with FakeServer(**options_from_config(config)) as server:
        answer = post_json(
            f"{server.base_url}/chat/completions",
            {"model": "fake", "messages": messages, "seed": 0},
        )
    assert answer["choices"][0]["message"]["content"]


def test_the_fair_responder_answers_as_documented() -> None:
    prose = "I am not sure which values should change."
    assert prose in _section("## Testing your method offline")
    kinds: Counter[str] = Counter()
    for case in select_cases(None, "all", None, None):
        for seed in (0, 1, 2):
            messages = default_prompts().revision_messages(case, "j+h")
            content = respond({"messages": messages, "seed": seed})["content"]
            again = respond({"messages": messages, "seed": seed})["content"]
            assert content == again  # a fixed hash: the same answer every time
            if content == prose:
                kinds["prose"] += 1
            elif content.startswith("Here is the change"):
                kinds["direct"] += 1
            elif json.loads(content) == (literal_gold_patch(case) or case.gold_patch):
                kinds["gold"] += 1
            else:
                kinds["other"] += 1
    total = sum(kinds.values())
    assert 0.05 < kinds["prose"] / total < 0.15 and 0.5 < kinds["gold"] / total < 0.7
