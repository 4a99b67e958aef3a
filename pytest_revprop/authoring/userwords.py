"""What the user's words fix: build checks that a turn's gold asks only what its request says.

Two mistakes a blind review of the shipped chains found in follow-ups written once for every
size (issue 43), each a check here that fails the build with the scenario, size, turn and place:

- **Unspelled names.** A strict string that a gold operation writes as an entity's name or
  label (a member in :data:`NAME_MEMBERS`: ``name``, ``description``, ``part``, ...) must be
  spelled verbatim by the request or its reference data, or be known already: in the documents
  before the turn or in the conversation's user text. Otherwise the gold holds one spelling the
  user never gave (``Felt base pad`` for "add a felt base pad"): the program makes it a
  case-insensitive pattern (``regex``) or has the request spell it.
- **Facts the size drops.** A turn that adds an array element, or swaps one (writes the
  whole element or its name anew), whose request names people, days, times or codes (a
  capitalised name, ``Wed``, ``18:00``, ``LA-195``, ``PP-FW-01``) that the document after the
  turn holds nowhere: the size's elements have no place for them, so the gold forbids what the
  user asked for. The program writes the request per size or gives the size the place.
- **Unsaid places.** A turn that inserts an array element anywhere but at the end (a service
  brought back at its old index) while the request says no place (``after``, ``before``,
  ``first``, ``in its old place``, ...; not "after all" nor "before I ..."): the gold holds
  the user to a position they never gave. The request says where, or the element goes at the
  end. Only direct insertions are read: a list a stated rule orders places its own elements.

Dates, totals and statuses a rule computes are not names: only :data:`NAME_MEMBERS` are read by
the first check, and the second reads the request's facts, not the gold's values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from pytest_revprop.authoring.scenario import ScenarioError
from pytest_revprop.util.jsonutil import iter_leaves, join_pointer, resolve, split_pointer

NAME_MEMBERS = frozenset(
    {
        "name",
        "title",
        "label",
        "description",
        "item",
        "part",
        "product",
        "task",
        "activity",
        "event",
        "stage",
        "step",
        "service",
        "component",
        "display_name",
    }
)
"""Member names whose string is an entity's name or label (what the user calls the thing)."""

_TITLE = r"(?:Dr|Prof|Mr|Ms|Mrs)\."
_WORD = r"[A-Z][a-z][A-Za-z'-]*"  # a capitalised word; acronyms (TA, BOM, API) are not names
_FACTS = (
    re.compile(r"\b\d{1,2}:\d{2}\b"),  # a time of day
    re.compile(
        r"\b(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)(?:day|sday|nesday|rsday|urday)?\b"
    ),
    re.compile(r"\b[A-Z]{1,5}(?:-[A-Z0-9]+)*-\d+\b"),  # a code: LA-195, HC-SK-090
)
_NAME = re.compile(rf"(?:{_TITLE} )?{_WORD}(?: {_WORD})*")
_SENTENCE_END = re.compile(r"(?:^|[.!?])\s*$")
_AFTER_TITLE = re.compile(rf"{_TITLE}\s*$")
_WEEKDAY_ONLY = re.compile(_FACTS[1].pattern)
_PLACE = re.compile(
    r"\b(?:(?:after|before)(?! all\b| (?:I|we|you|they|he|she|anything|everything)\b)|"
    r"between|ahead of|in front of|following|next to|first|second|third|"
    r"top|bottom|start|beginning|front|end|last|(?:old|original|former|same) (?:place|spot|"
    r"position)|in (?:its|his|her|their) place|where (?:it|they|she|he) (?:was|were|used to be))"
    r"\b",
    re.IGNORECASE,
)


def check_user_words(
    where: str,
    request: str,
    reference: Any,
    gold: Sequence[Mapping[str, Any]],
    known: Iterable[Any],
    spoken: Iterable[str],
    after: Any,
) -> None:
    """Raise :class:`ScenarioError` naming every unspelled name and dropped fact of one turn.

    ``where`` names scenario, size and turn; ``gold`` is the turn's gold (with matchers);
    ``known`` the documents the chain has shown before the turn; ``spoken`` the conversation's
    user texts; ``after`` the canonical document after the turn."""
    problems = unspelled_names(request, reference, gold, known, spoken)
    problems += dropped_facts(request, reference, gold, after, known)
    problems += unsaid_places(request, gold, after)
    if problems:
        raise ScenarioError(f"{where}: " + "; ".join(problems))


