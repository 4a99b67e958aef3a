"""What the run layer takes from ``core.chain``: the turns of a chain, the teacher's patches,
the case a method sees at a turn, the free protocol's judge and the regressions of a turn.

One place for the run layer's use of the chain semantics (``run.chains`` and the estimate
import from here), so that ``core.chain`` stays the one definition of them.
"""

from __future__ import annotations

from pytest_revprop.core.chain import (
    ChainTurn,
    chain_turns,
    judge_free,
    reference_patch,
    teacher_patch,
    teacher_view,
    turn_regressions,
    turn_view,
)

__all__ = [
    "ChainTurn",
    "chain_turns",
    "judge_free",
    "reference_patch",
    "teacher_patch",
    "teacher_view",
    "turn_regressions",
    "turn_view",
]
