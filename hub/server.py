"""The hub web service (FastAPI on uvicorn): table API, public standings, projector page, admin page.

:func:`create_app` builds the ASGI app for one database (running the migrations first);
:func:`serve` runs it with uvicorn. Every error reaches the client as a small JSON object
``{"error": code, "message": sentence}`` with a 4xx status - never a stack trace. Request bodies
above ``HubSettings.max_body_bytes`` are refused with 413 before any handler sees them.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from pydantic import TypeAdapter, ValidationError
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hub import db, pages
from hub.export import results_csv, standings_csv
from hub.guard import GuardedH11Protocol, GuardSettings, log_config, raise_file_limit
from hub.rules import CATEGORIES, points_for_rank, rounds_played, standings
from hub.schema import (
    AnyResult,
    ApproveBody,
    Correction,
    JoinRequest,
    JoinResponse,
    LiveResponse,
    LiveUpdate,
    PaperPlayer,
    PaperResult,
    PlayerLine,
    PlayerResult,
    ReasonBody,
    RenameBody,
    RoundBody,
    SubmitResponse,
    problem_message,
    problem_sentence,
    problem_where,
    problems_sentence,
)
from hub.storage import (
    ADMIN_SESSION_SECONDS,
    AdminSession,
    EventInfo,
    ForbiddenError,
    HubError,
    HubStore,
    InvalidError,
    NotFoundError,
    TableInfo,
    UnauthorizedError,
)

log = logging.getLogger("hub")

DEFAULT_PORT = 8765
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HubSettings:
    db_url: str
    max_body_bytes: int = 64 * 1024
    refresh_ms: int = 5000
    recent_results: int = 8
    #: a request body must arrive within this many seconds of its headers (slow-body clients)
    body_timeout: float = 15.0
    #: per table, per client address: ``limits`` notation ("30/minute")
    result_rate: str = "30/minute"
    live_rate: str = "120/minute"
    #: failed joins (a wrong join secret) and failed sign-ins, per client address
    join_rate: str = "10/minute"
    login_rate: str = "10/minute"
    #: public reads (standings, projector, live) are rendered again only when something changed, and
    #: whether something changed is asked of the database at most this often
    public_cache_seconds: float = 1.0
    #: served over HTTPS (``--tls-cert``): cookies are Secure and browsers are told to stay on HTTPS
    tls: bool = False
    guard: GuardSettings = field(default_factory=GuardSettings)


# ----------------------------------------------------------------------------------------- middleware
class BodyLimit:
    """Refuse request bodies above ``limit`` bytes (declared or streamed) with a 413 JSON reply, and
    bodies that do not arrive within ``timeout`` seconds with a 408 (a slow sender holds no worker)."""

    def __init__(self, app: ASGIApp, limit: int, timeout: float = 15.0) -> None:
        self.app = app
        self.limit = limit
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                await _send_json(send, 400, "bad_request", "the Content-Length header is not a number")
                return
            if size > self.limit:
                await _send_json(send, 413, "too_large", f"the request body is larger than {self.limit} bytes")
                return
        body = bytearray()
        deadline = asyncio.get_running_loop().time() + self.timeout
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                await _send_json(send, 408, "timeout", f"the request body did not arrive within {self.timeout:g} s")
                return
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.limit:
                await _send_json(send, 413, "too_large", f"the request body is larger than {self.limit} bytes")
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


#: Every page's scripts and styles come from the hub itself (/static/...), nothing inline, nothing
#: framed: an injected tag cannot run, and no other site can frame the admin page to steal clicks.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


class SecurityHeaders:
    """Security headers on every response, errors included."""

    def __init__(self, app: ASGIApp, tls: bool = False) -> None:
        self.app = app
        self.headers = [
            (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
            (b"x-frame-options", b"DENY"),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),  # no-referrer would make a browser send "Origin: null"
            (b"cross-origin-opener-policy", b"same-origin"),
        ]
        if tls:
            self.headers.append((b"strict-transport-security", b"max-age=31536000"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        await self.app(scope, receive, with_headers)


class HeadAsGet:
    """A HEAD request is answered as its GET would be, without the body (RFC 9110 9.3.2): the same status
    and headers, Content-Length included. FastAPI's routes, unlike Starlette's, do not take HEAD where
    they take GET (they answered 405); here every GET route, page, refusal and error page answers it, and
    the routes, the security headers and the rate limits see the GET they already handle."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


