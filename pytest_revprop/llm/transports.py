"""How one attempt goes over the wire: the arguments of litellm's ``acompletion`` or, for the
opt-in ``direct`` transport, the body and headers posted straight to a self-hosted
OpenAI-compatible server (vLLM, llama.cpp, the fake server) with aiohttp.

Both transports send the same messages and generation settings; the direct body is the one
litellm sends for these providers.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from typing import Any

from pytest_revprop.llm.presets import ModelConfig, thaw_extra_body
from pytest_revprop.llm.redact import one_line
from pytest_revprop.llm.responses import MalformedResponse
from pytest_revprop.llm.types import Request
from pytest_revprop.vocabulary import TRANSPORTS as TRANSPORTS

DIRECT_PROVIDERS = ("hosted_vllm", "openai")
TRANSPORT_ENV = "REVPROP_TRANSPORT"
"""``litellm`` (the default: every call through litellm, as in production) or ``direct``
(opt-in: self-hosted OpenAI-compatible servers get a plain POST, see DirectTransport)."""


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


def is_direct(model: ModelConfig, transport: str, base: str | None) -> bool:
    """Whether calls of ``model`` to ``base`` skip litellm: only with the ``direct`` transport,
    and only for a self-hosted OpenAI-compatible server, that is a ``hosted_vllm/`` model, or an
    ``openai/`` one served on this machine or network (litellm adapts some OpenAI models'
    parameters, which a proxy to them may need)."""
    if base is None or model.hosted or transport != "direct":
        return False
    provider = model.provider
    return provider == "hosted_vllm" or (provider in DIRECT_PROVIDERS and is_local_url(base))


def api_key_for(model: ModelConfig, base: str | None) -> str | None:
    """The key sent with a call to ``base``: the model's, or ``EMPTY`` for a keyless OpenAI
    model at an api base (a self-hosted server; litellm's OpenAI route insists on a key)."""
    key = model.api_key()
    if (
        key is None
        and base
        and model.api_key_env is None
        and model.provider == "openai"
        and not os.environ.get("OPENAI_API_KEY")
    ):
        return "EMPTY"
    return key


def generation_settings(request: Request) -> dict[str, Any]:
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


def litellm_kwargs(
    request: Request, base: str | None, timeout: float, api_key: str | None
) -> dict[str, Any]:
    """The keyword arguments of litellm's ``acompletion`` for one attempt (litellm retries
    nothing: the client does)."""
    kwargs: dict[str, Any] = {
        "model": request.litellm_model,
        **generation_settings(request),
        "timeout": timeout,
        "num_retries": 0,
        "max_retries": 0,
    }
    if request.reasoning_effort is not None:
        # litellm 1.80 (our floor) refuses reasoning_effort for a model it does not know as a
        # reasoning model (any openai/NAME served by vLLM); the server decides: let it through.
        kwargs["allowed_openai_params"] = ["reasoning_effort"]
    if base:
        kwargs["api_base"] = base
    if request.extra_body:
        kwargs["extra_body"] = thaw_extra_body(request.extra_body)
    if api_key:
        kwargs["api_key"] = api_key
    return kwargs


def direct_body(request: Request) -> dict[str, Any]:
    """The body litellm sends to a self-hosted server: the model name without its provider
    prefix, and the generation settings (extra_body merged in at the top level)."""
    body: dict[str, Any] = {
        "model": request.litellm_model.partition("/")[2],
        **generation_settings(request),
    }
    body.update(thaw_extra_body(request.extra_body))
    return body


def direct_headers(model: ModelConfig, base: str) -> dict[str, str]:
    """The headers of a direct call: a bearer token when there is a key to send."""
    api_key = api_key_for(model, base) or (
        os.environ.get("OPENAI_API_KEY") if model.provider == "openai" else None
    )
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


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
    """Chat completions posted straight to a self-hosted OpenAI-compatible server with aiohttp.

    It skips litellm's bookkeeping around each call (cost maps, logging objects, response
    metadata), which is what bounds the calls one process can make a second through litellm
    (benchmarks/README.md has the figures). One connection pool per event loop; it is closed
    whenever no request is in flight, so nothing outlives ``asyncio.run``.
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
