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
from typing import get_args

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route

from .core.errors import UNAVAILABLE, Say, ServiceError, StoreUnavailable
from .core.schemas import (
    explain,
)
from .core.settings import WebSettings
from .edge import failures, quotas, security
from .edge import server as edge
from .routes import accounts as account_routes
from .routes import (
    analysis,
    challenges,
    community,
    games,
    i18n,
    moderation,
    pages,
    playnow,
    recovery,
    reviews,
    watch,
)
from .routes import live_analysis as live_analysis_routes
from .routes import players as player_routes
from .routes import tournaments as tournament_routes
from .service import GameService

logger = logging.getLogger("schotten.web")

WS_MAX_SIZE = WebSettings().ws_max_bytes
"""The default of ``ws_max_bytes``: larger frames are refused by the WebSocket protocol (close 1009)."""



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
    app.add_middleware(failures.Failures)
    watch.install(app, settings, service)
    games.install(app, service)
    playnow.install(app, service, games.set_seat_cookie)
    reviews.install(app, service)
    analysis.install(app, service)
    live_analysis_routes.install(app, service)
    i18n.install(app, settings)
    pages.install(app, settings, service)
    player_routes.install(app, service)
    recovery.install(app, service, account_routes.install(app, service))
    moderation.install(app, service)
    community.install(app, service)
    tournament_routes.install(app, service)
    challenges.install(app, service, games.set_seat_cookie)

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


def _error(status: int, message: str, said: Say | None = None) -> JSONResponse:
    return JSONResponse({"error": message} if said is None else {"error": message, "say": said},
                        status_code=status)


def _error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(_request: Request, error: ServiceError) -> JSONResponse:
        return _error(error.status, error.message, error.say)

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


