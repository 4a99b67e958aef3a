"""Whether a folder is a pytest-revprop checkout: the one test of a ``pyproject.toml``, used
where a hint or a default depends on running from the project's source (``revprop cases``'s
folder, the embedded model's install hint)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

PROJECT_NAME = "pytest-revprop"
"""The distribution name, normalized (PEP 503)."""

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
"""The folder of the imported ``pytest_revprop`` package."""


def is_project_pyproject(pyproject: Path) -> bool:
    """Whether ``pyproject`` is a readable pyproject.toml whose project is pytest-revprop."""
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    name = project.get("name") if isinstance(project, dict) else None
    return isinstance(name, str) and re.sub(r"[-_.]+", "-", name).lower() == PROJECT_NAME


def source_checkout(package_root: Path = PACKAGE_ROOT) -> Path | None:
    """The checkout the package at ``package_root`` is imported from (an editable install or
    the source tree itself), or None for an installed package."""
    folder = package_root.parent
    return folder if is_project_pyproject(folder / "pyproject.toml") else None


def extra_install_hint(extra: str, package_root: Path = PACKAGE_ROOT) -> str:
    """The command that adds ``extra`` to the running install: ``pip install -e
    "CHECKOUT[extra]"`` from a checkout, ``pip install "pytest-revprop[extra]"`` otherwise."""
    checkout = source_checkout(package_root)
    if checkout is not None:
        return f'pip install -e "{checkout}[{extra}]"'
    return f'pip install "{PROJECT_NAME}[{extra}]"'
