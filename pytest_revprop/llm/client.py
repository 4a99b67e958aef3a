"""Model calls through litellm, with everything an evaluation run needs around them.

One path for every call: ``Client.complete(request)``. Around the HTTP call (litellm's
``acompletion``; or, only when asked for with ``transport="direct"``, a plain POST to a
self-hosted OpenAI-compatible server, which costs a tenth of the CPU: see DirectTransport) it adds a content-addressed response cache (the only thing that makes reruns reproducible: servers
are not deterministic under batching), in-process de-duplication of identical requests,
cross-process claims so xdist workers never make the same call twice, a priority-ordered
concurrency bound, replica routing, retries, and usage/cost/latency accounting.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import heapq
import importlib
import itertools
import json
import logging
import os
import random
import re
import socket
import tempfile
import threading
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from pytest_revprop.llm.presets import ModelConfig

log = logging.getLogger(__name__)

CACHE_VERSION = 1
NOT_RETRIED_4XX_EXCEPT = (408, 409, 429)
KEY_MEMO_SIZE = 4096
"""Cache keys a Client remembers (requests in flight at once, and their repeats)."""

STRUCTURED_RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "revision_patch",
        "schema": {
            "type": "object",
            "properties": {
                "patch": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "op": {"type": "string"},
                            "path": {"type": "string"},
                            "from": {"type": "string"},
                            "value": {},
                        },
                        "required": ["op", "path"],
                    },
                }
            },
            "required": ["patch"],
        },
    },
}


def canonical_json(value: Any) -> str:
    """The one JSON spelling used for cache keys: sorted keys, no whitespace."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# --- secrets -------------------------------------------------------------------------------

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD")
_SECRET_PATTERNS = (
    re.compile(r"Bearer\s+[^\s'\",;]+", re.IGNORECASE),
    re.compile(r"\bsk-[A-Za-z0-9_\-]{3,}"),
)


_KNOWN_SECRETS: set[str] = set()


def remember_secret(value: str | None) -> None:
    """Have ``redact`` hide ``value`` too (an API key read from a variable of any name)."""
    if value and len(value) >= 8:
        _KNOWN_SECRETS.add(value)


def redact(text: str) -> str:
    """``text`` with secret env values, remembered keys, bearer tokens and ``sk-...`` keys
    replaced by ``***``."""
    named = (v for k, v in os.environ.items() if len(v) >= 8 and _SECRET_NAME.search(k.upper()))
    secrets = sorted({*named, *_KNOWN_SECRETS}, key=len, reverse=True)
    for value in secrets:
        text = text.replace(value, "***")
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub("***", text)
    return text


def one_line(text: str, limit: int = 400) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


class CallFailed(Exception):
    """A model call that did not produce a reply after its retries (or a fatal 4xx)."""

    def __init__(self, reason: str) -> None:
        self.reason = one_line(redact(reason))
        super().__init__(self.reason)


# --- requests and replies ------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One chat completion request: every field that can change the answer, and no secret."""

    litellm_model: str
    messages: tuple[tuple[str, str], ...]
    seed: int
    served_name: str | None = None
    api_bases: tuple[str, ...] = ()
    temperature: float | None = None
    max_tokens: int = 32768
    reasoning_effort: str | None = None
    extra_body: tuple[tuple[str, str], ...] = ()
    response_format: str | None = None

    @classmethod
    def build(
        cls,
        model: ModelConfig,
        messages: Sequence[Mapping[str, str]],
        seed: int,
        response_format: Mapping[str, Any] | None = None,
    ) -> Request:
        """A request for ``model``; ``messages`` are ``{"role": ..., "content": ...}`` dicts."""
        return cls(
            litellm_model=model.litellm_model,
            messages=tuple((str(m["role"]), str(m["content"])) for m in messages),
            seed=int(seed),
            served_name=model.served_name,
            api_bases=model.api_bases,
            temperature=model.temperature,
            max_tokens=model.max_tokens,
            reasoning_effort=model.reasoning_effort,
            extra_body=model.extra_body,
            response_format=None if response_format is None else canonical_json(response_format),
        )

    def message_dicts(self) -> list[dict[str, str]]:
        return [{"role": role, "content": content} for role, content in self.messages]

    def key_material(self) -> dict[str, Any]:
        return {
            "version": CACHE_VERSION,
            "litellm_model": self.litellm_model,
            "served_name": self.served_name,
            "api_bases": sorted(self.api_bases),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "reasoning_effort": self.reasoning_effort,
            "extra_body": {k: json.loads(v) for k, v in self.extra_body},
            "response_format": None
            if self.response_format is None
            else json.loads(self.response_format),
            "seed": self.seed,
            "messages": self.message_dicts(),
        }

    def cache_key(self) -> str:
        return hashlib.sha256(canonical_json(self.key_material()).encode("utf-8")).hexdigest()


