"""litellm, made ready once per process: imported offline and quiet, given the prices of models
its cost map does not know, and its call path warmed up before the first real call."""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import threading
import warnings
from typing import Any

from pytest_revprop.llm.presets import ModelConfig

_LITELLM: Any = None
_LITELLM_LOCK = threading.Lock()
_PRICED: set[str] = set()
_WARMED: set[str] = set()


def load_litellm() -> Any:
    """Import litellm once, offline and quiet (no cost-map download, no telemetry, no retries).

    The import is slow; a run does it before its first call is scheduled (``Client.prepare``),
    as part of its start-up."""
    global _LITELLM
    with _LITELLM_LOCK:
        if _LITELLM is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            os.environ.setdefault("LITELLM_TELEMETRY", "False")
            litellm: Any = importlib.import_module("litellm")
            litellm.suppress_debug_info = True
            litellm.telemetry = False
            litellm.num_retries = 0
            litellm.set_verbose = False
            for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
                logging.getLogger(name).setLevel(logging.WARNING)
            _LITELLM = litellm
        return _LITELLM


def register_prices(litellm: Any, model: ModelConfig) -> None:
    """Give litellm our prices for a model its cost map does not know (a self-hosted one).

    litellm prices every response it returns, whatever the caller needs; for a model it does
    not know, it searches its whole map for similar names on every call. With an entry for the
    exact name the lookup is one dict access (benchmarks/README.md has the saving), and
    litellm's own figure equals ours (run costs always come from ``ModelConfig.cost_usd``).
    Known models keep litellm's entry."""
    name = model.litellm_model
    with _LITELLM_LOCK:
        if name in _PRICED or not name:
            return
        _PRICED.add(name)
        try:
            litellm.get_model_info(model=name)
            return  # litellm knows it (e.g. openai/gpt-5.4-mini)
        except Exception:  # litellm raises a plain Exception for a model it has not mapped
            pass
        price_in, price_out = model.price_in / 1e6, model.price_out / 1e6
        entry = {
            "litellm_provider": model.provider or "openai",
            "mode": "chat",
            "input_cost_per_token": price_in,
            "output_cost_per_token": price_out,
            # our prices bill cached prompt tokens like others (cost_usd has no cache rate)
            "cache_read_input_token_cost": price_in,
            "cache_creation_input_token_cost": price_in,
        }
        litellm.register_model({name: entry})


def warm_up_litellm(litellm: Any, model: ModelConfig) -> None:
    """One offline call (litellm's ``mock_response``: no request leaves the process) with
    warnings ignored, so that the one-off work of litellm's call path happens here: modules it
    imports on the first call, and validators pydantic builds for them. Those emit warnings
    (pydantic's notes on litellm's own types) that a user's ``-W error`` would otherwise turn
    into a failure of every real call."""
    provider = model.provider or "openai"
    with _LITELLM_LOCK:
        if provider in _WARMED:
            return
        _WARMED.add(provider)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(Exception):  # a warm-up only: the real call reports problems
            litellm.completion(
                model=f"{provider}/revprop-warm-up",
                messages=[{"role": "user", "content": "warm-up"}],
                mock_response="[]",
                api_base="http://127.0.0.1:9/v1",
                api_key="EMPTY",
                num_retries=0,
            )
