"""Players' profiles and the leaderboard: their JSON routes and their pages.

| route                                | answers                                                       |
|--------------------------------------|---------------------------------------------------------------|
| ``GET /api/players/{name}``          | a live account's profile (``ratings.profile``), its games being |
|                                      | played and its recent finished games as tables (404: none),   |
|                                      | how far each rating is from ranked (``ranking``), its         |
|                                      | tournaments and podiums (``tournaments.played``)              |
| ``GET /api/leaderboard?pool=``       | a pool's best established players, the viewer's place and how |
|                                      | far from it they are, what it takes to be ranked              |
| ``GET /player/{name}``               | the profile page (404 page: no such player)                   |
| ``GET /leaderboard``                 | the leaderboard page                                          |

Tables only, never a game's state (R10): what a profile shows of a game is what the lobby shows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from ..core.errors import ServiceError
from ..core.schemas import ErrorBody
from ..core.vocab import POOLS, Status
from ..games.outbound import table_of
from ..players import ranking, ratings
from ..players.accounts import name_key
from ..players.identity import viewer
from ..players.people import seated
from ..service import GameService
from ..storage.db import AccountRow, GameRow
from ..storage.rows import info_of
from ..tournaments.played import tournaments_of

PAGES = {"player": "player.html", "leaderboard": "leaderboard.html"}
CURRENT_LIMIT = 20
"""The most games being played a profile lists (newest first)."""
RECENT_LIMIT = 20
"""The most finished games a profile lists (newest first)."""
DEFAULT_POOL = "base.realtime"
_ERRORS: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody}, 422: {"model": ErrorBody},
                                            503: {"model": ErrorBody}}


def _account_id(session: Session, name: str) -> int | None:
    """The id of the live account called ``name`` (compared by ``name_key``), or None (a name too long
    or holding a NUL character, which PostgreSQL cannot even compare, names nobody)."""
    if len(name) > 40 or "\x00" in name:
        return None
    found = session.scalar(select(AccountRow.id).where(AccountRow.name_key == name_key(name),
                                                       AccountRow.deleted.is_(None)))
    return int(found) if found is not None else None


def _tables(session: Session, account_id: int, status: Status, limit: int,
            now: datetime) -> list[dict[str, Any]]:
    """The account's games of ``status``, newest first (finished ones: by their last entry), as the
    lobby's tables (JSON), with the accounts' names (the opponent's profile is linked)."""
    newest = GameRow.created if status != Status.OVER else func.coalesce(GameRow.moved, GameRow.created)
    query = (select(GameRow)
             .where(or_(GameRow.account0 == account_id, GameRow.account1 == account_id),
                    GameRow.status == status.value)
             .order_by(newest.desc(), GameRow.id).limit(limit))
    infos = [info_of(row) for row in session.scalars(query)]
    seats = seated(session, infos, now)
    return [table_of(info, None, seats.get(info.id)).model_dump(mode="json") for info in infos]


def player_profile(service: GameService, name: str) -> dict[str, Any] | None:
    """The profile of the live account called ``name`` with its current and recent games, or None
    (blocking)."""
    settings, now = service.settings, service.authority.now()
    with service.store.use() as session:
        account_id = _account_id(session, name)
        if account_id is None:
            return None
        found = ratings.profile(session, account_id, now)
        ranking.explain_profile(session, account_id, found, now, settings.leaderboard_days,
                                settings.leaderboard_size)
        found["current"] = _tables(session, account_id, Status.PLAYING, CURRENT_LIMIT, now)
        found["recent"] = _tables(session, account_id, Status.OVER, RECENT_LIMIT, now)
        found["tournaments"] = tournaments_of(session, account_id)
        return found


def pool_leaderboard(service: GameService, pool: str, viewer_id: int | None) -> dict[str, Any]:
    """The leaderboard of ``pool`` as ``viewer_id`` sees it (blocking)."""
    settings, now = service.settings, service.authority.now()
    days, size = settings.leaderboard_days, settings.leaderboard_size
    with service.store.use() as session:
        board = ratings.leaderboard(session, pool, now, days, size, viewer_id)
        return ranking.explain_leaderboard(session, board, viewer_id, now, days, size)


def check_pool(pool: str) -> str:
    """``pool`` if it is a rating pool, else 422 naming them."""
    if pool not in POOLS:
        raise ServiceError(422, f"there is no rating pool {pool[:40]!r}: choose one of {', '.join(POOLS)}")
    return pool


def _no_player(name: str) -> str:
    return f"there is no player called {name[:40]!r}"


def install(app: FastAPI, service: GameService) -> None:
    """Add the profile and leaderboard routes and pages to ``app``."""
    db = service.db

    @app.get("/api/players/{name}", responses=_ERRORS)
    async def player(name: str) -> JSONResponse:
        """A player's profile: ratings per pool (with their history), counts of games, the games being
        played and the recent finished ones (404: no live account of that name)."""
        found = await db(player_profile, service, name)
        if found is None:
            raise ServiceError(404, _no_player(name))
        return JSONResponse(found)

    @app.get("/api/leaderboard", responses=_ERRORS)
    async def leaderboard(request: Request, pool: str = DEFAULT_POOL) -> JSONResponse:
        """The best established players of a pool (not provisional, active lately) and your own place
        (``you``: null for a guest; its ``rank`` null if you are not among them)."""
        check_pool(pool)
        you = await viewer(request)
        return JSONResponse(await db(pool_leaderboard, service, pool, you.id if you else None))

    @app.get("/player/{name}", include_in_schema=False)
    async def player_page(name: str) -> Response:
        if await db(_exists, service, name):
            return _page(service, "player")
        return HTMLResponse(
            f"<!doctype html><title>No such player</title><h1>No such player</h1>"
            f"<p>There is no player called {_escape(name[:40])}. <a href=\"/\">Back to the lobby</a></p>",
            status_code=404,
        )

    @app.get("/leaderboard", include_in_schema=False)
    async def leaderboard_page() -> Response:
        return _page(service, "leaderboard")


def _exists(service: GameService, name: str) -> bool:
    with service.store.use() as session:
        return _account_id(session, name) is not None


def _page(service: GameService, name: str) -> Response:
    path = service.settings.static_dir / PAGES[name]
    if not path.is_file():
        return HTMLResponse(f"<!doctype html><title>Not installed</title><h1>Page not installed</h1>"
                            f"<p>The {name} page is missing from this installation.</p>", status_code=404)
    return FileResponse(path, media_type="text/html")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
