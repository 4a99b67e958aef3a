"""Whether a model has the API key it needs, and the one line that says it has not.

A model needs a key when it names the variable that holds it (``api_key_env``), or when it
is a hosted provider's model called at the provider's own API (no API base) whose litellm
provider reads a ``*_API_KEY`` variable (``OPENAI_API_KEY`` for ``openai/...``). A model at an
API base (a self-hosted server) needs none unless it names one. Providers whose credentials
come from elsewhere (cloud profiles, files) are left to the first call: its refusal stops the
run as an unset variable does.
"""

from __future__ import annotations

import os

from pytest_revprop.llm.presets import ModelConfig
from pytest_revprop.vocabulary import FailedCall


def _provider_variables(model: ModelConfig) -> list[str]:
    """The ``*_API_KEY`` variables litellm reads for a hosted model with none set (litellm is
    imported: only for such a model, whose calls go through litellm anyway)."""
    from pytest_revprop.llm.litellm_setup import load_litellm

    try:
        found = load_litellm().validate_environment(model=model.litellm_model)
    except Exception:  # a model string litellm cannot place: its first call will say so
        return []
    missing = (found.get("missing_keys") or []) if isinstance(found, dict) else []
    return [str(name) for name in missing if str(name).endswith("_API_KEY")]


def key_variables(model: ModelConfig) -> list[str]:
    """The variable(s) a model's key is read from, as far as known without a call: its
    ``api_key_env``; else ``OPENAI_API_KEY`` for an ``openai/`` model; else nothing."""
    if model.api_key_env:
        return [model.api_key_env]
    if model.provider == "openai" or (model.kind == "litellm" and not model.provider):
        return ["OPENAI_API_KEY"]
    return []


def missing_key(model: ModelConfig) -> str | None:
    """None when ``model`` has the key it needs (or needs none); else one line naming the
    unset variable and how to set it."""
    if model.kind != "litellm":
        return None
    if model.api_key_env:
        names = [model.api_key_env]
    elif model.api_bases:
        return None
    else:
        names = _provider_variables(model)
    if not names or any(os.environ.get(name) for name in names):
        return None
    wanted = " or ".join(names)
    return (
        f"model {model.name} needs an API key in {wanted}, which is not set: "
        f"export {names[0]}=... (or name another variable with api_key_env in "
        f'[tool.revprop.models."{model.name}"])'
    )


def refusal_message(model: ModelConfig, failed: FailedCall) -> str:
    """One line for a provider that refused a model's credentials (HTTP 401 or 403, or a key
    litellm found missing), naming the variable the key was read from."""
    names = key_variables(model)
    where = f" at {failed['url']}" if failed.get("url") else ""
    if not names:
        check = f'name the key\'s variable with api_key_env in [tool.revprop.models."{model.name}"]'
    elif any(os.environ.get(name) for name in names):
        check = f"check the key in {' or '.join(names)}"
    else:
        check = f"{' or '.join(names)} is not set"
    answer = failed.get("error", "")
    return f"model {model.name}{where}: the provider refused the credentials ({answer}): {check}"
