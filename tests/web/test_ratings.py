"""Rated games (``ratings.rate_finished`` through ``Store.append_many``), on SQLite and PostgreSQL.

A game changes both accounts' ratings once, in the transaction that stores its end: a win, a loss or
a drawn match (one half each), a resignation or a flag (a forfeit loses), never an aborted or
abandoned game, an unrated, untimed or guest game; never twice. Idle time grows a rating's RD
(``glicko2.idle``, a period a day) when it is read and before its next game.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from helpers_ratings import (
    BLITZ,
    DAILY,
    POOL,
    START,
    add_game,
    change_rows,
    decisions,
    end,
    finish,
    grown,
    rating_rows,
    sign_up,
    stored_rating,
)
from helpers_web import FakeClock, app_at, receive_state, service_of, socket_path, test_settings
from test_postgres import database_url, server_url  # noqa: F401 (fixtures: skip without PostgreSQL)

from schotten.web.core.errors import LogConflict
from schotten.web.core.vocab import Ending
from schotten.web.players import ratings
from schotten.web.players.glicko2 import RD_START, Glicko, rate
from schotten.web.players.rating_rules import MIN_DECISIONS
from schotten.web.storage.store import Store


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A store on a fresh database that rates the games it ends, as the service's does (PostgreSQL:
    skipped without a server)."""
    url = f"sqlite:///{tmp_path / 'games.db'}" if request.param == "sqlite" else request.getfixturevalue(
        "database_url")
    opened = Store(url)
    opened.on_finished = ratings.rate_finished
    opened.create_schema()
    yield opened
    opened.close()


@pytest.fixture
def pair(store: Store) -> tuple[int, int]:
    """Two accounts, Ann and Bob."""
    ann, bob = sign_up(store, "Ann", "Bob")
    return ann, bob


def test_a_new_account_has_the_default_rating(store: Store, pair: tuple[int, int]) -> None:
    with store.use() as session:
        assert ratings.current(session, list(pair), "base.realtime") == dict.fromkeys(pair, ratings.DEFAULT)
        assert ratings.current(session, [], "base.realtime") == {}
    assert ratings.DEFAULT.provisional and (ratings.DEFAULT.rating, ratings.DEFAULT.rd) == (1500.0, 500.0)
    assert ratings.DEFAULT.volatility == 0.06


@pytest.mark.parametrize("winner", [0, 1])
def test_a_win_and_a_loss(store: Store, pair: tuple[int, int], winner: int) -> None:
    """Each seat is rated against the other's rating before the game (one game, one period)."""
    game = add_game(store, list(pair))
    finish(store, game, winner, at=START)
    rows = rating_rows(store)
    won, lost = rows[pair[winner], "base.realtime"], rows[pair[1 - winner], "base.realtime"]
    expected = rate(ratings.DEFAULT, [(ratings.DEFAULT, 1.0)])
    assert won.rating == pytest.approx(expected.rating) and won.rd == pytest.approx(expected.rd)
    assert lost.rating == pytest.approx(3000.0 - expected.rating)
    assert (won.games, won.wins, won.losses, won.draws) == (1, 1, 0, 0)
    assert (lost.games, lost.wins, lost.losses, lost.draws) == (1, 0, 1, 0)
    assert won.played.replace(tzinfo=START.tzinfo) == START
    changes = change_rows(store)
    assert [(c.game_id, c.seat, c.account_id) for c in changes] == [(game, 0, pair[0]), (game, 1, pair[1])]
    assert all(c.rating_before == 1500.0 and c.rd_before == 500.0 for c in changes)
    assert changes[winner].rating_after == pytest.approx(expected.rating)


def test_a_drawn_match_scores_one_half_each(store: Store, pair: tuple[int, int]) -> None:
    game = add_game(store, list(pair))
    finish(store, game, None)
    for account in pair:
        row = rating_rows(store)[account, "base.realtime"]
        assert row.rating == pytest.approx(1500.0) and row.rd < 500.0
        assert (row.games, row.wins, row.losses, row.draws) == (1, 0, 0, 1)


@pytest.mark.parametrize("ending", [Ending.RESIGNED, Ending.TIME, Ending.LEFT])
def test_a_forfeit_loses_for_its_seat(store: Store, pair: tuple[int, int], ending: Ending) -> None:
    """Resigning, flagging or leaving loses the match (R9.2): the other seat wins the rating."""
    game = add_game(store, list(pair))
    finish(store, game, 0, ending)
    rows = rating_rows(store)
    assert rows[pair[0], "base.realtime"].wins == 1 and rows[pair[1], "base.realtime"].losses == 1


@pytest.mark.parametrize("ending", [Ending.ABORTED, Ending.ABANDONED])
def test_an_aborted_or_abandoned_game_is_not_rated(store: Store, pair: tuple[int, int],
                                                   ending: Ending) -> None:
    game = add_game(store, list(pair))
    finish(store, game, None, ending)
    assert rating_rows(store) == {} and change_rows(store) == []