async def _send_json(send: Send, status: int, code: str, message: str) -> None:
    payload = json.dumps({"error": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                        (b"connection", b"close")],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse({"error": code, "message": message, **extra}, status_code=status, headers=headers)


class RateLimitedError(HubError):
    status = 429
    code = "rate_limited"


class RateLimits:
    """Moving-window limits from the ``limits`` library, in this process's memory (with ``--workers N``
    each process counts on its own, so the effective limit is up to N times higher)."""

    def __init__(self, settings: HubSettings) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._items: dict[str, RateLimitItem] = {
            "result": parse(settings.result_rate),
            "live": parse(settings.live_rate),
            "join": parse(settings.join_rate),
            "login": parse(settings.login_rate),
        }

    def check(self, kind: str, who: str, what: str) -> None:
        """Count one request; refuse it (429) when ``who`` is over its limit."""
        if not self._limiter.hit(self._items[kind], kind, who):
            self._refuse(kind, what)

    def check_failures(self, kind: str, who: str, what: str) -> None:
        """Refuse (429) when ``who`` already failed too often; :meth:`failed` counts a failure. Joins and
        sign-ins are limited by their failures only: guessing is slowed, a busy event is not."""
        if not self._limiter.test(self._items[kind], kind, who):
            self._refuse(kind, what)

    def failed(self, kind: str, who: str) -> None:
        self._limiter.hit(self._items[kind], kind, who)

    def _refuse(self, kind: str, what: str) -> None:
        who = "table" if kind in ("result", "live") else "address"
        raise RateLimitedError(f"too many {what} from this {who} (at most {self._items[kind]}); "
                               "wait a moment and try again")


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


# ----------------------------------------------------------------------------------------- auth
async def bearer(authorization: Annotated[str | None, Header()] = None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise UnauthorizedError("the Authorization header must be 'Bearer <token>'")
    return token.strip()


def _store(request: Request) -> HubStore:
    store: HubStore = request.app.state.store
    return store


def table_auth(
    code: str, table_id: int, request: Request, token: Annotated[str | None, Depends(bearer)]
) -> tuple[EventInfo, TableInfo]:
    """The table a request comes from: its token must belong to this event and this table."""
    store = _store(request)
    if token is None:
        store.event(code)  # an unknown event is a 404 before anything else
        raise UnauthorizedError("a table token is needed (Authorization: Bearer <token>)")
    found = store.table_auth(code, token)
    if found is None:
        store.event(code)
        raise UnauthorizedError("the table token is not valid; join the event again")
    event, table = found
    if event.code != code.strip().upper():
        store.event(code)
        raise ForbiddenError("this token belongs to another event")
    if table.id != table_id:
        raise ForbiddenError("this token belongs to another table")
    return event, table


def admin_cookie_name(code: str, tls: bool) -> str:
    """One cookie per event (an organiser may run two); ``__Host-`` pins it to this host over HTTPS."""
    return f"{'__Host-' if tls else ''}hub_admin_{code.strip().upper()}"


def admin_auth(code: str, request: Request, token: Annotated[str | None, Depends(bearer)]) -> EventInfo:
    """The event whose admin token came with the request (``Authorization: Bearer``). A signed-in
    browser's session cookie is accepted for reads only (the CSV links of the admin page): every change
    through the API needs the token itself, so no other page can make a browser change anything."""
    store = _store(request)
    event = store.event(code)
    if token is None:
        settings: HubSettings = request.app.state.settings
        session_id = request.cookies.get(admin_cookie_name(event.code, settings.tls))
        if request.method == "GET" and store.session(event, session_id, now=time.time()) is not None:
            return event
        raise UnauthorizedError("the admin token is needed (Authorization: Bearer <admin token>)")
    if not store.is_admin(event, token):
        if store.table_for_token(token) is not None:
            raise ForbiddenError("a table token cannot do this; use the admin token")
        raise UnauthorizedError("the admin token is not valid for this event")
    return event


def same_origin(request: Request) -> bool:
    """A browser form post comes from the hub's own page: its Origin (or, without one, its Referer)
    is this very scheme, host and port. A page on another port of the same host is another origin."""
    host = request.headers.get("host", "")
    expected = f"{request.url.scheme}://{host}".lower()
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        referer = request.headers.get("referer")
        if not referer:
            return False
        parts = urllib.parse.urlsplit(referer)
        origin = f"{parts.scheme}://{parts.netloc}"
    return origin.lower() == expected


TableAuth = Annotated[tuple[EventInfo, TableInfo], Depends(table_auth)]
AdminAuth = Annotated[EventInfo, Depends(admin_auth)]
RoundQuery = Annotated[int | None, Query(ge=1, le=999)]
RefreshQuery = Annotated[int | None, Query(ge=200, le=600_000)]
GameQuery = Annotated[str | None, Query(pattern=r"^[a-z][a-z0-9_]{0,31}$")]


class PublicCache:
    """Public reads rendered once per change of the event: many projectors and phones, one render.
    Whether the event changed is asked of the database at most once per ``seconds`` (and at once after
    this process wrote anything): another hub process's change shows within that time."""

    def __init__(self, store: HubStore, seconds: float) -> None:
        self.store = store
        self.seconds = seconds
        self._lock = threading.Lock()
        self._versions: dict[int, tuple[float, int, tuple[Any, ...]]] = {}
        self._values: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = {}

    def version(self, event: EventInfo) -> tuple[Any, ...]:
        now, writes = time.monotonic(), self.store.writes
        with self._lock:
            known = self._versions.get(event.id)
        if known is not None and now - known[0] < self.seconds and known[1] == writes:
            return known[2]
        version = (event.current_round, event.round_open, *self.store.version(event))
        with self._lock:
            self._versions[event.id] = (now, writes, version)
        return version

    def get(self, key: tuple[Any, ...], event: EventInfo, compute: Callable[[], T]) -> T:
        version = self.version(event)
        with self._lock:
            cached = self._values.get(key)
        if cached is not None and cached[0] == version:
            value: T = cached[1]
            return value
        value = compute()
        with self._lock:
            if len(self._values) > 2000:
                self._values.clear()
            self._values[key] = (version, value)
        return value


# ----------------------------------------------------------------------------------------- app
def create_app(settings: HubSettings) -> FastAPI:
    engine = db.make_engine(settings.db_url)
    db.migrate(engine)
    store = HubStore(engine)
    schema = db.current_revision(engine)
    app = FastAPI(title="Fuji Koro hub", docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
    app.state.store = store
    app.state.settings = settings
    limits = RateLimits(settings)
    public = PublicCache(store, settings.public_cache_seconds)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes, timeout=settings.body_timeout)
    app.add_middleware(SecurityHeaders, tls=settings.tls)
    app.add_middleware(HeadAsGet)

    def _page(request: Request) -> bool:
        # (A browser's page, not the API: its refusals are shown as a page, in the same words.)
        return request.method == "GET" and request.url.path.startswith("/events/")

    @app.exception_handler(HubError)
    async def _hub_error(request: Request, error: HubError) -> Response:
        if _page(request) and error.status != 429:
            return HTMLResponse(pages.error_page(error.status, str(error)), status_code=error.status)
        response = _error(error.status, error.code, str(error))
        if error.status == 429:
            response.headers["Retry-After"] = "10"
        return response

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        problems = list(error.errors())
        if any(p.get("type") == "json_invalid" for p in problems):
            return _error(400, "malformed_json", "the request body is not valid JSON")
        if any(p.get("type") == "missing" and tuple(p.get("loc", ())) == ("body",) for p in problems):
            return _error(400, "missing_body", "this request needs a JSON body")
        sent_as = request.headers.get("content-type", "")
        if "json" not in sent_as.lower() and any(problem_where(p) == "" for p in problems):
            # (FastAPI reads a body as JSON only when it is sent as JSON; anything else arrives as text.)
            came = f"as {sent_as.split(';')[0].strip()}" if sent_as.strip() else "without a Content-Type"
            return _error(415, "unsupported_media_type",
                          f"send the body as JSON with Content-Type: application/json (it came {came})")
        return _error(422, "invalid", problems_sentence(problems), details=_details(problems))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, error: StarletteHTTPException) -> Response:
        if _page(request) and error.status_code == 404:
            return HTMLResponse(pages.error_page(404, "There is no such page on this hub."), status_code=404)
        code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "http_error")
        response = _error(error.status_code, code, str(error.detail))
        allow = (error.headers or {}).get("Allow")
        if allow:  # a 405 names what the path takes (HEAD wherever GET: see HeadAsGet)
            methods = allow.split(", ")
            response.headers["Allow"] = ", ".join([*methods, "HEAD"] if "GET" in methods else methods)
        return response

    @app.exception_handler(OperationalError)
    async def _database_down(_request: Request, error: OperationalError) -> JSONResponse:
        log.error("database unavailable: %s", str(error).splitlines()[0] if str(error) else type(error).__name__)
        return _error(503, "unavailable", "the hub's database is unavailable; send again later")

    @app.exception_handler(Exception)
    async def _crash(_request: Request, error: Exception) -> JSONResponse:
        log.exception("unhandled error in the hub", exc_info=error)
        return _error(500, "internal", "the hub hit an internal error; the request was not completed")

    # ------------------------------------------------------------------ table API
    @app.get("/api/health")
    def health() -> dict[str, Any]:
        return {"ok": True, "database": engine.dialect.name, "schema": schema}

    @app.post("/api/join", status_code=201)
    def join(body: JoinRequest, request: Request) -> JoinResponse:
        limits.check_failures("join", _client(request), "failed joins")
        try:
            joined = store.join(body.event_code, body.table_name, body.join_key, body.join_secret)
        except ForbiddenError:
            limits.failed("join", _client(request))
            raise
        return JoinResponse(
            event_code=joined.event.code,
            event_name=joined.event.name,
            table_id=joined.table.id,
            table_name=joined.table.name,
            token=joined.token,
        )

    @app.post("/api/events/{code}/tables/{table_id}/results", status_code=201)
    def submit_result(auth: TableAuth, body: AnyResult, response: Response) -> SubmitResponse:
        _event, table = auth
        limits.check("result", str(table.id), "results")
        outcome = store.submit_result(table, body)
        if outcome.status == "duplicate":
            response.status_code = 200
        return SubmitResponse(
            status="stored" if outcome.status == "stored" else "duplicate",
            result_id=outcome.result_id,
            game_id=body.game_id,
            seq=body.seq,
            round=outcome.round,
            pending=outcome.pending,
        )

    @app.post("/api/events/{code}/tables/{table_id}/live", status_code=202)
    def submit_live(auth: TableAuth, body: LiveUpdate) -> LiveResponse:
        _event, table = auth
        limits.check("live", str(table.id), "live updates")
        status = store.submit_live(table, body)
        return LiveResponse(status=status, game_id=body.game_id, seq=body.seq)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ public reads
    def standings_json(event: EventInfo, round_number: int | None, *, fresh: bool = False,
                       game: str | None = None) -> dict[str, Any]:
        def compute() -> dict[str, Any]:
            games = store.counted_games(event)
            rows = standings(games, event.rank_points, round_number=round_number, game=game)
            return {
                "event": event.name,
                "round": round_number,
                "current_round": event.current_round,
                "round_open": event.round_open,
                "rounds": rounds_played(games),
                "game": game,
                "games": sorted({g.game for g in games}),
                "rank_points": list(event.rank_points),
                "standings": [
                    {"place": r.place, "name": r.name, "rank_points": r.rank_points, "wins": r.wins,
                     "games": r.games, "vp": r.vp, "escapes": r.escapes}
                    for r in rows
                ],
            }

        return compute() if fresh else public.get(("standings", event.id, round_number, game), event, compute)

    @app.get("/api/events/{code}/standings")
    def get_standings(code: str, round: RoundQuery = None,  # noqa: A002 - URL word
                      game: GameQuery = None) -> dict[str, Any]:
        return standings_json(store.event(code), round, game=game)

    def history(event: EventInfo, name: str) -> list[dict[str, Any]]:
        games = store.player_history(event, name)
        for game in games:
            counted = not game["void"] and not game["pending"] and game["mode"] == "competitive"
            game["rank_points"] = points_for_rank(game["rank"], event.rank_points) if counted else 0
        if not games:
            raise NotFoundError(f"no games of a player named {name!r} in this event")
        return games

    @app.get("/api/events/{code}/players/{name:path}")
    def get_player(code: str, name: str) -> dict[str, Any]:
        event = store.event(code)
        games = public.get(("player", event.id, name), event, lambda: history(event, name))
        return {"player": games[0]["name"], "games": games}

    @app.get("/events/{code}/players/{name:path}", response_class=HTMLResponse)
    def player_html(code: str, name: str) -> str:
        event = store.event(code)
        games = public.get(("player", event.id, name), event, lambda: history(event, name))
        return pages.player_page(event_name=event.name, event_code=event.code, player=games[-1]["name"], games=games)

    @app.get("/api/events/{code}/live")
    def get_live(code: str) -> dict[str, Any]:
        event = store.event(code)
        return {"live": public.get(("live", event.id), event, lambda: store.live_games(event))}

    @app.get("/static/hub.css")
    def css() -> Response:
        return Response(pages.STYLE, media_type="text/css", headers={"Cache-Control": "public, max-age=3600"})

    @app.get("/static/leaderboard.js")
    def leaderboard_js() -> Response:
        return Response(pages.LEADERBOARD_JS, media_type="text/javascript",
                        headers={"Cache-Control": "public, max-age=3600"})

    # ------------------------------------------------------------------ admin API
    @app.get("/api/events/{code}/results")
    def list_results(event: AdminAuth) -> dict[str, Any]:
        return {"results": store.results(event)}

    @app.get("/api/events/{code}/results/{result_id}")
    def get_result(event: AdminAuth, result_id: int) -> dict[str, Any]:
        return store.result(event, result_id)

    @app.post("/api/events/{code}/results/{result_id}/correct")
    def correct(event: AdminAuth, result_id: int, body: Correction) -> dict[str, Any]:
        return store.correct(event, result_id, body.players, reason=body.reason, round_number=body.round)

    @app.post("/api/events/{code}/results/{result_id}/void")
    def void(event: AdminAuth, result_id: int, body: ReasonBody) -> dict[str, Any]:
        return store.set_void(event, result_id, True, reason=body.reason)

    @app.post("/api/events/{code}/results/{result_id}/restore")
    def restore(event: AdminAuth, result_id: int, body: ReasonBody) -> dict[str, Any]:
        return store.set_void(event, result_id, False, reason=body.reason)

    @app.post("/api/events/{code}/results/{result_id}/approve")
    def approve(event: AdminAuth, result_id: int, body: ApproveBody) -> dict[str, Any]:
        return store.approve(event, result_id, reason=body.reason, round_number=body.round)

    @app.post("/api/events/{code}/results/paper", status_code=201)
    def paper(event: AdminAuth, body: PaperResult) -> dict[str, Any]:
        return store.enter_paper_result(event, body)

    @app.get("/api/events/{code}/audit")
    def get_audit(event: AdminAuth) -> dict[str, Any]:
        return {"audit": store.audit_log(event)}

    @app.post("/api/events/{code}/round")
    def set_round(event: AdminAuth, body: RoundBody) -> dict[str, Any]:
        updated = store.set_round(event, body.round)
        return {"current_round": updated.current_round, "round_open": updated.round_open}

    @app.post("/api/events/{code}/round/close")
    def close_round(event: AdminAuth) -> dict[str, Any]:
        updated = store.close_round(event)
        return {"current_round": updated.current_round, "round_open": updated.round_open}

    @app.get("/api/events/{code}/tables")
    def list_tables(event: AdminAuth) -> dict[str, Any]:
        return {"tables": store.table_overview(event), "join_secret": event.join_secret}

    @app.post("/api/events/{code}/tables/{table_id}/rename")
    def rename_table(event: AdminAuth, table_id: int, body: RenameBody) -> dict[str, Any]:
        store.rename_table(event, table_id, body.name, reason=body.reason)
        return {"tables": store.table_overview(event)}

    def table_route(action: str) -> Callable[..., dict[str, Any]]:
        def act(event: AdminAuth, table_id: int, body: ReasonBody) -> dict[str, Any]:
            _table_action(store, event, table_id, action, body.reason)
            return {"tables": store.table_overview(event)}

        return act

    for table_action in _TABLE_ACTIONS:  # revoke, restore, delete, remove-live: each its own path
        app.add_api_route(f"/api/events/{{code}}/tables/{{table_id}}/{table_action}", table_route(table_action),
                          methods=["POST"])

    @app.post("/api/events/{code}/join-secret/rotate")
    def rotate_join_secret(event: AdminAuth) -> dict[str, Any]:
        return {"join_secret": store.rotate_join_secret(event)}

    @app.get("/api/events/{code}/lookalikes")
    def lookalikes(event: AdminAuth) -> dict[str, Any]:
        return {"lookalikes": store.lookalike_names(event)}

    @app.get("/api/events/{code}/export.csv")
    def export_csv(event: AdminAuth, what: str = "results", round: RoundQuery = None,  # noqa: A002
                   game: GameQuery = None) -> Response:
        if what == "results":
            text = results_csv(store.results(event), event.rank_points)
        elif what == "standings":
            text = standings_csv(standings_json(event, round, fresh=True, game=game)["standings"])
        else:
            raise InvalidError("what must be 'results' or 'standings'")
        filename = f"{event.code}-{what}{'' if round is None else f'-round{round}'}.csv"
        return PlainTextResponse(
            text, media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )

    # ------------------------------------------------------------------ pages
    def render_fragment(event: EventInfo, round_number: int | None, game: str | None) -> str:
        results = store.results(event)
        games = store.counted_games(event, results)
        recent = [r for r in results if not r["pending"]][-settings.recent_results :]
        return pages.leaderboard_fragment(
            event_code=event.code,
            games=sorted({g.game for g in games}),
            game=game,
            rows=standings(games, event.rank_points, round_number=round_number, game=game),
            rounds=rounds_played(games),
            round_number=round_number,
            current_round=event.current_round,
            round_open=event.round_open,
            live=store.live_games(event),
            recent=list(reversed(recent)),
        )

    def fragment(event: EventInfo, round_number: int | None, game: str | None = None) -> str:
        return public.get(("fragment", event.id, round_number, game), event,
                          lambda: render_fragment(event, round_number, game))

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return pages.index_page()

    @app.get("/events/{code}/leaderboard", response_class=HTMLResponse)
    def leaderboard(
        code: str, round: RoundQuery = None, refresh_ms: RefreshQuery = None,  # noqa: A002
        game: GameQuery = None,
    ) -> str:
        event = store.event(code)
        return pages.leaderboard_page(
            event_name=event.name,
            event_code=event.code,
            fragment=fragment(event, round, game),
            refresh_ms=refresh_ms or settings.refresh_ms,
            round_number=round,
            game=game,
        )

    @app.get("/events/{code}/leaderboard/fragment", response_class=HTMLResponse)
    def leaderboard_fragment(code: str, round: RoundQuery = None,  # noqa: A002
                             game: GameQuery = None) -> str:
        return fragment(store.event(code), round, game)

    def cookie_name(event: EventInfo) -> str:
        return admin_cookie_name(event.code, settings.tls)

    def admin_session(event: EventInfo, request: Request) -> AdminSession | None:
        return store.session(event, request.cookies.get(cookie_name(event)), now=time.time())

    def admin_html(event: EventInfo, session: AdminSession, message: str = "", status: int = 200) -> HTMLResponse:
        results = store.results(event)
        return HTMLResponse(
            pages.admin_page(
                event_name=event.name,
                event_code=event.code,
                current_round=event.current_round,
                round_open=event.round_open,
                join_secret=event.join_secret,
                tables=store.table_overview(event),
                results=results,
                audit=store.audit_log(event),
                lookalikes=store.lookalike_names(event, results),
                csrf_token=session.csrf_token,
                message=message,
            ),
            status_code=status,
            headers={"Cache-Control": "no-store"},
        )

    def login_html(event: EventInfo, message: str = "", status: int = 401) -> HTMLResponse:
        return HTMLResponse(pages.login_page(event_code=event.code, message=message), status_code=status,
                            headers={"Cache-Control": "no-store"})

    @app.get("/events/{code}/admin", response_class=HTMLResponse)
    def admin_get(code: str, request: Request, message: str = "") -> HTMLResponse:
        event = store.event(code)
        session = admin_session(event, request)
        if session is None:
            return login_html(event)
        return admin_html(event, session, message)

    async def form(request: Request) -> dict[str, str]:
        body = (await request.body()).decode("utf-8", errors="replace")
        return {k: v[0] for k, v in urllib.parse.parse_qs(body).items()}

    @app.post("/events/{code}/admin/login", response_model=None)
    async def admin_login(code: str, request: Request) -> Response:
        event = await run_in_threadpool(store.event, code)
        if not same_origin(request):
            return login_html(event, "Sign in from this page of the hub itself.", 403)
        limits.check_failures("login", _client(request), "failed sign-ins")
        token = (await form(request)).get("token", "").strip()
        if not await run_in_threadpool(store.is_admin, event, token):
            limits.failed("login", _client(request))
            return login_html(event, "That is not the admin token of this event.")
        session_id = await run_in_threadpool(lambda: store.create_session(event, now=time.time()))
        response = RedirectResponse(f"/events/{event.code}/admin", status_code=303)
        response.set_cookie(cookie_name(event), session_id, max_age=int(ADMIN_SESSION_SECONDS), httponly=True,
                            samesite="strict", secure=settings.tls, path="/")
        return response

    async def checked_session(event: EventInfo, request: Request, fields: dict[str, str]) -> AdminSession | Response:
        """The signed-in session of a form post that came from the hub's own admin page, or the reply
        that refuses it: a post from another origin (a page on another port of this host included) or
        without the session's CSRF token changes nothing."""
        session = await run_in_threadpool(admin_session, event, request)
        if session is None:
            return login_html(event, "Your sign-in has ended; sign in again.")
        if not same_origin(request):
            return _error(403, "cross_origin", "this form was not sent from the hub's own admin page")
        if not secrets_equal(fields.get("csrf", ""), session.csrf_token):
            return _error(403, "csrf", "this form is out of date or was not sent from the admin page; reload it")
        return session

    @app.post("/events/{code}/admin/logout", response_model=None)
    async def admin_logout(code: str, request: Request) -> Response:
        event = await run_in_threadpool(store.event, code)
        checked = await checked_session(event, request, await form(request))
        if isinstance(checked, Response):
            return checked
        await run_in_threadpool(store.end_session, request.cookies.get(cookie_name(event)))
        response = RedirectResponse(f"/events/{event.code}/admin", status_code=303)
        response.delete_cookie(cookie_name(event), path="/", secure=settings.tls, httponly=True, samesite="strict")
        return response

    async def admin_form_action(code: str, request: Request, action: str, target: int | None) -> Response:
        event = await run_in_threadpool(store.event, code)
        fields = await form(request)
        checked = await checked_session(event, request, fields)
        if isinstance(checked, Response):
            return checked
        try:
            message = await run_in_threadpool(_apply_form, store, event, action, target, fields)
        except HubError as error:
            fresh = await run_in_threadpool(store.event, code)
            return await run_in_threadpool(admin_html, fresh, checked, f"Not changed: {error}", error.status)
        return RedirectResponse(
            f"/events/{event.code}/admin?{urllib.parse.urlencode({'message': message})}", status_code=303
        )

    @app.post("/events/{code}/admin/results/{result_id}/{action}", response_model=None)
    async def admin_result_action(code: str, result_id: int, action: str, request: Request) -> Response:
        if action not in ("void", "restore", "correct", "approve"):
            raise StarletteHTTPException(404, "unknown admin action")
        return await admin_form_action(code, request, action, result_id)

    @app.post("/events/{code}/admin/tables/{table_id}/{action}", response_model=None)
    async def admin_table_action(code: str, table_id: int, action: str, request: Request) -> Response:
        if action not in ("rename", *_TABLE_ACTIONS):
            raise StarletteHTTPException(404, "unknown admin action")
        return await admin_form_action(code, request, "table_" + action, table_id)

    @app.post("/events/{code}/admin/{action}", response_model=None)
    async def admin_event_action(code: str, action: str, request: Request) -> Response:
        if action not in ("round", "close-round", "join-secret", "paper"):
            raise StarletteHTTPException(404, "unknown admin action")
        return await admin_form_action(code, request, action, None)

    return app


