"""An OpenAI-compatible chat server with scripted replies, for tests and benchmarks.

It speaks real HTTP (aiohttp), so the client under test goes through litellm exactly as it
would against vLLM. It can simulate a server's batch (``slots``), latency, and faults.

In process::

    with FakeServer(latency_s=0.01, slots=4, default={"content": "[]"}) as srv:
        srv.base_url    # http://127.0.0.1:PORT/v1
        srv.stats()     # what it received

As a subprocess (for tests that kill a process)::

    python -m pytest_revprop.testing.fakeserver --port 0 --config CONFIG.json
    # prints "READY http://127.0.0.1:PORT/v1" once it accepts connections

Options (keyword arguments, or keys of the config JSON):

- ``latency_s``: seconds each request takes once it holds a slot;
- ``slots``: at most this many requests are processed at once, the rest queue (None: no bound);
- ``rules``: list of ``{"contains", "seed", "content", "reasoning", "reasoning_field",
  "finish_reason"}``; the first rule whose ``contains`` occurs in some message's text and
  whose ``seed`` equals the request's seed (None matches anything) answers; else ``default``;
- ``responder``: ``"module:function"`` taking the request body dict and returning such a dict
  (used instead of the rules);
- ``faults``: ``{"first_attempt_fail_fraction": 0.3, "kinds": ["429", "503", "reset",
  "malformed", "hang"], "retry_after_s": 0.1, "always_fail": "503", "hang_s": 5}``; the
  kinds are in ``FAULT_KINDS`` (a status code answers with that status);
- ``model_names``: served model names, listed by ``/v1/models``; a request for another model
  gets a 404 like vLLM's (without names, any model is answered and none is listed);
- ``response_formats``: the ``response_format`` types the server takes (None: any); another
  gets HTTP 500 with a validation error, as llama.cpp's server answers ``json_schema``.

In reply contents, ``{seed}``, ``{model}`` and ``{digest}`` (a short hash of the request's
model, messages, seed and sampling settings) are replaced, so scripted replies can differ
per request.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import importlib
import json
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

Responder = Callable[[dict[str, Any]], Mapping[str, Any]]
FAULT_KINDS = ("429", "503", "500", "400", "401", "403", "reset", "malformed", "hang")

DEFAULT_REPLY: dict[str, Any] = {"content": "[]", "finish_reason": "stop"}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a chat message whose content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


def request_digest(body: Mapping[str, Any]) -> str:
    """A short hash of what should determine a reply (not the transport details)."""
    parts = {k: body.get(k) for k in ("model", "messages", "seed", "temperature", "max_tokens")}
    return hashlib.sha256(_canonical(parts).encode()).hexdigest()[:12]


def load_responder(spec: str) -> Responder:
    """The responder ``module:function``, imported; ValueError when it names no callable."""
    module_name, sep, func_name = spec.partition(":")
    if not sep:
        raise ValueError(f"responder must be 'module:function', got {spec!r}")
    func = getattr(importlib.import_module(module_name), func_name)
    if not callable(func):
        raise ValueError(f"responder {spec!r} is not callable")
    return func  # type: ignore[no-any-return]


def _rules_responder(rules: Sequence[Mapping[str, Any]], default: Mapping[str, Any]) -> Responder:
    def respond(body: dict[str, Any]) -> Mapping[str, Any]:
        texts = [message_text(m) for m in body.get("messages", []) if isinstance(m, Mapping)]
        for rule in rules:
            needle = rule.get("contains")
            if needle is not None and not any(needle in t for t in texts):
                continue
            if rule.get("seed") is not None and rule.get("seed") != body.get("seed"):
                continue
            return rule
        return default

    return respond


class _State:
    """Counters and fault memory shared by the handlers (one event loop; no locks needed)."""

    def __init__(self, record_bodies: bool) -> None:
        self.record_bodies = record_bodies
        self.reset()

    def reset(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.count = 0
        self.in_flight = 0
        self.peak_in_flight = 0
        self.received_in_flight = 0
        self.peak_received = 0
        self.statuses: Counter[str] = Counter()
        self.seen_bodies: set[str] = set()

    def snapshot(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "requests": list(self.requests),
            "peak_in_flight": self.peak_in_flight,
            "in_flight": self.in_flight,
            "peak_received": self.peak_received,
            "statuses": dict(self.statuses),
        }


class FakeApp:
    """The request handlers and options; ``build()`` gives the aiohttp application."""

    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        slots: int | None = None,
        rules: Sequence[Mapping[str, Any]] | None = None,
        default: Mapping[str, Any] | None = None,
        responder: str | Responder | None = None,
        faults: Mapping[str, Any] | None = None,
        model_names: Sequence[str] | None = None,
        response_formats: Sequence[str] | None = None,
        record_bodies: bool = True,
    ) -> None:
        self.latency_s = float(latency_s)
        self.slots = slots
        self.faults = dict(faults or {})
        for kind in [*self.faults.get("kinds", []), self.faults.get("always_fail")]:
            if kind is not None and str(kind) not in FAULT_KINDS:
                raise ValueError(f"unknown fault kind {kind!r} (known: {', '.join(FAULT_KINDS)})")
        self.model_names = list(model_names) if model_names else None
        self.response_formats = None if response_formats is None else list(response_formats)
        if isinstance(responder, str):
            responder = load_responder(responder)
        self.respond: Responder = responder or _rules_responder(
            list(rules or []), dict(default or DEFAULT_REPLY)
        )
        self.state = _State(record_bodies)
        self._semaphore: asyncio.Semaphore | None = None

    def build(self) -> Any:
        """The aiohttp app: chat, models, ``/health``, and test-only ``/_stats`` and ``/_reset``."""
        from aiohttp import web

        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self.chat)
        app.router.add_get("/v1/models", self.models)
        app.router.add_get("/health", self.health)
        app.router.add_get("/_stats", self.stats)
        app.router.add_post("/_reset", self.reset)
        return app

    # --- endpoints ---------------------------------------------------------------------------

    async def health(self, request: Any) -> Any:
        """``GET /health``: always ``ok``, as a started server answers."""
        from aiohttp import web

        return web.Response(text="ok")

    async def models(self, request: Any) -> Any:
        """``GET /v1/models``: the served model names (``fake-model`` when none were given)."""
        from aiohttp import web

        names = self.model_names or ()  # no names: any name is answered, so none is listed
        data = [{"id": n, "object": "model", "owned_by": "fakeserver"} for n in names]
        return web.json_response({"object": "list", "data": data})

    async def stats(self, request: Any) -> Any:
        """``GET /_stats``: the counters of what the server received and answered."""
        from aiohttp import web

        return web.json_response(self.state.snapshot())

    async def reset(self, request: Any) -> Any:
        """``POST /_reset``: forget every request received and zero the counters."""
        from aiohttp import web

        self.state.reset()
        return web.json_response({"ok": True})

    async def chat(self, request: Any) -> Any:
        """``POST /v1/chat/completions``: the reply the rules or the responder give, after the
        configured latency, within the slots; a malformed body gets HTTP 400."""
        from aiohttp import web

        state = self.state
        state.received_in_flight += 1
        state.peak_received = max(state.peak_received, state.received_in_flight)
        try:
            raw = await request.read()
            try:
                body = json.loads(raw)
                if not isinstance(body, dict):
                    raise ValueError("body is not an object")
            except ValueError as exc:
                return self._status(web.json_response({"error": {"message": str(exc)}}, status=400))
            state.count += 1
            if state.record_bodies:
                state.requests.append(body)
            if self.model_names and body.get("model") not in self.model_names:
                message = f"The model `{body.get('model')}` does not exist."
                error = {"message": message, "type": "NotFoundError", "code": 404}
                return self._status(web.json_response({"error": error}, status=404))
            refused = self._refused_format(body)
            if refused is not None:
                return self._status(web.json_response({"error": refused}, status=500))
            fault = self._fault_for(raw)
            if fault is not None:
                return await self._fail(request, fault)
            async with self._slot():
                if self.latency_s:
                    await asyncio.sleep(self.latency_s)
                reply = self.respond(body)
                return self._status(web.json_response(self.completion(body, reply)))
        finally:
            state.received_in_flight -= 1

    @contextlib.asynccontextmanager
    async def _slot(self) -> Any:
        if self.slots is not None and self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.slots)
        if self._semaphore is not None:
            await self._semaphore.acquire()
        self.state.in_flight += 1
        self.state.peak_in_flight = max(self.state.peak_in_flight, self.state.in_flight)
        try:
            yield
        finally:
            self.state.in_flight -= 1
            if self._semaphore is not None:
                self._semaphore.release()

    def _status(self, response: Any) -> Any:
        self.state.statuses[str(response.status)] += 1
        return response

    def _refused_format(self, body: Mapping[str, Any]) -> dict[str, Any] | None:
        """llama.cpp's answer to a ``response_format`` type it does not take, or None."""
        kind = (body.get("response_format") or {}).get("type")
        if self.response_formats is None or kind is None or kind in self.response_formats:
            return None
        expected = " or ".join(repr(k) for k in self.response_formats)
        message = (
            f"1 validation error: {{'type': 'literal_error', 'loc': ('body', 'response_format', "
            f"'type'), 'msg': \"Input should be {expected}\", 'input': {kind!r}}}"
        )
        return {"message": message, "type": "internal_server_error", "code": None}

    # --- faults ------------------------------------------------------------------------------

    def _fault_for(self, raw: bytes) -> str | None:
        """The fault this request suffers: always, or on the first attempt of chosen bodies."""
        always = self.faults.get("always_fail")
        if always:
            return str(always)
        fraction = float(self.faults.get("first_attempt_fail_fraction", 0.0))
        kinds = [str(k) for k in self.faults.get("kinds", ["503"])]
        if fraction <= 0 or not kinds:
            return None
        digest = hashlib.sha256(raw).digest()
        if int.from_bytes(digest[:8], "big") / 2**64 >= fraction:
            return None
        marker = digest.hex()
        if marker in self.state.seen_bodies:
            return None
        self.state.seen_bodies.add(marker)
        return kinds[digest[8] % len(kinds)]

    async def _fail(self, request: Any, kind: str) -> Any:
        from aiohttp import web

        if kind == "hang":
            self.state.statuses["hang"] += 1
            await asyncio.sleep(float(self.faults.get("hang_s", 30.0)))
        if kind in ("reset", "hang"):
            if kind == "reset":
                self.state.statuses["reset"] += 1
            if request.transport is not None:
                request.transport.abort()
            return web.Response(status=500)
        if kind == "malformed":
            self.state.statuses["malformed"] += 1
            return web.Response(text='{"id": "x", "choices": [', content_type="application/json")
        status = int(kind)
        headers = {}
        if status == 429:
            headers["Retry-After"] = str(self.faults.get("retry_after_s", 0.1))
        error = {"message": f"fault injection: {status}", "type": "fault", "code": status}
        return self._status(web.json_response({"error": error}, status=status, headers=headers))

    # --- replies -----------------------------------------------------------------------------

    @staticmethod
    def completion(body: Mapping[str, Any], reply: Mapping[str, Any]) -> dict[str, Any]:
        """An OpenAI chat.completion object for ``reply`` (with rough usage counts)."""
        fill = {
            "{seed}": str(body.get("seed")),
            "{model}": str(body.get("model")),
            "{digest}": request_digest(body),
        }
        content = str(reply.get("content", ""))
        reasoning = reply.get("reasoning")
        for placeholder, value in fill.items():
            content = content.replace(placeholder, value)
            if isinstance(reasoning, str):
                reasoning = reasoning.replace(placeholder, value)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        reasoning_tokens = 0
        if reasoning:
            message[str(reply.get("reasoning_field", "reasoning_content"))] = reasoning
            reasoning_tokens = len(reasoning) // 4
        prompt_chars = sum(
            len(message_text(m)) for m in body.get("messages", []) if isinstance(m, Mapping)
        )
        completion_tokens = (len(content) + len(reasoning or "")) // 4
        usage: dict[str, Any] = {
            "prompt_tokens": prompt_chars // 4,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_chars // 4 + completion_tokens,
        }
        if reasoning_tokens:
            usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
        return {
            "id": f"chatcmpl-{request_digest(body)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", "fake-model")),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": str(reply.get("finish_reason", "stop")),
                    "logprobs": None,
                }
            ],
            "usage": usage,
        }


