"""How a method's calls reach a model: ``client_ask`` through a Client (cached,
de-duplicated), ``reference_ask`` without any network call (the reference solvers)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Protocol

from pytest_revprop.core.cases import Case
from pytest_revprop.core.literal import literal_gold_patch
from pytest_revprop.core.method_context import Ask, Message
from pytest_revprop.core.outcome import Patch
from pytest_revprop.llm.types import Reply, Request
from pytest_revprop.vocabulary import (
    CallRole,
)


class Completer(Protocol):
    """What methods need from a model: Client satisfies it."""

    def make_request(
        self, messages: Sequence[dict[str, str]], seed: int, structured: bool = False
    ) -> Request:
        """The request of ``messages`` at ``seed`` (a patch object asked for: ``structured``)."""
        ...

    async def complete(self, request: Request, *, priority: int = 0) -> Reply:
        """The reply to ``request``; a higher ``priority`` is sent first."""
        ...


def client_ask(completer: Completer, *, structured: bool = False) -> Ask:
    """An Ask that sends every call through ``completer`` (a Client): cached, de-duplicated.
    ``structured`` asks for a patch object in every call but the dependency map's."""

    async def ask(messages: list[Message], seed: int, role: CallRole, priority: int) -> Reply:
        request = completer.make_request(messages, seed, structured and role != "map")
        return await completer.complete(request, priority=priority)

    return ask


REFERENCE_SOLVERS = ("gold", "noop", "direct-only")
"""The models that answer without a network call: the gold patch, ``[]``, the direct ops."""
REFERENCE_ANSWERS: dict[CallRole, str] = {"select": "1", "reflect": "[]", "map": "{}"}
"""What a reference solver answers a call of each role but ``sample``, which gets the
solver's patch: the first candidate, no further change, an empty dependency map."""


def reference_ask(case: Case, solver: str, *, patch: Patch | None = None) -> Ask:
    """An Ask that answers without any network call: a ``sample`` call gets the gold patch
    (``gold``; regex values by an example), ``[]`` (``noop``) or the gold's direct operations
    (``direct-only``), or ``patch`` when it is given (a chain turn's: ``chain.reference_patch``),
    every other role its ``REFERENCE_ANSWERS`` text."""
    if solver not in REFERENCE_SOLVERS:
        raise ValueError(f"unknown reference solver {solver!r}")
    if patch is None:
        literal = literal_gold_patch(case) or case.gold_patch
        direct = [op for op, gold in zip(literal, case.gold, strict=True) if gold.kind == "direct"]
        patch = {"gold": literal, "noop": [], "direct-only": direct}[solver]
    answers: dict[CallRole, str] = {"sample": json.dumps(patch), **REFERENCE_ANSWERS}

    async def ask(messages: list[Message], seed: int, role: CallRole, priority: int) -> Reply:
        return Reply(content=answers[role], finish_reason="stop")

    return ask
