"""Which rated games change ratings (``players.rating_rules``, issue 26), on SQLite and PostgreSQL: a
side with fewer than ``MIN_DECISIONS`` decisions (undone moves not counted), the two accounts' rated
games beyond ``PAIR_GAMES`` in a rolling ``PAIR_WINDOW``, an aborted or abandoned game: not rated,
and the game keeps why, so the pairs moderation will look at can be found (``suspect_pairs``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from helpers_ratings import START, add_game, decisions, end, finish, rating_rows, sign_up
from sqlalchemy import select, text
from test_postgres import database_url, server_url  # noqa: F401 (fixtures: skip without PostgreSQL)

from schotten.web.core.vocab import Ending, Status
from schotten.web.players import ratings
from schotten.web.players.rating_rules import MIN_DECISIONS, PAIR_GAMES, PAIR_WINDOW, suspect_pairs
from schotten.web.storage.db import GameRow, RatingChangeRow
from schotten.web.storage.rows import ACTION, UNDO, Entry
from schotten.web.storage.store import Append, Store

HOUR = timedelta(hours=1)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A store that rates the games it ends, as the service's does (PostgreSQL: skipped without one)."""
    url = f"sqlite:///{tmp_path / 'games.db'}" if request.param == "sqlite" else request.getfixturevalue(
        "database_url")
    opened = Store(url)
    opened.on_finished = ratings.rate_finished
    opened.create_schema()
    yield opened
    opened.close()


@pytest.fixture
def trio(store: Store) -> tuple[int, int, int]:
    """Three accounts: Ann, Bob and Cyd."""
    ann, bob, cyd = sign_up(store, "Ann", "Bob", "Cyd")
    return ann, bob, cyd


def unrated(store: Store, game: str) -> str | None:
    """Why ``game`` changed no rating, as its row keeps it."""
    with store.use() as session:
        return session.scalar(select(GameRow.unrated).where(GameRow.id == game))


def rated_games(store: Store) -> set[str]:
    with store.use() as session:
        return set(session.scalars(select(RatingChangeRow.game_id)))


def logged(store: Store, accounts: list[int | None], entries: list[tuple[str, str, int]]) -> str:
    """A rated game whose log is ``entries`` (kind, notation, seat), then ended: Ann wins."""
    game = add_game(store, accounts, decided=0)
    store.append_many([Append(game, Entry(i, kind, notation, seat, START), Status.PLAYING, None)
                       for i, (kind, notation, seat) in enumerate(entries)])
    store.append_many([end(game, 0, Ending.RESIGNED, index=len(entries))])
    return game


def test_enough_decisions_by_each_side_are_rated(store: Store, trio: tuple[int, int, int]) -> None:
    game = add_game(store, [trio[0], trio[1]])
    finish(store, game, 0)
    assert rated_games(store) == {game} and unrated(store, game) is None


@pytest.mark.parametrize("decided", [0, 1, MIN_DECISIONS - 1])
def test_a_side_with_fewer_decisions_is_not_rated(store: Store, trio: tuple[int, int, int],
                                                  decided: int) -> None:
    """Resigned (or flagged) before each side decided ``MIN_DECISIONS`` times: nothing changes."""
    game = add_game(store, [trio[0], trio[1]], decided=decided)
    finish(store, game, 0, Ending.RESIGNED)
    assert rating_rows(store) == {} and unrated(store, game) == "few_decisions"


def test_one_side_short_is_enough_and_undone_moves_do_not_count(store: Store,
                                                                 trio: tuple[int, int, int]) -> None:
    moves = [(ACTION, move, seat) for move, seat in decisions("base", 1, MIN_DECISIONS)]
    seat_zero = [i for i, (_, _, seat) in enumerate(moves) if seat == 0]
    short = logged(store, [trio[0], trio[1]], moves[:seat_zero[-1]])
    undone = logged(store, [trio[0], trio[1]], [*moves, (UNDO, moves[seat_zero[-1]][1], 0)])
    assert unrated(store, short) == unrated(store, undone) == "few_decisions"
    assert rating_rows(store) == {}
    full = logged(store, [trio[0], trio[1]], moves)
    assert rated_games(store) == {full}


