"""After a Ctrl-C: keep the finished results and write the reports, whatever else happens.

Two rules, used by ``run.py``'s end-of-run sequence (no pytest here):

- **A second Ctrl-C waits for the reports.** From the first Ctrl-C until the reports are
  written, ``SigintShield`` turns a further Ctrl-C into a note; only the one after that
  interrupts the writing (a way out if it hangs).
- **xdist workers hand their finished items over.** An interrupted worker puts the records of
  every method run it finished (items it ran, and items it made the calls of ahead for others)
  into ``config.workeroutput`` under ``HANDOVER_KEY``, as builtin data; the controller reads
  them from its worker nodes (``collect_handovers``) before it writes the reports, so the
  reports keep what finished in any process, reported or not.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterable
from types import FrameType, TracebackType
from typing import Any

from pytest_revprop.vocabulary import ResultRecord

HANDOVER_KEY = "revprop_finished"
"""The ``workeroutput`` entry that carries a worker's finished records to the controller."""
HANDOVER_WAIT_S = 10.0
"""How long the controller waits for its interrupted workers' records: a worker stops within
``runner.CANCEL_GRACE_S`` and then scores its finished runs."""
STOPPING_NOTE = "revprop: interrupted; stopping the model calls and writing the reports of the items that finished"
SECOND_NOTE = "revprop: still writing the reports; press Ctrl-C again to abandon them"


class SigintShield:
    """While installed (main thread only), Ctrl-C does not raise at once: the first press calls
    ``note`` with ``SECOND_NOTE``, the next one removes the shield and raises
    KeyboardInterrupt. ``install`` notes ``STOPPING_NOTE``; ``install`` and ``remove`` may be
    called more than once. Without ``note`` (an xdist worker: no terminal) nothing is shown."""

    def __init__(self, note: Callable[[str], None] | None) -> None:
        self._note = note or (lambda text: None)
        self._previous: Any = None
        self._installed = False
        self.deferred = 0
        """Ctrl-C presses received while installed."""

    def install(self) -> bool:
        """Install the shield; False when it was installed already (or off the main thread)."""
        if self._installed or threading.current_thread() is not threading.main_thread():
            return False
        previous = signal.getsignal(signal.SIGINT)
        self._previous = signal.default_int_handler if previous is None else previous
        signal.signal(signal.SIGINT, self._handle)
        self._installed = True
        self._note(STOPPING_NOTE)
        return True

    def remove(self) -> None:
        """Give Ctrl-C its previous handler back (nothing when not installed)."""
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.deferred += 1
        if self.deferred > 1:
            self.remove()
            raise KeyboardInterrupt
        self._note(SECOND_NOTE)


def drop_unlocated(error: BaseException, traceback: TracebackType | None) -> None:
    """Unlink the traceback entries that have no line number (but a traceback's first) from
    ``traceback`` and from those of the exceptions ``error`` was raised from or during.

    Python 3.11 gives an entry none (``tb_lineno`` is None) when the signal lands on an
    instruction that has no line; pytest's report of the interrupt then fails on it with a
    TypeError, and the run exits 1 with that error instead of 2 with its reports. The entries
    left are the ones a report can show."""
    _unlink_unlocated(traceback)
    seen: set[int] = set()
    chained: BaseException | None = error
    while chained is not None and id(chained) not in seen:
        seen.add(id(chained))
        _unlink_unlocated(chained.__traceback__)
        chained = chained.__cause__ or chained.__context__


def _unlink_unlocated(traceback: TracebackType | None) -> None:
    while traceback is not None:
        following = traceback.tb_next
        while following is not None and following.tb_lineno is None:
            following = following.tb_next
        traceback.tb_next = following
        traceback = following


def terminal_note(config: Any) -> Callable[[str], None]:
    """A function that writes a line to pytest's terminal at once (when it has one)."""

    def note(text: str) -> None:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(text, yellow=True)
            reporter.flush()

    return note


def hand_over(output: dict[str, Any], records: Iterable[ResultRecord]) -> None:
    """Put a worker's finished records into its ``workeroutput`` (plain dicts and lists)."""
    output[HANDOVER_KEY] = [dict(record) for record in records]


def collect_handovers(
    nodes: Iterable[Any], timeout_s: float = HANDOVER_WAIT_S
) -> list[ResultRecord]:
    """The records handed over by xdist worker ``nodes`` (``WorkerController`` objects, whose
    ``workeroutput`` execnet's receiver thread sets when the worker's session ends). Waits until
    every node has sent its output or closed its channel, at most ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    pending = list(nodes)
    records: list[ResultRecord] = []
    while pending:
        waiting = []
        for node in pending:
            output = getattr(node, "workeroutput", None)
            if isinstance(output, dict):
                records.extend(output.get(HANDOVER_KEY) or [])
            elif not _closed(node):
                waiting.append(node)
        pending = waiting
        if not pending or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    return records


def _closed(node: Any) -> bool:
    """Whether a node's channel is closed (its output, if any, has arrived before)."""
    try:
        return bool(node.channel.isclosed())
    except Exception:
        return True
