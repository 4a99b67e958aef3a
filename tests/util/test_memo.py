"""The one bounded memo type (memo.py): remembers, evicts the least recently used, and gives
every thread the same value."""

from __future__ import annotations

import threading

import pytest

from pytest_revprop.util.memo import Memo


def test_a_value_is_made_once_and_the_least_recently_used_goes_first() -> None:
    memo: Memo[str, int] = Memo(2)
    made: list[str] = []

    def make(key: str) -> int:
        made.append(key)
        return len(made)

    assert memo.get("a", lambda: make("a")) == 1
    assert memo.get("b", lambda: make("b")) == 2
    assert memo.get("a", lambda: make("a")) == 1  # remembered; "a" is now the recent one
    assert memo.get("c", lambda: make("c")) == 3  # full: "b", the least recently used, goes
    assert "a" in memo and "b" not in memo and len(memo) == 2
    assert memo.get("b", lambda: make("b")) == 4
    assert made == ["a", "b", "c", "b"]
    memo.clear()
    assert len(memo) == 0


def test_a_memo_holds_at_least_one_value() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Memo(0)


def test_threads_share_it_and_the_bound_holds() -> None:
    memo: Memo[int, int] = Memo(64)

    def work(offset: int) -> None:
        for i in range(2000):
            key = (i + offset) % 100
            assert memo.get(key, lambda key=key: key * 2) == key * 2

    threads = [threading.Thread(target=work, args=(n * 7,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(memo) == 64
