"""Health checks: whether every OpenAI-compatible API base answers, before a run starts.

A run against a server that is not up would turn every item into a failed call after its
retries; :func:`check_servers` says so at once, in one line, with how to start a server.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

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
    urls: Sequence[str],
    timeout_s: float = 5.0,
    *,
    option: str = API_BASE_OPTION,
    served: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """Raise :class:`UserError` unless every OpenAI-compatible API base answers, at the right
    path, and serves the model names the run will ask for.

    A base is up when ``GET {base}/models`` answers (any 2xx, or 401/403: the server is
    there, only the key is wrong, which the first model call reports better), or, when it
    answers with an error other than 404, ``GET {root}/health`` answers 2xx. A 404 means the
    server is there but the base is not its API's (usually a base without its ``/v1``): every
    call would fail, so it is refused, with the base to use when ``{base}/v1/models`` answers.
    ``served``: base -> the model names calls to it will carry; a name the server's model list
    does not hold is refused naming the ones it serves (an empty list says nothing and passes).
    The bases are probed concurrently, so the whole check takes at most about ``timeout_s``
    per probe made; a refused port fails at once. ``option``: the command's option that names
    the servers, for the hints.
    """
    bases = list(dict.fromkeys(urls))
    for base in bases:
        _check_url_shape(base)
    if not bases:
        return
    with ThreadPoolExecutor(max_workers=len(bases)) as pool:
        probes = list(pool.map(lambda b: _probe(b, timeout_s), bases))
    failed = [
        f"{base} ({probe.problem})"
        for base, probe in zip(bases, probes, strict=True)
        if probe.problem and not probe.wrong_path
    ]
    if failed:
        noun = "server" if len(failed) == 1 else "servers"
        raise UserError(f"model {noun} not reachable: {'; '.join(failed)}; {start_hint(option)}")
    for base, probe in zip(bases, probes, strict=True):
        if probe.wrong_path:
            raise UserError(f"API base {base}: {probe.problem}")
    for base, probe in zip(bases, probes, strict=True):
        missing = [n for n in (served or {}).get(base, ()) if probe.names and n not in probe.names]
        if missing:
            listed = ", ".join(repr(n) for n in probe.names[:10])
            raise UserError(
                f"API base {base} serves {listed}, not {missing[0]!r}: name one of those "
                f"(--revprop-model=openai/NAME, or served_name in a model configuration)"
            )


@dataclass(frozen=True)
class _Probe:
    """What one base answered: a problem in a few words (None: up), whether the problem is a
    wrong path on a live server, and the model names its list holds."""

    problem: str | None = None
    wrong_path: bool = False
    names: tuple[str, ...] = ()


def _check_url_shape(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise UserError(f"API base {url!r} is not an http(s) URL such as http://127.0.0.1:8000/v1")


def _probe(base: str, timeout_s: float) -> _Probe:
    """What the server at ``base`` answers to its model list (and its health, on an error)."""
    base = base.rstrip("/")
    status, problem, body = _get(f"{base}/models", timeout_s)
    if status is not None and 200 <= status < 300:
        return _Probe(names=_model_names(body))
    if status in {401, 403}:
        return _Probe()
    if status is None:
        return _Probe(problem=problem)
    if status == 404:
        if not base.endswith("/v1"):
            v1_status, _, _ = _get(f"{base}/v1/models", timeout_s)
            if v1_status is not None and (200 <= v1_status < 300 or v1_status in {401, 403}):
                return _Probe(
                    problem=f"GET {base}/models answered HTTP 404 and {base}/v1/models answers: "
                    f"the base ends in /v1 ({base}/v1)",
                    wrong_path=True,
                )
        return _Probe(
            problem=f"GET {base}/models answered HTTP 404: the server answers, but not as an "
            "OpenAI-compatible API at this base (its base usually ends in /v1)",
            wrong_path=True,
        )
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    health_status, _ = http_status(f"{root}/health", timeout_s)
    if health_status is not None and 200 <= health_status < 300:
        return _Probe()
    return _Probe(problem=f"GET /models answered HTTP {status}")


def _model_names(body: bytes) -> tuple[str, ...]:
    """The ``id`` of each entry of an OpenAI model list; none when the body is not one."""
    try:
        data = json.loads(body).get("data")
    except (ValueError, AttributeError):
        return ()
    if not isinstance(data, list):
        return ()
    return tuple(str(e["id"]) for e in data if isinstance(e, dict) and "id" in e)


MAX_LIST_BYTES = 1 << 20
"""The most of a model list read: enough for thousands of names."""


def _get(url: str, timeout_s: float) -> tuple[int | None, str, bytes]:
    """(HTTP status or None, short description of a failure, the start of a 2xx body)."""
    try:
        with _opener_for(url).open(url, timeout=timeout_s) as response:
            status: int = response.status
            return status, "", response.read(MAX_LIST_BYTES)
    except urllib.error.HTTPError as exc:
        return exc.code, f"HTTP {exc.code}", b""
    except urllib.error.URLError as exc:
        return None, _describe(exc.reason), b""
    except (TimeoutError, OSError) as exc:
        return None, _describe(exc), b""


def http_status(url: str, timeout_s: float) -> tuple[int | None, str]:
    """(HTTP status or None when no HTTP answer came, short description of a failure)."""
    status, problem, _ = _get(url, timeout_s)
    return status, problem


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