@dataclass
class Reply:
    content: str
    reasoning: str | None = None
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        # Not dataclasses.asdict: every item's record holds its replies, and asdict's deep
        # copy of these flat fields is most of the cost.
        return {name: getattr(self, name) for name in _REPLY_FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reply:
        reasoning = data.get("reasoning")
        finish = data.get("finish_reason")
        return cls(
            content=str(data["content"]),
            reasoning=None if reasoning is None else str(reasoning),
            finish_reason=None if finish is None else str(finish),
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            reasoning_tokens=int(data.get("reasoning_tokens", 0)),
            latency_s=float(data.get("latency_s", 0.0)),
            cost_usd=float(data.get("cost_usd", 0.0)),
            cached=bool(data.get("cached", False)),
        )


_REPLY_FIELDS = tuple(f.name for f in dataclasses.fields(Reply))


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a failed attempt is retried.

    ``attempt_timeout_s`` overrides the model's per-attempt timeout when set.
    """

    max_attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    jitter: float = 0.5
    attempt_timeout_s: float | None = None

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        base = min(self.base_delay * 2.0 ** (attempt - 1), self.max_delay)
        return float(base * (1.0 - self.jitter * random.random()))


@dataclass
class ClientStats:
    """Counters of one Client. ``requests_sent`` counts HTTP attempts (retries included);
    ``calls`` the successful ones; ``dedup_joins`` requests answered by an identical one in
    flight; ``claim_waits`` waits for another process's call to the same request."""

    requests_sent: int = 0
    calls: int = 0
    retries: int = 0
    failures: int = 0
    cache_hits: int = 0
    dedup_joins: int = 0
    claim_waits: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)


# --- scheduling ----------------------------------------------------------------------------


