"""The annotation app's HTTP side (aiohttp): the page, its files and the JSON API.

- ``GET /api/next``: the next item (200) or nothing left (204); a new session when the request
  carries no valid ``X-CSRF-Token``. The session's token is in the body and in that header.
- ``POST /api/labels`` ``{item_id, answer_correct, justification_correct, note?}``,
  ``POST /api/skip`` ``{item_id}``, ``POST /api/undo``, ``POST /api/beat`` (the page is still open:
  its item stays held; the page beats every few seconds): need the token in ``X-CSRF-Token``.
- ``GET /api/progress``: labels per bin and provider, budget, agreement.

Guards: a request whose ``Host`` is not one of this server's names gets 403 (DNS rebinding: a
page of another site that resolves its own name to this machine still sends its own name); a
POST whose ``Origin`` is not one of those names, or without a valid token, gets 403; a malformed
body gets 400 naming the field; a label for an item that is no longer open gets 409. Bound to
every interface (``--host 0.0.0.0``) the server must be told the names people reach it by, and
it also wants a secret: the URL it prints carries ``?key=``, which the page turns into a
cookie; any request without it gets 403, so nobody else on the network labels in your name.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import web

from sideways.annotation_app.service import BadRequest, Conflict, LabelService
from sideways.core.errors import SidewaysError
from sideways.core.jsonl import parse_line

TOKEN_HEADER = "X-CSRF-Token"
SERVICE = web.AppKey("service", LabelService)
HOSTS = web.AppKey("hosts", frozenset[str])  # the Host headers this server answers ("name:port")
SECRET = web.AppKey("secret", str)  # "" on a loopback bind; else what the printed URL's ?key= holds
COOKIE = "sideways_key"
WILDCARDS = ("0.0.0.0", "::", "")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_TYPES = {"html": "text/html", "js": "text/javascript", "css": "text/css"}
_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, message: str, field: str | None = None) -> web.Response:
    body: dict[str, Any] = {"error": message}
    if field is not None:
        body["field"] = field
    return web.json_response(body, status=status)


def authority(name: str, port: int) -> str:
    """``name:port`` as a Host header says it (an IPv6 address in brackets)."""
    return f"[{name}]:{port}" if ":" in name else f"{name}:{port}"


def _refusal(request: web.Request) -> web.Response | None:
    """The 403 for a foreign Host, a missing secret, or a POST with a foreign Origin or no valid token."""
    hosts, secret = request.app[HOSTS], request.app[SECRET]
    if request.host not in hosts:
        return _error(403, f"host {request.host[:80]!r} is not this server")
    given = request.cookies.get(COOKIE) or request.query.get("key") or ""
    if secret and not hmac.compare_digest(given.encode(), secret.encode()):
        return _error(403, "open the URL `sideways annotate serve` printed (with its ?key=)")
    if request.method == "POST":
        origin = request.headers.get("Origin")
        if origin is not None and origin.removeprefix("http://") not in hosts:
            return _error(403, f"origin {origin[:80]!r} is not this server")
        if not request.app[SERVICE].valid(request.headers.get(TOKEN_HEADER)):
            return _error(403, f"missing or invalid {TOKEN_HEADER} header (GET /api/next gives one)")
    return None


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse what :func:`_refusal` refuses; never a traceback for a request nobody could serve."""
    refused = _refusal(request)
    if refused is not None:
        return refused
    try:
        response = await handler(request)
    except BadRequest as exc:
        response = _error(400, str(exc), exc.field)
    except OSError as exc:  # the disk is full or failing: the label was not saved, the app keeps serving
        response = _error(507, f"the label file could not be written ({exc.strerror or exc}); nothing was saved")
    if request.app[SECRET] and request.query.get("key") == request.app[SECRET]:
        response.set_cookie(COOKIE, request.app[SECRET], httponly=True, samesite="Strict")
    response.headers.setdefault("Cache-Control", "no-store")
    return response


async def _body(request: web.Request) -> Any:
    if not request.can_read_body:
        return {}
    data = await request.read()  # over client_max_size: 413
    try:
        return parse_line(data, "body")
    except SidewaysError as exc:
        raise BadRequest("body", str(exc).removeprefix("body: ")) from exc


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
            if name in ("undo", "beat"):
                result = await asyncio.to_thread(service.undo if name == "undo" else service.beat, token)
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


def make_app(service: LabelService, host: str, port: int, names: tuple[str, ...] = (),
             secret: str = "") -> web.Application:
    """The app for ``service``, answering only requests addressed to ``host:port``, this machine's
    loopback names, or one of ``names`` (the names people type to reach it).

    Bound to every interface (``0.0.0.0``, ``::``) it needs ``names`` and a ``secret``: it never
    takes any Host header, and a request must carry the secret (cookie or ``?key=``).
    """
    if host in WILDCARDS and (not names or not secret):
        raise SidewaysError(f"--host {host or '(every interface)'}: give --allow-host NAME for each name people "
                            "use to reach this machine (a wildcard bind answers no other Host)")
    app = web.Application(middlewares=[guard], client_max_size=64 * 1024)
    app[SERVICE] = service
    app[SECRET] = secret
    bound = () if host in WILDCARDS else (host,)
    app[HOSTS] = frozenset(authority(name, port) for name in (*bound, *LOOPBACK, *names))
    app.router.add_get("/", _static("index.html"))
    for name in ("app.js", "app.css"):
        app.router.add_get(f"/static/{name}", _static(name))
    app.router.add_get("/api/next", next_item)
    app.router.add_get("/api/progress", progress)
    app.router.add_post("/api/labels", _action("label"))
    app.router.add_post("/api/skip", _action("skip"))
    app.router.add_post("/api/undo", _action("undo"))
    app.router.add_post("/api/beat", _action("beat"))
    return app
