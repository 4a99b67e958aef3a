"""The package as a wheel ships: every subpackage is listed in pyproject.toml (setuptools takes
the explicit list, so a new folder left out is missing from `pip install pytest-revprop`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_subpackage_is_listed_in_pyproject() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "pytest_revprop").rglob("__init__.py")
    }
    assert found - listed == set()
