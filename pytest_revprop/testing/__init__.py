"""Supported test doubles: an OpenAI-compatible fake server and scripted responders.

Use them in your own tests of prompts or methods: ``FakeServer`` speaks real HTTP on
127.0.0.1, so calls go through litellm exactly as they do against vLLM (``FakeServerProcess``
runs it in a child process; ``get_json`` and ``post_json`` read and post its endpoints, such
as ``/_stats``). ``responder`` answers revision prompts from the cases' gold like a fair
model; ``scripted_writer`` answers the prompts of ``revprop synth`` (a card's turns, its
request, the gold samples, a rewording) from a script, so a card can be tried with no model.
``run_revprop(pytester, server, *options)`` runs the plugin in-process against such a server
and returns the outcomes, the results file's rows and the requests received (``RevpropRun``).

The names are imported from their modules on first use, so importing this package costs
nothing until one is used (docs/hooks.md, "Testing your method offline").
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_revprop.testing.fakeserver import (
        FakeServer,
        FakeServerProcess,
        get_json,
        post_json,
    )
    from pytest_revprop.testing.runs import RevpropRun, run_revprop

__all__ = ["FakeServer", "FakeServerProcess", "RevpropRun", "get_json", "post_json", "run_revprop"]

_HOMES = {"RevpropRun": "runs", "run_revprop": "runs"}


def __getattr__(name: str) -> Any:
    if name in __all__:
        module = _HOMES.get(name, "fakeserver")
        return getattr(importlib.import_module(f"pytest_revprop.testing.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
