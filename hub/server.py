"""The hub web service (FastAPI on uvicorn): table API, public standings, projector page, admin page.

:func:`create_app` builds the ASGI app for one database (running the migrations first);
:func:`serve` runs it with uvicorn. Every error reaches the client as a small JSON object
``{"error": code, "message": sentence}`` with a 4xx status - never a stack trace. Request bodies
above ``HubSettings.max_body_bytes`` are refused with 413 before any handler sees them.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import urllib.parse
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse
from pydantic import TypeAdapter, ValidationError
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hub import db, pages
from hub.export import results_csv, standings_csv
from hub.rules import points_for_rank, rounds_played, standings
from hub.schema import (
    Correction,
    GameResult,
    JoinRequest,
    JoinResponse,
    LiveUpdate,
    PlayerResult,
    ReasonBody,
    RoundBody,
    SubmitResponse,
)
from hub.storage import (
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
ADMIN_COOKIE = "fujikoro_hub_admin"


@dataclass(frozen=True, slots=True)
class HubSettings:
    db_url: str
    max_body_bytes: int = 64 * 1024
    refresh_ms: int = 5000
    recent_results: int = 8


# ----------------------------------------------------------------------------------------- middleware
class BodyLimit:
    """Refuse request bodies above ``limit`` bytes (declared or streamed) with a 413 JSON reply."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

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
        while True:
            message = await receive()
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


def admin_auth(code: str, request: Request, token: Annotated[str | None, Depends(bearer)]) -> EventInfo:
    """The event whose admin token (bearer header, or the admin page's cookie) came with the request."""
    store = _store(request)
    event = store.event(code)
    token = token or request.cookies.get(ADMIN_COOKIE)
    if token is None:
        raise UnauthorizedError("the admin token is needed (Authorization: Bearer <admin token>)")
    if not store.is_admin(event, token):
        if store.table_for_token(token) is not None:
            raise ForbiddenError("a table token cannot do this; use the admin token")
        raise UnauthorizedError("the admin token is not valid for this event")
    return event


TableAuth = Annotated[tuple[EventInfo, TableInfo], Depends(table_auth)]
AdminAuth = Annotated[EventInfo, Depends(admin_auth)]
RoundQuery = Annotated[int | None, Query(ge=1, le=999)]
RefreshQuery = Annotated[int | None, Query(ge=200, le=600_000)]