def secrets_equal(a: str, b: str) -> bool:
    import secrets

    return bool(a) and secrets.compare_digest(a.encode(), b.encode())


_TABLE_ACTIONS = ("revoke", "restore", "delete", "remove-live")


def _table_action(store: HubStore, event: EventInfo, table_id: int, action: str, reason: str) -> str:
    if action == "revoke":
        store.set_table_revoked(event, table_id, True, reason=reason)
        return f"Table {table_id} revoked: its token no longer works."
    if action == "restore":
        store.set_table_revoked(event, table_id, False, reason=reason)
        return f"Table {table_id} restored: it can join again with its own tablet."
    if action == "delete":
        store.delete_table(event, table_id, reason=reason)
        return f"Table {table_id} deleted: its name is free."
    if action == "remove-live":
        store.remove_live(event, table_id, reason=reason)
        return f"The live game of table {table_id} was removed from the projector."
    raise NotFoundError(f"unknown table action {action!r}")


_PLAYERS: TypeAdapter[list[PlayerResult] | list[PlayerLine]] = TypeAdapter(list[PlayerResult] | list[PlayerLine])


def _apply_form(
    store: HubStore, event: EventInfo, action: str, target: int | None, fields: dict[str, str]
) -> str:
    """One admin-page form: the same store calls as the API, with the form's fields checked the same way."""
    reason = fields.get("reason", "").strip()
    if action == "round":
        number = _form_round(fields.get("round", ""))
        if number is None:
            raise InvalidError("the round must be a whole number from 1 to 999")
        store.set_round(event, number)
        return f"Round {number} is open: results that arrive now count in it."
    if action == "close-round":
        store.close_round(event)
        return f"Round {event.current_round} is closed: late results wait for your approval."
    if action == "join-secret":
        secret = store.rotate_join_secret(event)
        return f"New join secret {secret}: tables that already joined keep working."
    if action == "paper":
        paper = _paper_form(fields)
        stored = store.enter_paper_result(event, paper)
        return f"Result {stored['result_id']} entered by hand in round {stored['round']}."
    assert target is not None
    if not reason:
        raise InvalidError("a reason is required")
    if action == "table_rename":
        try:
            name = RenameBody(name=fields.get("name", ""), reason=reason).name
        except ValidationError as error:
            raise InvalidError(f"the new name is not valid: {_first_problem(error)}") from error
        store.rename_table(event, target, name, reason=reason)
        return f"Table {target} is now called {name}."
    if action.startswith("table_"):
        return _table_action(store, event, target, action.removeprefix("table_"), reason)
    if action in ("void", "restore"):
        store.set_void(event, target, action == "void", reason=reason)
        return f"Result {target} {'voided' if action == 'void' else 'restored'}."
    if action == "approve":
        store.approve(event, target, reason=reason, round_number=_form_round(fields.get("round", "")))
        return f"Result {target} approved."
    try:
        players = _PLAYERS.validate_json(fields.get("players", ""))
    except (ValueError, ValidationError) as error:
        raise InvalidError(f"the correction is not valid: {_first_problem(error)}") from error
    round_number = _form_round(fields.get("round", ""))
    store.correct(event, target, players, reason=reason, round_number=round_number)
    return f"Result {target} corrected."


