"""The queue of review jobs in the ``reviews`` table (blocking calls: run them off the event loop).

| call | what |
|---|---|
| ``ask`` | a new job ``queued`` for a game, or the one it already has (never a second) |
| ``again`` | a ``failed`` job queued again, with a fresh record and its attempts from 0 |
| ``take`` | a worker takes a job queued and due, or whose lease expired (conditional UPDATE), by turns |
| ``renew`` | the holder stores its progress and extends its lease; False once the lease is another's |
| ``finish``, ``fail`` | the holder stores the decisions (``done``) or gives up on this attempt |

A job is taken by one worker only: the UPDATE that takes it names the state it was read in, so of
two workers (threads or processes, SQLite or PostgreSQL) one changes a row and the other none.

Jobs are taken in turn per requester (``requested_by``), as fishnet serves its clients: the first
waiting job of each requester before the second of any, oldest first within a turn, and a job being
worked on counts as its requester's turn. A flood from one player waits behind everyone else's
first request instead of ahead of it.

A job whose review raised is worked on ``ATTEMPTS`` times before it is ``failed``: after a failed
attempt it is ``queued`` again, due ``RETRY_AFTER`` seconds per attempt later (kept in ``lease_until``,
which a queued job does not otherwise use). Until the job is done, ``result`` holds
``{"attempts": n}`` (no migration: the column is the one that later holds the decisions), so a
restart does not give a failing job new attempts.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, CursorResult, and_, case, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from ..core.errors import say, saying
from ..storage.db import ReviewRow
from ..storage.store import Store

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
ATTEMPTS = 3
"""How many times a job is worked on before it is ``failed`` (an error that comes and goes gets
another chance; one that does not costs at most this many tries)."""
FAILED_SAID = saying("The review could not be made ({attempts} attempts failed): try again.")
"""What the replay page says of a failed review (a saying: each catalogue translates it)."""
RETRY_AFTER = 10.0
"""Seconds a job waits after its first failed attempt before it may be taken again (times the
attempts made: 10 s, then 20 s)."""
TAKE_TRIES = 5
"""How many waiting jobs a worker tries to take, oldest first, before it waits again."""


@dataclass(frozen=True, slots=True)
class Job:
    """A job a worker holds: the game, the record to review (JSON data) and the worker's lease id."""

    game_id: str
    record: dict[str, Any]
    lease: str


@dataclass(frozen=True, slots=True)
class ReviewState:
    """What is known of a game's review: status, decisions reviewed of how many, the decisions once
    done, and the attempts made at it (failed ones; 0 once done)."""

    status: str
    done: int
    total: int
    decisions: list[dict[str, Any]]
    attempts: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The answer of ``GET /api/games/{id}/review``; a failed one adds ``error``, the sentence to
        show, and ``say``, what the page shows in its reader's language."""
        answer: dict[str, Any] = {"status": self.status, "progress": {"done": self.done, "total": self.total},
                                  "decisions": self.decisions, "attempts": self.attempts}
        if self.status == FAILED:
            answer["error"] = (f"the review could not be made ({self.attempts} attempts failed): ask for "
                               "it again to try once more")
            answer["say"] = say(FAILED_SAID, attempts=self.attempts)
        return answer


def _state(row: ReviewRow) -> ReviewState:
    stored = json.loads(row.result) if row.result else None
    if isinstance(stored, list):
        return ReviewState(row.status, row.done, row.total, stored)
    attempts = attempts_of(row.result)
    if row.status == FAILED:
        attempts = max(attempts, 1)  # failed before attempts were counted: once
    return ReviewState(row.status, row.done, row.total, [], attempts)


def attempts_of(result: str | None) -> int:
    """The attempts a job's ``result`` column counts (0: none yet, or decisions stored)."""
    stored = json.loads(result) if result else None
    return int(stored.get("attempts", 0)) if isinstance(stored, dict) else 0