class FakeServer:
    """A FakeApp on 127.0.0.1 in a background thread with its own event loop."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, **options: Any) -> None:
        self.app = FakeApp(**options)
        self.host = host
        self.port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: Any = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        """The server's address, ``http://HOST:PORT``."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style API base, ``http://HOST:PORT/v1``."""
        return f"{self.url}/v1"

    def start(self) -> FakeServer:
        """Serve on a background thread, once listening; RuntimeError when it does not start."""
        self._thread = threading.Thread(target=self._run, name="fakeserver", daemon=True)
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise RuntimeError(f"fake server did not start: {self._error}") from self._error
        return self

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        loop.run_forever()
        loop.run_until_complete(self._runner.cleanup())
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()

    async def _serve(self) -> None:
        self._runner, self.port = await start_site(self.app, self.host, self.port)

    def stop(self) -> None:
        """Stop serving and join the thread (nothing when not started)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        self._loop = self._thread = None

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _on_loop(self, func: Callable[[], Any]) -> Any:
        """Run ``func`` on the server's loop (state is only touched there)."""
        loop = self._loop
        if loop is None:
            return func()

        async def call() -> Any:
            return func()

        return asyncio.run_coroutine_threadsafe(call(), loop).result(30)

    def stats(self) -> dict[str, Any]:
        """The server's counters (``/_stats``), read on its loop."""
        return self._on_loop(self.app.state.snapshot)  # type: ignore[no-any-return]

    def reset(self) -> None:
        """Make the server forget every request received and zero its counters."""
        self._on_loop(self.app.state.reset)


