"""The facts a text states, found mechanically: numbers, dates, times, identifiers and names.

A reworded text keeps a fact when it states the same value, however written: ``1,020.00``
and ``1020`` are one number, ``2:30 pm`` and ``14:30`` one time, ``2026-03-14`` and
``March 14, 2026`` one date; an identifier (a token with letters and digits, an underscore,
an ``@``, or in capitals, such as ``INV-2041``, ``eu-west-1``, ``USD``) and a name (a
capitalised word that does not merely start a sentence) must reappear exactly. Number words
from two to twenty count as numbers, and so do ordinals (``4th`` and ``fourth`` are 4; "first"
and "second", like "one", are left out: they are as often no number). A reworded text also
keeps the original's **relation words**, which turn a value's meaning without being a value:
before/after (earlier, later), plus/minus, more/less, at least/at most, above/below,
increase/decrease, include/exclude and the negations (not, no, never, n't), each as many
times as the original says it (``relations_changed``). The same reading decides whether a
request states the value it asks for.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_NUMBER_NAMES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)  # fmt: skip
_ORDINAL_NAMES = (
    "zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
    "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
    "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth",
)  # fmt: skip
NUMBER_WORDS = {
    word: index
    for names in (_NUMBER_NAMES, _ORDINAL_NAMES)
    for index, word in enumerate(names)
    if index >= 2 and word != "second"
}
"""Number words read as numbers, cardinal and ordinal ("fourth" is 4, as "4th" is); "one",
"first" and "second" are left out (a pronoun, an order of steps, a unit of time as often)."""

RELATION_WORDS: tuple[tuple[str, str, str], ...] = (
    # (relation, pole, pattern); the phrases of a bound come first: "no more than" is "at most"
    ("bound", "at least", r"at least|(?:no|not) (?:less|fewer) than|minimum"),
    ("bound", "at most", r"at most|(?:no|not) more than|maximum"),
    ("order", "before", r"before|beforehand|earlier|prior"),
    ("order", "after", r"after|afterwards?|later"),
    ("sign", "plus", r"plus"),
    ("sign", "minus", r"minus"),
    ("amount", "more", r"more"),
    ("amount", "less", r"less|fewer"),
    ("position", "above", r"above"),
    ("position", "below", r"below"),
    ("change", "increase", r"increas(?:e|es|ed|ing)"),
    ("change", "decrease", r"decreas(?:e|es|ed|ing)"),
    ("scope", "include", r"includ(?:e|es|ed|ing)|inclusive"),
    ("scope", "exclude", r"exclud(?:e|es|ed|ing)|exclusive"),
    ("negation", "not", r"not|no|never|cannot|\w+n['’]t"),
)
"""The relation words a rewording keeps, by the pole of a relation each stands for (words of
one pole may replace each other: "earlier" for "before"; never a word of the other pole)."""
_RELATIONS = [
    (relation, pole, re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE))
    for relation, pole, pattern in RELATION_WORDS
]

_MONTH = r"(?P<month>" + "|".join(m.capitalize() + "|" + m[:3].capitalize() for m in MONTHS) + r")"
_ISO_DATE = re.compile(
    r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?:[T ](?P<time>\d{2}:\d{2})(?::\d{2})?Z?)?\b"
)
_MONTH_DAY = re.compile(_MONTH + r"\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>\d{4})\b)?")
_DAY_MONTH = re.compile(
    r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"\b\.?(?:,?\s+(?P<y>\d{4})\b)?"
)
_TIME = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<min>\d{2}))?\s*(?P<ampm>[ap])(?:\.m\.|m\b)"
    r"|\b(?P<h24>\d{1,2}):(?P<min24>\d{2})\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./@:#+-]*[A-Za-z0-9]|[A-Za-z0-9]")
_NUMBER = re.compile(
    r"(?<![\w.])(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:st|nd|rd|th)?(?![\w])"
)
_WORD = re.compile(r"[A-Za-z]+")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:['’][a-z]+)?\b")
_OPENERS = (
    "a", "an", "and", "also", "after", "as", "at", "before", "but", "can", "could", "each",
    "every", "for", "great", "hello", "hi", "if", "in", "it", "its", "let", "let's", "my",
    "next", "no", "now", "of", "ok", "okay", "on", "our", "please", "so", "that", "the", "then",
    "these", "they", "this", "those", "to", "we", "what", "when", "where", "which", "with",
    "yes", "you", "your",
    # requests start with a verb, often right before a name ("Bill Acme for ...")
    "add", "bill", "book", "bump", "change", "charge", "create", "cut", "drop", "give",
    "include", "increase", "invoice", "keep", "list", "lower", "make", "mark", "move", "note",
    "plan", "push", "put", "raise", "record", "reduce", "remove", "schedule", "send", "set",
    "switch", "take", "update", "use",
)  # fmt: skip
SENTENCE_OPENERS = frozenset(_OPENERS)
"""Words that start sentences (and requests): there, they are never read as names."""
_SENTENCE_END = re.compile(r"[.!?:;\n\"“(]\s*$")


@dataclass
class Facts:
    """What one text states; each set holds normalised values, ``shown`` how each was written."""

    numbers: set[Decimal] = field(default_factory=set)
    dates: set[tuple[int | None, int, int]] = field(default_factory=set)
    times: set[str] = field(default_factory=set)
    identifiers: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    relations: Counter[str] = field(default_factory=Counter)
    """How many times the text says each pole of ``RELATION_WORDS``."""
    shown: dict[Any, str] = field(default_factory=dict)


def facts_of(text: str) -> Facts:
    """Every fact ``text`` states (dates and times first, so their digits are not numbers)."""
    facts = Facts()
    rest = _dates(text, facts)
    rest = _times(rest, facts)
    rest = _identifiers(rest, facts)
    _numbers(rest, facts)
    _names(rest, text, facts)
    _relations(text, facts)
    return facts


def missing_facts(original: str, reworded: str) -> list[str]:
    """The facts of ``original`` that ``reworded`` no longer states, as short phrases."""
    old, new = facts_of(original), facts_of(reworded)
    missing = [f"the number {old.shown[n]}" for n in old.numbers if n not in new.numbers]
    missing += [
        f"the date {old.shown[d]}"
        for d in old.dates
        if d not in new.dates and not (d[0] is None and any(n[1:] == d[1:] for n in new.dates))
    ]
    missing += [f"the time {old.shown[t]}" for t in old.times if t not in new.times]
    missing += [f"the identifier {i}" for i in old.identifiers if i not in new.identifiers]
    missing += [f"the name {n}" for n in old.names if n not in new.names]
    return sorted(missing, key=lambda phrase: original.find(phrase.rsplit(" ", 1)[-1]))


def relations_changed(original: str, reworded: str) -> list[str]:
    """How ``reworded`` changes the relation words of ``original``, as short phrases (say
    "after" where the original says "before"; no longer say "not"; say "minus", which the
    original does not)."""
    old, new = facts_of(original), facts_of(reworded)
    changed = []
    for relation in dict.fromkeys(r for r, _, _ in RELATION_WORDS):
        poles = [pole for r, pole, _ in RELATION_WORDS if r == relation]
        lost = [p for p in poles if old.relations[p] > new.relations[p]]
        gained = [p for p in poles if new.relations[p] > old.relations[p]]
        said = " or ".join(repr(new.shown.get(("relation", p), p)) for p in gained)
        meant = " or ".join(repr(old.shown.get(("relation", p), p)) for p in lost)
        if lost and gained:
            changed.append(f"says {said} where the original says {meant}")
        elif lost:
            changed.append(f"no longer says {meant}")
        elif gained:
            changed.append(f"says {said}, which the original does not")
    return changed


def added_numbers(original: str, reworded: str) -> list[str]:
    """Numbers ``reworded`` states that ``original`` does not (a changed or invented fact)."""
    old, new = facts_of(original), facts_of(reworded)
    allowed = set(old.numbers)
    if re.search(r"\b(one|a|an|single)\b", original, re.IGNORECASE):
        allowed.add(Decimal(1))
    return [new.shown[n] for n in sorted(new.numbers - allowed)]


def states_value(text: str, value: Any) -> bool:
    """Whether ``text`` states ``value`` (a number, or a string read as a date, a time or
    words); booleans and null are taken as stated (a request says "mark it paid")."""
    if isinstance(value, bool) or value is None:
        return True
    facts = facts_of(text)
    if isinstance(value, int | float):
        return _decimal(str(value)) in facts.numbers
    if not isinstance(value, str):
        return False
    wanted = facts_of(value)
    if wanted.dates and wanted.dates <= facts.dates:
        return True
    if wanted.times and wanted.times <= facts.times:
        return True
    return value.strip().lower() in text.lower()


def numbers_in(text: str) -> set[Decimal]:
    """The numbers ``text`` states, outside dates, times and identifiers."""
    return facts_of(text).numbers


# ------------------------------------------------------------------------------ one kind each


def _blank(text: str, match: re.Match[str]) -> str:
    return text[: match.start()] + " " * (match.end() - match.start()) + text[match.end() :]


def _dates(text: str, facts: Facts) -> str:
    for pattern in (_ISO_DATE, _MONTH_DAY, _DAY_MONTH):
        while (match := pattern.search(text)) is not None:
            parts = match.groupdict()
            month = (
                int(parts["m"]) if parts.get("m") else MONTHS.index(_month_name(parts["month"])) + 1
            )
            key = (int(parts["y"]) if parts.get("y") else None, month, int(parts["d"]))
            facts.dates.add(key)
            facts.shown.setdefault(key, match.group(0).strip())
            if parts.get("time"):
                facts.times.add(parts["time"])
                facts.shown.setdefault(parts["time"], parts["time"])
            text = _blank(text, match)
    return text


def _month_name(word: str) -> str:
    word = word.lower()
    return next(m for m in MONTHS if m.startswith(word[:3]))


def _times(text: str, facts: Facts) -> str:
    while (match := _TIME.search(text)) is not None:
        if match.group("h24") is not None:
            hour, minute = int(match.group("h24")), int(match.group("min24"))
        else:
            hour, minute = int(match.group("h")) % 12, int(match.group("min") or 0)
            if match.group("ampm").lower() == "p":
                hour += 12
        key = f"{hour:02d}:{minute:02d}"
        facts.times.add(key)
        facts.shown.setdefault(key, match.group(0).strip())
        text = _blank(text, match)
    return text


def _is_identifier(token: str) -> bool:
    has_digit = any(c.isdigit() for c in token)
    has_letter = any(c.isalpha() for c in token)
    if has_digit and has_letter:
        return not re.fullmatch(r"\d+(st|nd|rd|th)", token)
    if "_" in token or "@" in token or "://" in token:
        return True
    letters = [c for c in token if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def _identifiers(text: str, facts: Facts) -> str:
    for match in list(_TOKEN.finditer(text)):
        if _is_identifier(match.group(0)):
            facts.identifiers.add(match.group(0))
            text = _blank(text, match)
    return text


def _decimal(text: str) -> Decimal:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the patterns only pass digits
        return Decimal(0)


def _numbers(text: str, facts: Facts) -> None:
    for match in _NUMBER.finditer(text):
        value = _decimal(match.group("n"))
        facts.numbers.add(value)
        facts.shown.setdefault(value, match.group("n"))
    for match in _WORD.finditer(text):
        number = NUMBER_WORDS.get(match.group(0).lower())
        if number is not None:
            facts.numbers.add(Decimal(number))
            facts.shown.setdefault(Decimal(number), match.group(0))


def _relations(text: str, facts: Facts) -> None:
    """Count the relation words of ``text``, each phrase once (a bound's before its words)."""
    for _, pole, pattern in _RELATIONS:
        for match in pattern.finditer(text):
            facts.relations[pole] += 1
            facts.shown.setdefault(("relation", pole), match.group(0).lower())
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)


def _names(text: str, original: str, facts: Facts) -> None:
    """Names in ``text`` (other facts blanked out); sentence starts are read in ``original``."""
    matches = list(_NAME.finditer(text))
    for index, match in enumerate(matches):
        word = match.group(0)
        if word.lower() in NUMBER_WORDS or word.lower() in MONTHS:
            continue
        before = original[: match.start()]
        starts_sentence = not before.strip() or _SENTENCE_END.search(before) is not None
        in_run = (index > 0 and _adjacent(text, matches[index - 1], match)) or (
            index + 1 < len(matches) and _adjacent(text, match, matches[index + 1])
        )
        if not starts_sentence or (in_run and word.lower() not in SENTENCE_OPENERS):
            facts.names.add(word)


def _adjacent(text: str, first: re.Match[str], second: re.Match[str]) -> bool:
    return not text[first.end() : second.start()].strip()
