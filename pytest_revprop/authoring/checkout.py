"""Where ``revprop cases`` reads and writes: the checkout's ``benchmark_cases/``, never site-packages.

The folder is ``--out DIR`` when given, else found from the working folder: the first folder
at or above it holding ``benchmark_cases/scenarios/`` and a pyproject.toml naming
pytest-revprop, whose scenario programs must be the ones Python imports (an editable
install of that checkout). Reading outside a checkout falls back to the shipped folder.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

from pytest_revprop.core.cases import BENCHMARK_DIR
from pytest_revprop.errors import UserError
from pytest_revprop.util.checkout import PROJECT_NAME, is_project_pyproject


def find_checkout(start: Path) -> Path | None:
    """The ``benchmark_cases`` folder of the pytest-revprop checkout at or above ``start``:
    the first folder holding ``benchmark_cases/scenarios/`` and a pyproject.toml of the
    project. None outside a checkout."""
    for folder in (start, *start.parents):
        if (folder / "benchmark_cases" / "scenarios").is_dir() and is_project_pyproject(
            folder / "pyproject.toml"
        ):
            return folder / "benchmark_cases"
    return None


def inside_installed_package(path: Path) -> bool:
    """Whether ``path`` lies in an installed package (site-packages, dist-packages)."""
    resolved = path.resolve()
    if {"site-packages", "dist-packages"} & set(resolved.parts):
        return True
    roots = {Path(sysconfig.get_path(name)).resolve() for name in ("purelib", "platlib")}
    return any(resolved.is_relative_to(root) for root in roots)


def cases_folder(out: Path | None, write: bool, programs: Path) -> Path:
    """The benchmark folder a command works on: ``--out``, else the checkout's
    ``benchmark_cases`` found from the working folder, whose ``scenarios/`` must be
    ``programs`` (the scenario programs Python imports). Reading outside a checkout falls
    back to the shipped folder; writing into an installed package is refused."""
    if out is not None:
        if out.exists() and not out.is_dir():
            raise UserError(f"--out {out} is not a folder")
        target = out
    else:
        found = find_checkout(Path.cwd())
        if found is None and not write:
            return BENCHMARK_DIR
        if found is None:
            raise UserError(
                f"no {PROJECT_NAME} checkout at or above {Path.cwd()} (a folder with"
                " benchmark_cases/scenarios/ and the project's pyproject.toml): run this in a"
                " checkout, or give --out DIR"
            )
        if programs.resolve() != (found / "scenarios").resolve():
            raise UserError(
                f"the scenario programs imported are {programs}, not this checkout's: install it"
                f" with `pip install -e {found.parent}`, or give --out DIR"
            )
        target = found
    if write and inside_installed_package(target):
        raise UserError(
            f"refusing to write into an installed package: {target} (run in a {PROJECT_NAME}"
            " checkout, or give --out DIR)"
        )
    return target
