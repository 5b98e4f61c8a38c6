"""The FastAPI application: pages, the JSON API, the game WebSocket and the static files.

``create_app(settings)`` builds the app around one ``GameService``; ``run(settings)``
serves it with uvicorn (what ``schotten serve`` does); ``app_from_env`` is a factory
for ``uvicorn --factory schotten.web.app:app_from_env``. See docs/web.md.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import edge, i18n, quotas, security, watch
from .errors import UNAVAILABLE, ServiceError, StoreUnavailable
from .schemas import (
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
)
from .seats import seat_cookie
from .service import GameService
from .settings import WebSettings

logger = logging.getLogger("schotten.web")

WS_MAX_SIZE = 64 * 1024
"""Frames larger than this are refused by the WebSocket protocol itself (close 1009)."""
SEAT_COOKIE_AGE = 30 * 24 * 3600
PAGES = {"lobby": "index.html", "game": "game.html", "replay": "replay.html", "rules": "rules.html"}
_ERRORS: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorBody},
    404: {"model": ErrorBody},
    409: {"model": ErrorBody},
    410: {"model": ErrorBody},
    422: {"model": ErrorBody},
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
    quotas.install(app, settings, service)
    security.install(app, settings)
    edge.install(app, settings)
    watch.install(app, settings, service)
    _api_routes(app, service)
    _i18n_routes(app, settings)
    _page_routes(app, settings, service)

    @app.websocket("/ws/games/{game_id}")
    async def game_socket(websocket: WebSocket, game_id: str) -> None:
        await service.serve(websocket, game_id)

    if settings.static_dir.is_dir():
        app.mount("/static", StaticFiles(directory=settings.static_dir), name="static")
    return app


def app_from_env() -> FastAPI:
    """The app with settings from the environment (a uvicorn ``--factory``)."""
    return create_app(WebSettings.from_env())


def run(settings: WebSettings) -> None:
    """Serve the app with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, ws_max_size=WS_MAX_SIZE)


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
    async def invalid_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        return _error(422, "; ".join(_problem(item) for item in error.errors()) or "invalid request")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        return _error(error.status_code, str(error.detail))


def _problem(item: Any) -> str:
    where = ".".join(str(p) for p in item.get("loc", ()) if p != "body")
    message = str(item.get("msg", "invalid value")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def _seat_cookie(response: Response, game_id: str, token: str) -> None:
    response.set_cookie(
        seat_cookie(game_id), token, max_age=SEAT_COOKIE_AGE, path="/", httponly=True, samesite="lax"
    )


def _answer(body: RematchRequest | None) -> tuple[str | None, str | None]:
    """The token and the rematch table named by a rematch request or answer (either may be None)."""
    return (None, None) if body is None else (body.token, body.rematch)


def _api_routes(app: FastAPI, service: GameService) -> None:
    @app.get("/api/tables", response_model=Tables)
    async def list_tables() -> Tables:
        """Open tables, games in progress and finished games, most recent first."""
        return Tables(tables=await service.tables())

    @app.get("/api/my-games", response_model=Tables)
    async def my_games(request: Request) -> Tables:
        """The tables whose seat this browser holds (its seat cookies), newest first."""
        return Tables(tables=await service.mine(request.cookies))

    @app.post("/api/tables", response_model=SeatGrant, responses=_ERRORS)
    async def create_table(body: CreateTable, response: Response) -> SeatGrant:
        """Open a table against the AI or a friend; the answer holds your seat's secret link."""
        grant = await service.create(body)
        _seat_cookie(response, grant.id, grant.token)
        return grant

    @app.post("/api/tables/{game_id}/join", response_model=SeatGrant, responses=_ERRORS)
    async def join_table(game_id: str, body: JoinTable, response: Response) -> SeatGrant:
        """Take the free seat of a table."""
        grant = await service.join(game_id, body.nickname)
        _seat_cookie(response, grant.id, grant.token)
        return grant

    @app.post("/api/games/{game_id}/rematch", response_model=SeatGrant, responses=_ERRORS)
    async def rematch(
        game_id: str, request: Request, response: Response, body: RematchRequest | None = None
    ) -> SeatGrant:
        """Ask for a finished friend game's rematch, or take your seat in it (your seat's token is
        the credential: ``token`` in the body, else the cookie ``seat_{id}``)."""
        token, offer = _answer(body)
        grant = await service.rematch(game_id, token or request.cookies.get(seat_cookie(game_id)),
                                      request.cookies, offer)
        _seat_cookie(response, grant.id, grant.token)
        return grant

    @app.post("/api/games/{game_id}/rematch/withdraw", response_model=ClosedOffer, responses=_ERRORS)
    async def withdraw_rematch(
        game_id: str, request: Request, body: RematchRequest | None = None
    ) -> ClosedOffer:
        """Withdraw the rematch offer you made, while the other seat is still free (your seat's token
        of this game or of the rematch table: ``token`` in the body, else a seat cookie)."""
        token, offer = _answer(body)
        return await service.withdraw_rematch(game_id, token, request.cookies, offer)

    @app.post("/api/games/{game_id}/rematch/decline", response_model=ClosedOffer, responses=_ERRORS)
    async def decline_rematch(
        game_id: str, request: Request, body: RematchRequest | None = None
    ) -> ClosedOffer:
        """Decline the other player's rematch offer (your seat's token: ``token`` in the body, else
        the cookie ``seat_{id}``)."""
        token, offer = _answer(body)
        return await service.decline_rematch(game_id, token, request.cookies, offer)

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

    @app.get("/rules", include_in_schema=False)
    async def rules() -> Response:
        return _page(settings, "rules")

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(game_id: str, token: str | None = None) -> Response:
        game = await service.live(game_id)
        if game is None:
            return _missing_game(game_id)
        response = _page(settings, "game")
        if token and game.seat_of(token) is not None:
            _seat_cookie(response, game_id, token)
        return response

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: str) -> Response:
        if await service.live(game_id) is None:
            return _missing_game(game_id)
        return _page(settings, "replay")
