"""Health checks: whether every OpenAI-compatible API base answers, before a run starts.

A run against a server that is not up would turn every item into a failed call after its
retries; :func:`check_servers` says so at once, in one line, with how to start a server.
"""

from __future__ import annotations

import ipaddress
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from pytest_revprop.errors import UserError

API_BASE_OPTION = "--revprop-api-base"
"""The option that names the servers, in the hint (a run's; ``revprop synth`` has its own)."""


def start_hint(option: str = API_BASE_OPTION) -> str:
    """How to start a server and point the command at it (``option``: its API-base option)."""
    return (
        "start one with `revprop serve MODEL` (vLLM, GPU) or "
        "`python -m llama_cpp.server --model FILE.gguf --port PORT` (CPU), "
        f"then pass {option}=http://HOST:PORT/v1"
    )


def check_servers(
    urls: Sequence[str], timeout_s: float = 5.0, *, option: str = API_BASE_OPTION
) -> None:
    """Raise :class:`UserError` unless every OpenAI-compatible API base answers.

    A base is up when ``GET {base}/models`` answers (any 2xx, or 401/403: the server is
    there, only the key is wrong, which the first model call reports better), or, failing
    that, ``GET {root}/health`` answers 2xx. The bases are probed concurrently, so the whole
    check takes at most about ``timeout_s`` (twice that only for a base whose ``/models``
    answers with an error and whose ``/health`` then hangs); a refused port fails at once.
    ``option``: the command's option that names the servers, for the hint.
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
        raise UserError(f"model {noun} not reachable: {'; '.join(failed)}; {start_hint(option)}")


def _check_url_shape(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise UserError(f"API base {url!r} is not an http(s) URL such as http://127.0.0.1:8000/v1")


def _probe(base: str, timeout_s: float) -> str | None:
    """None when the server at ``base`` answers, else what went wrong in a few words."""
    base = base.rstrip("/")
    status, problem = http_status(f"{base}/models", timeout_s)
    if status is not None and (200 <= status < 300 or status in {401, 403}):
        return None
    if status is None:
        return problem
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    health_status, _ = http_status(f"{root}/health", timeout_s)
    if health_status is not None and 200 <= health_status < 300:
        return None
    return f"GET /models answered HTTP {status}"


def http_status(url: str, timeout_s: float) -> tuple[int | None, str]:
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
