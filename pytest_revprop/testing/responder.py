"""A scripted "model" for the fake server: it recognises the case in a revision prompt and
answers deterministically, varying its answer by seed so that every method has something
to combine. Tests and benchmarks use it as ``responder="pytest_revprop.testing.responder:respond"``.

Per (case, seed, context) it answers, by a fixed hash: the gold patch (about 60%), only the
direct edit (20%), the gold patch plus an unforced edit (10%), or prose with no patch (10%).
Selection prompts get a candidate number; reflection rounds get ``[]``. Dependency-map
prompts (``dep``) get a map built from the gold (each cascade place depends on the direct
places), by the same kind of hash: with one unknown pointer (about 20%), as prose with no
map (10%), or as it is.
The cases come from ``REVPROP_ORACLE_CASES`` (a path), else the shipped benchmark.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from functools import cache
from typing import Any

from pytest_revprop.core.cases import BENCHMARK_DIR, Case, load_cases
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.core.prompts import default_prompts

ORACLE_CASES_ENV = "REVPROP_ORACLE_CASES"


@cache
def _cases(path: str) -> dict[str, list[Case]]:
    by_request: dict[str, list[Case]] = {}
    for case in load_cases([path]).cases:
        by_request.setdefault(case.request, []).append(case)
    return by_request


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else json.dumps(content)


def find_case(user_text: str) -> Case | None:
    """The case whose request and context appear in a revision prompt."""
    for request, cases in _cases(os.environ.get(ORACLE_CASES_ENV, str(BENCHMARK_DIR))).items():
        if request not in user_text:
            continue
        for case in cases:
            turns = case.conversation
            artifact = json.dumps(case.artifact, ensure_ascii=False, indent=1)
            if artifact in user_text or (
                turns
                and turns[-1].user in user_text
                and turns[0].user in user_text
                and f"--- Turn {len(turns)} ---" in user_text
                and f"--- Turn {len(turns) + 1} ---" not in user_text
            ):
                return case
    return None


def _bucket(*parts: Any) -> int:
    digest = hashlib.sha256(json.dumps(parts).encode()).hexdigest()
    return int(digest[:8], 16) % 100


def _revision_answer(case: Case, seed: int, context_key: str) -> str:
    gold = literal_gold_patch(case) or case.gold_patch
    roll = _bucket(case.id, seed, context_key)
    if roll < 60:
        return json.dumps(gold)
    if roll < 80:
        direct = [op for op, g in zip(gold, case.gold, strict=True) if g.kind == "direct"]
        return "Here is the change:\n```json\n" + json.dumps(direct) + "\n```"
    if roll < 90:
        extra = {"op": "add", "path": "/reviewed_by_assistant", "value": True}
        return json.dumps([*gold, extra])
    return "I am not sure which values should change."


def _map_answer(case: Case, seed: int) -> str:
    gold = literal_gold_patch(case) or case.gold_patch
    direct = [op["path"] for op, g in zip(gold, case.gold, strict=True) if g.kind == "direct"]
    cascade = [op["path"] for op, g in zip(gold, case.gold, strict=True) if g.kind == "cascade"]
    roll = _bucket(case.id, seed, "map")
    if roll < 10 or not direct or not cascade:
        return "The total depends on the lines, I think."
    found = {path: {"depends_on": direct, "rule": "follows from the request"} for path in cascade}
    if roll < 30:
        found["/no/such/leaf"] = {"depends_on": direct, "rule": "made up"}
    return json.dumps(found)


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """The scripted answer to one chat-completion ``body`` (``content`` and ``reasoning``), by
    the kind of prompt and a hash of case, seed and context (the module's docstring says how).
    """
    messages = body.get("messages", [])
    seed = int(body.get("seed") or 0)
    system = _text(messages[0]) if messages else ""
    if system == default_prompts().render("select_system"):
        count = _text(messages[-1]).count("\nAttempt ") + _text(messages[-1]).startswith("Attempt ")
        return {"content": str(1 + seed % max(count, 1)), "reasoning": "comparing the attempts"}
    if system == default_prompts().render("dep_map_system"):
        mapped = find_case(_text(messages[-1]))
        if mapped is None:
            return {"content": "I cannot find the document in your message."}
        return {"content": _map_answer(mapped, seed), "reasoning": "reading the conversation"}
    if any(m.get("role") == "assistant" for m in messages):
        return {"content": "[]", "reasoning": "nothing definite to fix"}
    user = _text(messages[-1]) if messages else ""
    case = find_case(user)
    if case is None:
        return {"content": "I cannot find the document in your message."}
    context_key = (
        "j"
        if "--- Turn" not in user
        else "h"
        if json.dumps(case.artifact, ensure_ascii=False, indent=1) not in user
        else "j+h"
    )
    return {
        "content": _revision_answer(case, seed, context_key),
        "reasoning": f"thinking about {case.id}",
    }
