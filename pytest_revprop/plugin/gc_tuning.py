"""The garbage collector's settings while a run works.

A run allocates many short-lived containers while its live results pile up; with Python's
default thresholds the collector keeps re-scanning them. During a run, what lives for the
whole session is frozen and young objects are collected less often; afterwards the
thresholds come back, and what was frozen is unfrozen only at the very end of the session,
after pytest's own final collections (which would otherwise scan the whole heap).
"""

from __future__ import annotations

import gc

RUN_THRESHOLDS = (20_000, 20, 20)
"""Collector thresholds while the runner works (Python's defaults: 700, 10, 10)."""


class GcTuning:
    """``start()`` when the run's long-lived objects exist, ``restore()`` when the run ends,
    ``unfreeze()`` as the last cleanup of the session."""

    def __init__(self) -> None:
        self._saved: tuple[int, ...] | None = None
        self._frozen = False

    def start(self) -> None:
        """Freeze what lives now and collect young objects less often while the run works."""
        self._saved = gc.get_threshold()
        gc.freeze()
        gc.set_threshold(
            *(max(old, new) for old, new in zip(self._saved, RUN_THRESHOLDS, strict=False))
        )

    def restore(self) -> None:
        """Collect as usual again; what was frozen stays frozen until ``unfreeze``."""
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
            self._frozen = True

    def unfreeze(self) -> None:
        """Let the collector scan what was frozen again (the session's last cleanup)."""
        if self._frozen:
            gc.unfreeze()
            self._frozen = False