class PrioritySlots:
    """At most ``capacity`` holders; waiters are served highest priority first, then FIFO."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.in_use = 0
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def _has_waiters(self) -> bool:
        while self._waiters and self._waiters[0][2].done():
            heapq.heappop(self._waiters)
        return bool(self._waiters)

    async def acquire(self, priority: int = 0) -> None:
        if self.in_use < self.capacity and not self._has_waiters():
            self.in_use += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (-priority, next(self._order), waiter))
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()
            raise

    def release(self) -> None:
        """Hand the slot to the best waiter, or free it."""
        while self._waiters:
            _, _, waiter = heapq.heappop(self._waiters)
            if not waiter.done():
                waiter.set_result(None)
                return
        self.in_use -= 1


# --- the response cache --------------------------------------------------------------------

_HOST = socket.gethostname()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        import psutil

        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except Exception:
        return True


class ResponseCache:
    """Content-addressed reply files ``<dir>/<key[:2]>/<key>.json`` plus ``.claim`` files.

    Writes are atomic (temp file + ``os.replace``), so readers in other processes see a
    whole file or none; anything unreadable counts as a miss and is overwritten.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def claim_path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.claim"

    def _shard(self, key: str) -> Path:
        shard = self.root / key[:2]
        if not shard.is_dir():
            for folder in (self.root, shard):
                with contextlib.suppress(FileExistsError):
                    folder.mkdir(mode=0o700, parents=True)
        return shard

    def read(self, key: str) -> Reply | None:
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
            if data.get("version") != CACHE_VERSION or data.get("key") != key:
                return None
            return Reply.from_dict(data["reply"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def write(self, key: str, request: Request, reply: Reply) -> None:
        record = {
            "version": CACHE_VERSION,
            "key": key,
            "request": request.key_material(),
            "reply": {**reply.to_dict(), "cached": False},
            "created": time.time(),
        }
        shard = self._shard(key)
        fd, tmp = tempfile.mkstemp(dir=shard, prefix=f".{key[:16]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                # compact: json's C encoder (indented output takes its pure-Python path, 5x slower)
                handle.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
            os.replace(tmp, self.path(key))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def try_claim(self, key: str) -> bool:
        """Create ``<key>.claim`` exclusively; False when another holder has it."""
        path = self.claim_path(key)
        self._shard(key)
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps({"pid": os.getpid(), "host": _HOST, "time": time.time()}))
        return True

    def touch_claim(self, key: str) -> None:
        with contextlib.suppress(OSError):
            os.utime(self.claim_path(key))

    def release_claim(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.claim_path(key))

    def claim_state(self, key: str, ttl_s: float) -> str:
        """``"none"``, ``"live"`` or ``"stale"`` (holder dead, or silent for ``ttl_s``)."""
        path = self.claim_path(key)
        try:
            age = time.time() - path.stat().st_mtime
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return "none"
        except OSError:
            return "live"
        if age > ttl_s:
            return "stale"
        try:
            holder = json.loads(text)
            pid, host = int(holder["pid"]), str(holder["host"])
        except (ValueError, KeyError, TypeError):
            return "stale" if age > 5.0 else "live"
        if host == _HOST and not _pid_alive(pid):
            return "stale"
        return "live"

    def break_claim(self, key: str) -> None:
        self.release_claim(key)


# --- litellm -------------------------------------------------------------------------------

_LITELLM: Any = None
_LITELLM_LOCK = threading.Lock()
_PRICED: set[str] = set()


def load_litellm() -> Any:
    """Import litellm once, offline and quiet (no cost-map download, no telemetry, no retries).

    The import takes seconds of CPU; a run does it before its first call is scheduled
    (``Client.prepare``), as part of its start-up."""
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
    exact name the lookup is one dict access (3.5 against 3.9 ms of CPU per litellm call here,
    median of five runs), and litellm's own figure equals ours (run costs always come from
    ``ModelConfig.cost_usd``).
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


_WARMED: set[str] = set()


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


class MalformedResponse(Exception):
    """The server answered, but not with a usable chat completion."""


# --- self-hosted OpenAI-compatible servers, without litellm --------------------------------

DIRECT_PROVIDERS = ("hosted_vllm", "openai")
TRANSPORT_ENV = "REVPROP_TRANSPORT"
"""``litellm`` (the default: every call through litellm, as in production) or ``direct``
(opt-in: self-hosted OpenAI-compatible servers get a plain POST, see DirectTransport)."""
TRANSPORTS = ("litellm", "direct")


def is_local_url(url: str) -> bool:
    """True for a loopback or private address, ``localhost``, or a host name without dots."""
    import ipaddress
    import urllib.parse

    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost" or (bool(host) and "." not in host)
    return address.is_loopback or address.is_private


class APIStatusError(Exception):
    """An error status from an OpenAI-compatible server, with what retries look at."""

    def __init__(self, status_code: int, message: str, headers: Mapping[str, str]) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.headers = dict(headers)


def _error_message(status: int, text: str) -> str:
    with contextlib.suppress(ValueError, TypeError, AttributeError):
        error = json.loads(text).get("error")
        message = error.get("message") if isinstance(error, Mapping) else error
        if message:
            return str(message)
    return text.strip() or f"status {status}"


class DirectTransport:
    """Chat completions posted straight to a self-hosted OpenAI-compatible server (vLLM,
    llama.cpp, the fake server) with aiohttp.

    litellm's bookkeeping around each call (cost maps, logging objects, response metadata)
    costs about 5 ms of CPU per call against 0.3 ms here (measured on loopback), which capped
    one process at about 150 calls a second, below what a vLLM batch takes. The request body
    is the one litellm sends for these providers. One connection pool per event loop; it is
    closed whenever no request is in flight, so nothing outlives ``asyncio.run``.
    """

    def __init__(self) -> None:
        self._session: Any = None
        self._users = 0
        self._proxies: dict[str, str | None] = {}

    def _proxy(self, url: str) -> str | None:
        """The proxy the environment names for ``url`` (looked up once per URL: aiohttp's own
        ``trust_env`` looks it up in a thread on every request)."""
        if url not in self._proxies:
            import urllib.parse
            import urllib.request

            parts = urllib.parse.urlsplit(url)
            bypass = urllib.request.proxy_bypass(parts.hostname or "")
            self._proxies[url] = None if bypass else urllib.request.getproxies().get(parts.scheme)
        return self._proxies[url]

    async def post(
        self, url: str, body: Mapping[str, Any], headers: Mapping[str, str], timeout: float
    ) -> Any:
        """The decoded JSON answer; APIStatusError for an error status, MalformedResponse for
        a body that is not JSON; aiohttp's errors for a broken connection."""
        import aiohttp

        if self._session is None:
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        session = self._session
        self._users += 1
        try:
            async with session.post(
                url, json=body, headers=headers, proxy=self._proxy(url),
                timeout=aiohttp.ClientTimeout(total=timeout),
            ) as response:  # fmt: skip
                text = await response.text()
                if response.status >= 400:
                    raise APIStatusError(
                        response.status, _error_message(response.status, text), response.headers
                    )
            try:
                return json.loads(text)
            except ValueError:
                raise MalformedResponse(f"not JSON: {one_line(text, 80)}") from None
        finally:
            self._users -= 1
            if self._users == 0 and self._session is session:
                self._session = None
                await session.close()


def _field(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "provider_specific_fields", None)
        if isinstance(extra, Mapping):
            value = extra.get(name)
    return value


def _as_int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError, OverflowError):
        return 0


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: Any) -> str:
    """``value`` as text that can be written as UTF-8: a lone surrogate (a JSON ``\\ud800``
    escape, which no valid UTF-8 can carry) becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", str(value))


def parse_response(response: Any, latency_s: float, model: ModelConfig) -> Reply:
    """A Reply from a litellm ModelResponse; MalformedResponse if it has no message."""
    choices = _field(response, "choices")
    if not choices:
        raise MalformedResponse("response has no choices")
    choice = choices[0]
    message = _field(choice, "message")
    if message is None:
        raise MalformedResponse("response choice has no message")
    content = _field(message, "content")
    reasoning = _field(message, "reasoning_content") or _field(message, "reasoning")
    usage = _field(response, "usage")
    details = _field(usage, "completion_tokens_details")
    input_tokens = _as_int(_field(usage, "prompt_tokens"))
    output_tokens = _as_int(_field(usage, "completion_tokens"))
    return Reply(
        content="" if content is None else _text(content),
        reasoning=None if not reasoning else _text(reasoning),
        finish_reason=_field(choice, "finish_reason"),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        reasoning_tokens=_as_int(_field(details, "reasoning_tokens")),
        latency_s=latency_s,
        cost_usd=model.cost_usd(input_tokens, output_tokens),
        cached=False,
    )


def _header(headers: Any, name: str) -> str | None:
    if headers is None:
        return None
    with contextlib.suppress(Exception):
        for key, value in dict(headers).items():
            if str(key).lower() == name:
                return str(value)
    return None


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds from a Retry-After (or retry-after-ms) header carried by the exception."""
    sources = [
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ]
    for headers in sources:
        millis = _header(headers, "retry-after-ms")
        if millis is not None:
            with contextlib.suppress(ValueError):
                return float(millis) / 1000.0
        value = _header(headers, "retry-after")
        if value is None:
            continue
        with contextlib.suppress(ValueError):
            return float(value)
        with contextlib.suppress(TypeError, ValueError, IndexError):
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    return None


