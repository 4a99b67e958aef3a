"""The Ctrl-C shield that lets the reports be written (the end-to-end Ctrl-C runs, plain and
under xdist, are in test_faults.py)."""

from __future__ import annotations

import signal

import pytest

from pytest_revprop.plugin.interruption import SECOND_NOTE, STOPPING_NOTE, SigintShield


def test_the_shield_notes_that_reports_come_and_a_ctrl_c_under_it_is_only_noted_the_next_interrupts() -> (
    None
):
    notes: list[str] = []
    shield = SigintShield(notes.append)
    before = signal.getsignal(signal.SIGINT)
    assert shield.install() and not shield.install()
    try:
        assert notes == [STOPPING_NOTE]
        signal.raise_signal(signal.SIGINT)
        assert notes == [STOPPING_NOTE, SECOND_NOTE]
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is before  # the shield is gone
    finally:
        shield.remove()
    assert notes == [STOPPING_NOTE, SECOND_NOTE]


def test_removing_the_shield_restores_the_handler_before_it() -> None:
    before = signal.getsignal(signal.SIGINT)
    shield = SigintShield(None)
    shield.install()
    assert signal.getsignal(signal.SIGINT) is not before
    shield.remove()
    shield.remove()
    assert signal.getsignal(signal.SIGINT) is before
