"""The Ctrl-C shield that lets the reports be written (the end-to-end Ctrl-C runs, plain and
under xdist, are in test_faults.py)."""

from __future__ import annotations

import signal
import sys
import types

import pytest

from pytest_revprop.plugin.interruption import (
    SECOND_NOTE,
    STOPPING_NOTE,
    SigintShield,
    drop_unlocated,
)


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


def _interrupted() -> tuple[KeyboardInterrupt, types.TracebackType]:
    """A Ctrl-C's exception, raised while handling another, each traceback with an entry that
    has no line number in its middle (as Python 3.11 leaves when the signal lands on an
    instruction without one)."""

    def unlocated(following: types.TracebackType | None) -> types.TracebackType:
        entry = types.TracebackType(following, sys._getframe(), 10**6, -1)
        assert entry.tb_lineno is None
        return entry

    try:
        try:
            raise ValueError("during")
        except ValueError:
            raise KeyboardInterrupt from None
    except KeyboardInterrupt as error:
        interrupt = error
    for exc in (interrupt, interrupt.__context__):
        assert exc is not None and exc.__traceback__ is not None
        exc.__traceback__.tb_next = unlocated(types.TracebackType(None, sys._getframe(), 0, 7))
    assert interrupt.__traceback__ is not None
    return interrupt, interrupt.__traceback__


def _lines(traceback: types.TracebackType | None) -> list[int | None]:
    found = []
    while traceback is not None:
        found.append(traceback.tb_lineno)
        traceback = traceback.tb_next
    return found


def test_a_ctrl_c_whose_traceback_has_an_entry_without_a_line_is_reported_by_pytest() -> None:
    interrupt, traceback = _interrupted()
    assert None in _lines(traceback) and None in _lines(interrupt.__context__.__traceback__)
    drop_unlocated(interrupt, traceback)
    assert None not in _lines(traceback) and len(_lines(traceback)) == 2
    assert None not in _lines(interrupt.__context__.__traceback__)
    info = pytest.ExceptionInfo.from_exc_info((KeyboardInterrupt, interrupt, traceback))
    assert "KeyboardInterrupt" in str(info.getrepr(funcargs=True))
