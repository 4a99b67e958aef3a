"""The run header pytest prints above the items: the versions, each model with the model
string it calls and where, then the methods, k, seeds, split, cases, items and cache.

Every line goes through ``llm.redact``, so a key written into an API base never shows.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_revprop import __version__
from pytest_revprop.llm.redact import redact

if TYPE_CHECKING:
    from pytest_revprop.llm.presets import ModelConfig
    from pytest_revprop.run.instances import Instances
    from pytest_revprop.run.items import RunSettings

__all__ = ["model_line", "run_header", "versions_line"]


def versions_line() -> str:
    """``pytest-revprop 0.1.0, litellm 1.80.0, Python 3.11.7`` (litellm: the installed
    distribution's version, read without importing it)."""
    try:
        litellm = f"litellm {metadata.version('litellm')}"
    except metadata.PackageNotFoundError:
        litellm = "litellm not installed"
    return f"pytest-revprop {__version__}, {litellm}, Python {platform.python_version()}"


def model_line(model: ModelConfig) -> str:
    """What a model name stands for: a reference solver, or the litellm model string it calls
    and the API base(s) the calls go to."""
    if model.kind == "reference":
        return f"{model.name}: reference solver (no model calls)"
    target = model.litellm_model or model.name
    if model.api_bases:
        where = ", ".join(model.api_bases)
    elif model.kind == "embedded":
        where = "a llama.cpp server started for the run"
    else:
        where = "the provider's default API base"
    embedded = " (embedded llama.cpp)" if model.kind == "embedded" and model.api_bases else ""
    return f"{model.name}: {target} at {where}{embedded}"


def header_k(settings: RunSettings) -> str:
    """The header's k: the run's k values when some method of it uses k, else 1 (the k of
    every item of a method that does not use it)."""
    if any(settings.registry.get(name).uses_k for name in settings.methods):
        return ",".join(map(str, settings.k_values))
    return "1"


def run_header(
    models: Sequence[ModelConfig],
    settings: RunSettings,
    *,
    split: str,
    cases_path: Path | str,
    n_cases: int,
    n_items: int,
    left_out: int = 0,
    instances: Instances | None = None,
    n_fresh: int = 0,
    report_dir: Path | str = "reports",
) -> str:
    """The header's lines, joined by newlines (``left_out``: a chain run's selected cases
    without follow-ups, which have no item; ``instances``: the run's fresh instances, of
    which ``n_fresh`` cases are selected)."""
    lines = [
        f"revprop: {versions_line()}",
        *(f"revprop model {model_line(m)}" for m in models),
        f"revprop run: methods {', '.join(settings.methods)}; "
        f"k {header_k(settings)}; seeds {','.join(map(str, settings.seeds))}; "
        f"split {split}: {n_cases} cases from {cases_path}; {n_items} items; "
        f"cache {settings.cache_dir or 'off'}",
    ]
    if settings.protocol.chained:
        turns = "all" if settings.turns is None else str(settings.turns)
        lines.append(
            f"revprop chains: {settings.chain}, follow-ups per chain {turns}; one item per "
            f"chain; {left_out} selected cases without follow-ups left out"
        )
    if instances is not None and instances.seeds:
        failed = (
            f"; {len(instances.errors)} scenario size(s) did not build, first: {instances.errors[0]}"
            if instances.errors
            else ""
        )
        lines.append(
            f"revprop instances: seeds {','.join(map(str, instances.seeds))}: {n_fresh} of the"
            f" cases are fresh instances, made in {Path(report_dir) / 'instances'}{failed}"
        )
    return redact("\n".join(lines))