def get_json(url: str, timeout: float = 30.0) -> Any:
    """GET ``url`` and decode its JSON body (stdlib only; for tests and health probes)."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.loads(response.read())


def post_json(url: str, body: Any, timeout: float = 30.0) -> Any:
    """POST ``body`` as JSON to ``url`` and return the decoded JSON answer."""
    data = json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


class FakeServerProcess:
    """The fake server in a child process (``python -m pytest_revprop.testing.fakeserver``).

    For tests that kill or restart processes; options are those of FakeServer.
    """

    def __init__(self, config_dir: Path, **options: Any) -> None:
        self.config_path = Path(config_dir) / f"fakeserver-{id(self):x}.json"
        self.log_path = self.config_path.with_suffix(".log")
        self.options = options
        self.process: subprocess.Popen[str] | None = None
        self.base_url = ""

    @property
    def url(self) -> str:
        """The child server's address, ``http://HOST:PORT``."""
        return self.base_url.removesuffix("/v1")

    def start(self) -> FakeServerProcess:
        """Start the child process and wait for its ``READY`` line; RuntimeError (with the log's
        last line) when it does not start."""
        self.config_path.write_text(json.dumps(self.options), encoding="utf-8")
        command = [sys.executable, "-m", "pytest_revprop.testing.fakeserver", "--port", "0"]
        with self.log_path.open("w", encoding="utf-8") as log:
            self.process = subprocess.Popen(
                [*command, "--config", str(self.config_path)],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if not line.startswith("READY "):
            self.stop()
            detail = self.log_path.read_text(encoding="utf-8").strip().splitlines()[-1:]
            raise RuntimeError(f"fake server process did not start: {line!r} {detail}")
        self.base_url = line.split(" ", 1)[1]
        return self

    def stats(self) -> dict[str, Any]:
        """The child server's counters (``/_stats``)."""
        return get_json(f"{self.url}/_stats")  # type: ignore[no-any-return]

    def reset(self) -> None:
        """Make the child server forget every request received and zero its counters."""
        post_json(f"{self.url}/_reset", {})

    def stop(self) -> None:
        """Terminate the child process (killed when it does not exit within 10 s)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None

    def __enter__(self) -> FakeServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def start_site(app: FakeApp, host: str, port: int) -> tuple[Any, int]:
    """Start serving ``app``; returns the aiohttp runner and the bound port."""
    from aiohttp import web

    runner = web.AppRunner(app.build(), access_log=None, handle_signals=False, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024, reuse_address=True)
    await site.start()
    sockets = getattr(site._server, "sockets", None) or []
    bound = int(sockets[0].getsockname()[1]) if sockets else port
    return runner, bound


def options_from_config(path: Path | None) -> dict[str, Any]:
    """The options in the JSON file ``path`` ({} without one); ValueError for a non-object."""
    if path is None:
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the config must be a JSON object")
    return data


async def _serve_forever(options: Mapping[str, Any], host: str, port: int) -> None:
    app = FakeApp(**options)
    runner, bound = await start_site(app, host, port)
    print(f"READY http://{host}:{bound}/v1", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until stopped (``python -m pytest_revprop.testing.fakeserver``), printing
    ``READY BASE_URL`` once listening. Returns 2, with a one-line error, when the server
    cannot start."""
    parser = argparse.ArgumentParser(prog="python -m pytest_revprop.testing.fakeserver")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--config", type=Path, default=None, help="JSON file of FakeServer options")
    args = parser.parse_args(argv)
    try:
        options = options_from_config(args.config)
        asyncio.run(_serve_forever(options, args.host, args.port))
    except (OSError, ValueError, TypeError, ImportError) as exc:
        print(f"fakeserver: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