@pytest.mark.parametrize(("rated", "timed", "guest"), [(False, True, None), (True, False, None),
                                                       (True, True, 1), (True, True, 0)])
def test_unrated_untimed_and_guest_games_change_nothing(store: Store, pair: tuple[int, int], rated: bool,
                                                        timed: bool, guest: int | None) -> None:
    accounts: list[int | None] = list(pair)
    if guest is not None:
        accounts[guest] = None
    game = add_game(store, accounts, rated=rated, control=BLITZ if timed else None)
    finish(store, game, 0)
    assert rating_rows(store) == {} and change_rows(store) == []


def test_an_account_playing_both_seats_is_not_rated(store: Store, pair: tuple[int, int]) -> None:
    game = add_game(store, [pair[0], pair[0]])
    finish(store, game, 0)
    assert rating_rows(store) == {}


def test_never_twice_for_one_game(store: Store, pair: tuple[int, int]) -> None:
    """Rating a game again, storing a second end after its end, or its end again, changes nothing."""
    game = add_game(store, list(pair))
    finish(store, game, 0)
    before = {key: (row.rating, row.rd, row.games) for key, row in rating_rows(store).items()}
    with store.use() as session, session.begin():
        ratings.rate_finished(session, [game, game], START + timedelta(hours=1))
    after_end = len(decisions("base", 1, MIN_DECISIONS)) + 1
    store.append_many([end(game, 1, Ending.RESIGNED, index=after_end, at=START + timedelta(hours=2))])
    with pytest.raises(LogConflict):
        store.append_many([end(game, 0)])
    assert {key: (row.rating, row.rd, row.games) for key, row in rating_rows(store).items()} == before
    assert len(change_rows(store)) == 2


def test_the_end_and_its_rating_are_stored_together(store: Store, pair: tuple[int, int]) -> None:
    """A batch that fails stores neither the end nor the rating."""
    game, other = add_game(store, list(pair)), add_game(store, list(pair))
    store.append_many([end(other, 0)])
    with pytest.raises(LogConflict):
        store.append_many([end(game, 0), end(other, 1)])
    assert [c.game_id for c in change_rows(store)] == [other, other]
    loaded = store.load(game)
    assert loaded is not None and len(loaded[1]) == len(decisions("base", 1, MIN_DECISIONS)), "its moves only"


def test_the_next_game_starts_from_the_new_rating(store: Store, pair: tuple[int, int]) -> None:
    """Games ended in one batch are rated in order, each from the ratings the one before left (the
    batch is rated at its last end, the first game then too: no idle time grows the RDs between)."""
    first, second, third = (add_game(store, list(pair)) for _ in range(3))
    finish(store, first, 0, at=START + timedelta(minutes=2))
    store.append_many([end(second, 0, at=START + timedelta(minutes=1)),
                       end(third, 1, at=START + timedelta(minutes=2))])
    changes = change_rows(store)
    for earlier, later in zip(changes[:-2], changes[2:], strict=True):
        assert later.rating_before == earlier.rating_after and later.rd_before == earlier.rd_after
    assert rating_rows(store)[pair[0], "base.realtime"].games == 3


def test_each_pool_has_its_own_rating(store: Store, pair: tuple[int, int]) -> None:
    """Turn-based and real-time apart, and each variant apart."""
    finish(store, add_game(store, list(pair), control=DAILY), 0)
    finish(store, add_game(store, list(pair), variant="tactics"), 1)
    rows = rating_rows(store)
    assert set(rows) == {(a, p) for a in pair for p in ("base.turnbased", "tactics.realtime")}
    assert rows[pair[0], "base.turnbased"].wins == 1 and rows[pair[0], "tactics.realtime"].losses == 1
    with store.use() as session:
        assert ratings.current(session, [pair[0]], "base.realtime") == {pair[0]: ratings.DEFAULT}


def test_changes_of_game(store: Store, pair: tuple[int, int]) -> None:
    game, unrated = add_game(store, list(pair)), add_game(store, list(pair), rated=False)
    finish(store, game, 1)
    finish(store, unrated, 1)
    with store.use() as session:
        seats = ratings.changes_of_game(session, game)
        assert ratings.changes_of_game(session, unrated) == []
    assert seats[0] is not None and seats[1] is not None
    assert seats[0]["before"] == seats[1]["before"] == 1500.0
    assert seats[0]["after"] < 1500.0 < seats[1]["after"] and seats[0]["rd_after"] < 500.0


