"""The annotation web app: aiohttp routes over a CaseStore, the checks and the Assistant.

Safety rules, enforced for every request before any route runs:
- the server listens on 127.0.0.1 only;
- the Host header must name this server (``127.0.0.1:PORT`` or ``localhost:PORT``), which
  defeats DNS rebinding; an Origin header, when present, must be this server's origin, and
  a request that changes something (POST) must be JSON and, from a browser, same-origin,
  which defeats cross-site writes;
- every response forbids framing and sniffing and carries a Content-Security-Policy that
  allows this origin only (no outside request, no inline script); assets are the files of
  ``static/``, served by name from a fixed list;
- files are read and written only through the store's key rules (``store``).
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import webbrowser
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from pytest_revprop import __version__
from pytest_revprop.authoring.annotate.assist import Assistant
from pytest_revprop.authoring.annotate.checks import check_case
from pytest_revprop.authoring.annotate.store import (
    CaseStore,
    Conflict,
    NotFound,
    PathRefused,
    SaveRefused,
    where,
)
from pytest_revprop.authoring.annotate.threeway import merge_case, new_saves
from pytest_revprop.core.cases import MAX_CASE_BYTES
from pytest_revprop.errors import UserError
from pytest_revprop.llm.presets import preset_names
from pytest_revprop.util.jsonutil import loads_strict

HOST = "127.0.0.1"
STATIC = Path(__file__).resolve().parent / "static"
CONTENT_TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}
SAFE_METHODS = ("GET", "HEAD")
MAX_BODY_BYTES = 2 * MAX_CASE_BYTES + 1024 * 1024
SHUTDOWN_S = 2.0
"""How long Ctrl-C waits for requests in flight (a save is atomic whenever it stops)."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
STORE: web.AppKey[CaseStore] = web.AppKey("store", CaseStore)
ASSISTANT: web.AppKey[Assistant] = web.AppKey("assistant", Assistant)
SETTINGS: web.AppKey[dict[str, Any]] = web.AppKey("settings", dict)


def assets() -> dict[str, Path]:
    """The front end's files by name (the only files the server sends)."""
    return {p.name: p for p in sorted(STATIC.iterdir()) if p.suffix in CONTENT_TYPES}


def own_hosts(request: web.Request) -> set[str]:
    """The Host values that name this server: loopback address or ``localhost``, its port."""
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    port = sockname[1] if isinstance(sockname, tuple) and len(sockname) >= 2 else None
    return {f"{HOST}:{port}", f"localhost:{port}"} if port else set()


def refusal(request: web.Request) -> str | None:
    """Why ``request`` is refused before routing (None: it is not)."""
    hosts = own_hosts(request)
    if request.headers.get("Host") not in hosts:
        return "the Host header does not name this server"
    origin = request.headers.get("Origin")
    if origin is not None and origin not in {f"http://{h}" for h in hosts}:
        return "cross-origin requests are not allowed"
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return "cross-site requests are not allowed"
    if request.method not in SAFE_METHODS and request.content_type != "application/json":
        return "a request that changes something must send JSON"
    return None


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse a request that does not come from this server's own page (``refusal``), then turn
    the handler's errors into JSON answers with their HTTP status.
    """
    why = refusal(request)
    if why is not None:
        return web.json_response({"error": why}, status=403)
    try:
        return await handler(request)
    except PathRefused as exc:
        return _error(403, str(exc))
    except NotFound as exc:
        return _error(404, str(exc))
    except SaveRefused as exc:
        return _error(422, str(exc))
    except Conflict as exc:
        return _json({"error": str(exc), "conflict": True, "disk": exc.disk}, status=409)
    except UserError as exc:
        return _error(400, str(exc))


async def _secure(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(SECURITY_HEADERS)


def _json(payload: Any, status: int = 200) -> web.Response:
    return web.Response(
        text=json.dumps(payload, ensure_ascii=False),
        status=status,
        content_type="application/json",
    )


def _error(status: int, message: str) -> web.Response:
    return _json({"error": message}, status=status)


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = loads_strict(await request.text())
    except (ValueError, UnicodeDecodeError):
        raise UserError("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise UserError("the request body is not a JSON object")
    return body


# ---------------------------------------------------------------------------- routes


async def index(request: web.Request) -> web.StreamResponse:
    """``GET /``: the editor's page."""
    return web.FileResponse(STATIC / "index.html", headers={"Content-Type": "text/html"})


