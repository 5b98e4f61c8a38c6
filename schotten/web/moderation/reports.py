"""Players' reports of other players (``POST /api/reports``) and the moderators' queue of open ones.

| field | rule |
|---|---|
| ``player`` | a live account's username, not the reporter's own |
| ``reason`` | ``abuse``, ``cheating``, ``stalling`` or ``other`` |
| ``game`` | optional: a game's id (its chat and record become the evidence) |
| ``line`` | optional, with ``game``: the index of the chat line reported |
| ``text`` | optional: up to ``TEXT_MAX`` characters from the reporter |

A report with a game keeps the chat lines around it (``line`` ± ``AROUND``, else the game's last
``LAST_LINES``) as the server stored them, never as the reporter sends them. A reporter files at
most ``PER_HOUR`` reports an hour (429 beyond, counted in the database, so on every process).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..core.errors import ServiceError
from ..players.accounts import AccountRef, name_key
from ..storage.db import AccountRow, ChatRow, GameRow, ReportRow, utc
from ..storage.store import Store

REASONS = ("abuse", "cheating", "stalling", "other")
TEXT_MAX = 500
AROUND = 10
LAST_LINES = 30
PER_HOUR = 10


@dataclass(frozen=True, slots=True)
class NewReport:
    """A report as a player files it (checked by ``file_report``)."""

    player: str
    reason: str
    game: str | None = None
    line: int | None = None
    text: str | None = None


def file_report(store: Store, reporter: AccountRef, report: NewReport, now: datetime) -> int:
    """Store ``report`` by ``reporter`` with its evidence; its id. 400/404/429 with a sentence, and
    nothing stored, for a report that cannot be taken."""
    _check(report)
    with store.use() as session, session.begin():
        player = _account(session, report.player)
        if player.id == reporter.id:
            raise ServiceError(400, "you cannot report yourself")
        _check_rate(session, reporter.id, now)
        context = _context(session, report) if report.game is not None else []
        row = ReportRow(reporter_id=reporter.id, player_id=player.id, reason=report.reason,
                        game_id=report.game, text=report.text or None, context=json.dumps(context),
                        created=utc(now))
        session.add(row)
        session.flush()
        return row.id


def _check(report: NewReport) -> None:
    if report.reason not in REASONS:
        raise ServiceError(400, f"a report's reason is one of {', '.join(REASONS)}, not {report.reason!r}")
    if report.text is not None and len(report.text) > TEXT_MAX:
        raise ServiceError(400, f"a report's text has at most {TEXT_MAX} characters")
    if report.line is not None and report.game is None:
        raise ServiceError(400, "a chat line is reported with its game: give \"game\" too")


def _account(session: Session, username: str) -> AccountRow:
    row = session.scalars(select(AccountRow).where(
        AccountRow.name_key == name_key(username), AccountRow.deleted.is_(None))).first()
    if row is None:
        raise ServiceError(404, f"there is no player called {username!r}")
    return row


def _check_rate(session: Session, reporter_id: int, now: datetime) -> None:
    since = utc(now) - timedelta(hours=1)
    count = session.scalar(select(func.count()).select_from(ReportRow).where(
        ReportRow.reporter_id == reporter_id, ReportRow.created > since)) or 0
    if count >= PER_HOUR:
        raise ServiceError(429, f"you filed {PER_HOUR} reports in the last hour, the most you may: this one "
                           "was not taken; try again later")


def _context(session: Session, report: NewReport) -> list[dict[str, Any]]:
    """The chat lines around the report, read from the database."""
    if session.get(GameRow, report.game) is None:
        raise ServiceError(404, f"there is no game {report.game!r}")
    query = select(ChatRow).where(ChatRow.game_id == report.game)
    if report.line is not None:
        query = query.where(ChatRow.index.between(report.line - AROUND, report.line + AROUND))
        rows = session.scalars(query.order_by(ChatRow.index)).all()
        if all(row.index != report.line for row in rows):
            raise ServiceError(404, f"game {report.game!r} has no chat line {report.line}")
    else:
        rows = session.scalars(query.order_by(ChatRow.index.desc()).limit(LAST_LINES)).all()[::-1]
    return [{"index": row.index, "room": row.room, "seat": row.seat, "name": row.name, "text": row.text,
             "time": utc(row.time).isoformat(), "reported": row.index == report.line} for row in rows]


def open_reports(session: Session, limit: int = 100) -> list[dict[str, Any]]:
    """The oldest ``limit`` open reports, with their stored chat context (for moderators only)."""
    reporter, player = AccountRow.__table__.alias("reporter"), AccountRow.__table__.alias("player")
    query = (select(ReportRow, reporter.c.username, player.c.username)
             .join(reporter, reporter.c.id == ReportRow.reporter_id)
             .join(player, player.c.id == ReportRow.player_id)
             .where(ReportRow.closed.is_(None)).order_by(ReportRow.id).limit(limit))
    return [{"id": row.id, "reporter": by, "player": about, "player_id": row.player_id,
             "reason": row.reason, "game": row.game_id, "text": row.text,
             "created": utc(row.created).isoformat(), "chat": json.loads(row.context),
             "record": f"/api/games/{row.game_id}/record" if row.game_id else None}
            for row, by, about in session.execute(query)]
