"""One in-process run of the plugin against a fake server, for a user's own tests of a method
or a prompt (docs/hooks.md, "Testing your method offline"): ``run_revprop(pytester, server,
*options)`` runs pytest with the plugin on the test's folder and returns what a test checks,
the outcomes, the results file's rows and summary, and the requests the server received.

``pytester`` is pytest's own fixture for testing plugins (enable it with ``-p pytester``);
this module imports nothing of pytest, so it is typed by what it uses.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

__all__ = ["RevpropRun", "run_revprop"]


class _Outcome(Protocol):
    ret: Any

    def parseoutcomes(self) -> dict[str, int]: ...

    @property
    def outlines(self) -> list[str]: ...


class _Pytester(Protocol):
    @property
    def path(self) -> Path: ...

    def runpytest_inprocess(self, *args: str | Path) -> Any: ...


class _Server(Protocol):
    @property
    def base_url(self) -> str: ...

    def stats(self) -> dict[str, Any]: ...

    def reset(self) -> None: ...


@dataclass(frozen=True)
class RevpropRun:
    """What one run gave: pytest's exit status (``ret``, an int), the outcome counts
    (``{"passed": 3, "failed": 1}``), the results file's ``results`` rows and ``summary``
    rows (``data`` is the whole file), the request bodies the server received in order, the
    report folder and the run's terminal output."""

    ret: int
    outcomes: dict[str, int]
    results: list[dict[str, Any]]
    summary: list[dict[str, Any]]
    data: dict[str, Any]
    requests: list[dict[str, Any]]
    report: Path
    output: str


def run_revprop(
    pytester: _Pytester,
    server: _Server,
    *options: str,
    model: str = "openai/fake",
    report: str = "reports",
) -> RevpropRun:
    """Run the plugin in-process (``pytester.runpytest_inprocess``) with ``options`` against
    ``server`` (a ``FakeServer`` or ``FakeServerProcess``, reset first so ``requests`` holds
    this run's alone), as ``model``, its report in ``pytester.path / report``, with no
    response cache and no figures unless ``options`` ask for them. Raises AssertionError with
    the run's last lines when it wrote no results file (a usage error, say)."""
    folder = pytester.path / report
    defaults = [
        f"--revprop-model={model}",
        f"--revprop-api-base={server.base_url}",
        f"--revprop-report={folder}",
    ]
    if not _given(options, "--revprop-cache", "--revprop-no-cache"):
        defaults.append("--revprop-no-cache")
    if not _given(options, "--revprop-figures", "--revprop-no-figures"):
        defaults.append("--revprop-no-figures")
    server.reset()
    outcome: _Outcome = pytester.runpytest_inprocess(*defaults, *options)
    output = "\n".join(outcome.outlines)
    results_file = folder / "results.json"
    if not results_file.is_file():
        tail = "\n".join(outcome.outlines[-15:])
        raise AssertionError(f"the run wrote no {results_file} (exit {outcome.ret}):\n{tail}")
    data: dict[str, Any] = json.loads(results_file.read_text(encoding="utf-8"))
    try:
        outcomes = outcome.parseoutcomes()
    except ValueError:  # no summary line: nothing ran
        outcomes = {}
    return RevpropRun(
        ret=int(outcome.ret),
        outcomes=outcomes,
        results=list(data.get("results", [])),
        summary=list(data.get("summary", [])),
        data=data,
        requests=list(server.stats().get("requests", [])),
        report=folder,
        output=output,
    )


def _given(options: Sequence[str], *names: str) -> bool:
    return any(o == n or o.startswith(f"{n}=") for o in options for n in names)