def test_only_the_first_rated_games_of_a_pair_in_a_rolling_day(store: Store,
                                                                trio: tuple[int, int, int]) -> None:
    """Ann and Bob: ``PAIR_GAMES`` rated games in ``PAIR_WINDOW``, the next ones not (in any pool);
    Ann and Cyd meanwhile are; once the first left the window, a game is rated again."""
    ann, bob, cyd = trio
    times = [START + n * HOUR for n in range(PAIR_GAMES + 2)]
    games = [add_game(store, [ann, bob] if n % 2 else [bob, ann], variant="tactics" if n == 4 else "base")
             for n in range(len(times))]
    for game, at in zip(games, times, strict=True):
        finish(store, game, 0, at=at)
    other = add_game(store, [cyd, ann])
    finish(store, other, 1, at=times[-1])
    assert rated_games(store) == {*games[:PAIR_GAMES], other}
    assert [unrated(store, game) for game in games[PAIR_GAMES:]] == ["pair_limit"] * 2
    later = add_game(store, [ann, bob])
    finish(store, later, 1, at=times[0] + PAIR_WINDOW + timedelta(minutes=1))
    assert later in rated_games(store)


def test_games_not_rated_do_not_count_against_the_pair(store: Store, trio: tuple[int, int, int]) -> None:
    ann, bob, _ = trio
    for _ in range(PAIR_GAMES + 1):
        finish(store, add_game(store, [ann, bob], decided=1), 0)
    game = add_game(store, [ann, bob])
    finish(store, game, 0)
    assert rated_games(store) == {game}


def test_one_batch_counts_its_own_games(store: Store, trio: tuple[int, int, int]) -> None:
    """Games of one pair ended in one transaction: the later ones see the earlier ones rated."""
    games = [add_game(store, [trio[0], trio[1]]) for _ in range(PAIR_GAMES + 1)]
    store.append_many([end(game, 0, at=START + n * HOUR) for n, game in enumerate(games)])
    assert rated_games(store) == set(games[:PAIR_GAMES]) and unrated(store, games[-1]) == "pair_limit"


@pytest.mark.parametrize("ending", [Ending.ABORTED, Ending.ABANDONED])
def test_an_aborted_or_abandoned_game_keeps_why(store: Store, trio: tuple[int, int, int],
                                                ending: Ending) -> None:
    game = add_game(store, [trio[0], trio[1]])
    finish(store, game, None, ending)
    assert unrated(store, game) == str(ending)


def test_a_casual_game_has_no_reason(store: Store, trio: tuple[int, int, int]) -> None:
    game = add_game(store, [trio[0], trio[1]], rated=False, decided=1)
    finish(store, game, 0)
    assert unrated(store, game) is None


def test_the_pairs_moderation_will_be_shown(store: Store, trio: tuple[int, int, int]) -> None:
    """The pairs with at least so many games not rated for farming since a time, most first."""
    ann, bob, cyd = trio
    for n in range(4):
        finish(store, add_game(store, [ann, bob] if n % 2 else [bob, ann], decided=1), 0, at=START)
    finish(store, add_game(store, [cyd, ann], decided=1), 0, at=START)
    finish(store, add_game(store, [cyd, bob]), None, Ending.ABORTED, at=START)
    with store.use() as session:
        assert suspect_pairs(session, START - HOUR, 3) == [(min(ann, bob), max(ann, bob), 4)]
        assert suspect_pairs(session, START - HOUR, 1)[1] == (min(ann, cyd), max(ann, cyd), 1)
        assert len(suspect_pairs(session, START - HOUR, 1)) == 2, "an abort is no farming"
        assert suspect_pairs(session, START + HOUR, 1) == []


def test_two_processes_ending_games_of_one_pair_at_once_count_each_other(
        database_url: str) -> None:  # noqa: F811
    """PostgreSQL: the pair has ``PAIR_GAMES - 1`` rated games; two transactions each end one more. The
    second waits on the first's lock of the accounts, then counts its game: one of the two is rated."""
    store = Store(database_url)
    store.on_finished = ratings.rate_finished
    store.create_schema()
    ann, bob = sign_up(store, "Ann", "Bob")
    for n in range(PAIR_GAMES - 1):
        finish(store, add_game(store, [ann, bob]), 0, at=START + n * HOUR)
    first, second = add_game(store, [ann, bob]), add_game(store, [ann, bob])
    at = START + PAIR_GAMES * HOUR
    with store.use() as session, session.begin():
        session.execute(GameRow.__table__.update().where(GameRow.id == first).values(status="over"))
        ratings.rate_finished(session, [first], at)
        other = threading.Thread(target=store.append_many, args=([end(second, 1, at=at)],))
        other.start()
        _wait_for_a_lock(store)
    other.join(30)
    assert not other.is_alive()
    assert first in rated_games(store) and unrated(store, second) == "pair_limit"
    store.close()


def _wait_for_a_lock(store: Store) -> None:
    """Until a session of ``store`` waits for a row lock (polled; a guard against a hang, no timing)."""
    deadline = datetime.now() + timedelta(seconds=30)
    query = text("SELECT count(*) FROM pg_locks WHERE NOT granted")
    while datetime.now() < deadline:
        with store.engine.connect() as connection:
            if connection.scalar(query):
                return
    raise AssertionError("the second transaction never waited for the first")
