"""Model presets, prices and the ``[tool.revprop]`` configuration.

Nothing here talks to a network or imports a heavy library: a ``ModelConfig`` is plain,
hashable data that the client (``llm/client.py``) turns into calls.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_revprop.errors import UserError

VLLM_API_BASE = "http://127.0.0.1:8000/v1"
PAPER_MAX_TOKENS = 32768
EMBEDDED_MAX_TOKENS = 1024
KINDS = ("litellm", "embedded", "reference")
STRUCTURED_FORMATS = ("json_schema", "json_object")
"""How a structured-output request states the patch's schema: ``json_schema`` (vLLM,
OpenAI) or ``json_object`` with a ``schema`` (llama.cpp's server)."""


@dataclass(frozen=True)
class ModelConfig:
    """Everything needed to call one model (or to stand in for one).

    ``extra_body`` is a tuple of ``(key, canonical JSON text)`` pairs so the config stays
    hashable; ``extra_body_dict()`` gives the mapping sent with each request.
    ``api_key_env`` names the environment variable that holds the key; the key itself is
    never stored here, in the cache or in a report.
    """

    name: str
    kind: str = "litellm"
    litellm_model: str = ""
    api_bases: tuple[str, ...] = ()
    served_name: str | None = None
    hf_model: str | None = None
    reasoning_parser: str | None = None
    temperature: float | None = 0.6
    max_tokens: int = PAPER_MAX_TOKENS
    reasoning_effort: str | None = None
    price_in: float = 0.0
    price_out: float = 0.0
    timeout_s: float | None = None
    extra_body: tuple[tuple[str, str], ...] = ()
    api_key_env: str | None = None
    hosted: bool = False
    max_concurrency: int | None = None
    """Requests the server can usefully take at once (None: as many as the run allows);
    llama.cpp's server answers one at a time, so more would only queue and time out."""
    structured_format: str | None = None
    """The form of a structured-output request, one of ``STRUCTURED_FORMATS`` (None: by kind,
    ``structured_form``)."""

    @property
    def structured_form(self) -> str:
        """The form of this model's structured-output requests: ``structured_format``, else
        ``json_object`` for the embedded model (llama.cpp's server) and ``json_schema`` for
        the rest (vLLM, OpenAI and the providers litellm reaches)."""
        if self.structured_format:
            return self.structured_format
        return "json_object" if self.kind == "embedded" else "json_schema"

    @property
    def attempt_timeout_s(self) -> float:
        """Seconds one attempt may take: room for ``max_tokens`` at a slow 50 tokens/s."""
        if self.timeout_s is not None:
            return self.timeout_s
        return 60.0 + self.max_tokens / 50.0

    @property
    def provider(self) -> str:
        """The litellm provider prefix (``hosted_vllm``, ``openai``, ...), or ``""``."""
        head, sep, _ = self.litellm_model.partition("/")
        return head if sep else ""

    def extra_body_dict(self) -> dict[str, Any]:
        """The extra request body as a plain dict (stored frozen: the config stays hashable)."""
        return thaw_extra_body(self.extra_body)

    def api_key(self) -> str | None:
        """The key from ``api_key_env`` at call time (None when unset or not configured)."""
        if not self.api_key_env:
            return None
        return os.environ.get(self.api_key_env) or None

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float:
        """The cost in USD of a call with these token counts, at the model's prices per million."""
        return input_tokens * self.price_in / 1e6 + output_tokens * self.price_out / 1e6

    def replace(self, **changes: Any) -> ModelConfig:
        """A copy of the config with ``changes`` applied."""
        return dataclasses.replace(self, **changes)


def freeze_extra_body(mapping: Mapping[str, Any] | None) -> tuple[tuple[str, str], ...]:
    """Turn an ``extra_body`` mapping into the sorted, hashable form ModelConfig keeps."""
    if not mapping:
        return ()
    return tuple(
        (str(key), json.dumps(value, sort_keys=True, separators=(",", ":")))
        for key, value in sorted(mapping.items())
    )


def thaw_extra_body(pairs: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """The ``extra_body`` mapping that ``freeze_extra_body`` froze into ``pairs``."""
    return {key: json.loads(text) for key, text in pairs}


def _vllm_preset(
    name: str, served: str, parser: str, price_in: float, price_out: float, effort: str | None
) -> ModelConfig:
    return ModelConfig(
        name=name,
        kind="litellm",
        litellm_model=f"hosted_vllm/{served}",
        api_bases=(VLLM_API_BASE,),
        served_name=served,
        hf_model=served,
        reasoning_parser=parser,
        temperature=0.6,
        max_tokens=PAPER_MAX_TOKENS,
        reasoning_effort=effort,
        price_in=price_in,
        price_out=price_out,
    )


def _reference(name: str) -> ModelConfig:
    return ModelConfig(name=name, kind="reference", temperature=None, max_tokens=0)


PRESETS: dict[str, ModelConfig] = {
    "gpt-oss-20b": _vllm_preset(
        "gpt-oss-20b", "openai/gpt-oss-20b", "openai_gptoss", 0.029, 0.140, "medium"
    ),
    "gpt-oss-120b": _vllm_preset(
        "gpt-oss-120b", "openai/gpt-oss-120b", "openai_gptoss", 0.039, 0.180, "medium"
    ),
    "gpt-5.4-mini": ModelConfig(
        name="gpt-5.4-mini",
        kind="litellm",
        litellm_model="openai/gpt-5.4-mini",
        temperature=None,
        max_tokens=PAPER_MAX_TOKENS,
        reasoning_effort="medium",
        price_in=0.750,
        price_out=4.500,
        api_key_env="OPENAI_API_KEY",
        hosted=True,
    ),
    "qwen3.5-9b": _vllm_preset("qwen3.5-9b", "Qwen/Qwen3.5-9B", "qwen3", 0.100, 0.150, None),
    "qwen3.5-27b": _vllm_preset("qwen3.5-27b", "Qwen/Qwen3.5-27B", "qwen3", 0.195, 1.560, None),
    "qwen3.5-122b-a10b": _vllm_preset(
        "qwen3.5-122b-a10b", "Qwen/Qwen3.5-122B-A10B", "qwen3", 0.260, 2.080, None
    ),
    "smollm2-135m": ModelConfig(
        name="smollm2-135m",
        kind="embedded",
        litellm_model="openai/smollm2-135m",
        served_name="smollm2-135m",
        temperature=0.6,
        max_tokens=EMBEDDED_MAX_TOKENS,
        max_concurrency=1,
        structured_format="json_object",
        # A 100-leaf prompt takes a minute or two on 2 cores, and a fifth reflect round longer.
        timeout_s=900.0,
    ),
    "gold": _reference("gold"),
    "noop": _reference("noop"),
    "direct-only": _reference("direct-only"),
}
ALIASES: dict[str, str] = {"qwen3.5-122b": "qwen3.5-122b-a10b"}


def preset_names() -> list[str]:
    """Preset names (aliases included) in a stable order for help texts and errors."""
    return [*PRESETS, *ALIASES]


def presets_with_aliases() -> list[str]:
    """The presets as an error lists them, each alias beside its preset:
    ``qwen3.5-122b-a10b (alias qwen3.5-122b)``."""
    return [
        name + "".join(f" (alias {alias})" for alias, target in ALIASES.items() if target == name)
        for name in PRESETS
    ]


# --- configuration -------------------------------------------------------------------------

_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "kind": (str,),
    "litellm_model": (str,),
    "api_bases": (list,),
    "served_name": (str,),
    "hf_model": (str,),
    "reasoning_parser": (str,),
    "temperature": (int, float),
    "max_tokens": (int,),
    "reasoning_effort": (str,),
    "price_in": (int, float),
    "price_out": (int, float),
    "timeout_s": (int, float),
    "extra_body": (dict,),
    "api_key_env": (str,),
    "hosted": (bool,),
    "max_concurrency": (int,),
    "structured_format": (str,),
}
_NULLABLE = {
    "served_name", "hf_model", "reasoning_parser", "temperature", "reasoning_effort",
    "timeout_s", "api_key_env", "max_concurrency", "structured_format",
}  # fmt: skip
_NONE_WORDS = ("none", "default", "")


def _check_field(key: str, value: Any, where: str) -> Any:
    """Validate one model setting from a config file; returns the ModelConfig value."""
    if key not in _FIELD_TYPES:
        known = ", ".join(_FIELD_TYPES)
        raise UserError(f"{where}: unknown model setting {key!r} (known: {known})")
    if key in _NULLABLE and (value is None or str(value).lower() in _NONE_WORDS):
        return None
    types = _FIELD_TYPES[key]
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        raise UserError(f"{where}.{key}: expected {types[0].__name__}, got {value!r}")
    return _normalise_field(key, value, where)


def _normalise_field(key: str, value: Any, where: str) -> Any:
    if key == "kind" and value not in KINDS:
        raise UserError(f"{where}.kind: must be one of {', '.join(KINDS)}, got {value!r}")
    if key == "structured_format" and value not in STRUCTURED_FORMATS:
        raise UserError(
            f"{where}.structured_format: must be one of {', '.join(STRUCTURED_FORMATS)}, got {value!r}"
        )
    if key == "api_bases":
        if not all(isinstance(u, str) and u.startswith(("http://", "https://")) for u in value):
            raise UserError(f"{where}.api_bases: expected a list of http(s) URLs, got {value!r}")
        return tuple(u.rstrip("/") for u in value)
    if key == "extra_body":
        return freeze_extra_body(value)
    if key in ("price_in", "price_out", "temperature", "timeout_s"):
        if value < 0 or (key == "timeout_s" and value == 0):
            raise UserError(f"{where}.{key}: must be positive, got {value!r}")
        return float(value)
    if key == "max_tokens" and value <= 0:
        raise UserError(f"{where}.max_tokens: must be a positive integer, got {value!r}")
    return value


def _check_price(value: Any, where: str) -> tuple[float, float]:
    if isinstance(value, Mapping) and set(value) == {"in", "out"}:
        pair = [value["in"], value["out"]]
    elif isinstance(value, list) and len(value) == 2:
        pair = value
    else:
        raise UserError(f"{where}: expected {{in = X, out = Y}} or [X, Y] (USD per 1M tokens)")
    if not all(isinstance(p, int | float) and not isinstance(p, bool) and p >= 0 for p in pair):
        raise UserError(f"{where}: prices must be non-negative numbers, got {value!r}")
    return float(pair[0]), float(pair[1])


def _find_config_file(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest ``revprop.toml`` or ``pyproject.toml`` with ``[tool.revprop]``, walking up."""
    here = start.resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        for name in ("revprop.toml", "pyproject.toml"):
            path = folder / name
            if not path.is_file():
                continue
            try:
                doc = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise UserError(f"{path}: cannot read TOML: {exc}") from None
            table = doc.get("tool", {}).get("revprop")
            if table is None and name == "revprop.toml":
                table = {k: v for k, v in doc.items() if k != "tool"}
            if table is not None:
                if not isinstance(table, dict):
                    raise UserError(f"{path}: [tool.revprop] must be a table")
                return path, table
    return None


def load_config(start: Path) -> dict[str, Any]:
    """Read ``[tool.revprop]`` from the nearest config file above ``start`` (``{}`` if none).

    The ``models`` section (per-model overrides and new models) and the ``prices``
    section are validated and normalised; other keys are returned as written.
    ``"_source"`` holds the file path for messages.
    """
    found = _find_config_file(start)
    if found is None:
        return {}
    path, table = found
    config: dict[str, Any] = dict(table)
    config["_source"] = str(path)
    models = table.get("models", {})
    if not isinstance(models, dict):
        raise UserError(f"{path}: tool.revprop.models must be a table")
    checked: dict[str, dict[str, Any]] = {}
    for model_name, settings in models.items():
        where = f"{path}: tool.revprop.models.{model_name!r}"
        if not isinstance(settings, dict):
            raise UserError(f"{where}: must be a table of settings")
        checked[model_name] = {k: _check_field(k, v, where) for k, v in settings.items()}
    config["models"] = checked
    prices = table.get("prices", {})
    if not isinstance(prices, dict):
        raise UserError(f"{path}: tool.revprop.prices must be a table")
    config["prices"] = {
        name: _check_price(value, f"{path}: tool.revprop.prices.{name!r}")
        for name, value in prices.items()
    }
    return config


def _split_overrides(
    overrides: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, dict[str, Any]], dict[str, tuple[float, float]], str]:
    """Field overrides, the config's models section, its prices and its source name."""
    if not overrides:
        return {}, {}, {}, "overrides"
    source = str(overrides.get("_source", "overrides"))
    fields = {k: _check_field(k, v, source) for k, v in overrides.items() if k in _FIELD_TYPES}
    return fields, dict(overrides.get("models", {})), dict(overrides.get("prices", {})), source


class PresetRegistry:
    """Model presets registered through the ``pytest_revprop_models`` hook."""

    def __init__(self) -> None:
        self.presets: dict[str, ModelConfig] = {}

    def register(self, config: ModelConfig) -> ModelConfig:
        """Add ``config`` under its name; a shipped preset's name or one taken already is a
        UserError naming it."""
        if not isinstance(config, ModelConfig):
            raise UserError(f"register a ModelConfig, not {type(config).__name__}")
        name = config.name
        if name in PRESETS or name in ALIASES or name in self.presets:
            raise UserError(f"model preset {name!r} is already registered")
        self.presets[name] = config
        return config

    __call__ = register


def resolve_model(
    name: str,
    *,
    api_bases: Sequence[str] = (),
    overrides: Mapping[str, Any] | None = None,
    registered: Mapping[str, ModelConfig] | None = None,
) -> ModelConfig:
    """The ModelConfig for a preset name, a configured model, or a raw litellm model string.

    ``overrides`` is the table from ``load_config`` (its ``models`` and ``prices`` sections
    apply) and may also carry ModelConfig field names, applied last. ``api_bases`` (the
    ``--revprop-api-base`` option) replaces the model's servers, except for hosted-API
    presets such as gpt-5.4-mini, and is ignored by the reference solvers. ``registered``:
    presets registered through the hook (PresetRegistry.presets), after the shipped ones.
    """
    name = name.strip()
    if not name:
        raise UserError("empty model name")
    fields, models, prices, source = _split_overrides(overrides)
    canonical = ALIASES.get(name, name)
    configured = dict(models.get(name, models.get(canonical, {})))
    if canonical in PRESETS:
        config = PRESETS[canonical]
    elif registered and name in registered:
        config = registered[name]
    elif configured:
        config = ModelConfig(name=name, litellm_model=str(configured.get("litellm_model", name)))
    elif "/" in name:
        config = ModelConfig(name=name, litellm_model=name)
    else:
        raise UserError(
            f"unknown model {name!r}: use a preset ({', '.join(presets_with_aliases())}) "
            "or a litellm model string such as hosted_vllm/openai/gpt-oss-20b"
        )
    config = config.replace(**configured)
    price = prices.get(name) or prices.get(canonical)
    if price is not None:
        config = config.replace(price_in=price[0], price_out=price[1])
    config = config.replace(**fields)
    if api_bases and config.kind != "reference" and not config.hosted:
        bases = tuple(b.strip().rstrip("/") for b in api_bases if b.strip())
        config = config.replace(api_bases=bases)
    if config.kind == "litellm" and not config.litellm_model:
        raise UserError(f"{source}: model {name!r} has no litellm_model")
    return config