def _form_round(text: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        return RoundBody(round=int(text)).round
    except (ValueError, ValidationError) as error:
        raise InvalidError("the round must be a whole number from 1 to 999") from error


def _paper_form(fields: dict[str, str]) -> PaperResult:
    """The paper form's rows (``name_1``, ``colour_1``, ``escape_1``, ``<category>_1`` ...) as a PaperResult."""
    players = []
    for row in range(1, 7):
        name = fields.get(f"name_{row}", "").strip()
        if not name:
            continue
        scores = {}
        for category in CATEGORIES:
            text = fields.get(f"{category}_{row}", "").strip()
            if text:
                try:
                    scores[category] = int(text)
                except ValueError as error:
                    raise InvalidError(f"row {row}: {category} must be a whole number") from error
        escape = fields.get(f"escape_{row}", "").strip()
        try:
            players.append(PaperPlayer(name=name, colour=fields.get(f"colour_{row}", "").strip() or None,
                                       scores=scores, escape_order=int(escape) if escape else None))
        except (ValueError, ValidationError) as error:
            raise InvalidError(f"row {row}: {_first_problem(error)}") from error
    try:
        return PaperResult(
            reason=fields.get("reason", ""),
            table_name=fields.get("table_name", "").strip() or None,
            mode=fields.get("mode", "competitive"),  # type: ignore[arg-type]
            scenario=int(fields.get("scenario", "0") or 0),
            round=_form_round(fields.get("round", "")),
            players=players,
            table_order=[n.strip() for n in fields.get("table_order", "").split(",") if n.strip()],
        )
    except (ValueError, ValidationError) as error:
        raise InvalidError(f"the paper result is not valid: {_first_problem(error)}") from error


def _first_problem(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return problem_sentence(error)
    return str(error)


def _details(problems: list[Any]) -> list[dict[str, str]]:
    return [{"where": problem_where(p), "problem": problem_message(p)} for p in problems[:20]]


# ----------------------------------------------------------------------------------------- running
SETTINGS_ENV = "FUJIKORO_HUB_SETTINGS"


def settings_to_env(settings: HubSettings) -> str:
    return json.dumps(asdict(settings))


def settings_from_env(text: str) -> HubSettings:
    data = json.loads(text)
    data["guard"] = GuardSettings(**data.get("guard", {}))
    return HubSettings(**data)


def app_from_env() -> FastAPI:
    """uvicorn factory for ``--workers N``: every worker process builds its app from the environment."""
    return create_app(settings_from_env(os.environ[SETTINGS_ENV]))


def uvicorn_config(app: Any, settings: HubSettings, *, log_level: str = "info", access_log: bool = True,
                   tls_cert: str | None = None, tls_key: str | None = None, **kwargs: Any) -> Any:
    """The uvicorn configuration every way of running the hub shares: the guarded protocol (header
    deadline, connection caps), logging that bounds repeated errors, TLS when given."""
    import uvicorn

    soft_limit = raise_file_limit()
    guard = replace(settings.guard, max_connections=min(settings.guard.max_connections, max(64, soft_limit - 100)))
    config = uvicorn.Config(app, log_level=log_level, access_log=access_log, server_header=False,
                            http=GuardedH11Protocol, log_config=log_config(), timeout_keep_alive=5,
                            ssl_certfile=tls_cert, ssl_keyfile=tls_key, **kwargs)
    setattr(config, "hub_guard", guard)  # noqa: B010 - read by GuardedH11Protocol (uvicorn has no slot for it)
    return config


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening, for :func:`serve`. The hub binds it itself:
    uvicorn, given a host and port, logs a failed bind and exits the process with status 3, so a port
    in use could not be told to the organiser in a sentence. Raises :class:`OSError` (see :func:`cannot_listen`)."""
    family, kind, proto, _name, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)  # proto TCP: asyncio sets TCP_NODELAY on its connections
    try:
        if os.name != "nt":  # (on Windows SO_REUSEADDR would let a second server take the port)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)  # uvicorn's own backlog
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)  # --workers N: the worker processes serve this same socket
    return sock


def cannot_listen(host: str, port: int, error: OSError) -> str:
    """Why the hub cannot listen on ``host:port``, in one sentence for the organiser."""
    if error.errno == errno.EADDRINUSE:
        return (f"port {port} on {host} is already in use; stop the other server or choose another port "
                "with --port")
    if error.errno == errno.EACCES:
        return f"this user may not listen on port {port} on {host}; choose a port above 1023 with --port"
    if error.errno == errno.EADDRNOTAVAIL:
        return f"{host} is not an address of this machine; choose another with --host (0.0.0.0: all of them)"
    return f"cannot listen on {host}:{port}: {error.strerror or error}"


def serve(
    settings: HubSettings, *, host: str = "127.0.0.1", port: int = DEFAULT_PORT, workers: int = 1,
    log_level: str = "info", access_log: bool = True, tls_cert: str | None = None, tls_key: str | None = None,
    sock: socket.socket | None = None,
) -> None:
    """Run the hub until it is stopped, on ``sock`` (from :func:`listening_socket`) or on a socket bound
    to ``host:port`` here; a port that cannot be bound raises :class:`OSError` before anything is served."""
    import uvicorn

    if (tls_cert is None) != (tls_key is None):
        raise ValueError("TLS needs both the certificate and its key")
    settings = replace(settings, tls=tls_cert is not None)
    if sock is None:
        sock = listening_socket(host, port)
    common: dict[str, Any] = {"log_level": log_level, "access_log": access_log, "tls_cert": tls_cert,
                              "tls_key": tls_key, "host": host, "port": port}
    with sock:
        if workers > 1:
            from uvicorn.supervisors import Multiprocess

            db.migrate(db.make_engine(settings.db_url))
            os.environ[SETTINGS_ENV] = settings_to_env(settings)
            config = uvicorn_config("hub.server:app_from_env", settings, factory=True, workers=workers, **common)
            Multiprocess(config, sockets=[sock]).run()
            return
        uvicorn.Server(uvicorn_config(create_app(settings), settings, **common)).run(sockets=[sock])