async def asset(request: web.Request) -> web.StreamResponse:
    """``GET /static/NAME``: one of the editor's assets (404 for any other name)."""
    path = assets().get(request.match_info["name"])
    if path is None:
        return _error(404, "no such asset")
    return web.FileResponse(path, headers={"Content-Type": CONTENT_TYPES[path.suffix]})


async def session(request: web.Request) -> web.Response:
    """``GET /api/session``: the settings, the case roots, the model presets and the version."""
    store = request.app[STORE]
    return _json(
        request.app[SETTINGS]
        | {
            "roots": [r.label for r in store.roots],
            "folders": [r.identity for r in store.roots],
            "models": preset_names(),
            "version": __version__,
        }
    )


async def cases(request: web.Request) -> web.Response:
    """``GET /api/cases``: every case file under the roots, summarised."""
    return _json({"cases": await asyncio.to_thread(request.app[STORE].listing)})


async def stamp(request: web.Request) -> web.Response:
    """``GET /api/stamp``: a cheap fingerprint of the folder, which the page polls to follow
    changes on disk."""
    return _json({"stamp": await asyncio.to_thread(request.app[STORE].stamp)})


async def case(request: web.Request) -> web.Response:
    """``GET /api/case?file=KEY``: one case file's data and content hash."""
    key = request.query.get("file")
    return _json(await asyncio.to_thread(request.app[STORE].read, key or ""))


async def check(request: web.Request) -> web.Response:
    """``POST /api/check``: the checks' report on the edited case (``data``), regex examples
    given by gold index (``examples``; a follow-up's by turn, ``turn_examples``).
    """
    body = await _body(request)
    examples = _by_index(body.get("examples"))
    raw = body.get("turn_examples")
    turns = (
        {int(k): _by_index(v) for k, v in raw.items() if str(k).isdigit()}
        if isinstance(raw, dict)
        else {}
    )
    report = await asyncio.to_thread(check_case, body.get("data"), examples, turns)
    return _json(report.to_dict())


def _by_index(raw: Any) -> dict[int, Any]:
    """A JSON object keyed by indexes ("0", "3") as a dict keyed by int (other keys dropped)."""
    return {int(k): v for k, v in raw.items() if str(k).isdigit()} if isinstance(raw, dict) else {}


async def save(request: web.Request) -> web.Response:
    """Save the page's case over the version ``hash``. With ``merge`` (and ``base``, the
    version the edits were made on, and ``mine_origin``: per turn, the base index each of the
    page's operations comes from), a save that finds the file changed
    merges with it at once when nothing overlaps and the merge passes the checks (``merged``
    is then true and ``saves`` names who saved meanwhile); otherwise it is a 409 for the
    page's merge dialog."""
    body = await _body(request)
    store = request.app[STORE]
    data, base = body.get("data"), body.get("base")
    merged: dict[str, Any] = {"merged": False, "saves": []}

    def merge_with(disk: dict[str, Any]) -> dict[str, Any] | None:
        if body.get("merge") is not True or not isinstance(base, dict):
            return None
        result = merge_case(base, data, disk, body.get("mine_origin"))
        out = result.result() if not result.conflicts else None
        if out is None or not check_case(out).valid:
            return None
        merged.update(merged=True, saves=new_saves(base, disk))
        return out

    saved = await asyncio.to_thread(
        lambda: store.save(
            body.get("file", ""),
            data,
            base_hash=str(body.get("hash")),
            annotator=str(body.get("annotator") or ""),
            action=str(body.get("action") or "edited"),
            note=str(body.get("note") or ""),
            merge_with=merge_with,
            create=body.get("create") is True,
        )
    )
    return _json(saved | merged)


async def merge(request: web.Request) -> web.Response:
    """The three-way merge of the page's edits (``mine``, made on ``base``; ``mine_origin``:
    per turn, the base index each operation of mine comes from) with the file on disk now; with
    ``choices`` (conflict id -> mine/theirs) made against the disk version ``hash``, also the
    merged case to save, checked as a save is: ``problems`` lists the rules it breaks (the
    page saves no merge with problems; its dialog stays open to choose again)."""
    body = await _body(request)
    disk = await asyncio.to_thread(request.app[STORE].read, body.get("file") or "")
    if disk["openable"] is not None or not isinstance(disk["data"], dict):
        return _json(
            {"disk": disk, "error": f"the file on disk cannot be merged: {disk['openable']}"}
        )
    result = merge_case(body.get("base"), body.get("mine"), disk["data"], body.get("mine_origin"))
    choices = _by_index(body.get("choices"))
    if choices and body.get("hash") != disk["hash"]:
        choices = {}  # chosen against another version: choose again
    merged = result.result(choices)
    problems: list[str] = []
    if merged is not None:
        report = await asyncio.to_thread(check_case, merged, {})
        problems = [
            f"{where(m['pointer'])}: {m['message']}"
            for m in report.messages
            if m["level"] == "error"
        ]
    return _json(
        {
            "disk": disk,
            "saves": new_saves(body.get("base"), disk["data"]),
            "conflicts": [c.to_dict() for c in result.conflicts],
            "theirs_changes": result.theirs_changes,
            "mine_changes": result.mine_changes,
            "merged": merged,
            "merged_origin": result.origin(choices) if merged is not None else None,
            "problems": problems,
        }
    )


