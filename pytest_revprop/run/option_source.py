"""Reading the plugin's options: the command line wins, then the ini file, then the default.

:func:`option_value` is the one reader of an option. An ini value goes through the option's
own parser (:mod:`pytest_revprop.run.options`), and its errors name the key and the file
instead of the option. An empty ini value counts as unset; an unknown ``revprop_...`` ini key
is an error naming the closest one (:func:`check_ini_keys`).
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from pytest_revprop.errors import UserError, one_line
from pytest_revprop.run.options import OPTIONS_BY_NAME


def check_ini_keys(unknown: Iterable[str]) -> None:
    """UserError for the first key of ``unknown`` (ini keys no plugin declares, from the ini
    file or ``-o``) that looks like ours (``revprop_...``), naming the closest option key:
    a typo would otherwise only warn and the run go on without it."""
    for key in sorted(unknown):
        if not key.lower().startswith("revprop"):
            continue
        close = difflib.get_close_matches(key.lower(), OPTIONS_BY_NAME, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else "see pytest --help for the revprop keys"
        raise UserError(f"unknown ini key {key}: {hint}")


class OptionSource(Protocol):
    """What :func:`option_value` reads: a ``pytest.Config`` (this module does not import pytest).
    Options are declared with ``default=None`` and ini keys with ``default=None``, so that None
    means "not given"."""

    def getoption(self, name: str) -> Any:
        """The command line's value of option dest ``name`` (None: not given)."""
        ...

    def getini(self, name: str) -> Any:
        """The ini file's value of key ``name`` (None: not set)."""
        ...

    @property
    def inipath(self) -> Path | None:
        """The ini file read, for messages (None: none)."""
        ...


def option_value(config: OptionSource, name: str) -> Any:
    """The value in effect of the plugin option ``name`` (its dest, e.g. ``revprop_model``): the
    command line's, else the ini file's (parsed by the option's parser), else the default.

    Raises :class:`UserError` naming the ini key and its file when the ini value is unusable."""
    option = OPTIONS_BY_NAME[name]
    given = config.getoption(name)
    if given is not None:
        return given
    raw = _read_ini(config, name)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return False if option.is_flag else option.default
    if option.parse is None:
        return bool(raw)
    text = ",".join(map(str, raw)) if isinstance(raw, list) else str(raw).strip()
    if option.path:
        text = str(_ini_folder(config) / text)
    try:
        return option.parse(text)
    except argparse.ArgumentTypeError as exc:
        raise UserError(one_line(f"{_ini_label(config, name)}: {exc}")) from None


def _read_ini(config: OptionSource, name: str) -> Any:
    """``config.getini(name)``, with pytest's own complaint about the value replaced by ours,
    which names the key and its file. pytest < 9.2 raises the ValueError of its reading of a
    flag ("invalid truth value 'maybe'") or the TypeError of a native TOML value of the wrong
    type; pytest 9.2 raises a UsageError from either (caught here by its cause, as this module
    does not import pytest)."""
    try:
        return config.getini(name)
    except Exception as exc:
        cause = exc if isinstance(exc, ValueError | TypeError) else exc.__cause__
        if isinstance(cause, ValueError) and "truth value" in str(cause):
            got = str(cause).rsplit(" ", 1)[-1]
            raise UserError(
                f"{_ini_label(config, name)}: must be true or false, got {got}"
            ) from None
        if isinstance(cause, ValueError | TypeError) and "expects" in str(cause):
            detail = str(cause)[str(cause).find("expects") :]
            raise UserError(f"{_ini_label(config, name)}: {detail}") from None
        raise


def option_label(config: OptionSource, name: str) -> str:
    """Where the value of option ``name`` comes from, for messages: ``--revprop-model``, or
    ``revprop_model in pytest.ini`` when the command line did not give it."""
    if config.getoption(name) is not None or _read_ini(config, name) in (None, ""):
        return OPTIONS_BY_NAME[name].flag
    return _ini_label(config, name)


def _ini_label(config: OptionSource, name: str) -> str:
    overrides = config.getoption("override_ini") or ()
    if any(item.split("=", 1)[0].strip() == name for item in overrides):
        return f"-o {name}"
    return f"{name} in {config.inipath.name if config.inipath else 'the ini file'}"


def _ini_folder(config: OptionSource) -> Path:
    return config.inipath.parent if config.inipath is not None else Path.cwd()
