"""The one bounded memo of the core: results remembered by key because the items of a run
ask for the same ones again (a reply's patch, a sample's artifact, a score, a cache key, a
case's gold geometry, a rendered prompt).

A ``Memo`` holds at most ``size`` values; when a new one would pass that, the value used
least recently goes. Safe to share between threads (the runner's event loop and the thread
that scores) without a lock: each step is one operation of ``OrderedDict`` (atomic under the
GIL), and a value evicted by another thread between two steps is simply made again. Two threads
that miss the same key at once may both make it (the memo keeps the last). No imports of ours.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """At most ``size`` values by key, the least recently used evicted first."""

    __slots__ = ("_values", "size")

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a memo holds at least one value")
        self.size = size
        self._values: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``, made by ``make()`` (and remembered) when it is not held."""
        values = self._values
        try:
            value = values[key]
        except KeyError:
            value = values[key] = make()
            if len(values) > self.size:
                with contextlib.suppress(KeyError):  # another thread emptied it meanwhile
                    values.popitem(last=False)
            return value
        try:  # noqa: SIM105 (the hit path: no context manager per call)
            values.move_to_end(key)
        except KeyError:  # another thread evicted it meanwhile
            pass
        return value

    def clear(self) -> None:
        """Forget every value."""
        self._values.clear()