def test_a_resignation_over_the_socket_rates_the_game(tmp_path: Path) -> None:
    """The authority's resign (R9.2) stores the end, the ratings with it; the record says them."""
    clock = FakeClock()
    with app_at(test_settings(tmp_path), clock) as client:
        store = service_of(client).store
        ann, bob = sign_up(store, "Ann", "Bob")
        game = add_game(store, [ann, bob], tokens=("ann-token" * 4, "bob-token" * 4), seed=3)
        with client.websocket_connect(socket_path(game, "bob-token" * 4)) as ws:
            receive_state(ws)
            ws.send_json({"type": "resign"})
            assert receive_state(ws)["ended"] == {"reason": "resigned", "seat": 1}
        rows = rating_rows(store)
        assert rows[ann, "base.realtime"].wins == 1 and rows[bob, "base.realtime"].losses == 1
        record = client.get(f"/api/games/{game}/record").json()
    won, lost = record["ratings"]
    assert won["before"] == lost["before"] == 1500.0 and won["after"] > 1500.0 > lost["after"]
    assert won["rd_before"] == 500.0 and won["rd_after"] < 500.0


def test_an_unrated_game_has_no_ratings_in_its_record(tmp_path: Path) -> None:
    with app_at(test_settings(tmp_path), FakeClock()) as client:
        store = service_of(client).store
        ann, bob = sign_up(store, "Ann", "Bob")
        game = add_game(store, [ann, bob], rated=False, tokens=("ann-token" * 4, "bob-token" * 4))
        with client.websocket_connect(socket_path(game, "ann-token" * 4)) as ws:
            receive_state(ws)
            ws.send_json({"type": "resign"})
            receive_state(ws)
        record = client.get(f"/api/games/{game}/record").json()
    assert "ratings" not in record and record["ending"] == {"reason": "resigned", "seat": 0}


# ---------------------------------------------------------------------- idle time


def test_an_idle_players_rd_grows_by_glicko2s_formula(store: Store, pair: tuple[int, int]) -> None:
    finish(store, add_game(store, list(pair)), 0, at=START)
    after_game = stored_rating(store, pair[0])
    with store.use() as session:
        for days in (0.0, 0.5, 1.0, 30.0):
            read = ratings.current(session, [pair[0]], POOL, START + timedelta(days=days))[pair[0]]
            assert read.rd == pytest.approx(grown(after_game.rd, after_game.volatility, days), rel=1e-12)
            assert (read.rating, read.volatility) == (after_game.rating, after_game.volatility)
        assert ratings.current(session, [pair[0]], POOL, START - timedelta(days=3))[pair[0]] == after_game
    assert stored_rating(store, pair[0]) == after_game, "a read writes nothing"


def test_the_rd_grows_no_larger_than_a_newcomers(store: Store, pair: tuple[int, int]) -> None:
    finish(store, add_game(store, list(pair)), 0, at=START)
    with store.use() as session:
        read = ratings.current(session, list(pair), POOL, START + timedelta(days=3650))
    assert all(rating.rd == RD_START and rating.provisional for rating in read.values())


def test_the_next_game_starts_from_the_grown_rd(store: Store, pair: tuple[int, int]) -> None:
    """Both seats come to the game with their grown RDs; the rating stored after it is not grown
    again for the idle time before it."""
    finish(store, add_game(store, list(pair)), 0, at=START)
    before = {account: stored_rating(store, account) for account in pair}
    later = START + timedelta(days=20)
    second = add_game(store, list(pair), created=later)
    finish(store, second, 1, at=later)
    ann, bob = (Glicko(b.rating, grown(b.rd, b.volatility, 20.0), b.volatility) for b in before.values())
    changes = [change for change in change_rows(store) if change.game_id == second]
    assert [change.rd_before for change in changes] == pytest.approx([ann.rd, bob.rd], rel=1e-12)
    expected = rate(ann, [(bob, 0.0)])
    assert changes[0].rating_after == pytest.approx(expected.rating, rel=1e-12)
    assert stored_rating(store, pair[0]).rd == pytest.approx(expected.rd, rel=1e-12)
    with store.use() as session:
        assert ratings.current(session, [pair[0]], POOL, later)[pair[0]] == stored_rating(store, pair[0])
        then = ratings.current(session, [pair[0]], POOL, later + timedelta(days=5))[pair[0]]
    assert then.rd == pytest.approx(grown(expected.rd, expected.volatility, 5.0), rel=1e-12)


def test_a_game_older_than_the_last_grows_nothing(store: Store, pair: tuple[int, int]) -> None:
    """A game whose end (another process's clock) is before the rating's last game starts from the
    stored RD and leaves ``played`` at the later time, so that idle time is not counted twice."""
    later = START + timedelta(days=2)
    finish(store, add_game(store, list(pair)), 0, at=later)
    after_first = stored_rating(store, pair[0])
    older = add_game(store, list(pair))
    finish(store, older, 0, at=START)
    changes = [change for change in change_rows(store) if change.game_id == older]
    assert changes[0].rd_before == after_first.rd
    assert rating_rows(store)[pair[0], POOL].played.replace(tzinfo=START.tzinfo) == later