class ReviewQueue:
    """The review jobs of the database of ``store``; leases last ``lease`` seconds of ``clock``."""

    def __init__(self, store: Store, lease: float,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.store = store
        self.lease = timedelta(seconds=lease)
        self.clock = clock

    def get(self, game_id: str) -> ReviewState | None:
        """The review of ``game_id``, or None if none was asked for."""
        with self.store.use() as session:
            row = session.get(ReviewRow, game_id)
            return None if row is None else _state(row)

    def ask(self, game_id: str, record: dict[str, Any], by: str) -> tuple[ReviewState, bool]:
        """The game's review and whether this call queued it (False: it had one already)."""
        found = self.get(game_id)
        if found is not None:
            return found, False
        try:
            with self.store.use() as session, session.begin():
                session.add(ReviewRow(game_id=game_id, status=QUEUED, record=json.dumps(record), done=0,
                                      total=0, requested_by=by[:64], requested=self.clock()))
        except IntegrityError:
            found = self.get(game_id)
            assert found is not None
            return found, False
        return ReviewState(QUEUED, 0, 0, []), True

    def again(self, game_id: str, record: dict[str, Any], by: str) -> tuple[ReviewState, bool]:
        """Queue a ``failed`` review again (its record built anew, its attempts from 0, at the end of the
        queue): its state and whether this call queued it (False: it was not failed, or another call
        queued it first)."""
        with self.store.use() as session, session.begin():
            changed: CursorResult[Any] = session.execute(  # type: ignore[assignment]
                update(ReviewRow).where(ReviewRow.game_id == game_id, ReviewRow.status == FAILED)
                .values(status=QUEUED, record=json.dumps(record), done=0, total=0, result=None, lease=None,
                        lease_until=None, requested_by=by[:64], requested=self.clock()))
        found = self.get(game_id)
        assert found is not None
        return found, changed.rowcount == 1

    def take(self) -> Job | None:
        """Take the oldest job waiting or whose holder's lease expired (None: no job to take)."""
        for game_id in self.waiting():
            job = self.claim(game_id)
            if job is not None:
                return job
        return None

    def waiting(self) -> list[str]:
        """The games whose jobs may be taken, in turn per requester and oldest first within a turn
        (at most ``TAKE_TRIES``)."""
        working_first = case((ReviewRow.status == RUNNING, 0), else_=1)
        turn = func.row_number().over(partition_by=ReviewRow.requested_by,
                                      order_by=(working_first, ReviewRow.requested))
        jobs = (select(ReviewRow.game_id, ReviewRow.status, ReviewRow.lease_until, ReviewRow.requested,
                       turn.label("turn"))
                .where(ReviewRow.status.in_((QUEUED, RUNNING))).subquery())
        free = self._free(self.clock(), jobs.c.status, jobs.c.lease_until)
        with self.store.use() as session:
            return list(session.scalars(select(jobs.c.game_id).where(free)
                                        .order_by(jobs.c.turn, jobs.c.requested).limit(TAKE_TRIES)))

    def claim(self, game_id: str) -> Job | None:
        """Take the job of ``game_id`` if it is still free (None: another worker took it first)."""
        now = self.clock()
        lease = secrets.token_hex(16)
        with self.store.use() as session, session.begin():
            taken: CursorResult[Any] = session.execute(  # type: ignore[assignment]
                update(ReviewRow).where(ReviewRow.game_id == game_id, self._free(now))
                .values(status=RUNNING, lease=lease, lease_until=now + self.lease))
            record = session.scalar(select(ReviewRow.record).where(ReviewRow.game_id == game_id))
        return Job(game_id, json.loads(record or "{}"), lease) if taken.rowcount == 1 else None

    @staticmethod
    def _free(now: datetime, status: Any = ReviewRow.status,
              lease_until: Any = ReviewRow.lease_until) -> ColumnElement[bool]:
        """A job nobody holds: queued (and due, after a failed attempt), or running on a lease expired
        before ``now`` (of the table's columns, or of a subquery's)."""
        due = or_(lease_until.is_(None), lease_until < now)
        return or_(and_(status == QUEUED, due), and_(status == RUNNING, lease_until < now))

    def renew(self, job: Job, done: int, total: int) -> bool:
        """Store the job's progress and extend its lease; False if the lease is no longer ``job``'s."""
        return self._holder(job, done=done, total=total, lease_until=self.clock() + self.lease)

    def finish(self, job: Job, decisions: list[dict[str, Any]]) -> bool:
        """Store the decisions: the review is ``done`` (False if the lease was lost: nothing stored)."""
        return self._holder(job, status=DONE, result=json.dumps(decisions), done=len(decisions),
                            total=len(decisions), lease=None, lease_until=None)

    def fail(self, job: Job) -> bool:
        """This attempt at the review raised: the job is queued again, due later (``RETRY_AFTER``), or
        ``failed`` after ``ATTEMPTS`` attempts (False if the lease was lost: nothing stored)."""
        with self.store.use() as session:
            result = session.scalar(select(ReviewRow.result).where(ReviewRow.game_id == job.game_id))
        attempts = attempts_of(result) + 1
        counted = json.dumps({"attempts": attempts})
        if attempts >= ATTEMPTS:
            return self._holder(job, status=FAILED, result=counted, done=0, total=0, lease=None,
                                lease_until=None)
        due = self.clock() + timedelta(seconds=RETRY_AFTER * attempts)
        return self._holder(job, status=QUEUED, result=counted, done=0, total=0, lease=None, lease_until=due)

    def _holder(self, job: Job, **values: Any) -> bool:
        """Change the job's row if ``job`` still holds its lease."""
        with self.store.use() as session, session.begin():
            changed: CursorResult[Any] = session.execute(  # type: ignore[assignment]
                update(ReviewRow).where(ReviewRow.game_id == job.game_id, ReviewRow.status == RUNNING,
                                        ReviewRow.lease == job.lease).values(**values))
            return changed.rowcount == 1