def unspelled_names(
    request: str,
    reference: Any,
    gold: Sequence[Mapping[str, Any]],
    known: Iterable[Any],
    spoken: Iterable[str] = (),
) -> list[str]:
    """One line per strict name the turn's gold writes that nobody spelled (see the module)."""
    texts = [request, *_strings(reference), *spoken]
    seen = {value for doc in known for value in _strings(doc)}
    out = []
    for pointer, value in _written_names(gold):
        if value in seen or any(value in text for text in texts):
            continue
        said = re.search(re.escape(value), request, re.IGNORECASE)
        how = f" (it says {said.group(0)!r})" if said else ""
        out.append(
            f"{pointer} holds the name {value!r}, which the request never spells{how}: make it a"
            " case-insensitive pattern (regex) or spell it in the request"
        )
    return out


def dropped_facts(
    request: str,
    reference: Any,
    gold: Sequence[Mapping[str, Any]],
    after: Any,
    known: Iterable[Any] = (),
) -> list[str]:
    """One line per added or swapped element whose request names facts that neither the
    document after the turn nor one before it (``known``) holds anywhere (see the module): a
    fact only the document before holds names what the turn replaces."""
    added = [op for op in gold if _writes_element(op)]
    if not added:
        return []
    held = json.dumps([after, reference, *known], ensure_ascii=False).casefold()
    missing = [fact for fact in request_facts(request) if fact.casefold() not in held]
    if not missing:
        return []
    how = "added" if added[0]["op"] == "add" else "swapped"
    facts = ", ".join(repr(m) for m in missing)
    return [
        f"{added[0]['path']} is {how}, but the request names {facts}, which the document after"
        " the turn holds nowhere (this size has no place for it): write the request for this"
        " size or give the size the place"
    ]


def unsaid_places(request: str, gold: Sequence[Mapping[str, Any]], after: Any) -> list[str]:
    """One line per element the gold inserts directly (not a list a rule keeps) before the end
    of its array while the request says no place for it (see the module)."""
    if _PLACE.search(request):
        return []
    inserted: dict[str, set[int]] = {}
    for op in gold:
        tokens = split_pointer(op["path"])
        if op["op"] == "add" and op.get("kind") == "direct" and tokens and tokens[-1].isdigit():
            inserted.setdefault(join_pointer(tokens[:-1]), set()).add(int(tokens[-1]))
    out = []
    for parent, indices in inserted.items():
        array = resolve(after, parent)
        if not isinstance(array, list):
            continue
        for index in sorted(indices):
            if not set(range(index, len(array))) <= indices:
                out.append(
                    f"{parent}/{index} is inserted before the end of its array, but the"
                    " request says no place for it: say where (after, before, its old place, ...)"
                    " or add it at the end"
                )
                break
    return out


def request_facts(request: str) -> list[str]:
    """The people, days, times and codes a request names, in order of first mention: times,
    weekdays, codes, and runs of capitalised words (a title such as ``Prof.`` kept with its
    name; a run's first word dropped when it starts a sentence)."""
    found: dict[str, int] = {}
    for pattern in _FACTS:
        for m in pattern.finditer(request):
            found.setdefault(m.group(0), m.start())
    for m in _NAME.finditer(request):
        words = m.group(0).split(" ")
        before = request[: m.start()]
        if _SENTENCE_END.search(before) and not _AFTER_TITLE.search(before):
            words = words[1:]
        phrase = " ".join(words)
        if phrase and not _WEEKDAY_ONLY.fullmatch(phrase):
            found.setdefault(phrase, m.start())
    return sorted(found, key=lambda fact: found[fact])


def _written_names(gold: Sequence[Mapping[str, Any]]) -> Iterator[tuple[str, str]]:
    """(pointer, string) of each strict name or label the gold writes."""
    for op in gold:
        if op["op"] not in {"add", "replace"} or op.get("match", "strict") != "strict":
            continue
        for pointer, value in iter_leaves(op["value"], op["path"]):
            tokens = split_pointer(pointer)
            if isinstance(value, str) and tokens and tokens[-1] in NAME_MEMBERS:
                yield pointer, value


def _writes_element(op: Mapping[str, Any]) -> bool:
    """Whether ``op`` adds or replaces a whole array element, or replaces an element's name
    (a swap: the element stands for another thing now)."""
    tokens = split_pointer(op["path"])
    if not tokens or op["op"] not in {"add", "replace"}:
        return False
    if tokens[-1].isdigit():
        return isinstance(op.get("value"), dict)
    return (
        op["op"] == "replace"
        and tokens[-1] in NAME_MEMBERS
        and len(tokens) > 1
        and tokens[-2].isdigit()
    )


def _strings(doc: Any) -> list[str]:
    return [value for _, value in iter_leaves(doc) if isinstance(value, str)]
