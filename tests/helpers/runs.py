"""The one in-process run of the plugin that tests share: pytest run by ``pytester`` on a
folder of cases (split ``all``), with its response cache and reports in the test's folder,
and the results file it wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def run_revprop(
    pytester: pytest.Pytester,
    cases: Path,
    *args: str,
    report: str = "reports",
    cache: bool = True,
    figures: str | None = "--revprop-no-figures",
) -> pytest.RunResult:
    """pytest run in-process on the cases in ``cases`` with ``args``: its report in
    ``pytester.path / report``, its response cache in ``pytester.path / "cache"``
    (``cache=False``: none), ``figures`` the figures option given (None: the default)."""
    return pytester.runpytest(
        f"--revprop-cases={cases}",
        "--revprop-split=all",
        f"--revprop-cache={pytester.path / 'cache'}" if cache else "--revprop-no-cache",
        f"--revprop-report={pytester.path / report}",
        *([] if figures is None else [figures]),
        *args,
    )


def run_results(pytester: pytest.Pytester, report: str = "reports") -> dict[str, Any]:
    """The results.json a run of ``run_revprop`` wrote."""
    data: dict[str, Any] = json.loads((pytester.path / report / "results.json").read_text())
    return data
