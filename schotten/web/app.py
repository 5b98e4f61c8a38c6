"""The FastAPI application: pages, the JSON API, the game WebSocket and the static files.

``create_app(settings)`` builds the app around one ``GameService``; ``run(settings)``
serves it with uvicorn (what ``schotten serve`` does); ``app_from_env`` is a factory
for ``uvicorn --factory schotten.web.app:app_from_env``. See docs/web.md.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from pathlib import Path
from typing import Any, get_args

from fastapi import FastAPI, Request, Response, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route

from .core.errors import UNAVAILABLE, ServiceError, StoreUnavailable
from .core.schemas import (
    ClosedOffer,
    CreateTable,
    ErrorBody,
    GameSummary,
    JoinTable,
    Languages,
    Messages,
    RematchRequest,
    SeatGrant,
    Tables,
    explain,
)
from .core.settings import WebSettings
from .edge import quotas, security
from .edge import server as edge
from .players.identity import viewer
from .players.seats import cookie_name, seat_cookie, seat_cookies
from .routes import accounts as account_routes
from .routes import i18n, playnow, watch
from .routes import players as player_routes
from .service import GameService

logger = logging.getLogger("schotten.web")

WS_MAX_SIZE = WebSettings().ws_max_bytes
"""The default of ``ws_max_bytes``: larger frames are refused by the WebSocket protocol (close 1009)."""
SEAT_COOKIE_AGE = 30 * 24 * 3600
PAGES = {"lobby": "index.html", "game": "game.html", "replay": "replay.html", "rules": "rules.html",
         "account": "account.html"}
_ERRORS: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorBody},
    404: {"model": ErrorBody},
    409: {"model": ErrorBody},
    410: {"model": ErrorBody},
    422: {"model": ErrorBody},
    429: {"model": ErrorBody},
    503: {"model": ErrorBody},
}


def create_app(settings: WebSettings | None = None) -> FastAPI:
    """The web app for ``settings`` (from the environment if not given)."""
    settings = settings if settings is not None else WebSettings.from_env()
    service = GameService(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            await service.start()
        except StoreUnavailable as error:
            logger.error("cannot start: %s", error.message)
            await service.stop()
            raise StoreUnavailable(error.message) from None
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(
        title="Schotten Totten",
        summary="Play Schotten Totten in the browser: lobby, real-time games, replays.",
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.service = service
    app.state.settings = settings
    _error_handlers(app)
    quotas.install(app, settings, service.quotas)
    security.install(app, settings)
    edge.install(app, settings)
    watch.install(app, settings, service)
    _api_routes(app, service)
    playnow.install(app, service, _seat_cookie)
    _i18n_routes(app, settings)
    _page_routes(app, settings, service)
    player_routes.install(app, service)
    account_routes.install(app, service)

    @app.websocket("/ws/games/{game_id}")
    async def game_socket(websocket: WebSocket, game_id: str) -> None:
        await service.serve(websocket, game_id)

    if settings.static_dir.is_dir():
        app.mount("/static", StaticFiles(directory=settings.static_dir), name="static")
    return app


def app_from_env() -> FastAPI:
    """The app with settings from the environment (a uvicorn ``--factory``; the connection limits need
    ``--http schotten.web.edge.server:HttpProtocol --ws schotten.web.edge.server:WebSocketProtocol``,
    docs/web.md)."""
    app = create_app(WebSettings.from_env())
    tune_collector()
    return app


GC_YOUNG_THRESHOLD = 50_000
"""Allocations between two collections of the youngest generation (Python's default: 700)."""


def tune_collector() -> None:
    """Tune the garbage collector for a server process: what is loaded at start (modules, the app)
    is frozen out of every collection, and the youngest generation is collected every
    ``GC_YOUNG_THRESHOLD`` allocations. A state message allocates thousands of short-lived objects
    that reference counting frees; with the defaults, collections scanning every loaded game cost a
    third of the round trip at 200 games (benchmarks/bench_web.py). Process-wide: called by ``run``
    and ``app_from_env``, never by ``create_app`` (tests build many apps in one process)."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


def run(settings: WebSettings) -> None:
    """Serve the app with uvicorn, with the edge's protocols and limits, until interrupted."""
    import uvicorn

    http, ws = edge.protocols(settings)
    app = create_app(settings)
    tune_collector()
    uvicorn.run(app, host=settings.host, port=settings.port, http=http, ws=ws,
                ws_max_size=settings.ws_max_bytes, ws_per_message_deflate=settings.ws_deflate)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(_request: Request, error: ServiceError) -> JSONResponse:
        return _error(error.status, error.message)

    @app.exception_handler(StoreUnavailable)
    async def store_unavailable(_request: Request, _failure: StoreUnavailable) -> JSONResponse:
        return _error(503, UNAVAILABLE)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
        return _error(422, _problem(request, error))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        answer = _error(error.status_code, _http_problem(request, error))
        answer.headers.update(error.headers or {})
        if error.status_code == 405:
            answer.headers["allow"] = ", ".join(_methods_at(request))
        return answer


def _problem(request: Request, error: RequestValidationError) -> str:
    """What was wrong with a refused request, in words (see ``schemas.explain``)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    json_sent = not content_type or content_type == "application/json" or content_type.endswith("+json")
    return explain(error.errors(), error.body, _body_model(request), json_sent)


def _http_problem(request: Request, error: StarletteHTTPException) -> str:
    """Starlette's own refusals ("Not Found", "Method Not Allowed") as sentences."""
    if error.detail != HTTPStatus(error.status_code).phrase:
        return str(error.detail)
    where = f"{request.method} {request.url.path}"
    if error.status_code == 404:
        hint = ": see /api/docs for the API's routes" if request.url.path.startswith("/api/") else ""
        return f"there is nothing at {request.url.path}{hint}"
    if error.status_code == 405:
        allowed = _methods_at(request)
        return f"{where} is not allowed" + (f": this path answers {', '.join(allowed)}" if allowed else "")
    return f"{where}: {str(error.detail).lower()}"


def _methods_at(request: Request) -> list[str]:
    """The methods the routes at the request's path answer."""
    found: set[str] = set()
    for route in request.app.routes:
        if isinstance(route, Route) and route.matches(request.scope)[0] != Match.NONE:
            found |= set(route.methods or ()) - {"HEAD"}
    return sorted(found)


def _body_model(request: Request) -> type[BaseModel] | None:
    """The model of the body the request's route asks for, if any."""
    field = getattr(request.scope.get("route"), "body_field", None)
    annotation = getattr(getattr(field, "field_info", None), "annotation", None)
    for kind in (annotation, *get_args(annotation)):
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return kind
    return None


def _seat_cookie(response: Response, game_id: str, token: str, https: bool) -> None:
    """Set the seat cookie: HttpOnly, SameSite=Lax, for the whole site; Secure and ``__Host-``
    prefixed when the server is reached over HTTPS (the ``https`` setting)."""
    response.set_cookie(cookie_name(seat_cookie(game_id), https), token, max_age=SEAT_COOKIE_AGE, path="/",
                        httponly=True, samesite="lax", secure=https)


def _answer(body: RematchRequest | None) -> tuple[str | None, str | None]:
    """The token and the rematch table named by a rematch request or answer (either may be None)."""
    return (None, None) if body is None else (body.token, body.rematch)


def _api_routes(app: FastAPI, service: GameService) -> None:
    https = service.settings.https

    def cookies(request: Request) -> dict[str, str]:
        return seat_cookies(request.cookies, https)

    @app.get("/api/tables", response_model=Tables)
    async def list_tables() -> Tables:
        """The newest open tables (not expired), then games in progress, then finished games: three
        lists of at most ``table_limit`` each, newest first."""
        return Tables(tables=await service.tables())

    @app.get("/api/my-games", response_model=Tables)
    async def my_games(request: Request) -> Tables:
        """The tables whose seat this browser holds (its seat cookies) or its account plays, your move
        first, then newest first."""
        return Tables(tables=await service.mine(cookies(request), await viewer(request)))

    @app.post("/api/tables", response_model=SeatGrant, responses=_ERRORS)
    async def create_table(body: CreateTable, request: Request, response: Response) -> SeatGrant:
        """Open a table against the AI or a friend; the answer holds your seat's secret link (429 beyond
        your address's quotas: tables per hour, open tables, AI games in play). Logged in, you play
        under your username, and the table may be rated (with a clock, against a person)."""
        grant = await service.create(body, quotas.address_of(request.client), await viewer(request))
        _seat_cookie(response, grant.id, grant.token, https)
        return grant

    @app.post("/api/tables/{game_id}/join", response_model=SeatGrant, responses=_ERRORS)
    async def join_table(game_id: str, request: Request, response: Response,
                         body: JoinTable | None = None) -> SeatGrant:
        """Take the free seat of a table (410 once it expired: nobody joined in time; 403 for a guest at
        a rated table, or a player rated outside its range)."""
        grant = await service.join(game_id, body.nickname if body else None, await viewer(request))
        _seat_cookie(response, grant.id, grant.token, https)
        return grant

    @app.post("/api/games/{game_id}/rematch", response_model=SeatGrant, responses=_ERRORS)
    async def rematch(
        game_id: str, request: Request, response: Response, body: RematchRequest | None = None
    ) -> SeatGrant:
        """Ask for a finished friend game's rematch, or take your seat in it (your seat's token is
        the credential: ``token`` in the body, else the cookie ``seat_{id}``)."""
        token, offer = _answer(body)
        seats = cookies(request)
        grant = await service.rematch(game_id, token or seats.get(seat_cookie(game_id)), seats, offer)
        _seat_cookie(response, grant.id, grant.token, https)
        return grant

    @app.post("/api/games/{game_id}/rematch/withdraw", response_model=ClosedOffer, responses=_ERRORS)
    async def withdraw_rematch(
        game_id: str, request: Request, body: RematchRequest | None = None
    ) -> ClosedOffer:
        """Withdraw the rematch offer you made, while the other seat is still free (your seat's token
        of this game or of the rematch table: ``token`` in the body, else a seat cookie)."""
        token, offer = _answer(body)
        return await service.withdraw_rematch(game_id, token, cookies(request), offer)

    @app.post("/api/games/{game_id}/rematch/decline", response_model=ClosedOffer, responses=_ERRORS)
    async def decline_rematch(
        game_id: str, request: Request, body: RematchRequest | None = None
    ) -> ClosedOffer:
        """Decline the other player's rematch offer (your seat's token: ``token`` in the body, else
        the cookie ``seat_{id}``)."""
        token, offer = _answer(body)
        return await service.decline_rematch(game_id, token, cookies(request), offer)

    @app.get("/api/games/{game_id}", response_model=GameSummary, responses=_ERRORS)
    async def game_summary(game_id: str) -> GameSummary:
        """A game's table and version."""
        return await service.summary(game_id)

    @app.get("/api/games/{game_id}/record", responses=_ERRORS)
    async def game_record(game_id: str, download: bool = False) -> JSONResponse:
        """The game record (JSON) of a finished game; ``?download=1`` asks the browser to save it."""
        record = await service.record(game_id)
        name = f"schotten-{game_id}.json"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'} if download else None
        return JSONResponse(record, headers=headers)

    @app.get("/api/games/{game_id}/replay", responses=_ERRORS)
    async def game_replay(game_id: str) -> JSONResponse:
        """A finished game step by step: the deal, then the position after each move, all shown."""
        return JSONResponse(await service.replay(game_id))


def _i18n_routes(app: FastAPI, settings: WebSettings) -> None:
    @app.get("/api/i18n", response_model=Languages)
    async def languages(request: Request) -> Languages:
        """The languages offered and the best one for this browser (``lang`` cookie, Accept-Language)."""
        best = i18n.preferred(request.headers.get("accept-language"), request.cookies.get(i18n.LANG_COOKIE))
        return Languages(languages=list(i18n.LANGUAGES), preferred=best)

    @app.get("/api/i18n/{lang}", response_model=Messages, responses=_ERRORS)
    async def catalogue(lang: str) -> Messages:
        """Every message of one language: ``{msgid: translation}``."""
        try:
            return Messages(lang=lang, messages=i18n.messages(settings.locale_dir, lang))
        except ValueError as error:
            raise ServiceError(404, str(error)) from None


def _page(settings: WebSettings, name: str) -> Response:
    path: Path = settings.static_dir / PAGES[name]
    if not path.is_file():
        return HTMLResponse(
            f"<!doctype html><title>Not installed</title><h1>Page not installed</h1>"
            f"<p>The {name} page (schotten/web/static/{PAGES[name]}) is missing from this installation.</p>",
            status_code=404,
        )
    return FileResponse(path, media_type="text/html")


def _missing_game(game_id: str) -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><title>No such game</title><h1>No such game</h1>"
        f"<p>There is no game {_escape(game_id)}. <a href=\"/\">Back to the lobby</a></p>",
        status_code=404,
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _page_routes(app: FastAPI, settings: WebSettings, service: GameService) -> None:
    @app.get("/", include_in_schema=False)
    async def lobby() -> Response:
        return _page(settings, "lobby")

    @app.get("/account", include_in_schema=False)
    async def account() -> Response:
        return _page(settings, "account")

    @app.get("/rules", include_in_schema=False)
    async def rules() -> Response:
        return _page(settings, "rules")

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(request: Request, game_id: str, token: str | None = None) -> Response:
        """The table. A seat link (``?token=``) sets the seat's cookie and sends the browser on to
        the address without the token, so it stays in no address bar, history or Referer."""
        game = await service.live(game_id)
        if game is None:
            return _missing_game(game_id)
        if not token or await service.authority.host.seat_of(game, token) is None:
            return _page(settings, "game")
        rest = request.url.remove_query_params("token")
        response = RedirectResponse(rest.path + (f"?{rest.query}" if rest.query else ""), status_code=303,
                                    headers={"cache-control": "no-store"})
        _seat_cookie(response, game_id, token, settings.https)
        return response

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: str) -> Response:
        if await service.live(game_id) is None:
            return _missing_game(game_id)
        return _page(settings, "replay")