def _seed(body: dict[str, Any]) -> int:
    seed = body.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**31:
        raise UserError("a seed is a whole number from 0")
    return seed


def _turn(body: dict[str, Any]) -> int:
    turn = body.get("turn", 0)
    if not isinstance(turn, int) or isinstance(turn, bool) or turn < 0:
        raise UserError("a turn is a whole number from 0")
    return turn


def _model(body: dict[str, Any]) -> str:
    name = body.get("model")
    if not isinstance(name, str) or not name.strip():
        raise UserError("name a model: a preset or a litellm model string")
    return name.strip()


async def propose(request: web.Request) -> web.Response:
    """``POST /api/propose``: a model's tentative gold for the edited case's ``turn``."""
    body = await _body(request)
    stored = None
    if body.get("file"):
        entry = await asyncio.to_thread(request.app[STORE].read, body["file"])
        stored = entry["data"] if entry["openable"] is None else None
    proposal = await request.app[ASSISTANT].propose(
        body.get("data"), _model(body), _seed(body), stored=stored, turn=_turn(body)
    )
    return _json(proposal)


async def ask(request: web.Request) -> web.Response:
    """``POST /api/ask``: a model's answer to a question about one operation proposed for the
    edited case's ``turn``."""
    body = await _body(request)
    answer = await request.app[ASSISTANT].explain(
        body.get("data"),
        _model(body),
        body.get("ops"),
        body.get("index"),
        body.get("question"),
        _seed(body),
        _turn(body),
    )
    return _json(answer)


def make_app(store: CaseStore, assistant: Assistant, settings: dict[str, Any]) -> web.Application:
    """The application; ``settings`` (annotator, model) reach the page through /api/session."""
    app = web.Application(middlewares=[guard], client_max_size=MAX_BODY_BYTES)
    app[STORE] = store
    app[ASSISTANT] = assistant
    app[SETTINGS] = settings
    app.on_response_prepare.append(_secure)  # type: ignore[arg-type]  # aiohttp < 3.11 mistypes the signal
    app.router.add_get("/", index)
    app.router.add_get("/static/{name}", asset)
    app.router.add_get("/api/session", session)
    app.router.add_get("/api/cases", cases)
    app.router.add_get("/api/stamp", stamp)
    app.router.add_get("/api/case", case)
    app.router.add_post("/api/check", check)
    app.router.add_post("/api/save", save)
    app.router.add_post("/api/merge", merge)
    app.router.add_post("/api/propose", propose)
    app.router.add_post("/api/ask", ask)
    return app


async def serve(
    store: CaseStore,
    assistant: Assistant,
    settings: dict[str, Any],
    *,
    port: int,
    open_browser: bool,
) -> None:
    """Serve on 127.0.0.1:``port`` until interrupted (Ctrl-C or SIGTERM)."""
    runner = web.AppRunner(
        make_app(store, assistant, settings), access_log=None, shutdown_timeout=SHUTDOWN_S
    )
    await runner.setup()
    try:
        site = web.TCPSite(runner, HOST, port)
        try:
            await site.start()
        except OSError as exc:
            raise UserError(
                f"cannot listen on {HOST}:{port} ({exc.strerror or exc}); pass another --port"
            ) from None
        bound = runner.addresses[0][1]
        url = f"http://{HOST}:{bound}/"
        count = len(store.files())
        print(f"revprop annotate: {count} case file(s); open {url} (Ctrl-C stops)", flush=True)
        if open_browser:
            await asyncio.to_thread(webbrowser.open, url)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
        print("revprop annotate: stopped", file=sys.stderr, flush=True)
    finally:
        await runner.cleanup()
        assistant.close()
