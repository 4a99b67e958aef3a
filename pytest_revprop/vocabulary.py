"""The protocol's names and the interface's constants, in one place (imports nothing of ours)."""

from __future__ import annotations

REGRESSION_EXIT = 6
"""Exit status of a run whose results regress against the baseline (plugin and `revprop compare`)."""
