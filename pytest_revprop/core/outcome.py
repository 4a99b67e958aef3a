"""A method's outcome: its final patch, or why there is none, and the notes it carries.

The result fields are defined here once and composed everywhere after: a method returns an
:class:`Outcome`, the ``MethodRun`` of methods.py holds it with the run's calls and usage, the
``Score`` of scoring.py holds the outcome it judged, and the runner builds an item's record
from the score and the run's outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_revprop.util.jsonutil import MISSING

Patch = list[dict[str, Any]]
"""An RFC 6902 patch: a list of operation objects."""


@dataclass
class Outcome:
    """What a method returns: its final patch, or why there is none, and the notes the result
    record carries.

    ``error`` is one of ``OUTCOME_ERRORS`` when a method gives it (an invalid reply or
    ``truncated``); the runner gives the infrastructure errors ``call_failed`` and
    ``method_failed``, and scoring ``apply_error`` for a patch that does not apply. ``reason``
    says why in words. The notes are the selection's fallback (``select``) and the dependency
    map's validity and size (``dep``); None for every other method.
    """

    patch: Patch | None = None
    error: str | None = None
    reason: str | None = None
    selection_fallback: bool | None = None
    map_valid: bool | None = None
    map_edges: int | None = None
    map_dropped: int | None = None
    artifact: Any = field(default=MISSING, repr=False, compare=False)
    """The artifact ``patch`` makes, when the method has it already (``ctx.merge`` does): the
    score then applies no patch again. Left MISSING by methods, which need not know it."""
