"""The ``challenges`` table (a part of ``db``'s tables, in a module of its own: ``db`` is full)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .db import Base


class ChallengeRow(Base):
    """A challenge by name from one account to another: the game asked for, until it is accepted,
    declined, cancelled or expires. ``hidden``: sent to a player who blocks the challenger or whom
    the challenger blocks, so the challenged player never sees it (blocking is silent)."""

    __tablename__ = "challenges"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    challenger_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    variant: Mapped[str] = mapped_column(String(16))
    clock_initial: Mapped[int | None] = mapped_column(Integer)
    clock_increment: Mapped[int | None] = mapped_column(Integer)
    clock_days: Mapped[int | None] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean)
    seat: Mapped[int | None] = mapped_column(Integer)
    hidden: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str | None] = mapped_column(String(16))
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
