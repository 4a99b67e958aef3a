"""The guessed kind (direct / cascade) of each operation a model proposes.

The rule: exactly one operation is guessed ``direct``, the one the request names best; every
other one is guessed ``cascade``. An operation is named by the request when the request states
its new value (a number in digits, with or without thousands separators, or in words up to
twenty; a date in ISO form or as "June 10" / "10 June"; a time of day; the words of a text
value, matched by their stem), or, for a removal, a word of the text it removes. The new value
counts twice as much as a word of the operation's path. Ties, and a request that names none,
go to the earliest operation: models write the requested edit first, as the prompt asks.
The annotator sees the guess next to each proposed operation and corrects it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from pytest_revprop.core.patching import PatchError, apply_operations, check_operations
from pytest_revprop.util.jsonutil import MISSING, iter_leaves, resolve, split_pointer

NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)  # fmt: skip
MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?")
MIN_STEM = 4


def guess_kinds(artifact: Any, ops: Sequence[dict[str, Any]], request: str) -> list[str]:
    """``direct`` for the one operation the request names best, ``cascade`` for the others."""
    if not ops:
        return []
    words = _words(request)
    text = request.lower()
    scores = []
    state = artifact
    for op in ops:
        scores.append(2 * _names_value(op, state, text, words) + _names_path(op, words))
        state = _after(state, op)
    best = max(range(len(ops)), key=lambda i: (scores[i], -i))
    return ["direct" if i == best else "cascade" for i in range(len(ops))]


def _after(state: Any, op: dict[str, Any]) -> Any:
    try:
        return apply_operations(state, check_operations([op]))
    except PatchError:
        return state


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _stem_in(word: str, words: Sequence[str]) -> bool:
    """``word`` or its stem (all but two letters, at least four) starts a word of ``words``."""
    if len(word) < MIN_STEM:
        return word in words
    stem = word[: max(MIN_STEM, len(word) - 2)]
    return any(w.startswith(stem) for w in words)


def _names_value(op: dict[str, Any], state: Any, text: str, words: Sequence[str]) -> int:
    if op.get("op") == "remove":
        removed = resolve(state, op.get("path", ""))
        if removed is MISSING:
            return 0
        texts = [v for _, v in iter_leaves(removed) if isinstance(v, str)]
        return int(any(_names_text(t, words) for t in texts))
    value = op.get("value")
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, int | float):
        return int(any(_has_number(form, text) for form in _number_forms(value)))
    if isinstance(value, str):
        return int(_names_date(value, text) or _names_text(value, words))
    return 0


def _number_forms(value: float) -> list[str]:
    forms = [f"{value:g}" if isinstance(value, float) else str(value)]
    if float(value).is_integer():
        whole = int(value)
        forms += [str(whole), f"{whole:,}"]
        if 0 <= whole < len(NUMBER_WORDS):
            forms.append(NUMBER_WORDS[whole])
    else:
        forms.append(f"{value:,.2f}")
    return forms


def _has_number(form: str, text: str) -> bool:
    return re.search(rf"(?<![\w.,]){re.escape(form)}(?![\w]|[.,]\d)", text) is not None


def _names_date(value: str, text: str) -> bool:
    found = _ISO_DATE.match(value)
    if found is None:
        return False
    year, month, day, hour, minute = found.groups()
    if value[:10] in text or (hour is not None and f"{hour}:{minute}" in text):
        return True
    try:
        date = dt.date(int(year), int(month), int(day))
    except ValueError:
        return False
    name = MONTHS[date.month - 1]
    return any(
        re.search(pattern, text) is not None
        for pattern in (
            rf"\b{name[:3]}\w*\.? {date.day}\b",
            rf"\b{date.day}(st|nd|rd|th)? {name[:3]}",
        )
    )


def _names_text(value: str, words: Sequence[str]) -> bool:
    return any(_stem_in(w, words) for w in _words(value) if not w.isdigit() and len(w) > 2)


def _names_path(op: dict[str, Any], words: Sequence[str]) -> int:
    try:
        tokens = split_pointer(op.get("path", ""))
    except (ValueError, AttributeError):
        return 0
    names = [w for t in tokens for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", t) if w]
    return int(any(_stem_in(n.lower(), words) for n in names if not n.isdigit() and len(n) > 2))
