"""util/checkout.py: a checkout is told apart from an installed package, and the install hint
follows (an installed package never hears `pip install -e ".[local]"`)."""

from __future__ import annotations

from pathlib import Path

from pytest_revprop.util.checkout import (
    PACKAGE_ROOT,
    extra_install_hint,
    is_project_pyproject,
    source_checkout,
)


def _package(root: Path, pyproject: str | None) -> Path:
    package = root / "pytest_revprop"
    package.mkdir(parents=True)
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return package


def test_an_installed_package_is_told_to_install_the_extra_from_the_index(tmp_path: Path) -> None:
    installed = _package(tmp_path / "site-packages", None)
    assert source_checkout(installed) is None
    assert extra_install_hint("local", installed) == 'pip install "pytest-revprop[local]"'


def test_a_checkout_is_told_to_install_itself_with_the_extra(tmp_path: Path) -> None:
    checkout = _package(tmp_path / "src", '[project]\nname = "Pytest_RevProp"\n')
    assert source_checkout(checkout) == tmp_path / "src"
    assert extra_install_hint("local", checkout) == f'pip install -e "{tmp_path / "src"}[local]"'


def test_another_project_or_a_broken_pyproject_is_not_a_checkout(tmp_path: Path) -> None:
    for name, text in [("a", '[project]\nname = "other"\n'), ("b", "[project\n"), ("c", "")]:
        assert not is_project_pyproject(_write(tmp_path / name, text)), name
    assert not is_project_pyproject(tmp_path / "missing.toml")


def test_this_suite_runs_from_the_checkout() -> None:
    assert source_checkout() == PACKAGE_ROOT.parent == Path(__file__).resolve().parents[2]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
