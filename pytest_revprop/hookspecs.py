"""The hooks this plugin adds to pytest (registered by ``plugin.pytest_addhooks``).

A ``conftest.py`` or an installed plugin implements them as it does pytest's own hooks. The
markers come from pluggy (pytest's hook machinery) under pytest's project name, so this module
does not import pytest. docs/interfaces.md (Hooks) shows each in use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from pytest_revprop.core.registry import MethodRegistry
    from pytest_revprop.llm.presets import PresetRegistry

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_revprop_methods(register: MethodRegistry) -> None:
    """Register revision methods: ``register("name", async_function, uses_k=False, min_k=1,
    description="")`` or ``register(MethodSpec(...))``. Called once per process at the start
    of a run, in the plugins and the conftest.py files pytest has loaded by then (the rootdir's
    and those of the paths given); the built-ins are registered first, so a name that is
    already taken is an error naming the method."""


@hookspec
def pytest_revprop_models(register: PresetRegistry) -> None:
    """Register model presets: ``register(ModelConfig(name=..., litellm_model=..., ...))``.
    A preset's name may not be one of the shipped presets; ``[tool.revprop.models.NAME]`` in
    the configuration file still applies on top of it."""


@hookspec
def pytest_revprop_results(
    summary: list[dict[str, Any]], records: list[dict[str, Any]], config: Any
) -> None:
    """Receive a run's results once, at its end, in the controller (with or without xdist):
    ``summary`` holds the summary rows of results.json, ``records`` every item's record (the
    result row plus what samples.jsonl keeps), ``config`` the pytest config. Called after the
    reports are written; an exception is reported and costs no result."""


__all__ = ["pytest_revprop_methods", "pytest_revprop_models", "pytest_revprop_results"]
