"""Bounded regular expressions for ``regex_match`` gold ops: a size guard before compiling,
and a time budget per reply when matching (docs/case-format.md, "Limits").

The ``regex`` module expands counted repeats when it compiles, so ``((a{1000}){1000}){1000}``
(23 characters) would need 10^9 units of memory; ``compile_bounded`` estimates the expanded
size from the parsed pattern first and refuses it quickly, without compiling. Matching runs
under ``REGEX_BUDGET_S`` of regex time per reply in all, so a catastrophic pattern costs a
bounded time however many gold ops use it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
import time
from collections.abc import Iterator
from typing import Any, Final

__all__ = [
    "MAX_PATTERN_CHARS",
    "MAX_PATTERN_UNITS",
    "REGEX_BUDGET_S",
    "REGEX_TIMEOUT_S",
    "RegexRefused",
    "compile_bounded",
    "regex_budget",
    "search_bounded",
]

MAX_PATTERN_CHARS: Final = 2_000
MAX_PATTERN_UNITS: Final = 100_000
"""Largest estimated expanded size (literal and class units, counted repeats multiplied)."""
REGEX_TIMEOUT_S: Final = 0.5
"""Longest one search may take (CPU time, as the ``regex`` module measures its timeout)."""
REGEX_BUDGET_S: Final = 1.0
"""Regex CPU time one reply's scoring may spend in all; past it a search counts as no match."""


class RegexRefused(ValueError):
    """A pattern that is not a valid regular expression or exceeds the size limits."""


def _units(items: Any, depth: int = 0) -> int:
    """Expanded size of a parsed ``re`` pattern (an upper bound for what ``regex`` builds)."""
    import re._constants as c  # type: ignore[import-not-found]

    if depth > 100:
        raise RegexRefused("groups nest more than 100 deep")
    total = 0
    for op, arg in items:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            low, high, body = arg
            count = low if high == c.MAXREPEAT else max(low, high)
            total += _units(body, depth + 1) * max(count, 1)
        elif op is c.SUBPATTERN:
            total += _units(arg[-1], depth + 1)
        elif op is c.BRANCH:
            total += sum(_units(branch, depth + 1) for branch in arg[1])
        elif op in (c.ASSERT, c.ASSERT_NOT):
            total += _units(arg[1], depth + 1)
        elif op is c.ATOMIC_GROUP:
            total += _units(arg, depth + 1)
        elif op is c.GROUPREF_EXISTS:
            total += sum(_units(part, depth + 1) for part in arg[1:] if part is not None)
        else:
            total += 1
        if total > MAX_PATTERN_UNITS:
            break
    return total


def _textual_units(pattern: str) -> int:
    """For syntax only ``regex`` knows: the product of every counted repeat (a crude bound)."""
    total = max(len(pattern), 1)
    for low, high in re.findall(r"\{(\d*)(?:,(\d*))?\}", pattern):
        total *= max(int(low or 0), int(high or 0), 1)
        if total > MAX_PATTERN_UNITS:
            break
    return total


@functools.lru_cache(maxsize=1024)
def compile_bounded(pattern: str) -> Any:
    """The compiled ``regex`` pattern; raises RegexRefused (invalid, too long, or expanding
    past ``MAX_PATTERN_UNITS``) before compiling anything too large."""
    import re._parser as parser  # type: ignore[import-not-found]

    import regex

    if not isinstance(pattern, str):
        raise RegexRefused("the pattern is not a string")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise RegexRefused(f"the pattern has {len(pattern)} characters (limit {MAX_PATTERN_CHARS})")
    try:
        units = _units(parser.parse(pattern))
    except (re.error, RecursionError, OverflowError, TypeError, ValueError) as exc:
        if isinstance(exc, RegexRefused):
            raise
        units = _textual_units(pattern)
    if units > MAX_PATTERN_UNITS:
        raise RegexRefused(
            f"the pattern expands to more than {MAX_PATTERN_UNITS} units when compiled"
            " (counted repeats multiply)"
        )
    try:
        return regex.compile(pattern)
    except (regex.error, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise RegexRefused(f"invalid regular expression: {exc}") from None


_BUDGET: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar(
    "regex_budget", default=None
)


@contextlib.contextmanager
def regex_budget(seconds: float = REGEX_BUDGET_S) -> Iterator[None]:
    """Searches inside share ``seconds`` of regex time (one reply's scoring)."""
    token = _BUDGET.set([seconds])
    try:
        yield
    finally:
        _BUDGET.reset(token)


def search_bounded(pattern: str, subject: str) -> bool:
    """True if ``pattern`` matches somewhere in ``subject``; False for a refused pattern, a
    search past ``REGEX_TIMEOUT_S`` or one past what is left of the reply's budget."""
    try:
        compiled = compile_bounded(pattern)
    except RegexRefused:
        return False
    budget = _BUDGET.get()
    timeout = REGEX_TIMEOUT_S if budget is None else min(REGEX_TIMEOUT_S, budget[0])
    if timeout <= 0:
        return False
    started = time.process_time()  # CPU time, as the regex module's timeout counts it (cheap)
    try:
        return compiled.search(subject, timeout=timeout) is not None
    except (TimeoutError, TypeError, ValueError):
        return False
    finally:
        if budget is not None:
            budget[0] -= time.process_time() - started
