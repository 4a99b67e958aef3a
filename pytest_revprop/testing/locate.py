"""Which case, and which turn of its chain, a revision prompt shows: what the test doubles of
``responder`` read before they answer, as a model reads the request and the document.

A prompt names its turn by the request it asks for: the latest one it contains (a chain
turn's prompt also holds the earlier turns' requests, in its conversation, and never a later
one's). When several cases share that request (the sizes of one scenario), the document or
the conversation the prompt shows decides: the canonical document before the turn as the
prompts print it, else the case whose conversation opens and ends as the prompt's does,
else the case whose canonical document is nearest to the document the prompt shows (in
``free`` the model's own earlier replies made it).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from pytest_revprop.core.cases import BENCHMARK_DIR, Case, load_cases
from pytest_revprop.core.chain import teacher_view

ORACLE_CASES_ENV = "REVPROP_ORACLE_CASES"


@dataclass(frozen=True)
class Shown:
    """A turn a prompt shows: the chain's case, the turn's index, and the turn as a case of
    its own (``teacher_view``: the canonical document before it, its request and gold)."""

    case: Case
    turn: int
    view: Case

    @property
    def key(self) -> str:
        """What the doubles hash by: the case's id, and the turn after a ``#`` for a follow-up."""
        return self.case.id if self.turn == 0 else f"{self.case.id}#{self.turn}"


@cache
def _index(path: str) -> tuple[dict[str, list[Case]], dict[str, list[tuple[Case, int]]]]:
    """The cases by their own request, and the follow-ups (case, turn) by theirs."""
    own: dict[str, list[Case]] = {}
    later: dict[str, list[tuple[Case, int]]] = {}
    for case in load_cases([path]).cases:
        own.setdefault(case.request, []).append(case)
        for turn, revision in enumerate(case.followups, start=1):
            later.setdefault(revision.request, []).append((case, turn))
    return own, later


_VIEWS: dict[tuple[str, str, int], Case] = {}


def _view(case: Case, turn: int) -> Case:
    if turn == 0:
        return case
    key = (str(case.source), case.id, turn)
    if key not in _VIEWS:
        _VIEWS[key] = teacher_view(case, turn)
    return _VIEWS[key]


def printed(value: Any) -> str:
    """A document or reference data as the revision prompts print it (``core.prompts``)."""
    return json.dumps(value, ensure_ascii=False, indent=1)


def cases_path() -> str:
    """The cases the doubles recognise: ``REVPROP_ORACLE_CASES``, else the shipped benchmark."""
    return os.environ.get(ORACLE_CASES_ENV, str(BENCHMARK_DIR))


def requested(text: str) -> list[tuple[Case, int]]:
    """The (case, turn) pairs of the latest turn whose request ``text`` contains: the cases
    whose own request it contains, then their follow-ups' (a chain's prompt shows its earlier
    requests); else any follow-up's (a prompt without the conversation)."""
    own, later = _index(cases_path())
    found = [(case, 0) for request, cases in own.items() if request in text for case in cases]
    found += [
        (case, turn)
        for case, _ in list(found)
        for turn, revision in enumerate(case.followups, start=1)
        if revision.request in text
    ]
    if not found:
        found = [
            entry for request, entries in later.items() if request in text for entry in entries
        ]
    if not found:
        return []
    latest = max(turn for _, turn in found)
    return [(case, turn) for case, turn in found if turn == latest]


def locate(text: str) -> Shown | None:
    """The turn the revision prompt ``text`` shows (the module's docstring says how), or None
    when it contains no known request, or neither the document nor the conversation of any
    case that asks it."""
    candidates = requested(text)
    if not candidates:
        return None
    for case, turn in candidates:
        if printed(_view(case, turn).artifact) in text:
            return Shown(case, turn, _view(case, turn))
    for case, turn in candidates:
        if _conversation_shown(_view(case, turn), text):
            return Shown(case, turn, _view(case, turn))
    documents = list(_documents(text))
    if not documents:
        return None
    shown = max(documents, key=lambda doc: len(printed(doc)))
    case, turn = min(candidates, key=lambda entry: _distance(_view(*entry).artifact, shown))
    return Shown(case, turn, _view(case, turn))


def _conversation_shown(view: Case, text: str) -> bool:
    turns = view.conversation
    count = len(turns)
    return bool(
        turns
        and turns[0].user in text
        and turns[-1].user in text
        and f"--- Turn {count} ---" in text
        and f"--- Turn {count + 1} ---" not in text
    )


def _documents(text: str) -> Iterator[Any]:
    """The JSON objects that open a line of ``text`` (where the prompts print documents)."""
    decoder = json.JSONDecoder()
    position = 0
    while (start := text.find("\n{", position)) != -1:
        try:
            value, end = decoder.raw_decode(text, start + 1)
        except json.JSONDecodeError:
            position = start + 1
            continue
        if isinstance(value, dict):
            yield value
        position = end


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path with every array index as ``*``, value) of each leaf: an element added or removed
    then differs alone, not every element after it."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}/{key}")
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item, f"{path}/*")
    else:
        yield path, json.dumps(value)


def _distance(document: Any, shown: Any) -> int:
    """How many leaves differ between two documents (in one only, or with other values)."""
    ours, theirs = Counter(_leaves(document)), Counter(_leaves(shown))
    return sum(((ours - theirs) + (theirs - ours)).values())
