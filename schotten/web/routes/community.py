"""The routes of blocks and follows (the work is ``community``; docs/web/community.md).

| route                          | answer                                                          |
|--------------------------------|-----------------------------------------------------------------|
| ``PUT /api/blocks/{name}``     | 204 blocked (also if already); 400 oneself or over the limit; 404 |
| ``DELETE /api/blocks/{name}``  | 204 unblocked (also if not blocked); 400 oneself; 404           |
| ``GET /api/blocks``            | ``{"players": [{"name", "since"}], "limit"}``                   |
| ``PUT /api/follows/{name}``    | 204 followed (also if already); 400 oneself or over the limit; 404 |
| ``DELETE /api/follows/{name}`` | 204 unfollowed (also if not followed); 400 oneself; 404         |
| ``GET /api/follows``           | ``{"players": [{"name", "since"}], "limit"}``                   |
| ``GET /api/follows/games``     | ``{"games": [table + "watch"]}``: their games being played      |

Every route is for a signed-in player: a guest gets 401 and nothing changes.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request, Response

from ..core.errors import ServiceError
from ..core.schemas import ErrorBody
from ..players.accounts import AccountRef
from ..players.identity import viewer
from ..service import GameService

_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody} for code in (400, 401, 404)}


async def _signed_in(request: Request, what: str) -> AccountRef:
    """The signed-in account of the request; 401 for a guest."""
    account = await viewer(request)
    if account is None:
        raise ServiceError(401, f"you are not logged in: log in to {what}")
    return account


def install(app: FastAPI, service: GameService) -> None:
    """Add the routes of blocks and follows to ``app`` (see the module's table)."""
    db, blocks, follows = service.db, service.blocks, service.follows

    @app.put("/api/blocks/{name}", status_code=204, responses=_ERRORS)
    async def block(name: str, request: Request) -> Response:
        """Block a player: they are never paired with you and their chat lines are hidden from you."""
        me = await _signed_in(request, "block players")
        await blocks.block(me, name, service.authority.now())
        return Response(status_code=204)

    @app.delete("/api/blocks/{name}", status_code=204, responses=_ERRORS)
    async def unblock(name: str, request: Request) -> Response:
        """Unblock a player."""
        me = await _signed_in(request, "unblock players")
        await blocks.unblock(me, name)
        return Response(status_code=204)

    @app.get("/api/blocks", responses=_ERRORS)
    async def blocked(request: Request) -> dict[str, Any]:
        """The players you block, by name."""
        me = await _signed_in(request, "see the players you block")
        found = await db(blocks.listed, me.id)
        return {"players": [entry.as_dict() for entry in found], "limit": blocks.relations.limit}

    @app.put("/api/follows/{name}", status_code=204, responses=_ERRORS)
    async def follow(name: str, request: Request) -> Response:
        """Follow a player: their games in progress are listed on your home page."""
        me = await _signed_in(request, "follow players")
        await db(follows.follow, me, name, service.authority.now())
        return Response(status_code=204)

    @app.delete("/api/follows/{name}", status_code=204, responses=_ERRORS)
    async def unfollow(name: str, request: Request) -> Response:
        """Stop following a player."""
        me = await _signed_in(request, "unfollow players")
        await db(follows.unfollow, me, name)
        return Response(status_code=204)

    @app.get("/api/follows", responses=_ERRORS)
    async def followed(request: Request) -> dict[str, Any]:
        """The players you follow, by name."""
        me = await _signed_in(request, "see the players you follow")
        found = await db(follows.listed, me.id)
        return {"players": [entry.as_dict() for entry in found], "limit": follows.relations.limit}

    @app.get("/api/follows/games", responses=_ERRORS)
    async def followed_games(request: Request) -> dict[str, Any]:
        """The games being played by the players you follow, newest first, each with a link to watch."""
        me = await _signed_in(request, "see the games of the players you follow")
        return {"games": await db(follows.games, me.id, service.authority.now())}
