"""A game being served: its row, its state, its clients, its lock and what is derived from them.

``state`` is replaced, never changed in place, so what was derived from one state (``told``) holds
until the next change. The ``Authority``'s parts change a game only under its ``lock``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ...engine import GameState
from ..core.clock import Clock
from ..core.settings import WebSettings
from ..core.vocab import Ending, Mode, Status
from ..players.seats import seat_of_token
from ..storage.rows import GameInfo
from .gamechat import GameChat
from .outbound import Told, tournament_told
from .sockets import Connection

Now = Callable[[], datetime]
"""Where the parts read the time (tests inject a clock they move by hand)."""


def utc_now() -> datetime:
    """The time now, in UTC."""
    return datetime.now(UTC)


class LiveGame:
    """A game being served: its row, its state, its version (log length), clients and lock.

    ``state`` is replaced, never changed in place, so what was derived from one state (``told``)
    holds until the next change.
    """

    def __init__(self, info: GameInfo, state: GameState, version: int, undos: tuple[int, int] = (0, 0),
                 undo_limit: int = WebSettings().undo_limit, now: Now = utc_now,
                 leave_timeout: float = WebSettings().leave_timeout) -> None:
        self.info = info
        self.state = state
        self.version = version
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.ai_task: asyncio.Task[None] | None = None
        self.told = Told()
        self.used = time.monotonic()
        """When the game was last asked for (``time.monotonic``): idle games are evicted."""
        self.ai_decision: tuple[int, str] | None = None
        """The AI's decision at a version, kept while its move cannot be stored (retried)."""
        self.undos = list(undos)
        """The undo entries of each seat in the log (counted when the game is loaded)."""
        self.undo_limit = undo_limit
        self.now = now
        self.leave_timeout = leave_timeout
        self.ending: tuple[Ending, int] | None = None
        """How the game ended off the board and the seat its end entry names (None: it did not)."""
        self.decided = [False, False]
        """Whether each seat has made a decision (an action entry) in this game."""
        self.mark = now()
        """When the decision now waited for became its seat's (a decision's time counts from it)."""
        self.gone_since: list[datetime | None] = [now(), now()]
        """Since when each seat has had no socket connected (None: one is connected)."""
        self.away_timer: asyncio.TimerHandle | None = None
        self.chat = GameChat()
        """The game's chat (see ``chat``), read when a socket first asks for the game."""
        self.remote: dict[str, tuple[tuple[int, int], float]] = {}
        """What other server processes said of this game's seats: per process, how many sockets of each
        seat it serves, until when that holds (``time.monotonic``; see ``peers``)."""
        self.remote_spectators: dict[str, tuple[int, float]] = {}
        """Likewise, per other process, how many spectators' sockets it serves and until when."""

    @property
    def finished(self) -> bool:
        """Whether the game is over, on the board or off it (time, resigned, aborted, ...)."""
        return self.state.is_over or self.info.status == Status.OVER

    @property
    def clock(self) -> Clock | None:
        """The game's clock (None: untimed)."""
        return self.info.clock

    @property
    def leaving_counts(self) -> bool:
        """Whether a seat without a socket for ``leave_timeout`` may be claimed against: a friend game
        being played that is not turn-based."""
        clock = self.info.clock
        return (self.info.mode == Mode.FRIEND and self.info.status == Status.PLAYING and not self.finished
                and not (clock is not None and clock.control.turn_based))

    def connected(self, seat: int) -> bool:
        """Whether a socket of ``seat`` is connected, to this process or (as it last said) another."""
        now = time.monotonic()
        if any(counts[seat] and until > now for counts, until in self.remote.values()):
            return True
        return any(c.seat == seat and not c.closed.is_set() for c in self.connections)

    def local_seats(self) -> list[int]:
        """How many sockets of each seat this process serves."""
        open_ = [c.seat for c in self.connections if not c.closed.is_set()]
        return [open_.count(0), open_.count(1)]

    def local_spectators(self) -> int:
        """How many spectators' sockets this process serves."""
        return sum(1 for c in self.connections if c.seat is None and not c.closed.is_set())

    def spectators(self) -> int:
        """How many spectators' sockets are open, here and (as they last said) in other processes."""
        now = time.monotonic()
        there = sum(count for count, until in self.remote_spectators.values() if until > now)
        return self.local_spectators() + there

    def connected_seats(self) -> tuple[bool, bool]:
        """Whether each seat is connected anywhere (see ``connected``)."""
        return self.connected(0), self.connected(1)

    def away(self) -> list[int | None]:
        """Per seat: None while it is connected (or leaving does not count), else the milliseconds
        until the other seat may claim the win (0: it may now)."""
        now = self.now()
        found: list[int | None] = [None, None]
        for seat in (0, 1):
            since = self.gone_since[seat]
            if self.leaving_counts and since is not None and seat != self.info.ai_seat:
                wait = self.leave_timeout - (now - since).total_seconds()
                found[seat] = max(0, int(wait * 1000))
        return found

    def can_resign(self, seat: int | None) -> bool:
        """Whether ``seat`` may resign now: the game is being played."""
        return seat is not None and self.info.status == Status.PLAYING and not self.finished

    def can_abort(self, seat: int | None) -> bool:
        """Whether ``seat`` may abort now: the game is being played and a seat has yet to decide."""
        return self.can_resign(seat) and not all(self.decided)

    def can_claim(self, seat: int | None) -> bool:
        """Whether ``seat`` may claim the win: its opponent left (no socket for ``leave_timeout``)."""
        return seat is not None and self.can_resign(seat) and self.away()[1 - seat] == 0

    def clock_seat(self, state: GameState, status: Status) -> int | None:
        """Whose clock should run in ``state``: the seat to decide, while the game is played and timed;
        never the AI, nor the human of an AI game while no socket of theirs is connected (paused)."""
        if self.info.clock is None or status != Status.PLAYING or state.is_over:
            return None
        if self.info.mode == Mode.AI and (state.turn == self.info.ai_seat or not self.connected(state.turn)):
            return None
        return state.turn

    def extras(self, seat: int | None) -> dict[str, Any]:
        """What the state message says of the clock, the ending, the seat's choices and, in a tournament,
        the tournament (docs/web.md)."""
        clock = self.info.clock
        now = self.now()
        ended = {"reason": str(self.ending[0]), "seat": self.ending[1]} if self.ending else None
        extras: dict[str, Any] = {
            "clock": clock.control.to_dict() if clock else None,
            "clocks": list(clock.remaining(now)) if clock else None,
            "clock_running": clock.running if clock else None,
            "ai_seat": self.info.ai_seat if self.info.mode == Mode.AI else None,
            "ended": ended,
            "can_resign": self.can_resign(seat),
            "can_abort": self.can_abort(seat),
            "can_claim_victory": self.can_claim(seat),
            "away": self.away(),
            "chat_muted": self.chat.muted(seat),
        }
        if self.info.tournament is not None:
            extras["tournament"] = tournament_told(self.info.tournament, now)
        return extras

    def undos_left(self, seat: int) -> int:
        """How many more undos ``seat`` may ask for in this game."""
        return max(0, self.undo_limit - self.undos[seat])

    @property
    def watched(self) -> bool:
        """Whether a client (a seat or a spectator) is connected."""
        return any(not conn.closed.is_set() for conn in self.connections)

    @property
    def ai_busy(self) -> bool:
        """Whether the game's AI is thinking, waiting for a worker or retrying."""
        return self.ai_task is not None and not self.ai_task.done()

    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is, or None (compared in constant time)."""
        return seat_of_token(self.info, token)

    @property
    def ai_to_move(self) -> bool:
        """Whether the decision now belongs to this game's AI."""
        info = self.info
        return (
            info.mode == Mode.AI
            and info.ai_seat is not None
            and info.status == Status.PLAYING
            and not self.state.is_over
            and self.state.turn == info.ai_seat
        )
