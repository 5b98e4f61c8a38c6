"""The director: starts tournaments, pairs arena waves and Swiss rounds, ends them; once each.

| step        | when                                             | what                                     |
|-------------|--------------------------------------------------|------------------------------------------|
| start       | ``created`` and ``starts_at`` passed             | ``started``; everyone waits from now     |
| arena wave  | ``started`` before the end, two or more waiting  | ``arena.pairing_wave`` → games           |
| Swiss round | ``started``, every game of the round over        | ``swiss.pair_round`` → games and a bye   |
| end         | an arena's end passed; a Swiss's last round over | ``finished`` (running games still count) |

A director holds a tournament by a lease in its row (``lease``, ``lease_until``), taken by a
conditional UPDATE when free or expired, renewed at every step: a director that dies loses it after
``lease`` seconds and another takes over. Each step is one transaction that re-reads the players
waiting, marks the pairs ``playing`` only where they still wait, and moves the tournament's
``round`` on only where the row still shows this director's lease and the round it read: a step
made twice, or by a director that lost its lease, changes nothing (it is rolled back).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from ...engine import GameState, Settings
from ..core.clock import Clock
from ..core.vocab import Mode, Status
from ..players import ratings
from ..storage.db import AccountRow, BlockRow, TournamentGameRow, TournamentPlayerRow, TournamentRow, utc
from ..storage.rows import GameInfo, row_of
from ..storage.store import Store
from .arena import Waiting, pairing_wave
from .records import ARENA, CREATED, FINISHED, PLAYING, STARTED, WAITING, Tournament, tournament_of
from .results import finished_games, played_games, rescore
from .swiss import Entrant, pair_round

logger = logging.getLogger("schotten.web")

Told = Callable[[int, list[tuple[int, str]]], None]
"""Told after each step stored: the tournament and its new pairs (each player with their game)."""
_MOVED = "tournament_moved"
"""The session's mark that its step moved the tournament on (``_advance``)."""
LEASE = 10.0
"""Seconds a director's hold on a tournament lasts unless renewed."""
EVERY = 1.0
"""Seconds between two looks at the tournaments due."""


class _Lost(Exception):
    """The step's transaction found another director's lease or round: it is rolled back."""


