"""Every public name the docs give can be imported: docs/interfaces.md's list of public
modules and their names, and docs/hooks.md's names of ``pytest_revprop.api``."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _section(page: str, heading: str) -> str:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end >= 0 else None]


def _listed_names() -> list[tuple[str, list[str]]]:
    """(module, names) of each ``- `module` ...: `name`, ...`` line of the public API section."""
    section = _section("interfaces.md", "## The public API")
    listed = []
    for line in re.findall(r"^- `(pytest_revprop[\w.]*)`(.*)$", section, re.MULTILINE):
        module, rest = line
        names = re.findall(r"`(\w+)`", rest.split(":", 1)[1]) if ":" in rest else []
        listed.append((module, names))
    return listed


def test_every_public_name_interfaces_md_lists_is_importable() -> None:
    listed = _listed_names()
    modules = [module for module, _ in listed]
    assert modules == [
        "pytest_revprop.api",
        "pytest_revprop.testing",
        "pytest_revprop.testing.responder",
        "pytest_revprop.testing.scripted_writer",
    ]
    missing = []
    for module_name, names in listed:
        module = importlib.import_module(module_name)
        wanted = names or list(getattr(module, "__all__", []))
        assert wanted, f"{module_name}: no name listed"
        for name in wanted:
            namespace: dict[str, object] = {}
            try:
                exec(f"from {module_name} import {name}", namespace)  # the user's spelling
            except ImportError as exc:
                missing.append(f"{module_name}.{name}: {exc}")
    assert not missing, "\n".join(missing)


def test_the_testing_package_exports_what_it_lists() -> None:
    import pytest_revprop.testing as testing

    (names,) = [names for module, names in _listed_names() if module == "pytest_revprop.testing"]
    assert sorted(names) == sorted(testing.__all__)


def test_every_api_name_docs_hooks_md_names_is_in_the_api() -> None:
    from pytest_revprop import api

    section = _section("hooks.md", "## Your own method")
    paragraph = section.split("\n\n")[1]
    names = set(re.findall(r"`([A-Z_][A-Za-z_]+)`", paragraph))
    assert {"MethodContext", "Case", "TEMPLATE_NAMES"} <= names
    assert sorted(names - set(api.__all__) - {"Literal"}) == []
