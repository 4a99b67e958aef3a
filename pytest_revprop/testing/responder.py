"""Scripted "models" for the fake server: they find the case and the turn of its chain that a
revision prompt shows (``locate``) and answer deterministically, varying their answer by seed
so that every method has something to combine. Tests and benchmarks use them as
``responder="pytest_revprop.testing.responder:respond"`` (or ``:attentive``).

``respond``, the fair double, ignores the prompt's wording. Per (case, turn, seed, context) it
answers, by a fixed hash: the turn's gold patch (about 60%), only its direct edits (20%), the
gold patch plus an unforced edit (10%), or prose with no patch (10%). Selection prompts get a
candidate number; reflection rounds get ``[]``. Dependency-map prompts (``dep``) get a map
built from the gold (each cascade place depends on the direct places), by the same kind of
hash: with one unknown pointer (about 20%), as prose with no map (10%), or as it is.

``attentive`` answers as ``respond`` does when the prompt asks what the shipped templates ask,
and worse, in fixed ways, when it does not (``prompt_effects``): without words that ask for
dependent changes it makes only the direct edits; asked to explain before the patch, it lists
its operations one per line in prose instead of a JSON array (``no_patch``); without the
turn's reference data it makes only the direct edits. A harmless rewording changes none of
its answers. Both doubles ask what to change when the latest request a prompt shows is an
earlier turn's (the current one was left out).

The cases come from ``REVPROP_ORACLE_CASES`` (a path), else the shipped benchmark.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from pytest_revprop.core.cases import Case
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.core.prompts import default_prompts
from pytest_revprop.testing.locate import ORACLE_CASES_ENV, Shown, locate, printed

__all__ = [
    "ORACLE_CASES_ENV",
    "attentive",
    "find_case",
    "instructions",
    "prompt_effects",
    "respond",
]

NOT_FOUND = "I cannot find the document in your message."
NO_REQUEST = "What would you like me to change in the document?"

_ASKS_DEPENDENTS = re.compile(
    r"depend|derived|recalculat|recomput|propagat|knock-on|cascad|follows? from", re.I
)
_EXPLAIN_FIRST = re.compile(
    r"\b(explain|describe|justify|reasoning)\b[^.\n]*\b(before|first|then)\b"
    r"|\b(before|first)\b[^.\n]*\b(explain|describe|justify)\b",
    re.I,
)


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else json.dumps(content)


def find_case(user_text: str) -> Case | None:
    """The turn a revision prompt shows, as a case of its own (``locate``), or None."""
    shown = locate(user_text)
    return None if shown is None else shown.view


def _bucket(*parts: Any) -> int:
    digest = hashlib.sha256(json.dumps(parts).encode()).hexdigest()
    return int(digest[:8], 16) % 100


def _gold(view: Case) -> list[dict[str, Any]]:
    return literal_gold_patch(view) or view.gold_patch


def _direct(view: Case) -> list[dict[str, Any]]:
    return [op for op, g in zip(_gold(view), view.gold, strict=True) if g.kind == "direct"]


def _revision_answer(shown: Shown, seed: int, context_key: str, direct_only: bool) -> str:
    view = shown.view
    gold = _direct(view) if direct_only else _gold(view)
    roll = _bucket(shown.key, seed, context_key)
    if roll < 60:
        return json.dumps(gold)
    if roll < 80:
        return "Here is the change:\n```json\n" + json.dumps(_direct(view)) + "\n```"
    if roll < 90:
        extra = {"op": "add", "path": "/reviewed_by_assistant", "value": True}
        return json.dumps([*gold, extra])
    return "I am not sure which values should change."


def _map_answer(shown: Shown, seed: int) -> str:
    view = shown.view
    gold = _gold(view)
    direct = [op["path"] for op, g in zip(gold, view.gold, strict=True) if g.kind == "direct"]
    cascade = [op["path"] for op, g in zip(gold, view.gold, strict=True) if g.kind == "cascade"]
    roll = _bucket(shown.key, seed, "map")
    if roll < 10 or not direct or not cascade:
        return "The total depends on the lines, I think."
    found = {path: {"depends_on": direct, "rule": "follows from the request"} for path in cascade}
    if roll < 30:
        found["/no/such/leaf"] = {"depends_on": direct, "rule": "made up"}
    return json.dumps(found)


def _context_key(shown: Shown, user: str) -> str:
    if "--- Turn" not in user:
        return "j"
    return "h" if printed(shown.view.artifact) not in user else "j+h"


def _answer(body: dict[str, Any], *, attend: bool) -> dict[str, Any]:
    messages = body.get("messages", [])
    seed = int(body.get("seed") or 0)
    system = _text(messages[0]) if messages else ""
    if system == default_prompts().render("select_system"):
        count = _text(messages[-1]).count("\nAttempt ") + _text(messages[-1]).startswith("Attempt ")
        return {"content": str(1 + seed % max(count, 1)), "reasoning": "comparing the attempts"}
    if system == default_prompts().render("dep_map_system"):
        mapped = locate(_text(messages[-1]))
        if mapped is None:
            return {"content": NOT_FOUND}
        return {"content": _map_answer(mapped, seed), "reasoning": "reading the conversation"}
    if any(m.get("role") == "assistant" for m in messages):
        return {"content": "[]", "reasoning": "nothing definite to fix"}
    user = _text(messages[-1]) if messages else ""
    shown = locate(user)
    if shown is None:
        return {"content": NOT_FOUND}
    if f"--- Turn {len(shown.view.conversation) + 1} ---" in user:
        return {"content": NO_REQUEST}  # the latest request it shows is an earlier turn's
    effects = prompt_effects(shown, "\n".join(_text(m) for m in messages)) if attend else set()
    content = _revision_answer(
        shown,
        seed,
        _context_key(shown, user),
        direct_only=bool(effects & {"no dependents asked", "no reference data"}),
    )
    if "explains first" in effects and content.startswith("["):
        content = _in_prose(json.loads(content))
    return {"content": content, "reasoning": f"thinking about {shown.key}"}


def prompt_effects(shown: Shown, prompt: str) -> set[str]:
    """How ``attentive`` departs from ``respond`` on ``prompt`` (every message's text) for the
    turn ``shown``: ``no dependents asked``, ``explains first``, ``no reference data`` (the
    module's docstring says what each does)."""
    effects = set()
    asked = instructions(shown, prompt)
    if not _ASKS_DEPENDENTS.search(asked):
        effects.add("no dependents asked")
    if _EXPLAIN_FIRST.search(asked):
        effects.add("explains first")
    reference = shown.view.reference
    if reference is not None and printed(reference) not in prompt:
        effects.add("no reference data")
    return effects


def instructions(shown: Shown, prompt: str) -> str:
    """What ``prompt`` asks, without what it shows: the conversation's user messages, the
    request and every JSON value (documents, patches, reference data) taken out."""
    for turn in shown.view.conversation:
        prompt = prompt.replace(turn.user, " ")
    prompt = prompt.replace(shown.view.request, " ")
    kept, position, decoder = [], 0, json.JSONDecoder()
    for match in re.finditer(r"[\[{]", prompt):
        if match.start() < position:
            continue
        try:
            _, end = decoder.raw_decode(prompt, match.start())
        except json.JSONDecodeError:
            continue
        kept.append(prompt[position : match.start()])
        position = end
    return "".join([*kept, prompt[position:]])


def _in_prose(patch: list[dict[str, Any]]) -> str:
    lines = "\n".join(f"- {json.dumps(op)}" for op in patch)
    return (
        "First, what the request changes and why: the value the user names changes, and the "
        "values that follow from it change with it. The operations, one per line:\n" + lines
    )


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """The fair double's answer to one chat-completion ``body`` (``content`` and
    ``reasoning``), by the kind of prompt and a hash of case, turn, seed and context."""
    return _answer(body, attend=False)


def attentive(body: dict[str, Any]) -> dict[str, Any]:
    """``respond``'s answer, changed by what the prompt asks and shows (``prompt_effects``)."""
    return _answer(body, attend=True)
