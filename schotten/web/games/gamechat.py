"""The chat kept with a served game: its rooms' last lines, the mutes (``talk.chat`` changes them)."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..core.vocab import Room

QUICK_MARK = "\x01"
"""What a stored quick message's text begins with (before its key)."""

@dataclass(frozen=True, slots=True)
class ChatLine:
    """One chat message: ``seat`` is its author's seat (None: a spectator); ``text`` or ``quick`` is set;
    ``account`` is its author's, if signed in (kept on the server, never told to a client)."""

    index: int
    room: Room
    seat: int | None
    name: str
    text: str | None
    quick: str | None
    time: datetime = field(default_factory=lambda: datetime.now(UTC))
    account: int | None = None

    @property
    def stored_text(self) -> str:
        """The ``text`` column: the text, or ``QUICK_MARK`` and the quick message's key."""
        return QUICK_MARK + self.quick if self.quick is not None else self.text or ""

    @classmethod
    def stored(cls, room: str, row: tuple[int, int | None, str, str, datetime, int | None]) -> ChatLine:
        """The message of a stored row (``Store.chat_lines``)."""
        index, seat, name, text, time, account = row
        quick = text[len(QUICK_MARK):] if text.startswith(QUICK_MARK) else None
        return cls(index, Room(room), seat, name, None if quick is not None else text, quick, time, account)

    def told(self) -> dict[str, Any]:
        """The message as a chat message carries it."""
        return {"index": self.index, "seat": self.seat, "name": self.name, "text": self.text,
                "quick": self.quick, "time": self.time.isoformat()}

    @classmethod
    def heard(cls, data: dict[str, Any]) -> ChatLine:
        """The message another server process stored (``told``, its ``room`` and its ``account``)."""
        account = data.get("account")
        return cls(int(data["index"]), Room(data["room"]), data["seat"], str(data["name"]), data["text"],
                   data["quick"], datetime.fromisoformat(data["time"]),
                   int(account) if account is not None else None)


class GameChat:
    """The chat of one served game, kept with its ``LiveGame``: each room's last messages, the seats
    that muted the other player, and whether both rooms are open to everyone (the game is over)."""

    def __init__(self) -> None:
        self.loaded = False
        self.rooms: dict[Room, deque[ChatLine]] = {room: deque() for room in Room}
        self.mutes: set[int] = set()
        self.opened = False
        self.lock = asyncio.Lock()

    def muted(self, seat: int | None) -> bool:
        """Whether ``seat`` muted the other player's chat."""
        return seat in self.mutes
