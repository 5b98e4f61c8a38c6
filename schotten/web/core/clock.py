"""Game clocks: a time control and the two seats' time, as plain values (no I/O, no timers).

A ``TimeControl`` is real-time (a bank of ``initial`` seconds per seat, ``increment`` seconds
added after each of the seat's turns) or turn-based (``days`` per move: each turn starts with the
whole allowance, nothing is banked). A ``Clock`` is the time each seat had left when the running
clock last started (``left``), which seat's clock runs (``running``) and since when (``since``):
what is left now and the deadline are derived from those, so a clock stored in the database runs on
across a restart. A seat may play without the increment (``no_increment``: a tournament's berserk
seat). Every change returns a new ``Clock``; the caller says what time it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

DAY_MS = 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Real-time (``initial`` and ``increment`` seconds) or turn-based (``days`` per move)."""

    initial: int | None = None
    increment: int = 0
    days: int | None = None

    @property
    def turn_based(self) -> bool:
        """Whether this is turn-based play (days per move)."""
        return self.days is not None

    @property
    def allowance_ms(self) -> int:
        """A seat's time at the start (real-time) or at each turn's start (turn-based), in ms."""
        if self.days is not None:
            return self.days * DAY_MS
        return (self.initial or 0) * 1000

    def to_dict(self) -> dict[str, int]:
        """The control as the API writes it: ``{"initial", "increment"}`` or ``{"days"}``."""
        if self.days is not None:
            return {"days": self.days}
        return {"initial": self.initial or 0, "increment": self.increment}


@dataclass(frozen=True, slots=True)
class Clock:
    """Both seats' time: ``left`` ms when the running clock started (or when it stopped)."""

    control: TimeControl
    left: tuple[int, int]
    running: int | None = None
    since: datetime | None = None
    no_increment: tuple[bool, bool] = (False, False)
    """The seats that get no increment after their turns."""

    @classmethod
    def new(cls, control: TimeControl) -> Clock:
        """A clock at the start: both seats have the whole allowance, none runs."""
        return cls(control, (control.allowance_ms, control.allowance_ms))

    def remaining(self, now: datetime) -> tuple[int, int]:
        """Each seat's milliseconds left at ``now`` (never below 0)."""
        left = list(self.left)
        if self.running is not None and self.since is not None:
            left[self.running] = max(0, left[self.running] - _ms(now - self.since))
        return left[0], left[1]

    @property
    def deadline(self) -> datetime | None:
        """When the running clock runs out (None: no clock runs)."""
        if self.running is None or self.since is None:
            return None
        return self.since + timedelta(milliseconds=self.left[self.running])

    def flagged(self, now: datetime) -> bool:
        """Whether the running clock has run out at ``now``."""
        deadline = self.deadline
        return deadline is not None and now >= deadline

    def spent(self, now: datetime) -> int:
        """Milliseconds the running seat has used since its clock started (0 if none runs)."""
        if self.since is None or self.running is None:
            return 0
        return max(0, _ms(now - self.since))

    def increment_ms(self, seat: int) -> int:
        """The milliseconds ``seat`` gets after each of its turns (0: turn-based, or without increment)."""
        if self.control.turn_based or self.no_increment[seat]:
            return 0
        return self.control.increment * 1000

    def without_increment(self, seat: int) -> Clock:
        """The clock with ``seat`` getting no increment from now on."""
        bare = list(self.no_increment)
        bare[seat] = True
        return replace(self, no_increment=(bare[0], bare[1]))

    def start(self, seat: int, now: datetime) -> Clock:
        """``seat``'s clock starts running at ``now`` (turn-based: with the whole allowance)."""
        left = list(self.remaining(now))
        if self.control.turn_based:
            left[seat] = self.control.allowance_ms
        return replace(self, left=(left[0], left[1]), running=seat, since=now)

    def stop(self, now: datetime) -> Clock:
        """No clock runs from ``now`` on; the running seat keeps what it had left."""
        return replace(self, left=self.remaining(now), running=None, since=None)

    def after_decision(self, mover: int, now: datetime, next_seat: int | None) -> Clock:
        """The clock after ``mover`` decided at ``now``: if ``next_seat`` (the seat deciding next,
        None when nobody's clock should run: the game is over or the AI decides) is the mover, its
        clock runs on; otherwise the mover's stops, gets its increment (``increment_ms``), and
        ``next_seat``'s starts."""
        if next_seat == mover and self.running == mover:
            return self
        stopped = self.stop(now)
        if self.running == mover and self.increment_ms(mover):
            left = list(stopped.left)
            left[mover] += self.increment_ms(mover)
            stopped = replace(stopped, left=(left[0], left[1]))
        return stopped if next_seat is None else stopped.start(next_seat, now)

    def shifted(self, delta: timedelta) -> Clock:
        """The clock with its running seat's start moved on by ``delta`` (time given back)."""
        if self.since is None:
            return self
        return replace(self, since=self.since + delta)


def _ms(delta: timedelta) -> int:
    return int(delta.total_seconds() * 1000)
