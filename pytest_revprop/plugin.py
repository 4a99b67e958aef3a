"""pytest glue: options, items, xdist hand-off, summary, reports and exit status.

Everything else lives in the core modules (runner, methods, report, ...). Without
``--revprop-model`` this plugin adds nothing to a pytest run.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_revprop.errors import UserError

METHOD_CHOICES = ("j", "h", "j+h", "reflect", "or", "and", "maj", "med", "select", "all")
DEFAULT_SEEDS = "0,42,84,126,168"


# ------------------------------------------------------------------------------ option types


def _csv(value: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list")
    return items


def _methods(value: str) -> list[str]:
    items = _csv(value)
    bad = [m for m in items if m not in METHOD_CHOICES]
    if bad:
        raise argparse.ArgumentTypeError(
            f"unknown method {bad[0]!r} (choose from {', '.join(METHOD_CHOICES)})"
        )
    return items


def _ints(value: str, minimum: int, what: str) -> list[int]:
    out = []
    for item in _csv(value):
        try:
            number = int(item)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{what} must be whole numbers, got {item!r}"
            ) from None
        if number < minimum:
            raise argparse.ArgumentTypeError(f"{what} must be >= {minimum}, got {number}")
        out.append(number)
    return out


def _k_values(value: str) -> list[int]:
    return _ints(value, 1, "k")


def _seeds(value: str) -> list[int]:
    return _ints(value, 0, "seeds")


def _positive(value: str) -> int:
    return _ints(value, 1, "the value")[0]


def _existing_path(value: str) -> Path:
    path = Path(value)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such file or folder: {value}")
    return path


def _existing_dir(value: str) -> Path:
    path = _existing_path(value)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"not a folder: {value}")
    return path


def _nonneg_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {value}")
    return number


def _split(value: str) -> str:
    if value not in {"dev", "test", "all"}:
        raise argparse.ArgumentTypeError(f"split must be dev, test or all, got {value!r}")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("revprop", "revision-propagation evaluation (RevPropBench)")
    add = group.addoption
    add(
        "--revprop-model",
        type=_csv,
        default=None,
        metavar="MODEL[,MODEL...]",
        help="model preset(s) or litellm model string(s) to evaluate; without it the plugin does nothing",
    )
    add(
        "--revprop-method",
        type=_methods,
        default=["j+h"],
        metavar="METHOD[,METHOD...]",
        help=f"revision method(s): {', '.join(METHOD_CHOICES)} (default: j+h)",
    )
    add(
        "--revprop-k",
        type=_k_values,
        default=[5],
        metavar="K[,K...]",
        help="calls per method for reflect/or/and/maj/med/select; several values sweep k (default: 5)",
    )
    add(
        "--revprop-seeds",
        type=_seeds,
        default=_seeds(DEFAULT_SEEDS),
        metavar="S[,S...]",
        help=f"base seeds, one run each (default: {DEFAULT_SEEDS})",
    )
    add("--revprop-split", type=_split, default="test", help="dev, test or all (default: test)")
    add(
        "--revprop-sizes",
        type=_k_values,
        default=None,
        metavar="N[,N...]",
        help="only cases of these artifact sizes, e.g. 10,50 (default: all)",
    )
    add(
        "--revprop-cases",
        type=_existing_path,
        default=None,
        metavar="PATH",
        help="case file or folder (default: the shipped benchmark)",
    )
    add(
        "--revprop-api-base",
        type=_csv,
        default=None,
        metavar="URL[,URL...]",
        help="OpenAI-compatible server(s); several URLs are replicas of one model (default: the preset's)",
    )
    add(
        "--revprop-concurrency",
        type=_positive,
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
        type=_existing_dir,
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
        type=_positive,
        default=5,
        metavar="N",
        help="attempts per model call before it counts as failed (default: 5)",
    )
    add(
        "--revprop-timeout",
        type=_nonneg_float,
        default=None,
        metavar="S",
        help="seconds per attempt (default: sized to the output limit)",
    )
    add(
        "--revprop-retry-delay",
        type=_nonneg_float,
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
        type=_nonneg_float,
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
