"""Helpers for the ratings and profile tests: accounts, rated games stored directly, and their ends.

Rated games are made without the lobby: the accounts by ``Accounts.sign_up``, the game by
``Store.add_game`` (a friend game, both seats taken, with a clock) with ``MIN_DECISIONS`` decisions of
each seat in its log (the first legal move each time, as ``rating_rules`` wants of a rated game), and
its end by ``Store.append`` of an ``end`` entry with status ``over`` (the path the authority's writer
takes). A series of games between two accounts is spaced so that each is rated (``SERIES_EVERY``).
"""

from __future__ import annotations

import itertools
import math
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from schotten.engine import GameState, Settings
from schotten.web.core.clock import Clock, TimeControl
from schotten.web.core.vocab import Ending, Mode, Status
from schotten.web.players.accounts import Accounts
from schotten.web.players.glicko2 import RD_START, SCALE, Glicko
from schotten.web.players.rating_rules import MIN_DECISIONS, PAIR_GAMES, PAIR_WINDOW
from schotten.web.players.seats import token_hash
from schotten.web.storage.db import RatingChangeRow, RatingRow
from schotten.web.storage.rows import ACTION, END, Entry, GameInfo
from schotten.web.storage.store import Append, Store

BLITZ = TimeControl(180, 2, None)
DAILY = TimeControl(None, 0, 3)
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PASSWORD = "a long enough password"
POOL = "base.realtime"
SERIES_EVERY = PAIR_WINDOW / PAIR_GAMES + timedelta(minutes=1)
"""How far apart ``play_series`` plays its games: no more than ``PAIR_GAMES`` in a ``PAIR_WINDOW``."""
_ids = itertools.count(1)
_logged: dict[str, int] = {}
"""The entries ``add_game`` wrote in each game's log: the index ``end`` gives its entry."""


def sign_up(store: Store, *names: str) -> list[int]:
    """New accounts of these names: their ids."""
    accounts = Accounts(store, 3600.0)
    return [accounts.sign_up(name, PASSWORD).id for name in names]


def add_game(store: Store, accounts: list[int | None], *, rated: bool = True,
             control: TimeControl | None = BLITZ, variant: str = "base", created: datetime = START,
             tokens: tuple[str, str] | None = None, seed: int = 1, decided: int = MIN_DECISIONS) -> str:
    """A friend game being played by ``accounts`` (seat 0, seat 1), each seat's first ``decided``
    decisions in its log (``decisions``): its id."""
    game_id = f"game{next(_ids):04d}"
    hashes: list[str | None] = [token_hash(t) for t in tokens] if tokens else ["h0" * 32, "h1" * 32]
    store.add_game(GameInfo(
        id=game_id, variant=variant, rounds=1, seed=seed, mode=Mode.FRIEND, level=None, ai_seat=None,
        players=["Ann", "Bob"], token_hashes=hashes, status=Status.PLAYING, created=created,
        clock=Clock.new(control) if control is not None else None, accounts=list(accounts), rated=rated))
    moves = decisions(variant, seed, decided)
    if moves:
        store.append_many([Append(game_id, Entry(index, ACTION, move, seat, created), Status.PLAYING, None)
                           for index, (move, seat) in enumerate(moves)])
    _logged[game_id] = len(moves)
    return game_id


def decisions(variant: str, seed: int, each: int) -> list[tuple[str, int]]:
    """The first legal move each time, until each seat has made ``each``: (notation, seat) each."""
    state = GameState.new(Settings.of(variant, 1), seed)
    made, moves = [0, 0], []
    while min(made) < each:
        seat, action = state.turn, state.legal_actions()[0]
        moves.append((str(action), seat))
        state.apply(action)
        made[seat] += 1
    return moves


def end(game_id: str, winner: int | None, ending: Ending | None = None, *, index: int | None = None,
        at: datetime = START) -> Append:
    """The append that ends a game: won by ``winner`` (None: a drawn match, or no winner if ``ending``
    says so), off the board if ``ending`` is given (its seat: the loser, else seat 0), else on the
    board by a last action (a stand-in: these games are never replayed); at ``index``, by default after
    the moves ``add_game`` wrote."""
    seat = 1 - winner if winner is not None else 0
    index = _logged.get(game_id, 0) if index is None else index
    entry = Entry(index, END, str(ending), seat, at) if ending else Entry(index, ACTION, "claim 1", seat, at)
    return Append(game_id, entry, Status.OVER, winner, ended=ending)


def finish(store: Store, game_id: str, winner: int | None, ending: Ending | None = None,
           at: datetime = START) -> None:
    """End a game (see ``end``) through ``Store.append_many``."""
    store.append_many([end(game_id, winner, ending, at=at)])


def play_series(store: Store, first: int, second: int, games: int, *, lose_every: int = 0,
                at: datetime = START) -> None:
    """``games`` rated games of ``first`` against ``second``, alternating seats, ``SERIES_EVERY`` apart:
    ``first`` wins them all but every ``lose_every``-th one (0: none)."""
    for number in range(games):
        seats: list[int | None] = [first, second] if number % 2 == 0 else [second, first]
        first_wins = not lose_every or (number + 1) % lose_every != 0
        winner = number % 2 if first_wins else 1 - number % 2
        finish(store, add_game(store, seats), winner, at=at + number * SERIES_EVERY)


def rating_rows(store: Store) -> dict[tuple[int, str], RatingRow]:
    """Every ratings row, by (account, pool)."""
    with store.use() as session:
        return {(row.account_id, row.pool): row for row in session.scalars(select(RatingRow))}


def change_rows(store: Store) -> list[RatingChangeRow]:
    """Every rating change, by game and seat."""
    with store.use() as session:
        query = select(RatingChangeRow).order_by(RatingChangeRow.time, RatingChangeRow.game_id,
                                                 RatingChangeRow.seat)
        return list(session.scalars(query))


def grown(rd: float, volatility: float, days: float) -> float:
    """Glicko-2's RD after ``days`` empty rating periods of a day, capped at a newcomer's RD (500)."""
    return min(RD_START, math.sqrt(rd * rd + days * (volatility * SCALE) ** 2))


def stored_rating(store: Store, account: int, pool: str = POOL) -> Glicko:
    """The account's rating in ``pool`` as its row holds it."""
    row = rating_rows(store)[account, pool]
    return Glicko(row.rating, row.rd, row.volatility)
