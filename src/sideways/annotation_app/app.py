"""The annotation app's HTTP side (aiohttp): the page, its files and the JSON API.

- ``GET /api/next``: the next item (200) or nothing left (204); a new session when the request
  carries no valid ``X-CSRF-Token``. The session's token is in the body and in that header.
- ``POST /api/labels`` ``{item_id, answer_correct, justification_correct, note?}``,
  ``POST /api/skip`` ``{item_id}``, ``POST /api/undo``: need the token in ``X-CSRF-Token``.
- ``GET /api/progress``: labels per bin and provider, budget, agreement.

Guards: a request whose ``Host`` is not this server's gets 403 (DNS rebinding; not checked when
bound to every interface); a POST with a
foreign ``Origin`` or without a valid token gets 403; a malformed body gets 400 naming the
field; a label for an item that is no longer open gets 409.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import web

from sideways.annotation_app.service import BadRequest, Conflict, LabelService

TOKEN_HEADER = "X-CSRF-Token"
SERVICE = web.AppKey("service", LabelService)
HOSTS = web.AppKey("hosts", frozenset[str])  # empty: any host
WILDCARDS = ("0.0.0.0", "::", "")
_TYPES = {"html": "text/html", "js": "text/javascript", "css": "text/css"}
_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, message: str, field: str | None = None) -> web.Response:
    body: dict[str, Any] = {"error": message}
    if field is not None:
        body["field"] = field
    return web.json_response(body, status=status)


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """403 for a foreign Host, and for a POST with a foreign Origin or no valid token."""
    hosts = request.app[HOSTS]
    if hosts and request.host not in hosts:
        return _error(403, f"host {request.host!r} is not this server")
    if request.method == "POST":
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"http://{request.host}":
            return _error(403, f"origin {origin!r} is not this server")
        if not request.app[SERVICE].valid(request.headers.get(TOKEN_HEADER)):
            return _error(403, f"missing or invalid {TOKEN_HEADER} header (GET /api/next gives one)")
    response = await handler(request)
    response.headers.setdefault("Cache-Control", "no-store")
    return response


async def _body(request: web.Request) -> Any:
    if not request.can_read_body:
        return {}
    try:
        return json.loads(await request.text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadRequest("body", f"not JSON ({exc})") from exc


async def next_item(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    token = request.headers.get(TOKEN_HEADER)
    if token is None or not service.valid(token):
        token = await asyncio.to_thread(service.open_session)  # it waits for the service's lock
    item = await asyncio.to_thread(service.next, token)
    if item is None:
        return web.Response(status=204, headers={TOKEN_HEADER: token})
    return web.json_response({**item, "token": token}, headers={TOKEN_HEADER: token})


def _action(name: str) -> Handler:
    async def handle(request: web.Request) -> web.Response:
        service, token = request.app[SERVICE], request.headers[TOKEN_HEADER]
        try:
            body = await _body(request)
            if name == "undo":
                result = await asyncio.to_thread(service.undo, token)
            else:
                method = service.label if name == "label" else service.skip
                result = await asyncio.to_thread(method, token, body)
        except BadRequest as exc:
            return _error(400, str(exc), exc.field)
        except Conflict as exc:
            return _error(409, str(exc))
        return web.json_response(result)

    return handle


async def progress(request: web.Request) -> web.Response:
    return web.json_response(await asyncio.to_thread(request.app[SERVICE].progress))


def _static(name: str) -> Handler:
    async def handle(request: web.Request) -> web.Response:
        text = resources.files("sideways.annotation_app").joinpath("static", name).read_text(encoding="utf-8")
        kind = _TYPES[name.rsplit(".", 1)[1]]
        return web.Response(text=text, content_type=kind, headers={"Content-Security-Policy": _CSP})

    return handle


def make_app(service: LabelService, host: str, port: int) -> web.Application:
    """The app for ``service``, answering only requests addressed to ``host:port`` (or localhost).

    Bound to every interface (``0.0.0.0``), it cannot know the names people use to reach it, so
    it takes any Host header; the token and Origin checks still apply.
    """
    app = web.Application(middlewares=[guard], client_max_size=64 * 1024)
    app[SERVICE] = service
    names = () if host in WILDCARDS else (host, "127.0.0.1", "localhost")
    app[HOSTS] = frozenset(f"{name}:{port}" for name in names)
    app.router.add_get("/", _static("index.html"))
    for name in ("app.js", "app.css"):
        app.router.add_get(f"/static/{name}", _static(name))
    app.router.add_get("/api/next", next_item)
    app.router.add_get("/api/progress", progress)
    app.router.add_post("/api/labels", _action("label"))
    app.router.add_post("/api/skip", _action("skip"))
    app.router.add_post("/api/undo", _action("undo"))
    return app
