"""Value parsers for command-line options, shared by the pytest plugin and the ``revprop`` commands.

Each ``parse_*`` function is an argparse ``type=``: it returns the parsed value, or raises
:class:`argparse.ArgumentTypeError` with a message that names the value it parses and says
what is wrong with it, which argparse and pytest print as a one-line usage error after the
option's name. Each function is named after what it parses, so that options that take the
same kind of value share one parser, and options that take different ones never share a
message.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_revprop.vocabulary import METHODS, SPLITS

METHOD_CHOICES = (*METHODS, "all")
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
    """Revision methods, comma-separated, each one of :data:`METHOD_CHOICES`."""
    methods = _names(text, "methods")
    unknown = [m for m in methods if m not in METHOD_CHOICES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown method {unknown[0]!r} (choose from {', '.join(METHOD_CHOICES)})"
        )
    return methods


def parse_split(text: str) -> str:
    """The benchmark split: one of :data:`SPLIT_CHOICES`."""
    if text not in SPLIT_CHOICES:
        raise argparse.ArgumentTypeError(f"split must be dev, test or all, got {text!r}")
    return text


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
    port = _whole_number(text, "port", minimum=1)
    if port > MAX_PORT:
        raise argparse.ArgumentTypeError(f"port must be <= {MAX_PORT}, got {port}")
    return port


# ------------------------------------------------------------------------------ numbers


def parse_seconds(text: str) -> float:
    """A duration in seconds: a number, at least 0."""
    return _number(text, "seconds", minimum=0.0)


def parse_max_drop(text: str) -> float:
    """The completion-rate drop, in points, that a comparison tolerates: at least 0."""
    return _number(text, "max drop", minimum=0.0)


def parse_alpha(text: str) -> float:
    """A significance level: above 0, at most 1."""
    alpha = _number(text, "alpha")
    if not 0 < alpha <= 1:
        raise argparse.ArgumentTypeError(f"alpha must be in (0, 1], got {text}")
    return alpha


# ------------------------------------------------------------------------------ paths


def parse_existing_path(text: str) -> Path:
    """A file or folder that exists."""
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such file or folder: {text}")
    return path


def parse_existing_dir(text: str) -> Path:
    """A folder that exists."""
    path = parse_existing_path(text)
    if not path.is_dir():
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


def _whole_number(text: str, what: str, *, minimum: int, plural: bool = False) -> int:
    try:
        number = int(text)
    except ValueError:
        kind = "whole numbers" if plural else "a whole number"
        raise argparse.ArgumentTypeError(f"{what} must be {kind}, got {text!r}") from None
    if number < minimum:
        raise argparse.ArgumentTypeError(f"{what} must be >= {minimum}, got {number}")
    return number


def _number(text: str, what: str, *, minimum: float | None = None) -> float:
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}") from None
    if minimum is not None and not number >= minimum:  # "not >=" also refuses nan
        raise argparse.ArgumentTypeError(f"{what} must be >= {minimum:g}, got {text}")
    return number
