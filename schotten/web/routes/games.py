"""The games' HTTP routes (tables, joining, rematches, a game's summary, record and replay) and the
game WebSocket."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request, Response, WebSocket
from fastapi.responses import JSONResponse

from ..core.schemas import (
    ClosedOffer,
    CreateTable,
    ErrorBody,
    GameSummary,
    JoinTable,
    RematchRequest,
    SeatGrant,
    Tables,
)
from ..edge.quotas import address_of
from ..players.identity import viewer
from ..players.seats import cookie_name, seat_cookie, seat_cookies
from ..service import GameService

SEAT_COOKIE_AGE = 30 * 24 * 3600
ERRORS: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorBody},
    404: {"model": ErrorBody},
    409: {"model": ErrorBody},
    410: {"model": ErrorBody},
    422: {"model": ErrorBody},
    429: {"model": ErrorBody},
    503: {"model": ErrorBody},
}
"""The error answers a route may give (documented in the OpenAPI schema)."""


def set_seat_cookie(response: Response, game_id: str, token: str, https: bool) -> None:
    """Set the seat cookie: HttpOnly, SameSite=Lax, for the whole site; Secure and ``__Host-``
    prefixed when the server is reached over HTTPS (the ``https`` setting)."""
    response.set_cookie(cookie_name(seat_cookie(game_id), https), token, max_age=SEAT_COOKIE_AGE, path="/",
                        httponly=True, samesite="lax", secure=https)


def _answer(body: RematchRequest | None) -> tuple[str | None, str | None]:
    """The token and the rematch table named by a rematch request or answer (either may be None)."""
    return (None, None) if body is None else (body.token, body.rematch)


def install(app: FastAPI, service: GameService) -> None:
    """Add the games' routes and the game WebSocket to ``app``."""
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

    @app.post("/api/tables", response_model=SeatGrant, responses=ERRORS)
    async def create_table(body: CreateTable, request: Request, response: Response) -> SeatGrant:
        """Open a table against the AI or a friend; the answer holds your seat's secret link (429 beyond
        your address's quotas: tables per hour, open tables, AI games in play). Logged in, you play
        under your username, and the table may be rated (with a clock, against a person)."""
        grant = await service.create(body, address_of(request.client), await viewer(request))
        set_seat_cookie(response, grant.id, grant.token, https)
        return grant

    @app.post("/api/tables/{game_id}/join", response_model=SeatGrant, responses=ERRORS)
    async def join_table(game_id: str, request: Request, response: Response,
                         body: JoinTable | None = None) -> SeatGrant:
        """Take the free seat of a table (410 once it expired: nobody joined in time; 403 for a guest at
        a rated table, or a player rated outside its range)."""
        grant = await service.join(game_id, body.nickname if body else None, await viewer(request))
        set_seat_cookie(response, grant.id, grant.token, https)
        return grant

    @app.post("/api/games/{game_id}/rematch", response_model=SeatGrant, responses=ERRORS)
    async def rematch(
        game_id: str, request: Request, response: Response, body: RematchRequest | None = None
    ) -> SeatGrant:
        """Ask for a finished friend game's rematch, or take your seat in it (your seat's token is
        the credential: ``token`` in the body, else the cookie ``seat_{id}``). The rematch table counts
        as a table your address opened (429 beyond its quotas)."""
        token, offer = _answer(body)
        seats = cookies(request)
        grant = await service.rematch(game_id, token or seats.get(seat_cookie(game_id)), seats, offer,
                                      address_of(request.client))
        set_seat_cookie(response, grant.id, grant.token, https)
        return grant

    @app.post("/api/games/{game_id}/rematch/withdraw", response_model=ClosedOffer, responses=ERRORS)
    async def withdraw_rematch(
        game_id: str, request: Request, body: RematchRequest | None = None
    ) -> ClosedOffer:
        """Withdraw the rematch offer you made, while the other seat is still free (your seat's token
        of this game or of the rematch table: ``token`` in the body, else a seat cookie)."""
        token, offer = _answer(body)
        return await service.withdraw_rematch(game_id, token, cookies(request), offer)

    @app.post("/api/games/{game_id}/rematch/decline", response_model=ClosedOffer, responses=ERRORS)
    async def decline_rematch(
        game_id: str, request: Request, body: RematchRequest | None = None
    ) -> ClosedOffer:
        """Decline the other player's rematch offer (your seat's token: ``token`` in the body, else
        the cookie ``seat_{id}``)."""
        token, offer = _answer(body)
        return await service.decline_rematch(game_id, token, cookies(request), offer)

    @app.get("/api/games/{game_id}", response_model=GameSummary, responses=ERRORS)
    async def game_summary(game_id: str) -> GameSummary:
        """A game's table and version."""
        return await service.summary(game_id)

    @app.get("/api/games/{game_id}/record", responses=ERRORS)
    async def game_record(game_id: str, download: bool = False) -> JSONResponse:
        """The game record (JSON) of a finished game; ``?download=1`` asks the browser to save it."""
        record = await service.record(game_id)
        name = f"schotten-{game_id}.json"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'} if download else None
        return JSONResponse(record, headers=headers)

    @app.get("/api/games/{game_id}/replay", responses=ERRORS)
    async def game_replay(game_id: str) -> JSONResponse:
        """A finished game step by step: the deal, then the position after each move, all shown."""
        return JSONResponse(await service.replay(game_id))

    @app.websocket("/ws/games/{game_id}")
    async def game_socket(websocket: WebSocket, game_id: str) -> None:
        await service.serve(websocket, game_id)
