"""The tables of tournaments (issue 28; ``tournaments``): events, their players and their games.

Part of ``db`` (which re-exports them), kept apart so the table module stays readable.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base


class TournamentRow(Base):
    """A tournament (``tournaments.records``): its format, game settings, schedule, status and the lease
    of the director running it (``lease`` holds the director's id until ``lease_until``)."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    format: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(80))
    variant: Mapped[str] = mapped_column(String(16))
    clock_initial: Mapped[int | None] = mapped_column(Integer)
    clock_increment: Mapped[int | None] = mapped_column(Integer)
    clock_days: Mapped[int | None] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean)
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    minutes: Mapped[int | None] = mapped_column(Integer)
    rounds: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12), index=True)
    creator_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    min_rating: Mapped[int | None] = mapped_column(Integer)
    min_games: Mapped[int | None] = mapped_column(Integer)
    round: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    lease: Mapped[str | None] = mapped_column(String(32))
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class TournamentPlayerRow(Base):
    """A player of a tournament: ``status`` waiting, playing, paused or withdrawn; ``score`` cached
    (arena points, Swiss half-points) for the pairing; ``since``: waiting since."""

    __tablename__ = "tournament_players"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True, index=True)
    status: Mapped[str] = mapped_column(String(12))
    score: Mapped[int] = mapped_column(Integer, default=0)
    joined: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    since: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ticket_hash: Mapped[str | None] = mapped_column(String(64))
    """The SHA-256 of the ticket the player's browser holds (cookie ``tournament_{id}``): the seat
    token of each of their games in the tournament."""


class TournamentGameRow(Base):
    """A tournament's game (or a Swiss bye: no game, no second seat): its round (Swiss) or wave
    (arena), the seats' accounts, berserk flags, decisions and result (``winner`` seat, None a draw;
    ``ended`` None while it is played)."""

    __tablename__ = "tournament_games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"), unique=True)
    round: Mapped[int] = mapped_column(Integer)
    account0: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    account1: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"))
    berserk0: Mapped[bool] = mapped_column(Boolean, default=False)
    berserk1: Mapped[bool] = mapped_column(Boolean, default=False)
    decisions0: Mapped[int] = mapped_column(Integer, default=0)
    decisions1: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[int | None] = mapped_column(Integer)
    ended: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    aborted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether the game was aborted before both players decided: it scores nothing for either."""
