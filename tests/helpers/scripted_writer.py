"""The scripted writer the synth tests import: the installed one
(``pytest_revprop.testing.scripted_writer``), under the names these tests use."""

from pytest_revprop.testing.scripted_writer import (
    FOLLOWUPS,
    GOLD,
    GOLD_MARK,
    REQUEST,
    TURNS,
    ScriptedWriter,
    add,
    dep,
    turn,
)
from pytest_revprop.testing.scripted_writer import writer_model as model

__all__ = [
    "FOLLOWUPS",
    "GOLD",
    "GOLD_MARK",
    "REQUEST",
    "TURNS",
    "ScriptedWriter",
    "add",
    "dep",
    "model",
    "turn",
]
