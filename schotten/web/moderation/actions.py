"""What moderators do (``POST /api/moderation/actions``), each appended to the moderation log.

| action | ``hours`` | what it does |
|---|---|---|
| ``warn`` | no | the player is shown the note as a warning |
| ``mute`` | 0 < hours ≤ ``MUTE_HOURS_MAX`` | no chat line of theirs is taken anywhere until then |
| ``ban`` | no | sessions ended, log-in refused, games lost, off leaderboards and pools, and ``reach`` |
| ``unban`` | no | the ban is lifted (their games stay as they ended) |
| ``clear`` | no | closes ``report`` with no action (``report`` is required) |

``note`` (1 to ``NOTE_MAX`` characters) is required; for warn, mute and ban it is what the player
is told. ``report``, when given, must be an open report about ``player``: it is closed. The log is
append-only: nothing here changes or deletes a row of it. A ban's ``reach`` (given by the routes:
withdrawn from tournaments, challenges cancelled) changes those features' rows in the ban's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from ..core.errors import ServiceError
from ..core.vocab import Status
from ..players.accounts import AccountRef, name_key
from ..storage.db import AccountRow, GameRow, ModerationRow, PoolEntryRow, ReportRow, SessionRow, utc
from ..storage.store import Store

ACTIONS = ("warn", "mute", "ban", "unban", "clear")
MUTE_HOURS_MAX = 24 * 365
NOTE_MAX = 500

Tell = Callable[[], None]
Reach = Callable[[Session, int, datetime], Tell]
"""A feature a ban reaches beyond the account (tournaments, challenges), given by the layer above: called
in the ban's transaction with the banned account's id and the time, it changes that feature's rows
through the feature's own functions and answers what to tell once the ban is stored."""


@dataclass(frozen=True, slots=True)
class NewAction:
    """A moderator's action as asked (checked by ``act``)."""

    player: str
    action: str
    note: str
    hours: float | None = None
    report: int | None = None


@dataclass(frozen=True, slots=True)
class Done:
    """An action taken: its log entry, the player's account, and for a ban the games in progress to
    end (id, seat) and what its reach tells once it is stored (``tell``: call each, then end the games)."""

    entry: dict[str, Any]
    player_id: int
    games: list[tuple[str, int]]
    tell: list[Tell] = field(default_factory=list)


def act(store: Store, moderator: AccountRef, asked: NewAction, now: datetime, reach: Sequence[Reach] = (),
        ) -> Done:
    """Apply ``asked`` and append it to the log, in one transaction (a ban's ``reach`` too); 400/404/409
    with a sentence, and nothing changed, for an action that cannot be taken."""
    _check(asked)
    with store.use() as session, session.begin():
        player = session.scalars(select(AccountRow).where(
            AccountRow.name_key == name_key(asked.player), AccountRow.deleted.is_(None))).first()
        if player is None:
            raise ServiceError(404, f"there is no player called {asked.player!r}")
        if player.id == moderator.id:
            raise ServiceError(400, "a moderator does not act on their own account")
        report = _open_report(session, asked, player.id)
        games, tell = _apply(session, asked, player, utc(now), reach)
        if report is not None:
            report.closed = utc(now)
        row = ModerationRow(moderator_id=moderator.id, player_id=player.id, action=asked.action,
                            hours=asked.hours, note=asked.note, report_id=asked.report, time=utc(now))
        session.add(row)
        session.flush()
        return Done(_entry(row, moderator.username, player.username), player.id, games, tell)


def _check(asked: NewAction) -> None:
    if asked.action not in ACTIONS:
        raise ServiceError(400, f"an action is one of {', '.join(ACTIONS)}, not {asked.action!r}")
    if not asked.note.strip() or len(asked.note) > NOTE_MAX:
        raise ServiceError(400, f"an action needs a note of 1 to {NOTE_MAX} characters")
    if asked.action == "mute":
        if asked.hours is None or not 0 < asked.hours <= MUTE_HOURS_MAX:
            raise ServiceError(400, f"a mute needs \"hours\": more than 0, at most {MUTE_HOURS_MAX}")
    elif asked.hours is not None:
        raise ServiceError(400, f"only a mute takes \"hours\", not a {asked.action}")
    if asked.action == "clear" and asked.report is None:
        raise ServiceError(400, "\"clear\" closes a report: give \"report\"")


def _open_report(session: Session, asked: NewAction, player_id: int) -> ReportRow | None:
    if asked.report is None:
        return None
    report = session.get(ReportRow, asked.report)
    if report is None:
        raise ServiceError(404, f"there is no report {asked.report}")
    if report.player_id != player_id:
        raise ServiceError(400, f"report {asked.report} is about another player")
    if report.closed is not None:
        raise ServiceError(409, f"report {asked.report} is already closed")
    return report


def _apply(session: Session, asked: NewAction, player: AccountRow, now: datetime, reach: Sequence[Reach],
           ) -> tuple[list[tuple[str, int]], list[Tell]]:
    """Change the account as the action says; for a ban, the games in progress it must lose and what
    its reach tells."""
    if asked.action == "mute":
        assert asked.hours is not None
        player.muted_until = now + timedelta(hours=asked.hours)
    elif asked.action == "unban":
        if player.banned is None:
            raise ServiceError(409, f"{player.username} is not banned")
        player.banned = None
    elif asked.action == "ban":
        return _ban(session, player, now, reach)
    return [], []


def _ban(session: Session, player: AccountRow, now: datetime, reach: Sequence[Reach],
         ) -> tuple[list[tuple[str, int]], list[Tell]]:
    if player.banned is not None:
        raise ServiceError(409, f"{player.username} is already banned")
    player.banned = now
    session.execute(delete(SessionRow).where(SessionRow.account_id == player.id))
    session.execute(delete(PoolEntryRow).where(PoolEntryRow.account_id == player.id,
                                               PoolEntryRow.game_id.is_(None)))
    session.flush()
    tell = [feature(session, player.id, now) for feature in reach]
    return _games_in_progress(session, player.id), tell


def _games_in_progress(session: Session, account_id: int) -> list[tuple[str, int]]:
    rows = session.execute(select(GameRow.id, GameRow.account0).where(
        GameRow.status == str(Status.PLAYING),
        or_(GameRow.account0 == account_id, GameRow.account1 == account_id))).all()
    return [(game_id, 0 if first == account_id else 1) for game_id, first in rows]


def _entry(row: ModerationRow, moderator: str, player: str) -> dict[str, Any]:
    return {"id": row.id, "moderator": moderator, "player": player, "action": row.action, "hours": row.hours,
            "note": row.note, "report": row.report_id, "time": utc(row.time).isoformat()}


def moderation_log(session: Session, limit: int = 200) -> list[dict[str, Any]]:
    """The log's last ``limit`` entries, newest first."""
    moderator, player = AccountRow.__table__.alias("moderator"), AccountRow.__table__.alias("player")
    query = (select(ModerationRow, moderator.c.username, player.c.username)
             .join(moderator, moderator.c.id == ModerationRow.moderator_id)
             .join(player, player.c.id == ModerationRow.player_id)
             .order_by(ModerationRow.id.desc()).limit(limit))
    return [_entry(row, by, about) for row, by, about in session.execute(query)]


