"""pytest glue, the thin half: the ``--revprop-*`` options, their ini keys, and the hooks that
start a run.

The options are declared in :data:`pytest_revprop.options.PLUGIN_OPTIONS` (each with an ini key
of the same name, ``revprop_model`` for ``--revprop-model``) and read through
:func:`pytest_revprop.options.option_value`: the command line wins, then the ini file, then the
default. The per-run plugin object, the items, the summary, the reports and the exit status
live in :mod:`pytest_revprop.plugin.session`.

A run is on when ``--revprop-model`` (or the ini key ``revprop_model``) names a model. Without
one, this plugin adds nothing to a pytest run: no output, no files, no markers, no environment
variables, nothing in ``--help`` beyond its own group and ini keys.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Literal

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.options import PLUGIN_OPTIONS, option_label, option_value

DEPRECATED_ALIASES = {"--no-revprop-figures": "--revprop-no-figures"}
"""Old spellings kept for one release (until 0.2): each still works and warns once."""


def pytest_addoption(parser: pytest.Parser) -> None:
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


def _active(config: pytest.Config) -> bool:
    return bool(option_value(config, "revprop_model"))


def pytest_configure(config: pytest.Config) -> None:
    _apply_deprecated_aliases(config)
    if config.option.help:
        return
    try:
        if not _active(config):
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
    if values["revprop_update_baseline"] and values["revprop_baseline"] is None:
        raise pytest.UsageError(
            f"{option_label(config, 'revprop_update_baseline')} needs a baseline file: "
            "--revprop-baseline=FILE or revprop_baseline in the ini file"
        )
    from pytest_revprop.plugin.session import RevpropSession

    try:
        session = RevpropSession.from_config(config)
    except UserError as exc:
        raise pytest.UsageError(str(exc)) from None
    # From here on, config.getoption gives every revprop option's value in effect, wherever it
    # came from (the session's later hooks, conftest files and other plugins read it there).
    for name, value in values.items():
        setattr(config.option, name, value)
    config.pluginmanager.register(session, "revprop-session")
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_XdistHooks(session), "revprop-xdist")


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


class _XdistHooks:
    """Registered only in an xdist controller."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput["revprop_api_bases"] = self.session.worker_api_bases()

    def pytest_testnodeready(self, node: Any) -> None:
        self.session.worker_nodes.append(node)  # for the hand-over after a Ctrl-C

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", None) or {}
        if "revprop_spent_usd" in output:
            self.session.scope.worker_spent[str(node.gateway.id)] = float(
                output["revprop_spent_usd"]
            )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A benchmark run collects only its own items, unless --revprop-with-tests."""
    if (
        collection_path.is_file()
        and _active(config)
        and not option_value(config, "revprop_with_tests")
    ):
        return True
    return None


def pytest_report_header(config: pytest.Config) -> str | None:
    if not _active(config):
        return None
    session = config.pluginmanager.get_plugin("revprop-session")
    return None if session is None else str(session.header())


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """The plugin's own hooks (hookspecs.py): methods, model presets and results."""
    from pytest_revprop import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@pytest.hookimpl(tryfirst=True)
def pytest_revprop_methods(register: Any) -> None:
    """The built-in methods, registered first through the same hook as everyone's."""
    from pytest_revprop.registry import register_builtins

    register_builtins(register)
