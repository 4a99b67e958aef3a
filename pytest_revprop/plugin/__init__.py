"""The pytest glue, a package: pytest loads this module (the ``pytest11`` entry point
``revprop = pytest_revprop.plugin``), which declares the ``--revprop-*`` options and their ini
keys, adds the plugin's own hooks (``hookspecs``) and registers the built-in methods.

The options are declared in :data:`pytest_revprop.run.options.PLUGIN_OPTIONS` (each with an ini key
of the same name, ``revprop_model`` for ``--revprop-model``) and read once, at configure,
through :func:`pytest_revprop.run.option_source.option_value`: the command line wins, then the ini file,
then the default. From those values it builds the run's plan (:mod:`pytest_revprop.run.plan`,
no pytest there, frozen) and registers one object per process role, as xdist does: the
controller (``controller.RevpropController``: servers, records into the sink, outputs, gate,
exit status, terminal) in the process that writes the reports, a worker
(``worker.RevpropWorker``: its runner, its spending, the hand-over after a Ctrl-C) in each
xdist worker, and in both the item hooks (``item_hooks.ItemHooks``), which stay idle in an
xdist controller since it collects nothing. Both roles build on ``role.RunRole``. The
package's other modules each do one job for them: ``items`` (the items), ``failures`` (their
failure reports), ``reports`` (what their reports carry and keep, JUnit), ``outputs`` (the
files at the end), ``exit_status`` (the exit status), ``interruption`` (Ctrl-C), ``summary``
(the terminal) and ``gc_tuning`` (the collector's thresholds during a run).

A run is on when ``--revprop-model`` (or the ini key ``revprop_model``) names a model. Without
one, this plugin adds nothing to a pytest run: no output, no files, no markers, no environment
variables, nothing in ``--help`` beyond its own group and ini keys.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import Any, Literal

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.run.option_source import check_ini_keys, option_label, option_value
from pytest_revprop.run.options import PLUGIN_OPTIONS

DEPRECATED_ALIASES = {"--no-revprop-figures": "--revprop-no-figures"}
"""Old spellings kept for one release (until 0.2): each still works and warns once."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--revprop-*`` options, each with its ini key, and the deprecated spellings."""
    group = parser.getgroup("revprop", "revision-propagation evaluation (RevPropBench)")
    for option in PLUGIN_OPTIONS:
        if option.is_flag:
            group.addoption(option.flag, action="store_true", default=None, help=option.help)
        else:
            group.addoption(
                option.flag,
                type=option.parse,
                default=None,
                metavar=option.metavar,
                help=option.help,
            )
        ini_type: Literal["bool", "string"] = "bool" if option.is_flag else "string"
        parser.addini(option.name, f"default for {option.flag}", type=ini_type, default=None)
    group.addoption(
        "--revprop-figures",
        action="store_false",
        dest="revprop_no_figures",
        default=None,
        help="write the figures and the HTML report even if the ini file sets revprop_no_figures",
    )
    for old in DEPRECATED_ALIASES:
        group.addoption(
            old, action="store_true", dest=_alias_dest(old), default=False, help=argparse.SUPPRESS
        )


def _alias_dest(old: str) -> str:
    return "revprop_deprecated_" + old.lstrip("-").replace("-", "_")


def pytest_configure(config: pytest.Config) -> None:
    """Without a model, nothing; with one, the run's plan from every option's value (read once,
    here) and the objects of this process's role. A plan the options cannot make is a usage
    error, one line."""
    _apply_deprecated_aliases(config)
    if config.option.help:
        return
    try:
        check_ini_keys(getattr(config, "_get_unknown_ini_keys", set)())
        if not option_value(config, "revprop_model"):
            return
        values = {option.name: option_value(config, option.name) for option in PLUGIN_OPTIONS}
    except UserError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.addinivalue_line("markers", "revprop: a RevPropBench evaluation item")
    # pydantic's notes on litellm's own TypedDicts, when litellm first builds their validators
    config.addinivalue_line(
        "filterwarnings",
        "ignore:Items? .* on TypedDict class '.*' (is|are) using the `ReadOnly` qualifier:UserWarning",
    )
    from pytest_revprop.core.registry import registered_through
    from pytest_revprop.plugin.controller import RevpropController
    from pytest_revprop.plugin.item_hooks import ItemHooks
    from pytest_revprop.plugin.role import RunRole
    from pytest_revprop.plugin.worker import RevpropWorker
    from pytest_revprop.run.plan import RunPlan

    in_worker = hasattr(config, "workerinput")
    try:
        registry, presets = registered_through(config.hook)
        plan = RunPlan.from_options(
            values,
            rootdir=Path(str(config.rootpath)),
            registry=registry,
            presets=presets,
            label=functools.partial(option_label, config),
        )
        baseline = None if in_worker else plan.comparable_baseline()
    except UserError as exc:
        raise pytest.UsageError(str(exc)) from None
    for line in plan.markers():
        config.addinivalue_line("markers", line)
    # config.getoption gives every revprop option's value in effect, wherever it came from,
    # for conftest files and other plugins (docs/interfaces.md); the plugin asks the plan.
    for name, value in plan.values.items():
        setattr(config.option, name, value)
    role: RunRole
    if in_worker:
        role = RevpropWorker(config, plan)
        config.pluginmanager.register(role, "revprop-worker")
    else:
        role = RevpropController(config, plan, baseline)
        config.pluginmanager.register(role, "revprop-controller")
    config.pluginmanager.register(ItemHooks(role), "revprop-items")


def _apply_deprecated_aliases(config: pytest.Config) -> None:
    """An old spelling sets its new option, with one deprecation warning (in the controller)."""
    for old, new in DEPRECATED_ALIASES.items():
        if not config.getoption(_alias_dest(old)):
            continue
        setattr(config.option, new.lstrip("-").replace("-", "_"), True)
        if not hasattr(config, "workerinput"):
            config.issue_config_time_warning(
                pytest.PytestDeprecationWarning(
                    f"{old} is deprecated and will be removed in pytest-revprop 0.2; use {new}"
                ),
                stacklevel=2,
            )


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """The plugin's own hooks (hookspecs.py): methods, model presets and results."""
    from pytest_revprop import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@pytest.hookimpl(tryfirst=True)
def pytest_revprop_methods(register: Any) -> None:
    """The built-in methods, registered first through the same hook as everyone's."""
    from pytest_revprop.core.registry import register_builtins

    register_builtins(register)
