"""What a run checks and builds before its first item, from its option values: the run's
settings, a writable response cache, and an API key for every model that has calls to make.
No pytest here: the session calls these with ``opt(name)``, the value of an option."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_revprop.errors import UserError

if TYPE_CHECKING:
    from pytest_revprop.llm.presets import ModelConfig
    from pytest_revprop.registry import MethodRegistry
    from pytest_revprop.runner import ItemSpec, Runner, RunSettings


def run_settings(opt: Callable[[str], Any], registry: MethodRegistry) -> RunSettings:
    """The run's settings from its option values (command line, else ini, else default)."""
    from pytest_revprop.llm.transports import TRANSPORT_ENV, TRANSPORTS
    from pytest_revprop.llm.types import RetryPolicy
    from pytest_revprop.prompts import Prompts
    from pytest_revprop.runner import RunSettings

    from_env = os.environ.get(TRANSPORT_ENV)
    if opt("revprop_transport") is None and from_env and from_env not in TRANSPORTS:
        raise UserError(f"{TRANSPORT_ENV}={from_env!r}: choose {' or '.join(TRANSPORTS)}")
    retry = RetryPolicy(
        max_attempts=opt("revprop_retries"),
        base_delay=opt("revprop_retry_delay"),
        attempt_timeout_s=opt("revprop_timeout"),
    )
    return RunSettings(
        methods=registry.expand(opt("revprop_method")),
        k_values=opt("revprop_k"),
        seeds=opt("revprop_seeds"),
        cache_dir=None if opt("revprop_no_cache") else Path(opt("revprop_cache")),
        concurrency=opt("revprop_concurrency"),
        structured=opt("revprop_structured"),
        prompts=Prompts(opt("revprop_prompts")),
        retry=retry,
        transport=opt("revprop_transport"),
        registry=registry,
    )


def check_cache_folder(folder: Path | None, models: Sequence[ModelConfig]) -> None:
    """Stop before any item when the response cache folder cannot be made or written to
    (a run whose models all are reference solvers makes no call and leaves it alone)."""
    if folder is None or all(m.kind == "reference" for m in models):
        return
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as exc:
        raise UserError(
            f"cannot write the response cache folder {folder}: {exc.strerror or exc}; "
            "choose another with --revprop-cache=DIR, or pass --revprop-no-cache"
        ) from None


def check_credentials(
    models: Sequence[ModelConfig], runner: Callable[[], Runner], specs: Sequence[ItemSpec]
) -> None:
    """Stop before any item when a model with calls to make has no key: its variable is
    unset. A rerun that the cache answers makes no call and needs no key (``runner`` is
    built only when a key is missing, to ask it)."""
    from pytest_revprop.llm.credentials import missing_key

    missing = {m.name: message for m in models if (message := missing_key(m))}
    if not missing:
        return
    made = runner()
    for name, message in missing.items():
        if made.makes_calls([spec for spec in specs if spec.model == name]):
            raise UserError(message)
