"""The pages: the lobby, the account, the rules, the analysis board, a game's table and its replay
(files of ``static``)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse

from ..core.settings import WebSettings
from ..service import GameService
from .games import set_seat_cookie

PAGES = {"lobby": "index.html", "game": "game.html", "replay": "replay.html", "rules": "rules.html",
         "account": "account.html", "analysis": "analysis.html", "moderation": "moderation.html",
         "reset": "reset.html"}


def _page(settings: WebSettings, name: str) -> Response:
    path: Path = settings.static_dir / PAGES[name]
    if not path.is_file():
        return HTMLResponse(
            f"<!doctype html><title>Not installed</title><h1>Page not installed</h1>"
            f"<p>The {name} page (schotten/web/static/{PAGES[name]}) is missing from this installation.</p>",
            status_code=404,
        )
    return FileResponse(path, media_type="text/html")


def static_page(settings: WebSettings, name: str) -> Response:
    """The page ``name`` of ``PAGES`` (a 404 page if it is not installed)."""
    return _page(settings, name)


def _missing_game(game_id: str) -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><title>No such game</title><h1>No such game</h1>"
        f"<p>There is no game {_escape(game_id)}. <a href=\"/\">Back to the lobby</a></p>",
        status_code=404,
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def install(app: FastAPI, settings: WebSettings, service: GameService) -> None:
    """Add the pages' routes to ``app``."""
    @app.get("/", include_in_schema=False)
    async def lobby() -> Response:
        return _page(settings, "lobby")

    @app.get("/account", include_in_schema=False)
    async def account() -> Response:
        return _page(settings, "account")

    @app.get("/rules", include_in_schema=False)
    async def rules() -> Response:
        return _page(settings, "rules")

    @app.get("/analysis", include_in_schema=False)
    async def analysis_board() -> Response:
        return _page(settings, "analysis")

    @app.get("/moderation", include_in_schema=False)
    async def moderation() -> Response:
        """The moderators' page (its data says 403 to anyone else)."""
        return _page(settings, "moderation")

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
        set_seat_cookie(response, game_id, token, settings.https)
        return response

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: str) -> Response:
        if await service.live(game_id) is None:
            return _missing_game(game_id)
        return _page(settings, "replay")
