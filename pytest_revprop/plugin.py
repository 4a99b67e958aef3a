"""pytest glue, the thin half: the ``--revprop-*`` options and the hooks that start a run.

Option values are parsed by :mod:`pytest_revprop.options`; the per-run plugin object, the
items, the summary, the reports and the exit status live in :mod:`pytest_revprop.session`.
Without ``--revprop-model`` this plugin adds nothing to a pytest run.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.errors import UserError
from pytest_revprop.options import (
    METHOD_CHOICES,
    parse_api_bases,
    parse_case_ids,
    parse_concurrency,
    parse_existing_dir,
    parse_existing_path,
    parse_k_values,
    parse_max_drop,
    parse_methods,
    parse_models,
    parse_retries,
    parse_seconds,
    parse_seeds,
    parse_sizes,
    parse_split,
)

DEFAULT_SEEDS = "0,42,84,126,168"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("revprop", "revision-propagation evaluation (RevPropBench)")
    add = group.addoption
    add(
        "--revprop-model",
        type=parse_models,
        default=None,
        metavar="MODEL[,MODEL...]",
        help="model preset(s) or litellm model string(s) to evaluate; without it the plugin does nothing",
    )
    add(
        "--revprop-method",
        type=parse_methods,
        default=["j+h"],
        metavar="METHOD[,METHOD...]",
        help=f"revision method(s): {', '.join(METHOD_CHOICES)} (default: j+h)",
    )
    add(
        "--revprop-k",
        type=parse_k_values,
        default=[5],
        metavar="K[,K...]",
        help="calls per method for reflect/or/and/maj/med/select; several values sweep k (default: 5)",
    )
    add(
        "--revprop-seeds",
        type=parse_seeds,
        default=parse_seeds(DEFAULT_SEEDS),
        metavar="S[,S...]",
        help=f"base seeds, one run each (default: {DEFAULT_SEEDS})",
    )
    add(
        "--revprop-split", type=parse_split, default="test", help="dev, test or all (default: test)"
    )
    add(
        "--revprop-sizes",
        type=parse_sizes,
        default=None,
        metavar="N[,N...]",
        help="only cases of these artifact sizes, e.g. 10,50 (default: all)",
    )
    add(
        "--revprop-cases",
        type=parse_existing_path,
        default=None,
        metavar="PATH",
        help="case file or folder (default: the shipped benchmark)",
    )
    add(
        "--revprop-case",
        type=parse_case_ids,
        default=None,
        metavar="ID[,ID...]",
        help="only these cases, by id (e.g. cart-free-shipping/10), whatever their split and size; "
        "each failure's report ends with a command line that uses it",
    )
    add(
        "--revprop-api-base",
        type=parse_api_bases,
        default=None,
        metavar="URL[,URL...]",
        help="OpenAI-compatible server(s); several URLs are replicas of one model (default: the preset's)",
    )
    add(
        "--revprop-concurrency",
        type=parse_concurrency,
        default=32,
        metavar="N",
        help="model requests in flight per process (default: 32)",
    )
    add(
        "--revprop-cache",
        default=".revprop-cache",
        metavar="DIR",
        help="response cache folder, shared by all processes (default: .revprop-cache)",
    )
    add(
        "--revprop-no-cache",
        action="store_true",
        default=False,
        help="do not read or write the response cache (reruns will differ)",
    )
    add(
        "--revprop-report",
        default="reports",
        metavar="DIR",
        help="folder for results.json, samples.jsonl, summary.md and figures (default: reports)",
    )
    add(
        "--revprop-figures",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also write figures and the HTML report at the end of the run (default: on)",
    )
    add(
        "--revprop-prompts",
        type=parse_existing_dir,
        default=None,
        metavar="DIR",
        help="folder of prompt templates overriding the shipped ones, file by file",
    )
    add(
        "--revprop-structured",
        action="store_true",
        default=False,
        help="ask the server to constrain replies to a JSON Patch (structured output)",
    )
    add(
        "--revprop-retries",
        type=parse_retries,
        default=5,
        metavar="N",
        help="attempts per model call before it counts as failed (default: 5)",
    )
    add(
        "--revprop-timeout",
        type=parse_seconds,
        default=None,
        metavar="S",
        help="seconds per attempt (default: sized to the output limit)",
    )
    add(
        "--revprop-retry-delay",
        type=parse_seconds,
        default=0.5,
        metavar="S",
        help="first wait before a retry, doubled each attempt, with jitter; a 429's Retry-After wins (default: 0.5)",
    )
    add(
        "--revprop-transport",
        choices=["litellm", "direct"],
        default=None,
        help="how calls reach the server: litellm (default, as in production), or direct: a plain "
        "POST to a self-hosted OpenAI-compatible server, a tenth of litellm's CPU per call "
        "(default: $REVPROP_TRANSPORT, else litellm)",
    )
    add(
        "--revprop-baseline",
        type=Path,
        default=None,
        metavar="FILE",
        help="compare with this baseline and fail (exit 6) on a significant regression",
    )
    add(
        "--revprop-update-baseline",
        action="store_true",
        default=False,
        help="write the run's outcomes to --revprop-baseline instead of comparing",
    )
    add(
        "--revprop-max-drop",
        type=parse_max_drop,
        default=2.0,
        metavar="POINTS",
        help="completion-rate drop, in points, that the gate tolerates (default: 2)",
    )
    add(
        "--revprop-with-tests",
        action="store_true",
        default=False,
        help="also collect the project's ordinary tests (default: only the benchmark items)",
    )


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption("revprop_model", None))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "revprop: a RevPropBench evaluation item")
    if not _active(config):
        return
    # pydantic's notes on litellm's own TypedDicts, when litellm first builds their validators
    config.addinivalue_line(
        "filterwarnings",
        "ignore:Items? .* on TypedDict class '.*' (is|are) using the `ReadOnly` qualifier:UserWarning",
    )
    if config.getoption("revprop_update_baseline") and not config.getoption("revprop_baseline"):
        raise pytest.UsageError("--revprop-update-baseline needs --revprop-baseline=FILE")
    from pytest_revprop.session import RevpropSession

    try:
        session = RevpropSession.from_config(config)
    except UserError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.pluginmanager.register(session, "revprop-session")
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_XdistHooks(session), "revprop-xdist")


class _XdistHooks:
    """Registered only in an xdist controller."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput["revprop_api_bases"] = self.session.worker_api_bases()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A benchmark run collects only its own items, unless --revprop-with-tests."""
    if _active(config) and not config.getoption("revprop_with_tests") and collection_path.is_file():
        return True
    return None


def pytest_report_header(config: pytest.Config) -> str | None:
    if not _active(config):
        return None
    session = config.pluginmanager.get_plugin("revprop-session")
    return None if session is None else str(session.header())


os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
