"""Helpers for scenario programs: dates, money, sizes, pointer lists and free-text matchers.

Scenario modules take every shared helper from here (a scenario module never imports
another). What only one scenario needs stays in its module.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from pytest_revprop.util.jsonutil import child_pointer, leaf_count

__all__ = [
    "CLEARED", "CLEARED_OR_NONE", "add_days", "all_of", "all_of_lazy", "count_word", "date_regex",
    "days_between", "dollars", "each", "leaf_breakdown", "leaf_count", "members", "money",
    "money_regex", "percent",
]  # fmt: skip

# --------------------------------------------------------------------------- dates and money


def add_days(iso_date: str, days: int) -> str:
    """``add_days("2025-03-03", 90) == "2025-06-01"``."""
    return (_dt.date.fromisoformat(iso_date) + _dt.timedelta(days=days)).isoformat()


def days_between(start: str, end: str) -> int:
    """Days from ``start`` to ``end`` (ISO dates); negative when ``end`` comes first."""
    return (_dt.date.fromisoformat(end) - _dt.date.fromisoformat(start)).days


def money(x: float) -> float:
    """Round to cents the way the cases show money (half away from zero, not banker's)."""
    cents = abs(x) * 100 + 0.5 + 1e-9
    return (1 if x >= 0 else -1) * int(cents) / 100


# --------------------------------------------------------------------------- numbers in users' words

_COUNT_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
)  # fmt: skip


def dollars(x: float) -> str:
    """An amount as a shopper writes it: ``$129`` for whole dollars, ``$27.50``, ``$1,250``."""
    return f"${x:,.0f}" if money(x) == round(x) else f"${x:,.2f}"


def count_word(n: int) -> str:
    """``2 -> "two"`` up to twelve, digits beyond."""
    return _COUNT_WORDS[n] if 0 <= n < len(_COUNT_WORDS) else str(n)


def percent(rate: float) -> str:
    """A rate as a percentage without trailing zeros: ``0.08 -> "8%"``, ``0.0725 -> "7.25%"``."""
    return f"{round(rate * 100, 4):g}%"


# --------------------------------------------------------------------------- sizes and pointers


def leaf_breakdown(doc: Any) -> dict[str, int]:
    """Leaf count per top-level member: what to trim or pad to hit an exact size."""
    if isinstance(doc, dict):
        return {child_pointer("", k): leaf_count(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return {f"/{i}": leaf_count(v) for i, v in enumerate(doc)}
    return {"": 1}


def members(prefix: str, names: str) -> list[str]:
    """Pointers to the named members of an object: ``members("/car", "company pickup_date")``."""
    return [f"{prefix}/{name}" for name in names.split()]


def each(prefix: str, count: int, names: str) -> list[str]:
    """Pointers to the named members of the first ``count`` elements of an array."""
    return [p for i in range(count) for p in members(f"{prefix}/{i}", names)]


# --------------------------------------------------------------------------- free-text matchers

CLEARED = r"^(null)?$"
"""A cleared value: null, or an empty string."""
CLEARED_OR_NONE = r"(?i)^(null|none|)$"
"""A cleared value: null, an empty string, or the word "none" in any case."""

_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def all_of(*patterns: str) -> str:
    """A regex that passes when every one of ``patterns`` occurs in the text, in any order.

    Case is ignored and ``.`` crosses lines: ``all_of("gion garden inn", "14:00")`` is
    ``(?is)^(?=.*gion garden inn)(?=.*14:00)``. Each pattern is itself a regex (``r"\\btom\\b"``);
    pass literal text through ``re.escape`` when it holds special characters.
    """
    return "(?is)^" + "".join(f"(?=.*{p})" for p in patterns)


def all_of_lazy(*patterns: str) -> str:
    """:func:`all_of` spelled with lazy scans, ``(?is)^(?=.*?p1)(?=.*?p2)``.

    It passes exactly the texts :func:`all_of` passes. The invoice scenarios' shipped cases
    carry this spelling, so they keep it; new scenarios use :func:`all_of`.
    """
    return "(?is)^" + "".join(f"(?=.*?{p})" for p in patterns)


def money_regex(amount: float) -> str:
    """A pattern for ``amount`` as people write it: optional thousands commas, optional ``.00``."""
    whole, cents = f"{amount:.2f}".split(".")
    groups: list[str] = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    body = ",?".join([whole, *groups])
    tail = r"(\.00)?" if cents == "00" else rf"\.{cents}"
    return rf"(?<![\d.,]){body}{tail}(?![\d])"


def date_regex(iso: str) -> str:
    """A pattern (to use case-insensitively) for an ISO date written as ``2025-07-01``,
    ``July 1``, ``1 July`` or ``7/1/``."""
    d = _dt.date.fromisoformat(iso)
    mon = _MONTHS[d.month - 1][:3]
    return (
        rf"({iso}|\b{mon}[a-z]*\.? 0?{d.day}(?!\d)|(?<!\d)0?{d.day}(st|nd|rd|th)? {mon}"
        rf"|(?<!\d)0?{d.month}/0?{d.day}/)"
    )
