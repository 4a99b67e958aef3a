"""A run's cases narrowed by split and size, with the messages that say what a case set has
when the options ask for something it lacks (``cases.select_cases`` uses it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from pytest_revprop.errors import UserError


class Selectable(Protocol):
    """What the narrowing reads of a case."""

    @property
    def split(self) -> str: ...

    @property
    def size(self) -> int: ...


C = TypeVar("C", bound=Selectable)


def by_split_and_size(
    cases: Sequence[C], split: str, sizes: Sequence[int] | None, where: Path | str
) -> list[C]:
    """The cases of ``split`` (``all``: every one) and ``sizes`` (None: every size). UserError
    when the split has no case (naming the splits there are) or a size has none in the split
    (naming it and the sizes there are): an option that selects nothing is not dropped quietly."""
    chosen = [c for c in cases if split == "all" or c.split == split]
    if not chosen:
        splits = sorted({c.split for c in cases})
        hint = (
            f" (the cases there are of split {', '.join(splits)}: pass "
            f"--revprop-split={splits[0]} or all)"
            if splits
            else ""
        )
        raise UserError(f"no cases under {where} for split {split!r}{hint}")
    if not sizes:
        return chosen
    there = sorted({c.size for c in chosen})
    absent = [size for size in dict.fromkeys(sizes) if size not in there]
    if absent:
        raise UserError(
            f"no case of size {', '.join(map(str, absent))} under {where} for split {split!r} "
            f"(--revprop-sizes; its sizes: {', '.join(map(str, there))})"
        )
    return [c for c in chosen if c.size in sizes]
