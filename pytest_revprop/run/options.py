"""Options: the value parsers shared by the pytest plugin and the ``revprop`` commands, and the
plugin's ``--revprop-*`` options with their ini keys.

Each ``parse_*`` function is an argparse ``type=``: it returns the parsed value, or raises
:class:`argparse.ArgumentTypeError` with a message that names the value it parses and says
what is wrong with it, which argparse and pytest print as a one-line usage error after the
option's name. Options that take the same kind of value share one parser.

Every plugin option has an ini key, its name with underscores (``--revprop-model``:
``revprop_model``), so that ``[tool.pytest.ini_options]`` or ``pytest.ini`` can pin it.
:func:`~pytest_revprop.run.option_source.option_value` is the one reader of an option.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_revprop.run.sharding import parse_shard
from pytest_revprop.vocabulary import (
    BUILTIN_METHODS,
    CHAIN_PROTOCOLS,
    DEFAULT_K,
    GATE_METRICS,
    METHOD_NAME_PATTERN,
    METHOD_SETS,
    PAPER_SEEDS,
    SPLITS,
    TRANSPORTS,
)

METHOD_CHOICES = (*BUILTIN_METHODS, *METHOD_SETS)
"""The built-in method names and ``all``; a run also knows the methods registered through
the ``pytest_revprop_methods`` hook, and checks names against all of them."""
METHOD_NAME = re.compile(METHOD_NAME_PATTERN)
SPLIT_CHOICES = (*SPLITS, "all")
MAX_PORT = 65535


# ------------------------------------------------------------------------------ lists of names


def parse_models(text: str) -> list[str]:
    """Model presets or litellm model strings, comma-separated."""
    return _names(text, "models")


def parse_api_bases(text: str) -> list[str]:
    """OpenAI-compatible API base URLs, comma-separated."""
    return _names(text, "API bases")


def parse_case_ids(text: str) -> list[str]:
    """Case ids (``SCENARIO/SIZE``, as item names spell them), comma-separated."""
    return _names(text, "case ids")


def parse_methods(text: str) -> list[str]:
    """Revision method names, comma-separated (letters, digits and ``_ . + -``). Whether each
    is a method is known only once the registered methods are (the run checks it)."""
    methods = _names(text, "methods")
    bad = [m for m in methods if not METHOD_NAME.match(m)]
    if bad:
        raise argparse.ArgumentTypeError(
            f"method names use letters, digits and _ . + -, got {bad[0]!r}"
        )
    return methods


def _one_of(text: str, choices: Sequence[str], what: str) -> str:
    if text not in choices:
        listed = ", ".join(choices[:-1]) + " or " + choices[-1]
        raise argparse.ArgumentTypeError(f"{what} must be {listed}, got {text!r}")
    return text


def parse_split(text: str) -> str:
    """The benchmark split: one of :data:`SPLIT_CHOICES`."""
    return _one_of(text, SPLIT_CHOICES, "split")


def parse_transport(text: str) -> str:
    """How model calls reach the server: one of :data:`~pytest_revprop.vocabulary.TRANSPORTS`."""
    return _one_of(text, TRANSPORTS, "transport")


def parse_gate_metric(text: str) -> str:
    """What the baseline gate compares: one of :data:`~pytest_revprop.vocabulary.GATE_METRICS`."""
    return _one_of(text, GATE_METRICS, "gate metric")


def parse_chain(text: str) -> str:
    """The chain protocol (``--revprop-chain``): ``off``, ``teacher`` or ``free``."""
    return _one_of(text, CHAIN_PROTOCOLS, "chain protocol")


def parse_turns(text: str) -> int:
    """The follow-ups a chain runs at most (``--revprop-turns``): a whole number, at least 0."""
    return _whole_number(text, "turns", minimum=0)


# ------------------------------------------------------------------------------ whole numbers


def parse_k_values(text: str) -> list[int]:
    """Calls per method (k), comma-separated, each at least 1."""
    return _whole_numbers(text, "k", minimum=1)


def parse_seeds(text: str) -> list[int]:
    """Base seeds, comma-separated, each at least 0."""
    return _whole_numbers(text, "seeds", minimum=0)


def parse_sizes(text: str) -> list[int]:
    """Artifact sizes (leaves), comma-separated, each at least 1."""
    return _whole_numbers(text, "sizes", minimum=1)


def parse_concurrency(text: str) -> int:
    """Model requests in flight: at least 1."""
    return _whole_number(text, "concurrency", minimum=1)


def parse_retries(text: str) -> int:
    """Attempts per model call: at least 1."""
    return _whole_number(text, "retries", minimum=1)


def parse_gpus_per_replica(text: str) -> int:
    """GPUs per model replica (vLLM's tensor-parallel size): at least 1."""
    return _whole_number(text, "GPUs per replica", minimum=1)


def parse_replicas(text: str) -> int:
    """Model replicas (vLLM's data-parallel size): at least 1."""
    return _whole_number(text, "replicas", minimum=1)


def parse_port(text: str) -> int:
    """A TCP port to listen on: 1 to 65535."""
    return _whole_number(text, "port", minimum=1, maximum=MAX_PORT)


def parse_local_port(text: str) -> int:
    """A port for a server of our own on 127.0.0.1: 0 (any free port) to 65535."""
    return _whole_number(text, "port", minimum=0, maximum=MAX_PORT)


# ------------------------------------------------------------------------------ numbers


def parse_seconds(text: str) -> float:
    """A duration in seconds: a number, at least 0."""
    return _number(text, "seconds", minimum=0.0)


def parse_max_drop(text: str) -> float:
    """The drop of the compared rate, in points, that a comparison tolerates: at least 0."""
    return _number(text, "max drop", minimum=0.0)


def parse_drop_points(text: str) -> float:
    """A drop of a rate to detect, in points: above 0, at most 100."""
    return _positive_up_to(text, "drop", 100, named="a drop to detect", unit=" points")


def parse_usd(text: str) -> float:
    """An amount in US dollars: a number, at least 0."""
    return _number(text, "USD amount", minimum=0.0)


def parse_alpha(text: str) -> float:
    """A significance level: above 0, at most 1."""
    return _positive_up_to(text, "alpha", 1)


# ------------------------------------------------------------------------------ paths


def parse_path(text: str) -> Path:
    """A file or folder that need not exist yet (it is written)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("path must not be empty")
    return Path(text)


def parse_existing_path(text: str) -> Path:
    """A file or folder that exists."""
    path = Path(text)
    try:
        exists = path.exists()
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise argparse.ArgumentTypeError(f"not a usable path ({reason}): {text[:200]!r}") from None
    if not exists:
        shown = text if text.isprintable() else repr(text)  # one line, whatever the name holds
        raise argparse.ArgumentTypeError(f"no such file or folder: {shown}")
    return path


def parse_existing_dir(text: str) -> Path:
    """A folder that exists."""
    path = parse_existing_path(text)
    if not path.is_dir():  # it exists: is_dir cannot fail on the name
        raise argparse.ArgumentTypeError(f"not a folder: {text}")
    return path


# ------------------------------------------------------------------------------ building blocks


def _names(text: str, what: str) -> list[str]:
    names = [item.strip() for item in text.split(",") if item.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"{what} must be a comma-separated list, got {text!r}")
    return names


def _whole_numbers(text: str, what: str, *, minimum: int) -> list[int]:
    return [_whole_number(item, what, minimum=minimum, plural=True) for item in _names(text, what)]


def _whole_number(
    text: str, what: str, *, minimum: int, maximum: int | None = None, plural: bool = False
) -> int:
    try:
        number = int(text)
    except ValueError:
        kind = "whole numbers" if plural else "a whole number"
        raise argparse.ArgumentTypeError(f"{what} must be {kind}, got {text!r}") from None
    if number < minimum:
        raise argparse.ArgumentTypeError(f"{what} must be >= {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise argparse.ArgumentTypeError(f"{what} must be <= {maximum}, got {number}")
    return number


def _number(text: str, what: str, *, minimum: float | None = None) -> float:
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}") from None
    if minimum is not None and not number >= minimum:  # "not >=" also refuses nan
        raise argparse.ArgumentTypeError(f"{what} must be >= {minimum:g}, got {text}")
    return number


def _positive_up_to(
    text: str, what: str, maximum: float, *, named: str | None = None, unit: str = ""
) -> float:
    """A number above 0 and at most ``maximum``; ``named`` words the range's error."""
    number = _number(text, what)
    if not 0 < number <= maximum:
        raise argparse.ArgumentTypeError(
            f"{named or what} must be in (0, {maximum:g}]{unit}, got {text}"
        )
    return number


# ------------------------------------------------------------------------------ plugin options


@dataclass(frozen=True)
class PluginOption:
    """One ``--revprop-*`` option of the pytest plugin. ``name`` is both its argparse dest and
    its ini key; ``parse`` is None for a flag (on the command line: present or not; in the ini
    file: true or false). A ``path`` given in the ini file is relative to that file's folder."""

    name: str
    help: str
    parse: Callable[[str], Any] | None = None
    default: Any = None
    metavar: str | None = None
    path: bool = False

    @property
    def flag(self) -> str:
        """The option's command-line spelling."""
        return "--" + self.name.replace("_", "-")

    @property
    def is_flag(self) -> bool:
        """Whether the option takes no value (``store_true``; its ini key is a bool)."""
        return self.parse is None


PLUGIN_OPTIONS: tuple[PluginOption, ...] = (
    PluginOption(
        "revprop_model",
        "model preset(s) or litellm model string(s) to evaluate; without it the plugin does nothing",
        parse_models,
        metavar="MODEL[,MODEL...]",
    ),
    PluginOption(
        "revprop_method",
        f"revision method(s): {', '.join(METHOD_CHOICES)}, or one registered through the "
        "pytest_revprop_methods hook (default: j+h)",
        parse_methods,
        default=["j+h"],
        metavar="METHOD[,METHOD...]",
    ),
    PluginOption(
        "revprop_k",
        f"calls per method for reflect/or/and/maj/med/select; several values sweep k (default: {DEFAULT_K})",
        parse_k_values,
        default=[DEFAULT_K],
        metavar="K[,K...]",
    ),
    PluginOption(
        "revprop_seeds",
        f"base seeds, one run each (default: {','.join(map(str, PAPER_SEEDS))})",
        parse_seeds,
        default=list(PAPER_SEEDS),
        metavar="S[,S...]",
    ),
    PluginOption(
        "revprop_split",
        "dev, test or all (default: test)",
        parse_split,
        default="test",
        metavar="SPLIT",
    ),
    PluginOption(
        "revprop_sizes",
        "only cases of these artifact sizes, e.g. 10,50 (default: all)",
        parse_sizes,
        metavar="N[,N...]",
    ),
    PluginOption(
        "revprop_cases",
        "case file or folder (default: the shipped RevPropBench cases)",
        parse_existing_path,
        metavar="PATH",
        path=True,
    ),
    PluginOption(
        "revprop_instances",
        "also run fresh instances of the scenarios that generate, one set per seed, made into "
        "the report folder's instances/ (docs/protocol.md, fresh instances and long chains)",
        parse_seeds,
        metavar="S[,S...]",
    ),
    PluginOption(
        "revprop_case",
        "only these cases, by id (e.g. cart-free-shipping/10), whatever their split and size; "
        "each failure's report ends with a command line that uses it",
        parse_case_ids,
        metavar="ID[,ID...]",
    ),
    PluginOption(
        "revprop_api_base",
        "OpenAI-compatible server(s); several URLs are replicas of one model (default: the preset's)",
        parse_api_bases,
        metavar="URL[,URL...]",
    ),
    PluginOption(
        "revprop_concurrency",
        "model requests in flight per process (default: 32)",
        parse_concurrency,
        default=32,
        metavar="N",
    ),
    PluginOption(
        "revprop_cache",
        "response cache folder, shared by all processes (default: .revprop-cache)",
        parse_path,
        default=Path(".revprop-cache"),
        metavar="DIR",
        path=True,
    ),
    PluginOption(
        "revprop_no_cache", "do not read or write the response cache (reruns will differ)"
    ),
    PluginOption(
        "revprop_report",
        "folder for results.json, samples.jsonl, summary.md and figures (default: reports)",
        parse_path,
        default=Path("reports"),
        metavar="DIR",
        path=True,
    ),
    PluginOption(
        "revprop_no_figures",
        "do not write the figures and the HTML report at the end of the run (default: write them)",
    ),
    PluginOption(
        "revprop_prompts",
        "folder of prompt templates overriding the shipped ones, file by file",
        parse_existing_dir,
        metavar="DIR",
        path=True,
    ),
    PluginOption(
        "revprop_structured",
        "ask the server to constrain replies to a JSON Patch (structured output)",
    ),
    PluginOption(
        "revprop_retries",
        "attempts per model call before it counts as failed (default: 5)",
        parse_retries,
        default=5,
        metavar="N",
    ),
    PluginOption(
        "revprop_timeout",
        "seconds per attempt (default: sized to the output limit)",
        parse_seconds,
        metavar="S",
    ),
    PluginOption(
        "revprop_retry_delay",
        "first wait before a retry, doubled each attempt, with jitter; a 429's Retry-After wins (default: 0.5)",
        parse_seconds,
        default=0.5,
        metavar="S",
    ),
    PluginOption(
        "revprop_transport",
        "how calls reach the server: litellm (default, as in production), or direct: a plain "
        "POST to a self-hosted OpenAI-compatible server, a tenth of litellm's CPU per call "
        "(default: $REVPROP_TRANSPORT, else litellm)",
        parse_transport,
        metavar="{" + ",".join(TRANSPORTS) + "}",
    ),
    PluginOption(
        "revprop_baseline",
        "compare with this baseline and fail (exit 6) on a significant regression",
        parse_path,
        metavar="FILE",
        path=True,
    ),
    PluginOption(
        "revprop_update_baseline",
        "write the run's outcomes to the baseline file instead of comparing",
    ),
    PluginOption(
        "revprop_max_drop",
        "the drop, in points, that the gate tolerates: of the completion rate, or with "
        "--revprop-gate-metric=pass_all_seeds of the share of cases passing at every seed "
        "(default: 2)",
        parse_max_drop,
        default=2.0,
        metavar="POINTS",
    ),
    PluginOption(
        "revprop_gate_metric",
        "what the gate compares per (model, method, k): completion (default; paired by case "
        "and seed), pass_all_seeds (paired by case; a case passes when it passes at every seed) "
        "or chain (a chain run's chain completion, paired by case and seed; a chain passes when "
        "every turn completes)",
        parse_gate_metric,
        default="completion",
        metavar="{" + ",".join(GATE_METRICS) + "}",
    ),
    PluginOption(
        "revprop_chain",
        "revision chains: off (default: one revision per case), teacher (each follow-up from the "
        "canonical document before it) or free (each from the model's own document); a chain "
        "run has one item per case with follow-ups",
        parse_chain,
        default="off",
        metavar="{off,teacher,free}",
    ),
    PluginOption(
        "revprop_turns",
        "the follow-ups a chain runs at most, after the case's own revision (default: all)",
        parse_turns,
        metavar="N",
    ),
    PluginOption(
        "revprop_shard",
        "run part I of N of the run (whole cases, balanced by expected calls; revprop combine "
        "merges the parts' reports), or auto: I and N from a Slurm array job or a Kubernetes "
        "Indexed Job (docs/scale-out.md)",
        parse_shard,
        metavar="I/N|auto",
    ),
    PluginOption(
        "revprop_max_cost",
        "a ceiling on the run's spending: no call is sent that could take it past USD; items "
        "left unrun are skipped and the run exits 8 (needs the models' prices; a rerun goes on "
        "from the cache)",
        parse_usd,
        metavar="USD",
    ),
    PluginOption(
        "revprop_plan",
        "send no request: print the run's plan (per model: items, calls needed, cached, to "
        "send, their tokens, cost and time) and exit 0",
    ),
    PluginOption(
        "revprop_detect",
        "how many cases and seeds a gate needs to detect a drop of this many points (power "
        "0.8, the gate's McNemar test): in the plan (--revprop-plan) and the gate's section",
        parse_drop_points,
        metavar="POINTS",
    ),
    PluginOption(
        "revprop_with_tests",
        "also collect the project's ordinary tests (default: only the evaluation items)",
    ),
)
OPTIONS_BY_NAME: dict[str, PluginOption] = {option.name: option for option in PLUGIN_OPTIONS}
