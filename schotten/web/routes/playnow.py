"""The Play now routes (the work is ``playnow.play.PlayNow``; the table of routes is its module's)."""

from __future__ import annotations

from fastapi import Depends, FastAPI, Request, Response
from fastapi.responses import JSONResponse

from ..core.schemas import ErrorBody
from ..players.accounts import AccountRef
from ..players.identity import viewer
from ..playnow.play import EnterPool, PlayNow, Pools, PoolStatus, SeatCookie
from ..service import GameService

_ERRORS: dict[int | str, dict[str, object]] = {code: {"model": ErrorBody}
                                                for code in (403, 409, 422, 429, 503)}


def install(app: FastAPI, service: GameService, seat_cookie: SeatCookie) -> PlayNow:
    """Add the Play now routes to ``app`` (see the module's table)."""
    play = PlayNow(service.authority, seat_cookie, service.blocks)
    app.state.play_now = play

    @app.post("/api/play-now", response_model=PoolStatus, responses=_ERRORS)
    async def enter_pool(body: EnterPool, request: Request, response: Response,
                         account: AccountRef | None = Depends(viewer),  # noqa: B008
                         ) -> PoolStatus | JSONResponse:
        """Wait in a pool for a stranger (a rated pool: accounts only); paired at once if someone fits.
        A browser waits once: a second entry from it is answered with its first (or replaces it, in
        another pool)."""
        return await play.enter(body, account, request, response)

    @app.get("/api/play-now", response_model=PoolStatus, responses=_ERRORS)
    async def pool_status(request: Request, response: Response) -> PoolStatus:
        """How this browser's waiting goes (poll it about every second: an entry not seen for
        ``pool_entry_ttl`` is dropped); once paired, the seat cookie is set. A browser without its
        ``pool_browser`` cookie is given one."""
        play.browsers.give(request, response)
        ticket = play.ticket(request)
        if ticket is None:
            return PoolStatus(status="none")
        return await play.look(ticket, response)

    @app.delete("/api/play-now", response_model=PoolStatus, responses=_ERRORS)
    async def leave_pool(request: Request, response: Response) -> PoolStatus:
        """Stop waiting (if already paired, the answer gives the game)."""
        ticket = play.ticket(request)
        if ticket is None:
            return PoolStatus(status="none")
        return await play.cancel(ticket, response)

    @app.get("/api/play-now/pools", response_model=Pools)
    async def pools() -> Pools:
        """How many wait in each pool and how many players are online."""
        return await play.pools()

    return play
