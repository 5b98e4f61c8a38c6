"""The tournament routes (the work is ``tournaments.running.Tournaments``) and their two pages.

| route                                   | answer                                                    |
|-----------------------------------------|-----------------------------------------------------------|
| ``POST /api/tournaments``               | 201 ``{"id"}``; 400 a sentence; 401 a guest                |
| ``GET /api/tournaments``                | ``{"tournaments": [...]}``                                 |
| ``GET /api/tournaments/{id}``           | status, standings, games, rounds (Swiss), ``you``          |
| ``POST /api/tournaments/{id}/join``     | ``{"status"}`` (403 below the minimum rating or games)    |
| ``POST /api/tournaments/{id}/withdraw`` | ``{"status": "withdrawn"}``                                |
| ``POST /api/tournaments/{id}/pause``    | ``{"status": "paused"}`` (arena only)                      |
| ``POST /api/tournaments/{id}/berserk``  | ``{"game"}``: one's clock halved, before one's first move  |
| ``POST /api/tournaments/{id}/cancel``   | ``{"status": "cancelled"}`` (the creator, before the start)|
| ``WS /ws/tournaments/{id}``             | the tournament's events (``tournaments.channel``)          |
| ``GET /tournaments``, ``/tournaments/{id}`` | the pages                                            |
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.requests import Request
from starlette.websockets import WebSocket

from ..core.schemas import ErrorBody
from ..players.accounts import AccountRef
from ..players.identity import viewer
from ..players.seats import cookie_name, new_token
from ..service import GameService
from ..tournaments.running import CreateTournament, Tournaments
from .games import set_seat_cookie

_ERRORS: dict[int | str, dict[str, object]] = {code: {"model": ErrorBody}
                                                for code in (400, 401, 403, 404, 409, 422, 503)}
MAX_ID = 2**31 - 1
TICKET_AGE = 7 * 24 * 3600
"""How long a browser keeps its ticket of a tournament (seconds)."""


def install(app: FastAPI, service: GameService) -> Tournaments:
    """Add the tournament routes and pages to ``app`` (see the module's table)."""
    work = service.tournaments
    https = service.settings.https
    tid = PathParam(ge=1, le=MAX_ID)

    @app.post("/api/tournaments", status_code=201, responses=_ERRORS)
    async def create_tournament(request: Request, account: AccountRef | None = Depends(viewer),  # noqa: B008
                                ) -> JSONResponse:
        """Create an arena or a Swiss tournament (signed-in players)."""
        if account is None:
            return JSONResponse({"error": "log in (or sign up) to create a tournament"}, status_code=401)
        try:
            body = CreateTournament.model_validate(await request.json())
        except ValueError as error:
            return JSONResponse({"error": _sentence(error)}, status_code=400)
        return JSONResponse({"id": await work.create(body, account)}, status_code=201)

    @app.get("/api/tournaments")
    async def list_tournaments() -> dict[str, Any]:
        """Upcoming, running and finished tournaments."""
        return {"tournaments": await work.listing()}

    @app.get("/api/tournaments/{tournament_id}", responses=_ERRORS)
    async def tournament(request: Request, response: Response, tournament_id: int = tid,
                         account: AccountRef | None = Depends(viewer),  # noqa: B008
                         ) -> dict[str, Any]:
        """One tournament; ``you`` for a participant (while playing: the game, seat and url, and the
        seat cookie set when the browser holds the ticket it joined with)."""
        view = await work.detail(tournament_id, account)
        you, ticket = view.get("you"), request.cookies.get(_ticket_cookie(tournament_id, https), "")
        if (account is not None and you and you.get("game") and 0 < len(ticket) <= 200
                and await work.ticket_holds(tournament_id, account, ticket)):
            set_seat_cookie(response, you["game"], ticket, https)
        return view

    @app.post("/api/tournaments/{tournament_id}/join", responses=_ERRORS)
    async def join(response: Response, tournament_id: int = tid,
                   account: AccountRef | None = Depends(viewer),  # noqa: B008
                   ) -> dict[str, str]:
        """Join the tournament, or come back after a pause; the browser is given its ticket (the seat
        token of its games, in an HttpOnly cookie)."""
        ticket = new_token()
        status = await work.join(tournament_id, account, ticket)
        response.set_cookie(_ticket_cookie(tournament_id, https), ticket, max_age=TICKET_AGE, path="/",
                            httponly=True, samesite="lax", secure=https)
        return {"status": status}

    @app.post("/api/tournaments/{tournament_id}/withdraw", responses=_ERRORS)
    async def withdraw(tournament_id: int = tid, account: AccountRef | None = Depends(viewer),  # noqa: B008
                       ) -> dict[str, str]:
        """Leave the tournament (a game being played goes on)."""
        return {"status": await work.withdraw(tournament_id, account)}

    @app.post("/api/tournaments/{tournament_id}/pause", responses=_ERRORS)
    async def pause(tournament_id: int = tid, account: AccountRef | None = Depends(viewer),  # noqa: B008
                    ) -> dict[str, str]:
        """Stop being paired in an arena until one joins again."""
        return {"status": await work.pause(tournament_id, account)}

    @app.post("/api/tournaments/{tournament_id}/berserk", responses=_ERRORS)
    async def berserk(tournament_id: int = tid, account: AccountRef | None = Depends(viewer),  # noqa: B008
                      ) -> dict[str, str]:
        """Go berserk in one's arena game before one's first move: half the clock."""
        return {"game": await work.berserk(tournament_id, account)}

    @app.post("/api/tournaments/{tournament_id}/cancel", responses=_ERRORS)
    async def cancel(tournament_id: int = tid, account: AccountRef | None = Depends(viewer),  # noqa: B008
                     ) -> dict[str, str]:
        """The creator cancels the tournament before its start."""
        await work.cancel(tournament_id, account)
        return {"status": "cancelled"}

    @app.websocket("/ws/tournaments/{tournament_id}")
    async def tournament_socket(websocket: WebSocket, tournament_id: int = tid) -> None:
        await work.channel.serve(websocket, tournament_id)

    static: Path = service.settings.static_dir

    @app.get("/tournaments", include_in_schema=False)
    async def tournaments_page() -> Response:
        return _page(static / "tournaments.html")

    @app.get("/tournaments/{tournament_id}", include_in_schema=False)
    async def tournament_page(tournament_id: int = tid) -> Response:
        return _page(static / "tournament.html")

    return work


def _ticket_cookie(tournament_id: int, https: bool) -> str:
    """The name of the cookie holding the browser's ticket of a tournament."""
    return cookie_name(f"tournament_{tournament_id}", https)


def _page(path: Path) -> Response:
    if not path.is_file():
        return HTMLResponse(f"<!doctype html><title>Not installed</title><h1>Page not installed</h1>"
                            f"<p>{path.name} is missing from this installation.</p>", status_code=404)
    return FileResponse(path, media_type="text/html")


def _sentence(error: ValueError) -> str:
    """A refused body's first problem in words."""
    errors = getattr(error, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        return f"{where}: {message}" if where else message
    return str(error)