# ----------------------------------------------------------------------------------------- app
def create_app(settings: HubSettings) -> FastAPI:
    engine = db.make_engine(settings.db_url)
    db.migrate(engine)
    store = HubStore(engine)
    schema = db.current_revision(engine)
    app = FastAPI(title="Fuji Koro hub", docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
    app.state.store = store
    app.state.settings = settings
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)

    @app.exception_handler(HubError)
    async def _hub_error(_request: Request, error: HubError) -> JSONResponse:
        return _error(error.status, error.code, str(error))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = list(error.errors())
        if any(p.get("type") == "json_invalid" for p in problems):
            return _error(400, "malformed_json", "the request body is not valid JSON")
        if any(p.get("type") == "missing" and tuple(p.get("loc", ())) == ("body",) for p in problems):
            return _error(400, "missing_body", "this request needs a JSON body")
        return _error(422, "invalid", _summary(problems), details=_details(problems))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "http_error")
        return _error(error.status_code, code, str(error.detail))

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
    def join(body: JoinRequest) -> JoinResponse:
        joined = store.join(body.event_code, body.table_name, body.join_key)
        return JoinResponse(
            event_code=joined.event.code,
            event_name=joined.event.name,
            table_id=joined.table.id,
            table_name=joined.table.name,
            token=joined.token,
        )

    @app.post("/api/events/{code}/tables/{table_id}/results", status_code=201)
    def submit_result(auth: TableAuth, body: GameResult, response: Response) -> SubmitResponse:
        _event, table = auth
        outcome = store.submit_result(table, body)
        if outcome.status == "duplicate":
            response.status_code = 200
        return SubmitResponse(
            status="stored" if outcome.status == "stored" else "duplicate",
            result_id=outcome.result_id,
            game_id=body.game_id,
            seq=body.seq,
            round=outcome.round,
        )

    @app.post("/api/events/{code}/tables/{table_id}/live", status_code=202)
    def submit_live(auth: TableAuth, body: LiveUpdate) -> dict[str, str]:
        _event, table = auth
        return {"status": store.submit_live(table, body)}

    # ------------------------------------------------------------------ public reads
    def standings_json(event: EventInfo, round_number: int | None) -> dict[str, Any]:
        games = store.counted_games(event)
        rows = standings(games, event.rank_points, round_number=round_number)
        return {
            "event": event.name,
            "round": round_number,
            "current_round": event.current_round,
            "rounds": rounds_played(games),
            "rank_points": list(event.rank_points),
            "standings": [
                {"place": r.place, "name": r.name, "rank_points": r.rank_points, "wins": r.wins,
                 "games": r.games, "vp": r.vp, "escapes": r.escapes}
                for r in rows
            ],
        }

    @app.get("/api/events/{code}/standings")
    def get_standings(code: str, round: RoundQuery = None) -> dict[str, Any]:  # noqa: A002 - URL word
        return standings_json(store.event(code), round)

    def history(event: EventInfo, name: str) -> list[dict[str, Any]]:
        games = store.player_history(event, name)
        for game in games:
            game["rank_points"] = 0 if game["void"] or game["mode"] != "competitive" else points_for_rank(
                game["rank"], event.rank_points
            )
        if not games:
            raise NotFoundError(f"no games of a player named {name!r} in this event")
        return games

    @app.get("/api/events/{code}/players/{name}")
    def get_player(code: str, name: str) -> dict[str, Any]:
        games = history(store.event(code), name)
        return {"player": games[0]["name"], "games": games}

    @app.get("/events/{code}/players/{name}", response_class=HTMLResponse)
    def player_html(code: str, name: str) -> str:
        event = store.event(code)
        games = history(event, name)
        return pages.player_page(event_name=event.name, event_code=event.code, player=games[-1]["name"], games=games)

    @app.get("/api/events/{code}/live")
    def get_live(code: str) -> dict[str, Any]:
        return {"live": store.live_games(store.event(code))}

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

    @app.get("/api/events/{code}/audit")
    def get_audit(event: AdminAuth) -> dict[str, Any]:
        return {"audit": store.audit_log(event)}

    @app.post("/api/events/{code}/round")
    def set_round(event: AdminAuth, body: RoundBody) -> dict[str, Any]:
        updated = store.set_round(event, body.round)
        return {"current_round": updated.current_round}

    @app.get("/api/events/{code}/export.csv")
    def export_csv(event: AdminAuth, what: str = "results", round: RoundQuery = None) -> Response:  # noqa: A002
        if what == "results":
            text = results_csv(store.results(event), event.rank_points)
        elif what == "standings":
            text = standings_csv(standings_json(event, round)["standings"])
        else:
            raise InvalidError("what must be 'results' or 'standings'")
        filename = f"{event.code}-{what}{'' if round is None else f'-round{round}'}.csv"
        return PlainTextResponse(
            text, media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )

    # ------------------------------------------------------------------ pages
    rendered: dict[tuple[int, int | None], tuple[tuple[Any, ...], str]] = {}
    render_lock = threading.Lock()

    def fragment(event: EventInfo, round_number: int | None) -> str:
        """The standings HTML, rendered again only when the event changed (many projectors, one render)."""
        version = (event.current_round, *store.version(event))
        with render_lock:
            cached = rendered.get((event.id, round_number))
        if cached is not None and cached[0] == version:
            return cached[1]
        html = render_fragment(event, round_number)
        with render_lock:
            rendered[(event.id, round_number)] = (version, html)
        return html

    def render_fragment(event: EventInfo, round_number: int | None) -> str:
        results = store.results(event)
        games = store.counted_games(event, results)
        recent = results[-settings.recent_results :]
        return pages.leaderboard_fragment(
            event_code=event.code,
            rows=standings(games, event.rank_points, round_number=round_number),
            rounds=rounds_played(games),
            round_number=round_number,
            current_round=event.current_round,
            live=store.live_games(event),
            recent=list(reversed(recent)),
        )

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return (
            "<!doctype html><title>Fuji Koro hub</title><p>Fuji Koro convention hub. The projector page is "
            "<code>/events/&lt;EVENT CODE&gt;/leaderboard</code>, the organizer's page "
            "<code>/events/&lt;EVENT CODE&gt;/admin</code>.</p>"
        )

    @app.get("/events/{code}/leaderboard", response_class=HTMLResponse)
    def leaderboard(
        code: str, round: RoundQuery = None, refresh_ms: RefreshQuery = None  # noqa: A002
    ) -> str:
        event = store.event(code)
        return pages.leaderboard_page(
            event_name=event.name,
            event_code=event.code,
            fragment=fragment(event, round),
            refresh_ms=refresh_ms or settings.refresh_ms,
            round_number=round,
        )

    @app.get("/events/{code}/leaderboard/fragment", response_class=HTMLResponse)
    def leaderboard_fragment(code: str, round: RoundQuery = None) -> str:  # noqa: A002
        return fragment(store.event(code), round)

    def admin_html(event: EventInfo, message: str = "") -> HTMLResponse:
        return HTMLResponse(
            pages.admin_page(
                event_name=event.name,
                event_code=event.code,
                current_round=event.current_round,
                tables=[t.name for t in store.tables(event)],
                results=store.results(event),
                audit=store.audit_log(event),
                message=message,
            ),
            headers={"Cache-Control": "no-store"},
        )

    @app.get("/events/{code}/admin", response_class=HTMLResponse)
    def admin_get(code: str, request: Request, message: str = "") -> HTMLResponse:
        event = store.event(code)
        if not store.is_admin(event, request.cookies.get(ADMIN_COOKIE)):
            return HTMLResponse(pages.login_page(event_code=event.code), status_code=401)
        return admin_html(event, message)

    async def form(request: Request) -> dict[str, str]:
        body = (await request.body()).decode("utf-8", errors="replace")
        return {k: v[0] for k, v in urllib.parse.parse_qs(body).items()}

    @app.post("/events/{code}/admin/login", response_model=None)
    async def admin_login(code: str, request: Request) -> Response:
        event = await run_in_threadpool(store.event, code)
        token = (await form(request)).get("token", "").strip()
        if not await run_in_threadpool(store.is_admin, event, token):
            return HTMLResponse(
                pages.login_page(event_code=event.code, message="That is not the admin token of this event."),
                status_code=401,
            )
        response = RedirectResponse(f"/events/{event.code}/admin", status_code=303)
        response.set_cookie(ADMIN_COOKIE, token, httponly=True, samesite="strict", path="/")
        return response

    @app.post("/events/{code}/admin/logout", response_model=None)
    async def admin_logout(code: str) -> Response:
        response = RedirectResponse(f"/events/{code}/admin", status_code=303)
        response.delete_cookie(ADMIN_COOKIE, path="/")
        return response

    async def admin_form_action(code: str, request: Request, action: str, result_id: int | None) -> Response:
        event = await run_in_threadpool(store.event, code)
        if not await run_in_threadpool(store.is_admin, event, request.cookies.get(ADMIN_COOKIE)):
            return HTMLResponse(pages.login_page(event_code=event.code), status_code=401)
        fields = await form(request)
        try:
            message = await run_in_threadpool(_apply_form, store, event, action, result_id, fields)
        except HubError as error:
            return HTMLResponse(admin_html(event, f"Not changed: {error}").body, status_code=error.status)
        return RedirectResponse(
            f"/events/{event.code}/admin?{urllib.parse.urlencode({'message': message})}", status_code=303
        )

    @app.post("/events/{code}/admin/results/{result_id}/{action}", response_model=None)
    async def admin_result_action(code: str, result_id: int, action: str, request: Request) -> Response:
        if action not in ("void", "restore", "correct"):
            raise StarletteHTTPException(404, "unknown admin action")
        return await admin_form_action(code, request, action, result_id)

    @app.post("/events/{code}/admin/round", response_model=None)
    async def admin_round(code: str, request: Request) -> Response:
        return await admin_form_action(code, request, "round", None)

    return app


