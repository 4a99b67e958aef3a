"""The ``vllm serve`` command that serves one model for the protocol (``revprop serve``).

:func:`vllm_model` resolves what to serve (a preset, a configured model or a Hugging Face
id), :func:`vllm_command` builds the command line with the protocol's settings (served name,
context length sized to the benchmark's largest prompt, reasoning parser, sampling left to
the requests), and :func:`pytest_command` the pytest command that evaluates the model on
that server. ``revprop serve`` (:mod:`pytest_revprop.cli.serve`) prints them or runs vLLM.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_revprop.errors import UserError

if TYPE_CHECKING:
    from pytest_revprop.core.cases import Case
    from pytest_revprop.llm.presets import ModelConfig

VLLM_RANGE = ">=0.17,<0.34"
"""The vLLM versions ``revprop serve`` is written for (pyproject's ``vllm`` extra): 0.17 is the
first to serve the Qwen3.5 presets; 0.33 the last reviewed."""
VLLM_INSTALL_HINT = (
    'install it on a GPU machine with `pip install "pytest-revprop[vllm]"` '
    f"(vLLM {VLLM_RANGE}; see docs.vllm.ai)"
)

CHARS_PER_TOKEN = 3.5
PROMPT_MARGIN = 1.5
"""Safety factor on the chars/3.5 prompt estimate. The prompts are number-heavy JSON,
which tokenizes worse than prose (Qwen's tokenizer gives every digit its own token); the
factor must stay above the true tokens / (chars / 3.5) of every shipped ``j+h`` prompt, which
``tests/servers/test_vllm.py`` checks with SmolLM2's tokenizer. vLLM rejects a request whose prompt
plus ``max_tokens`` exceeds ``--max-model-len`` (it does not shrink ``max_tokens``), so an
underestimate would turn the largest cases into failed calls, while an overestimate costs
nothing: the KV cache is allocated per token in use, not per ``--max-model-len``."""

MODEL_LEN_STEP = 4096

MESSAGE_OVERHEAD_CHARS = 40
"""Room for the chat template's tokens around one message (role markers, separators)."""

DEFAULT_PROMPT_TOKENS = 16384
"""Fallback for the largest prompt when no case files are found (a 100-leaf case with a
long conversation and five ``reflect`` rounds stays well below it)."""

DEFAULT_TENSOR_PARALLEL = {"Qwen/Qwen3.5-122B-A10B": 4}
"""``revprop serve`` defaults for 80 GB GPUs (the paper used four A100 80 GB): the
122B-A10B model needs four for its bf16 weights; the others fit on one (gpt-oss-120b in
MXFP4 included), and ``--data-parallel-size`` puts the other GPUs to work."""


def reasoning_parser_for(hf_model: str) -> str | None:
    """vLLM's ``--reasoning-parser`` for a model family, guessed from its Hugging Face id.

    ``openai_gptoss`` for gpt-oss (reasoning comes through harmony channels), ``qwen3`` for
    Qwen3 and Qwen3.5 (``<think>`` blocks), ``deepseek_r1`` for DeepSeek-R1 and its
    distills; None for families without a known parser.
    """
    name = hf_model.lower().replace("_", "-")
    if "gpt-oss" in name:
        return "openai_gptoss"
    if "qwen3" in name or "qwq" in name:
        return "qwen3"
    if "deepseek-r1" in name:
        return "deepseek_r1"
    return None


def vllm_max_model_len(prompt_tokens: int, output_tokens: int) -> int:
    """``--max-model-len`` for prompts of up to ``prompt_tokens`` (estimated) and the output budget.

    The estimate is multiplied by :data:`PROMPT_MARGIN`, the output budget is added whole,
    and the sum is rounded up to a multiple of 4096 tokens.
    """
    if prompt_tokens < 0 or output_tokens <= 0:
        raise ValueError("prompt_tokens must be >= 0 and output_tokens > 0")
    need = math.ceil(prompt_tokens * PROMPT_MARGIN) + output_tokens
    return math.ceil(need / MODEL_LEN_STEP) * MODEL_LEN_STEP


def case_prompt_tokens(case: Case, k: int = 5) -> int:
    """Estimated tokens (chars / 3.5) of the largest prompt any method sends for ``case``.

    The prompts are rendered with the shipped templates. The largest is the last call of
    ``reflect`` with ``k`` calls: the ``j+h`` messages followed by ``k - 1`` rounds, each
    holding the model's patch (counted as twice the gold patch) and the reflection message
    with the artifact after it (counted as large as the current one); reasoning of earlier
    turns is not sent back. ``select`` (the context plus ``k - 1`` candidate patches) is
    counted too and the larger of the two taken. Calls with more than ``k`` rounds, or
    prompts from a user's template folder, can be larger.
    """
    from pytest_revprop.core.prompts import default_prompts

    prompts = default_prompts()
    patch = [{"op": g.op, "path": g.path, "value": g.value} for g in case.gold]
    j_h = _chars(prompts.revision_messages(case, "j+h"))
    reflect_round = (
        2 * len(json.dumps(patch, ensure_ascii=False))
        + _chars([prompts.reflection_message(case.artifact)])
        + 2 * MESSAGE_OVERHEAD_CHARS
    )
    select = _chars(prompts.selection_messages(case, [patch] * max(k - 1, 1)))
    largest = max(j_h + (k - 1) * reflect_round, select)
    return math.ceil(largest / CHARS_PER_TOKEN)


def _chars(messages: Sequence[Mapping[str, str]]) -> int:
    return sum(len(message["content"]) + MESSAGE_OVERHEAD_CHARS for message in messages)


def largest_prompt_tokens(cases: Iterable[Case], k: int = 5) -> int:
    """The largest :func:`case_prompt_tokens` over ``cases`` (0 for none)."""
    return max((case_prompt_tokens(case, k) for case in cases), default=0)


def shipped_prompt_tokens(cases_path: Path | None = None) -> int:
    """Largest prompt estimate over ``cases_path`` (default: the shipped benchmark).

    Falls back to :data:`DEFAULT_PROMPT_TOKENS` when no case loads.
    """
    from pytest_revprop.core.cases import BENCHMARK_DIR, load_cases

    path = cases_path if cases_path is not None else BENCHMARK_DIR
    if cases_path is not None and not path.exists():
        raise UserError(f"cases path {path} does not exist")
    tokens = largest_prompt_tokens(load_cases([path]).cases)
    return tokens or DEFAULT_PROMPT_TOKENS


def vllm_model(name: str) -> ModelConfig:
    """The model config that ``revprop serve NAME`` serves.

    NAME is a preset, a model from ``[tool.revprop.models]`` with an ``hf_model``, or a raw
    Hugging Face id (``org/model``, optionally prefixed with ``hosted_vllm/``) whose family
    is guessed from its name. The hosted API model, the embedded model and the reference
    solvers are refused.
    """
    from pytest_revprop.llm.presets import load_config, resolve_model

    bare = name.removeprefix("hosted_vllm/")
    config = resolve_model(bare, overrides=load_config(Path.cwd()))
    if config.kind == "reference":
        raise UserError(f"{name!r} is a reference solver: it needs no server")
    if config.kind == "embedded":
        raise UserError(
            f"{name!r} is the embedded CPU model: the pytest plugin starts its llama.cpp "
            "server by itself; vLLM does not serve it"
        )
    if config.hosted:
        raise UserError(
            f"{name!r} is a hosted API model (called with an API key), not served with vLLM"
        )
    if config.hf_model:
        return config
    if bare.count("/") != 1 or bare != config.litellm_model:
        raise UserError(
            f"cannot serve {name!r} with vLLM: give a preset or a Hugging Face id such as Qwen/Qwen3-8B"
        )
    return config.replace(
        litellm_model=f"hosted_vllm/{bare}",
        served_name=bare,
        hf_model=bare,
        reasoning_parser=reasoning_parser_for(bare),
    )


def vllm_command(
    model: ModelConfig,
    *,
    tensor_parallel_size: int = 1,
    data_parallel_size: int = 1,
    port: int = 8000,
    host: str = "0.0.0.0",
    prompt_tokens: int | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """The ``vllm serve`` command line that serves ``model`` for the protocol.

    - ``--served-model-name`` is the name the preset's litellm model asks for;
    - ``--max-model-len`` fits ``prompt_tokens`` (default: the largest prompt estimate of
      the shipped benchmark) plus the model's ``max_tokens`` (32K for the paper's models);
    - ``--reasoning-parser`` separates reasoning from the answer, which is scored alone;
    - ``--generation-config vllm`` stops the checkpoint's ``generation_config.json`` from
      supplying its own sampling defaults (top_p, top_k, a max_new_tokens cap): requests
      carry the protocol's temperature and nothing else should change the sampling;
    - ``--enable-prefix-caching``: methods re-send the same system prompt and context
      (k samples, ``reflect`` rounds, ``select``), so cached prefixes save most prefill;
    - ``--seed 0`` pins the engine's global seed (the default changed across vLLM
      versions); every request also carries its own protocol seed, though vLLM does not
      promise identical outputs under batching (the response cache does);
    - Qwen3.5 checkpoints are vision-language models: ``--language-model-only`` skips the
      vision encoder (the benchmark is text only), leaving its memory to the KV cache.
    """
    if not model.hf_model or not model.served_name:
        raise UserError(f"model {model.name!r} has no Hugging Face id to serve with vLLM")
    if tensor_parallel_size < 1 or data_parallel_size < 1:
        raise UserError("--tensor-parallel-size and --data-parallel-size must be at least 1")
    if prompt_tokens is None:
        prompt_tokens = shipped_prompt_tokens()
    command = [
        "vllm", "serve", model.hf_model,
        "--served-model-name", model.served_name,
        "--host", host,
        "--port", str(port),
        "--tensor-parallel-size", str(tensor_parallel_size),
        "--data-parallel-size", str(data_parallel_size),
        "--max-model-len", str(vllm_max_model_len(prompt_tokens, model.max_tokens)),
    ]  # fmt: skip
    parser = model.reasoning_parser or reasoning_parser_for(model.hf_model)
    if parser:
        command += ["--reasoning-parser", parser]
    command += ["--generation-config", "vllm", "--enable-prefix-caching", "--seed", "0"]
    if "qwen3.5" in model.hf_model.lower():
        command.append("--language-model-only")
    return [*command, *extra]


def pytest_command(model: ModelConfig, *, host: str, port: int) -> list[str]:
    """The pytest invocation that evaluates ``model`` on the server ``vllm_command`` starts."""
    from pytest_revprop.llm.presets import PRESETS

    name = model.name if model.name in PRESETS else model.litellm_model
    client_host = "127.0.0.1" if host in {"0.0.0.0", "::", ""} else host
    if ":" in client_host:
        client_host = f"[{client_host}]"
    return [
        "pytest",
        f"--revprop-model={name}",
        f"--revprop-api-base=http://{client_host}:{port}/v1",
    ]
