"""The routes of reports and moderation (the work is ``moderation``; docs/web/moderation.md).

| route | who | answer |
|---|---|---|
| ``POST /api/reports`` | signed in (401 for a guest) | 201 ``{"id"}``; 400, 404, 429 |
| ``GET /api/account/standing`` | signed in | whether one is muted, banned or warned, and why |
| ``GET /api/moderation/reports`` | moderators (403 else) | the open reports with their evidence |
| ``POST /api/moderation/actions`` | moderators | the log entry of the action taken; 400, 404, 409 |
| ``GET /api/moderation/log`` | moderators | the moderation log, newest first |

Every route under ``/api/moderation/`` checks the role on each request (``roles.require_moderator``).
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from ..challenges.work import ban_reach
from ..core.errors import ServiceError
from ..core.schemas import ErrorBody
from ..moderation import actions, reports
from ..moderation.evidence import fair_play
from ..moderation.roles import require_moderator
from ..players.accounts import AccountRef
from ..players.identity import viewer
from ..players.standing import standing_of
from ..service import GameService
from ..tournaments.records import withdraw_banned

_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 401, 403, 404, 409, 429)
}


class ReportBody(BaseModel):
    """A report (``moderation.reports`` has the rules)."""

    model_config = ConfigDict(extra="forbid")

    player: str = Field(max_length=64)
    reason: str = Field(max_length=16)
    game: str | None = Field(default=None, max_length=64)
    line: int | None = Field(default=None, ge=0, le=1_000_000)
    text: str | None = Field(default=None, max_length=reports.TEXT_MAX)


class ActionBody(BaseModel):
    """A moderator's action (``moderation.actions`` has the rules)."""

    model_config = ConfigDict(extra="forbid")

    player: str = Field(max_length=64)
    action: str = Field(max_length=16)
    note: str = Field(max_length=actions.NOTE_MAX)
    hours: float | None = None
    report: int | None = Field(default=None, ge=1)


def install(app: FastAPI, service: GameService) -> None:
    """Add the reports' and moderators' routes to ``app`` (see the module's table)."""
    store, now = service.store, service.accounts.now
    reach = (_tournaments_reach(service), ban_reach(service.channels))

    async def signed_in(request: Request, what: str) -> AccountRef:
        account = await viewer(request)
        if account is None:
            raise ServiceError(401, f"sign in to {what}")
        return account

    async def moderator(request: Request) -> AccountRef:
        return await asyncio.to_thread(require_moderator, store, await viewer(request))

    @app.post("/api/reports", status_code=201, responses=_ERRORS)
    async def file_report(body: ReportBody, request: Request) -> JSONResponse:
        """Report a player to the moderators."""
        reporter = await signed_in(request, "report a player")
        asked = reports.NewReport(body.player, body.reason, body.game, body.line, body.text)
        found = await asyncio.to_thread(reports.file_report, store, reporter, asked, now())
        return JSONResponse({"id": found}, status_code=201)

    @app.get("/api/account/standing", responses=_ERRORS)
    async def my_standing(request: Request) -> dict[str, Any]:
        """Whether a moderator muted, banned or warned the signed-in player, and the note why."""
        account = await signed_in(request, "see your standing")
        return (await asyncio.to_thread(standing_of, store, account.id, now())).as_dict()

    @app.get("/api/moderation/reports", responses=_ERRORS)
    async def open_reports(request: Request) -> dict[str, Any]:
        """The open reports, oldest first, each with its evidence and the reported player's standing."""
        await moderator(request)
        return {"reports": await asyncio.to_thread(_with_evidence, service)}

    @app.post("/api/moderation/actions", responses=_ERRORS)
    async def take_action(body: ActionBody, request: Request) -> dict[str, Any]:
        """Warn, mute, ban, unban or clear; a ban also withdraws the player from tournaments, cancels
        their challenges, ends their games and closes their sockets."""
        by = await moderator(request)
        asked = actions.NewAction(body.player, body.action, body.note, body.hours, body.report)
        done = await asyncio.to_thread(actions.act, store, by, asked, now(), reach)
        for tell in done.tell:
            tell()
        for game_id, seat in done.games:
            await service.authority.endings.forfeit_banned(game_id, seat)
        if body.action == "ban":
            service.closing.ban(done.player_id)
        return done.entry

    @app.get("/api/moderation/log", responses=_ERRORS)
    async def the_log(request: Request) -> dict[str, Any]:
        """The moderation log, newest first: who did what to whom, when and why."""
        await moderator(request)

        def read() -> list[dict[str, Any]]:
            with store.use() as session:
                return actions.moderation_log(session)

        return {"log": await asyncio.to_thread(read)}


def _tournaments_reach(service: GameService) -> actions.Reach:
    """A ban withdraws the player from every tournament not over (``records.withdraw_banned``); once it
    is stored, those tournaments' sockets hear that their standings changed."""
    def reach(session: Session, account_id: int, now: datetime) -> actions.Tell:
        changed = withdraw_banned(session, account_id, now)
        return lambda: service.tournaments.finished(changed)
    return reach


def _with_evidence(service: GameService) -> list[dict[str, Any]]:
    """The open reports, each with the reported player's fair-play figures and standing."""
    store, now = service.store, service.accounts.now()
    with store.use() as session:
        found = reports.open_reports(session)
        figures = {item["player_id"]: fair_play(session, item["player_id"]) for item in found}
    for item in found:
        player = item.pop("player_id")
        item["fair_play"] = figures[player]
        item["standing"] = standing_of(store, player, now).as_dict()
    return found