def status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def is_retryable(exc: BaseException) -> bool:
    """Everything but a client error (4xx other than 408/409/429) is worth another attempt."""
    if isinstance(
        exc, Warning
    ):  # a warning the user's filters turn into an error: no attempt will differ
        return False
    status = status_of(exc)
    if isinstance(exc, MalformedResponse | TimeoutError) or status is None:
        return True
    return not (400 <= status < 500 and status not in NOT_RETRIED_4XX_EXCEPT)


_LITELLM_PREFIX = re.compile(r"^(litellm\.\w+: )?(\w+: )?")


def describe(exc: BaseException) -> str:
    """``HTTP 503 ServiceUnavailableError: message``, redacted, on one line."""
    status = status_of(exc)
    prefix = f"HTTP {status} " if status else ""
    text = _LITELLM_PREFIX.sub("", one_line(str(exc))) or "no message"
    return one_line(redact(f"{prefix}{type(exc).__name__}: {text}"), 300)


# --- the client ----------------------------------------------------------------------------


class Client:
    """Makes (or finds in the cache) completions for one model. Safe for many coroutines.

    ``concurrency`` bounds requests in flight from this process; under xdist each worker
    has its own bound. The cache folder may be shared by any number of processes. One
    event loop at a time (a new loop, e.g. a second ``asyncio.run``, resets the scheduling
    state); not thread-safe.
    """

    def __init__(
        self,
        model: ModelConfig,
        *,
        cache_dir: Path | None,
        concurrency: int = 32,
        retry: RetryPolicy | None = None,
        transport: str | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if model.kind == "reference":
            raise ValueError(f"{model.name} is a reference solver: it makes no model calls")
        if model.kind == "embedded" and not model.api_bases:
            raise ValueError(f"{model.name}: set api_bases to the embedded server's URL first")
        self.model = model
        remember_secret(model.api_key())
        self.cache = None if cache_dir is None else ResponseCache(Path(cache_dir))
        self.concurrency = concurrency
        self.retry = retry or RetryPolicy()
        self.stats = ClientStats()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots = PrioritySlots(concurrency)
        self._stopping = False
        self._pending: dict[str, asyncio.Future[Reply]] = {}
        self._keys: dict[Request, str] = {}
        self.transport = transport or os.environ.get(TRANSPORT_ENV) or "litellm"
        if self.transport not in TRANSPORTS:
            raise ValueError(
                f"unknown transport {self.transport!r} (choose from {', '.join(TRANSPORTS)})"
            )
        self._transport = DirectTransport()
        self._base_load: dict[str | None, int] = {}
        self._round_robin = itertools.count()
        self._down_until: dict[str, float] = {}

    def prepare(self) -> None:
        """Do the one-off work of the first call now, in the calling thread: import litellm,
        if any call of this client goes through it, give it the model's prices
        (``register_prices``) and warm its call path up (``warm_up_litellm``, which swaps the
        process's warning filters for a moment: not from the event loop's thread)."""
        if any(not self._direct(base) for base in self.model.api_bases or (None,)):
            warm_up_litellm(self._litellm(), self.model)

    def _litellm(self) -> Any:
        litellm = load_litellm()
        register_prices(litellm, self.model)
        return litellm

    # convenience views of the stats
    @property
    def requests_sent(self) -> int:
        return self.stats.requests_sent

    @property
    def cache_hits(self) -> int:
        return self.stats.cache_hits

    @property
    def peak_in_flight(self) -> int:
        return self.stats.peak_in_flight

    @property
    def in_flight(self) -> int:
        return self.stats.in_flight

    @property
    def attempt_timeout_s(self) -> float:
        return self.retry.attempt_timeout_s or self.model.attempt_timeout_s

    @property
    def claim_ttl_s(self) -> float:
        """Age after which a silent claim is presumed abandoned."""
        return (self.attempt_timeout_s + self.retry.max_delay) * self.retry.max_attempts

    def make_request(
        self, messages: Sequence[Mapping[str, str]], seed: int, structured: bool = False
    ) -> Request:
        return Request.build(
            self.model, messages, seed, STRUCTURED_RESPONSE_FORMAT if structured else None
        )

    def _bind_loop(self) -> None:
        """Start fresh scheduling state when used from a new event loop (e.g. asyncio.run)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop = loop
            self._slots = PrioritySlots(self.concurrency)
            self._stopping = False
            self._pending = {}
            self._base_load = {}
            self._transport = DirectTransport()
            self.stats.in_flight = 0

    async def complete(self, request: Request, *, priority: int = 0) -> Reply:
        """The reply to ``request``: from the cache, a concurrent twin, or one real call.

        Raises CallFailed when the call fails for good. ``priority``: higher is served first
        when requests wait for a free slot.
        """
        self._bind_loop()
        key = self._key(request)
        shared = self._pending.get(key)
        if shared is None:
            shared = asyncio.ensure_future(self._resolve(request, key, priority))
            self._pending[key] = shared
            shared.add_done_callback(lambda done: self._forget(key, done))
        else:
            self.stats.dedup_joins += 1
        reply = await asyncio.shield(shared)
        return dataclasses.replace(reply)

    def _key(self, request: Request) -> str:
        """``request.cache_key()``, remembered: items of a run ask the same requests many times,
        and hashing a tuple of already-hashed strings is much cheaper than the SHA-256."""
        key = self._keys.get(request)
        if key is None:
            if len(self._keys) >= KEY_MEMO_SIZE:
                self._keys.clear()
            key = self._keys[request] = request.cache_key()
        return key

    async def finish_in_flight(self, timeout: float) -> None:
        """Send nothing more and wait, at most ``timeout`` seconds, for the requests in flight.

        For a process that leaves while others go on (an xdist worker whose last item is done
        but whose calls made ahead are running): a request the server has seen must end with
        its reply in the cache, or whoever needs it would make it again.
        """
        self._bind_loop()
        self._stopping = True
        deadline = time.monotonic() + timeout
        while self.stats.in_flight and time.monotonic() < deadline:
            await asyncio.sleep(0.01)

    def _forget(self, key: str, done: asyncio.Future[Reply]) -> None:
        if self._pending.get(key) is done:
            del self._pending[key]
        if not done.cancelled():
            done.exception()

    def _cached(self, key: str) -> Reply | None:
        if self.cache is None:
            return None
        reply = self.cache.read(key)
        if reply is None:
            return None
        self.stats.cache_hits += 1
        reply.cached = True
        reply.cost_usd = self.model.cost_usd(reply.input_tokens, reply.output_tokens)
        return reply

    async def _resolve(self, request: Request, key: str, priority: int) -> Reply:
        cached = self._cached(key)
        if cached is not None:
            return cached
        cache = self.cache
        if cache is None:
            return await self._call(request, priority)
        while True:
            if cache.try_claim(key):
                try:
                    cached = self._cached(key)
                    if cached is not None:
                        return cached
                    reply = await self._call(request, priority, key)
                    cache.write(key, request, reply)
                    return reply
                finally:
                    cache.release_claim(key)
            self.stats.claim_waits += 1
            cached = await self._wait_for_claim(key)
            if cached is not None:
                return cached

    async def _wait_for_claim(self, key: str) -> Reply | None:
        """Wait while another process holds the claim; its reply, or None to try claiming."""
        assert self.cache is not None
        delay = 0.01
        while True:
            cached = self._cached(key)
            if cached is not None:
                return cached
            state = self.cache.claim_state(key, self.claim_ttl_s)
            if state == "none":
                return self._cached(key)
            if state == "stale":
                log.warning("breaking a stale claim on cache entry %s", key[:12])
                self.cache.break_claim(key)
                return None
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def _pick_base(self, bases: Sequence[str], avoid: set[str]) -> str | None:
        """The replica to try next: not yet failed for this request, not cooling down after a
        recent failure, and with the fewest requests in flight (ties round-robin)."""
        if not bases:
            return None
        now = time.monotonic()
        untried = [b for b in bases if b not in avoid] or list(bases)
        healthy = [b for b in untried if self._down_until.get(b, 0.0) <= now] or untried
        least = min(self._base_load.get(b, 0) for b in healthy)
        tied = [b for b in healthy if self._base_load.get(b, 0) == least]
        return tied[next(self._round_robin) % len(tied)]

    def _other_replica_ready(self, bases: Sequence[str], failed: set[str]) -> bool:
        now = time.monotonic()
        return any(b not in failed and self._down_until.get(b, 0.0) <= now for b in bases)

    def _api_key(self, base: str | None) -> str | None:
        key = self.model.api_key()
        if (
            key is None
            and base
            and self.model.api_key_env is None
            and self.model.provider == "openai"
            and not os.environ.get("OPENAI_API_KEY")
        ):
            return "EMPTY"
        return key

    @staticmethod
    def _generation(request: Request) -> dict[str, Any]:
        """The messages and generation settings of a request, as both transports send them."""
        settings: dict[str, Any] = {
            "messages": request.message_dicts(),
            "seed": request.seed,
            "max_tokens": request.max_tokens,
        }
        if request.temperature is not None:
            settings["temperature"] = request.temperature
        if request.reasoning_effort is not None:
            settings["reasoning_effort"] = request.reasoning_effort
        if request.response_format is not None:
            settings["response_format"] = json.loads(request.response_format)
        return settings

    def _kwargs(self, request: Request, base: str | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": request.litellm_model,
            **self._generation(request),
            "timeout": self.attempt_timeout_s,
            "num_retries": 0,
            "max_retries": 0,
        }
        if base:
            kwargs["api_base"] = base
        if request.extra_body:
            kwargs["extra_body"] = {k: json.loads(v) for k, v in request.extra_body}
        api_key = self._api_key(base)
        if api_key:
            kwargs["api_key"] = api_key
        return kwargs

    def _direct(self, base: str | None) -> bool:
        """Whether calls to ``base`` skip litellm: a self-hosted OpenAI-compatible server, that
        is a ``hosted_vllm/`` model, or an ``openai/`` one served on this machine or network
        (litellm adapts some OpenAI models' parameters, which a proxy to them may need)."""
        if base is None or self.model.hosted or self.transport != "direct":
            return False
        provider = self.model.provider
        return provider == "hosted_vllm" or (provider in DIRECT_PROVIDERS and is_local_url(base))

    def _direct_body(self, request: Request) -> dict[str, Any]:
        """The body litellm sends to such a server: the model name without its provider prefix,
        and the generation settings (extra_body merged in at the top level)."""
        body: dict[str, Any] = {
            "model": request.litellm_model.partition("/")[2],
            **self._generation(request),
        }
        body.update({k: json.loads(v) for k, v in request.extra_body})
        return body

    async def _attempt(self, request: Request, base: str | None) -> Reply:
        if self._direct(base):
            assert base is not None
            api_key = self._api_key(base) or (
                os.environ.get("OPENAI_API_KEY") if self.model.provider == "openai" else None
            )
            headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
            started = time.monotonic()
            call = self._transport.post(
                base.rstrip("/") + "/chat/completions",
                self._direct_body(request),
                headers,
                self.attempt_timeout_s,
            )
        else:
            litellm = self._litellm()
            kwargs = self._kwargs(request, base)
            started = time.monotonic()
            call = litellm.acompletion(**kwargs)
        response = await asyncio.wait_for(call, timeout=self.attempt_timeout_s + 5.0)
        return parse_response(response, time.monotonic() - started, self.model)

    async def _call(self, request: Request, priority: int, key: str | None = None) -> Reply:
        """One reply from the servers, with retries across replicas; CallFailed otherwise."""
        failed: set[str] = set()
        last = "no attempt made"
        wait = 0.0
        where = request.litellm_model
        for attempt in range(1, self.retry.max_attempts + 1):
            await self._slots.acquire(priority)
            if self._stopping:
                self._slots.release()
                await asyncio.get_running_loop().create_future()  # until the run cancels this call
            base = self._pick_base(request.api_bases, failed)
            where = f"{request.litellm_model} at {base}" if base else request.litellm_model
            self._begin(base)
            if key is not None and self.cache is not None:
                self.cache.touch_claim(key)
            try:
                reply = await self._attempt(request, base)
            except Exception as exc:
                last = describe(exc)
                if not is_retryable(exc):
                    self.stats.failures += 1
                    raise CallFailed(f"{where}: {last}") from None
                wait = self.retry.delay(attempt, retry_after_s(exc))
                if base:
                    failed.add(base)
                    self._down_until[base] = time.monotonic() + wait
                    if self._other_replica_ready(request.api_bases, failed):
                        wait = 0.0
            else:
                self.stats.calls += 1
                if base:
                    self._down_until.pop(base, None)
                return reply
            finally:
                self._end(base)
                self._slots.release()
            if attempt < self.retry.max_attempts:
                self.stats.retries += 1
                log.info(redact(f"retrying {where} in {wait:.2f}s after: {last}"))
                await asyncio.sleep(wait)
        self.stats.failures += 1
        raise CallFailed(f"{where}: gave up after {self.retry.max_attempts} attempts: {last}")

    def _begin(self, base: str | None) -> None:
        self.stats.requests_sent += 1
        self.stats.in_flight += 1
        self.stats.peak_in_flight = max(self.stats.peak_in_flight, self.stats.in_flight)
        self._base_load[base] = self._base_load.get(base, 0) + 1

    def _end(self, base: str | None) -> None:
        self.stats.in_flight -= 1
        self._base_load[base] = self._base_load.get(base, 1) - 1
