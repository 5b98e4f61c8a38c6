"""Glicko-2 (``schotten.web.players.glicko2``): Glickman's worked example and the properties of one game."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schotten.web.players.glicko2 import PROVISIONAL_RD, RD_FLOOR, RD_START, SCALE, Glicko, idle, rate

PLAYER = Glicko(1500.0, 200.0, 0.06)
OPPONENTS = [(Glicko(1400.0, 30.0, 0.06), 1.0), (Glicko(1550.0, 100.0, 0.06), 0.0),
             (Glicko(1700.0, 300.0, 0.06), 0.0)]

ratings = st.floats(800.0, 2400.0)
rds = st.floats(RD_FLOOR, RD_START)
volatilities = st.floats(0.03, 0.09)
players = st.builds(Glicko, ratings, rds, volatilities)


def test_the_papers_worked_example() -> None:
    """"Example of the Glicko-2 system", tau 0.5: 1464.06, RD 151.52, volatility 0.05999. The paper
    rounds each step (mu' = -0.2069); computed exactly the rating is 1464.0507, within 0.01 of it."""
    after = rate(PLAYER, OPPONENTS, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.005)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_no_game_only_grows_the_rd() -> None:
    """With no game in the period, phi* = sqrt(phi^2 + sigma^2) (the paper's step 6)."""
    after = rate(PLAYER, [])
    assert (after.rating, after.volatility) == (1500.0, 0.06)
    assert after.rd == pytest.approx((200.0**2 + (0.06 * 173.7178) ** 2) ** 0.5)


def test_idle_periods_grow_the_rd_as_that_many_empty_periods() -> None:
    """phi* = sqrt(phi^2 + t sigma^2): t whole periods are t empty ones in a row; parts of one add up;
    none (or a negative time) change nothing; the RD stops at a newcomer's."""
    stepped = PLAYER
    for _ in range(5):
        stepped = rate(stepped, [])
    assert idle(PLAYER, 5.0).rd == pytest.approx(stepped.rd, rel=1e-12)
    assert idle(PLAYER, 2.5).rd == pytest.approx((200.0**2 + 2.5 * (0.06 * SCALE) ** 2) ** 0.5, rel=1e-12)
    assert idle(idle(PLAYER, 0.25), 0.75).rd == pytest.approx(idle(PLAYER, 1.0).rd, rel=1e-12)
    assert idle(PLAYER, 0.0) is PLAYER and idle(PLAYER, -3.0) is PLAYER
    assert idle(PLAYER, 1e6) == Glicko(1500.0, RD_START, 0.06)


def test_the_rd_stays_between_the_floor_and_the_start() -> None:
    """A newcomer's RD never grows past 500; a rating never gets surer than the floor (lichess's 45)."""
    assert rate(Glicko(1500.0, RD_START, 0.06), []).rd == RD_START
    sure = Glicko(1500.0, 20.0, 0.001)
    assert rate(sure, [(sure, 0.5)]).rd == RD_FLOOR


def test_provisional_while_the_rd_is_110_or_more() -> None:
    assert Glicko(1500.0, PROVISIONAL_RD, 0.06).provisional
    assert not Glicko(1500.0, PROVISIONAL_RD - 0.01, 0.06).provisional


@given(players, players)
def test_a_win_raises_and_a_loss_lowers(player: Glicko, opponent: Glicko) -> None:
    assert rate(player, [(opponent, 1.0)]).rating > player.rating
    assert rate(player, [(opponent, 0.0)]).rating < player.rating


@given(st.builds(Glicko, ratings, st.floats(150.0, RD_START), volatilities), st.floats(-300.0, 300.0),
       rds, st.sampled_from([0.0, 0.5, 1.0]))
def test_a_game_makes_an_unsure_rating_surer(player: Glicko, apart: float, rd: float, score: float) -> None:
    """A game against a player of about one's strength shrinks an RD of 150 or more (a small RD may
    grow with the volatility; a lopsided game says little)."""
    opponent = Glicko(player.rating + apart, rd, 0.06)
    assert rate(player, [(opponent, score)]).rd < player.rd


@given(ratings, rds, volatilities)
def test_a_draw_between_equals_changes_little(rating: float, rd: float, volatility: float) -> None:
    player = Glicko(rating, rd, volatility)
    assert rate(player, [(player, 0.5)]).rating == pytest.approx(rating, abs=1e-6)


@given(ratings, rds, volatilities, st.sampled_from([0.0, 0.5, 1.0]))
def test_equals_move_symmetrically(rating: float, rd: float, volatility: float, score: float) -> None:
    """Two equal players: what one wins the other loses, and both become as sure."""
    player = Glicko(rating, rd, volatility)
    first, second = rate(player, [(player, score)]), rate(player, [(player, 1.0 - score)])
    assert first.rating - rating == pytest.approx(rating - second.rating, abs=1e-6)
    assert first.rd == pytest.approx(second.rd)


@given(players, players)
def test_a_win_against_a_stronger_player_gains_more(player: Glicko, opponent: Glicko) -> None:
    stronger = Glicko(opponent.rating + 200.0, opponent.rd, opponent.volatility)
    assert rate(player, [(stronger, 1.0)]).rating > rate(player, [(opponent, 1.0)]).rating