_PLAYERS = TypeAdapter(list[PlayerResult])


def _apply_form(
    store: HubStore, event: EventInfo, action: str, result_id: int | None, fields: dict[str, str]
) -> str:
    reason = fields.get("reason", "").strip()
    if action == "round":
        try:
            number = int(fields.get("round", ""))
            RoundBody(round=number)
        except (ValueError, ValidationError) as error:
            raise InvalidError("the round must be a whole number from 1 to 999") from error
        store.set_round(event, number)
        return f"Round {number} is now in play."
    assert result_id is not None
    if not reason:
        raise InvalidError("a reason is required")
    if action in ("void", "restore"):
        store.set_void(event, result_id, action == "void", reason=reason)
        return f"Result {result_id} {'voided' if action == 'void' else 'restored'}."
    try:
        players = _PLAYERS.validate_json(fields.get("players", ""))
        round_text = fields.get("round", "").strip()
        round_number = int(round_text) if round_text else None
        if round_number is not None:
            RoundBody(round=round_number)
    except (ValueError, ValidationError) as error:
        raise InvalidError(f"the correction is not valid: {_first_problem(error)}") from error
    store.correct(event, result_id, players, reason=reason, round_number=round_number)
    return f"Result {result_id} corrected."


def _first_problem(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return _summary(list(error.errors()))
    return str(error)


def _where(problem: Any) -> str:
    return ".".join(str(part) for part in problem.get("loc", ()))


def _summary(problems: list[Any]) -> str:
    first = problems[0] if problems else {"msg": "invalid request"}
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    where = _where(first)
    return f"{where + ': ' if where else ''}{_message(first)}{more}"


def _message(problem: Any) -> str:
    return str(problem.get("msg", "invalid")).removeprefix("Value error, ")


def _details(problems: list[Any]) -> list[dict[str, str]]:
    return [{"where": _where(p), "problem": _message(p)} for p in problems[:20]]


# ----------------------------------------------------------------------------------------- running
def app_from_env() -> FastAPI:
    """uvicorn factory for ``--workers N``: every worker process builds its app from the environment."""
    return create_app(
        HubSettings(
            db_url=os.environ["FUJIKORO_HUB_DB"],
            max_body_bytes=int(os.environ.get("FUJIKORO_HUB_MAX_BODY", 64 * 1024)),
            refresh_ms=int(os.environ.get("FUJIKORO_HUB_REFRESH_MS", 5000)),
        )
    )


def serve(
    settings: HubSettings, *, host: str = "127.0.0.1", port: int = DEFAULT_PORT, workers: int = 1,
    log_level: str = "info", access_log: bool = True,
) -> None:
    import uvicorn

    if workers > 1:
        db.migrate(db.make_engine(settings.db_url))
        os.environ["FUJIKORO_HUB_DB"] = settings.db_url
        os.environ["FUJIKORO_HUB_MAX_BODY"] = str(settings.max_body_bytes)
        os.environ["FUJIKORO_HUB_REFRESH_MS"] = str(settings.refresh_ms)
        uvicorn.run("hub.server:app_from_env", factory=True, host=host, port=port, workers=workers,
                    log_level=log_level, access_log=access_log, server_header=False)
        return
    uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level, access_log=access_log,
                server_header=False)
