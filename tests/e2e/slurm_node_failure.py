"""A node that dies, for the Slurm end-to-end test (tests/e2e/test_slurm.py).

Loaded into every Slurm task's pytest through ``PYTEST_PLUGINS`` (the job script stays as the
docs write it), it kills the tasks that ``E2E_NODE_FAILURE`` names as a node failure would:
SIGKILL, no report. ``"3:1"`` kills task 3 once its first reply is in the response cache;
``"2:0,4:1"`` kills task 2 before its first call and task 4 after its first reply. Without the
variable, or for a task it does not name, it does nothing.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

VARIABLE = "E2E_NODE_FAILURE"


def replies_before_death(environ: dict[str, str] | os._Environ[str]) -> int | None:
    """How many replies this task caches before it dies, or None when it lives."""
    task = environ.get("SLURM_ARRAY_TASK_ID")
    for part in environ.get(VARIABLE, "").split(","):
        name, _, after = part.partition(":")
        if task is not None and name.strip() == task:
            return int(after)
    return None


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def pytest_configure(config: Any) -> None:
    after = replies_before_death(os.environ)
    if after is None:
        return
    if after <= 0:
        _die()
    from pytest_revprop.llm.cache import ResponseCache

    write = ResponseCache.write
    lock = threading.Lock()
    written = [0]

    def write_then_die(self: ResponseCache, *args: Any, **kwargs: Any) -> None:
        with lock:  # no other reply reaches the cache between the last one and the death
            write(self, *args, **kwargs)
            written[0] += 1
            if written[0] >= after:
                _die()

    ResponseCache.write = write_then_die  # type: ignore[method-assign]
