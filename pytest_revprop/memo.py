"""The one bounded memo of the core: results remembered by key because the items of a run
ask for the same ones again (a reply's patch, a sample's artifact, a score, a cache key, a
case's gold geometry, a rendered prompt).

A ``Memo`` holds at most ``size`` values; when a new one would pass that, the value used
least recently goes. Safe to share between threads (the runner's event loop and the thread
that scores); a value is computed outside the lock, so two threads that miss the same key at
once may both compute it (the memo keeps the last). No imports of ours.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """At most ``size`` values by key, the least recently used evicted first."""

    __slots__ = ("_lock", "_values", "size")

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a memo holds at least one value")
        self.size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``, made by ``make()`` (and remembered) when it is not held."""
        with self._lock:
            values = self._values
            if key in values:
                values.move_to_end(key)
                return values[key]
        value = make()
        with self._lock:
            values[key] = value
            if len(values) > self.size:
                values.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
