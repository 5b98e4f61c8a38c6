"""How this process's copy of a game follows what another process stored.

An entry stored by another process reaches this one in its ``game`` event (``committed``: the entry
and the game's row after it, as stored); when it is the copy's next entry it is applied at once
(``follow``), else the copy reads what the database holds beyond it (``adopt`` of
``Store.load_since``). Either way the engine checks every move again (``gamelog.advanced``).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from ..core.clock import Clock, TimeControl
from ..core.vocab import Ending, Status
from ..games.authority import Authority
from ..games.catchup import adopt
from ..games.gamelog import LogError
from ..games.live import LiveGame
from ..storage.rows import Entry


@dataclasses.dataclass(frozen=True, slots=True)
class ToldClock:
    """A clock as an event tells it: its time control is the game's, which never changes."""

    left: tuple[int, int]
    running: int | None
    since: datetime | None
    no_increment: tuple[bool, bool] = (False, False)

    @property
    def deadline(self) -> datetime | None:
        """When the running clock runs out (None: none runs; the time control plays no part in it)."""
        return self.on(TimeControl()).deadline

    def on(self, control: TimeControl) -> Clock:
        """The clock with the game's time control."""
        return Clock(control, self.left, self.running, self.since, self.no_increment)


@dataclasses.dataclass(frozen=True, slots=True)
class Heard:
    """An entry another process stored and what its game's row became with it."""

    entry: Entry
    status: Status
    winner: int | None
    ended: Ending | None
    moved: datetime
    clock: ToldClock | None


def committed(game: LiveGame, entry: Entry) -> dict[str, Any]:
    """The ``entry`` and ``row`` parts of the ``game`` event of an entry just stored for ``game``."""
    info, clock = game.info, game.info.clock
    told_clock = None if clock is None else {
        "left": list(clock.left), "running": clock.running,
        "since": clock.since.isoformat() if clock.since else None, "bare": list(clock.no_increment)}
    return {
        "entry": {"index": entry.index, "kind": entry.kind, "notation": entry.notation, "seat": entry.seat,
                  "time": entry.time.isoformat(), "spent_ms": entry.spent_ms},
        "row": {"status": str(info.status), "winner": info.winner,
                "ended": str(info.ended) if info.ended else None,
                "moved": entry.time.isoformat(), "clock": told_clock},
    }


def heard(event: dict[str, Any]) -> Heard | None:
    """The entry a ``game`` event carries, or None (none, or not well formed: the database decides)."""
    entry, row = event.get("entry"), event.get("row")
    if not isinstance(entry, dict) or not isinstance(row, dict):
        return None
    try:
        stored = Entry(int(entry["index"]), str(entry["kind"]), str(entry["notation"]), int(entry["seat"]),
                       datetime.fromisoformat(entry["time"]), entry["spent_ms"])
        ended = Ending(row["ended"]) if row["ended"] else None
        moved = datetime.fromisoformat(row["moved"])
        return Heard(stored, Status(row["status"]), row["winner"], ended, moved, _clock(row["clock"]))
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def _clock(told: dict[str, Any] | None) -> ToldClock | None:
    """The clock a ``row`` tells (``committed``)."""
    if told is None:
        return None
    since = datetime.fromisoformat(told["since"]) if told["since"] else None
    running = told["running"]
    if running not in (None, 0, 1):
        raise ValueError(f"no seat {running!r}")
    bare = told.get("bare") or (False, False)
    return ToldClock((int(told["left"][0]), int(told["left"][1])), running, since,
                     (bool(bare[0]), bool(bare[1])))


def follow(game: LiveGame, news: Heard) -> int:
    """Apply the heard entry, the copy's next, to ``game`` (under its lock); the first move of the
    history that changed. ``LogError`` if it does not follow."""
    info, clock = game.info, game.info.clock
    if clock is not None and news.clock is not None:
        clock = news.clock.on(clock.control)
    changed = dataclasses.replace(info, status=news.status, winner=news.winner, ended=news.ended,
                                  moved=news.moved, clock=clock)
    return adopt(game, [news.entry], changed)


async def follow_event(authority: Authority, game_id: str, event: dict[str, Any]) -> None:
    """Another process changed ``game_id`` (its ``game`` event): the entry it carries is applied
    when it is this copy's next, one already here is passed over, else the copy catches up from
    the database."""
    game = authority.games.get(game_id)
    news = heard(event)
    if game is None or news is None:
        await authority.catchup.catch_up(game_id)
        return
    async with game.lock:
        if news.entry.index < game.version:
            return
        if news.entry.index > game.version:
            kept = await authority.catchup.caught_up(game)
        else:
            try:
                kept = follow(game, news)
            except LogError as error:
                authority.tables.damage(game, error)
    if kept is not None:
        authority.news.changed(game, kept)


def heard_deadline(authority: Authority, event: dict[str, Any]) -> None:
    """The conductor hears of a move stored elsewhere: a clock it sets running that runs out before
    the next deadline the timekeeper knows wakes it (else it would look within ``POLL``)."""
    news = heard(event)
    deadline = news.clock.deadline if news is not None and news.clock is not None else None
    if deadline is not None:
        authority.conductor.expect(deadline)