class Director:
    """Runs the tournaments of ``store``; ``now`` is the time, ``new_seed`` each game's seed."""

    def __init__(self, store: Store, now: Callable[[], datetime], new_seed: Callable[[], int],
                 lease: float = LEASE, told: Told | None = None) -> None:
        self.store = store
        self.told: Told = told or (lambda _tournament, _pairs: None)
        """Told of each step once stored (from the director's thread)."""
        self.now = now
        self.new_seed = new_seed
        self.lease = timedelta(seconds=lease)
        self.me = f"{os.getpid()}-{secrets.token_hex(6)}"
        """This director's lease id: its process id (the logs name it) and a random part."""
        self.steps = 0
        """How many steps this director made (tests count them)."""
        self._task: asyncio.Task[None] | None = None

    def run_once(self) -> list[str]:
        """Look at every tournament due, take the free ones and make their next step (blocking): the
        game ids created."""
        now = self.now()
        query = select(TournamentRow.id).where(or_(
            TournamentRow.status == STARTED,
            (TournamentRow.status == CREATED) & (TournamentRow.starts_at <= utc(now))))
        with self.store.use() as session:
            due = list(session.scalars(query.order_by(TournamentRow.id)))
        made: list[str] = []
        for tournament_id in due:
            try:
                if self._take(tournament_id, now):
                    made += self._step(tournament_id, now)
            except Exception:  # one tournament's failure must not hold the others up
                logger.exception("tournament %d: the director %s failed a step", tournament_id, self.me)
        return made

    def _take(self, tournament_id: int, now: datetime) -> bool:
        """Take (or renew) the lease of the tournament; whether this director holds it."""
        free = or_(TournamentRow.lease.is_(None), TournamentRow.lease_until < utc(now),
                   TournamentRow.lease == self.me)
        taken = (update(TournamentRow).where(TournamentRow.id == tournament_id, free,
                                             TournamentRow.status.in_([CREATED, STARTED]))
                 .values(lease=self.me, lease_until=utc(now + self.lease)))
        with self.store.use() as session, session.begin():
            return bool(session.execute(taken).rowcount)  # type: ignore[attr-defined]

    def _step(self, tournament_id: int, now: datetime) -> list[str]:
        """The tournament's next step in one transaction; nothing if another director made it."""
        made: list[tuple[str, int, int]] = []
        with self.store.use() as session:
            try:
                with session.begin():
                    row = session.get(TournamentRow, tournament_id)
                    if row is None or row.lease != self.me:
                        return []
                    made = self._next(session, tournament_of(row), now)
                    moved = bool(session.info.pop(_MOVED, False))
            except _Lost:
                return []
            except DBAPIError as error:
                if getattr(error.orig, "sqlstate", None) in ("40P01", "40001", "55P03"):
                    return []
                raise
        if moved:
            self.told(tournament_id, [(player, game) for game, *players in made for player in players])
        return [game for game, _, _ in made]

    def _next(self, session: Session, tournament: Tournament, now: datetime) -> list[tuple[str, int, int]]:
        if tournament.status == CREATED:
            self._advance(session, tournament, status=STARTED, round=tournament.round)
            session.execute(update(TournamentPlayerRow)
                            .where(TournamentPlayerRow.tournament_id == tournament.id,
                                   TournamentPlayerRow.status == WAITING).values(since=utc(now)))
            return []
        if tournament.format == ARENA:
            return self._arena(session, tournament, now)
        return self._swiss(session, tournament, now)

    def _advance(self, session: Session, tournament: Tournament, **values: object) -> None:
        """Move the tournament on (its round + 1 unless ``values`` set it) if this director still holds
        it at the round it read; else ``_Lost``."""
        values.setdefault("round", tournament.round + 1)
        if values.get("status") in (FINISHED,):
            values.update(lease=None, lease_until=None)
        moved = session.execute(update(TournamentRow).where(
            TournamentRow.id == tournament.id, TournamentRow.lease == self.me,
            TournamentRow.round == tournament.round, TournamentRow.status == tournament.status,
        ).values(**values))
        if moved.rowcount != 1:  # type: ignore[attr-defined]
            raise _Lost()
        session.info[_MOVED] = True
        self.steps += 1

    def _arena(self, session: Session, tournament: Tournament, now: datetime) -> list[tuple[str, int, int]]:
        ends_at = tournament.ends_at
        assert ends_at is not None
        if now >= ends_at:
            self._advance(session, tournament, status=FINISHED, round=tournament.round)
            return []
        waiting = self._waiting(session, tournament, now)
        if len(waiting) < 2:
            return []
        wave = pairing_wave(waiting, now, ends_at)
        if not wave.pairs:
            return []
        self._advance(session, tournament)
        return [self._game(session, tournament, pair.first, pair.second, now) for pair in wave.pairs]

    def _waiting(self, session: Session, tournament: Tournament, now: datetime) -> list[Waiting]:
        """The arena's waiting players, with their score, rating, last opponent and seats so far (waiting
        since ``now`` at the latest: another process's clock may be a little ahead)."""
        rows = list(session.scalars(select(TournamentPlayerRow).where(
            TournamentPlayerRow.tournament_id == tournament.id, TournamentPlayerRow.status == WAITING)))
        rated = ratings.current(session, [row.account_id for row in rows], tournament.pool)
        games = session.execute(select(TournamentGameRow.account0, TournamentGameRow.account1)
                                .where(TournamentGameRow.tournament_id == tournament.id,
                                       TournamentGameRow.account1.is_not(None))
                                .order_by(TournamentGameRow.id)).all()
        last: dict[int, int] = {}
        first: dict[int, int] = defaultdict(int)
        played: dict[int, int] = defaultdict(int)
        for starter, other in games:
            if other is None:
                continue
            last[starter], last[other] = other, starter
            first[starter] += 1
            played[starter] += 1
            played[other] += 1
        apart = blocked_pairs(session, [row.account_id for row in rows])
        found = []
        for row in rows:
            player = row.account_id
            since = min(utc(row.since), utc(now))
            avoid = frozenset(b if a == player else a for a, b in apart if player in (a, b))
            found.append(Waiting(player, row.score, round(rated[player].rating), since, last.get(player),
                                 first[player], played[player], avoid))
        return found

    def _swiss(self, session: Session, tournament: Tournament, now: datetime) -> list[tuple[str, int, int]]:
        running = select(TournamentGameRow.id).where(TournamentGameRow.tournament_id == tournament.id,
                                                     TournamentGameRow.ended.is_(None))
        if session.scalars(running.limit(1)).first() is not None:
            return []
        present = list(session.scalars(select(TournamentPlayerRow.account_id).where(
            TournamentPlayerRow.tournament_id == tournament.id, TournamentPlayerRow.status == WAITING)))
        if tournament.round >= (tournament.rounds or 0) or len(present) < 2:
            self._advance(session, tournament, status=FINISHED, round=tournament.round)
            return []
        done = finished_games(session, tournament.id)
        played = played_games(done)
        byes = [g.account0 for g in done if g.account1 is None]
        rated = ratings.current(session, present, tournament.pool)
        paired = pair_round([Entrant(p, round(rated[p].rating)) for p in present], played, byes,
                            blocked_pairs(session, present))
        self._advance(session, tournament)
        made = [self._game(session, tournament, pair.first, pair.second, now) for pair in paired.pairs]
        if paired.bye is not None:
            session.add(TournamentGameRow(tournament_id=tournament.id, game_id=None,
                                          round=tournament.round + 1, account0=paired.bye, account1=None,
                                          berserk0=False, berserk1=False,
                                          decisions0=0, decisions1=0, winner=0, ended=utc(now)))
            session.flush()
            rescore(session, tournament.id, paired.bye)
        return made

    def _game(self, session: Session, tournament: Tournament, first: int, second: int, now: datetime,
              ) -> tuple[str, int, int]:
        """Create the game of ``first`` (seat 0) and ``second`` and mark both playing (``_Lost`` if
        either no longer waits): the game's id and the two players."""
        names = dict(session.execute(select(AccountRow.id, AccountRow.username)
                                     .where(AccountRow.id.in_([first, second]))).all())
        tickets = dict(session.execute(select(TournamentPlayerRow.account_id, TournamentPlayerRow.ticket_hash)
                                       .where(TournamentPlayerRow.tournament_id == tournament.id,
                                              TournamentPlayerRow.account_id.in_([first, second]))).all())
        seed = self.new_seed()
        turn = GameState.new(Settings.of(tournament.variant, 1), seed).turn
        info = GameInfo(
            id=secrets.token_hex(8), variant=tournament.variant, rounds=1, seed=seed, mode=Mode.FRIEND,
            level=None, ai_seat=None, players=[names.get(first), names.get(second)],
            token_hashes=[tickets.get(player) or secrets.token_hex(32) for player in (first, second)],
            status=Status.PLAYING,
            created=now, clock=Clock.new(tournament.control).start(turn, now), moved=now,
            accounts=[first, second], rated=tournament.rated)
        session.add(row_of(info))
        session.flush()
        session.add(TournamentGameRow(tournament_id=tournament.id, game_id=info.id,
                                      round=tournament.round + 1, account0=first, account1=second,
                                      berserk0=False, berserk1=False,
                                      decisions0=0, decisions1=0))
        marked = session.execute(update(TournamentPlayerRow).where(
            TournamentPlayerRow.tournament_id == tournament.id,
            TournamentPlayerRow.account_id.in_([first, second]),
            TournamentPlayerRow.status == WAITING).values(status=PLAYING))
        if marked.rowcount != 2:  # type: ignore[attr-defined]
            raise _Lost()
        return info.id, first, second

    def start(self, on_games: Callable[[list[str]], None], every: float = EVERY) -> None:
        """Run ``run_once`` every ``every`` seconds in a worker thread until ``stop``; ``on_games`` is
        told of the games each look created (the timekeeper learns their deadlines)."""
        self._task = asyncio.create_task(self._loop(on_games, every))

    async def _loop(self, on_games: Callable[[list[str]], None], every: float) -> None:
        while True:
            try:
                made = await asyncio.to_thread(self.run_once)
                if made:
                    on_games(made)
            except Exception:  # a failed look is logged and tried again at the next one
                logger.exception("tournament director %s failed a look", self.me)
            await asyncio.sleep(every)

    async def stop(self) -> None:
        """Stop looking (the leases it held expire and another director takes over)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


def blocked_pairs(session: Session, players: Sequence[int]) -> list[tuple[int, int]]:
    """The pairs of ``players`` where one blocks the other (``community.blocks``): never paired."""
    if len(players) < 2:
        return []
    rows = session.execute(select(BlockRow.player_id, BlockRow.other_id).where(
        BlockRow.player_id.in_(players), BlockRow.other_id.in_(players))).all()
    return [(a, b) for a, b in rows]
