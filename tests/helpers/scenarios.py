"""Scenario packages made on the fly, for tests of `revprop cases` (discovery, build, split)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_revprop.authoring import build


def scenario_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, modules: dict[str, str]
) -> Path:
    """A package of scenario modules (name -> source) that `revprop cases` discovers instead
    of the shipped ones; returns its folder (named after the package)."""
    name = "scenarios_" + re.sub(r"\W", "_", tmp_path.name)  # unique: imports are cached per name
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    for module, source in modules.items():
        (package / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(build, "SCENARIO_PACKAGE", name)
    return package


SHIPPED = (
    "from pytest_revprop.authoring.build import discover\n"
    "SCENARIOS = discover('pytest_revprop.benchmark_cases.scenarios')\n"
)
"""A module that registers every shipped scenario."""
