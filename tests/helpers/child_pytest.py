"""What the pytest runs that tests start in other processes share: the test environment's own
pytest plugins switched off.

A user's install of pytest-revprop has none of them (they come with the development
dependencies), and each costs every process of a run its import: hypothesis's plugin imports
the whole of hypothesis at the end of every session (over a second of CPU), pytest-benchmark,
syrupy and anyio a few tenths more. The suite starts dozens of such processes (child runs, their
xdist workers, the docs' examples run as typed).
"""

from __future__ import annotations

DEV_PLUGINS_OFF = ("-pno:hypothesispytest", "-pno:syrupy", "-pno:benchmark", "-pno:anyio")
"""pytest's arguments that switch the development plugins off."""

DEV_PLUGINS_ADDOPTS = {"PYTEST_ADDOPTS": " ".join(DEV_PLUGINS_OFF)}
"""The same as an environment variable, for a command run as the docs type it."""

TWO_WORKERS = ["-n", "2", *DEV_PLUGINS_OFF]
"""A run on two xdist workers, each started without the development plugins (a worker takes
the run's arguments): about 1.4 s less CPU a worker."""
