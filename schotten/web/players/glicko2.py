"""Glicko-2 ratings, as in Glickman's "Example of the Glicko-2 system" (pure, no storage).

``rate(player, results)`` rates one player over one rating period: ``results`` holds each opponent's
rating before the period and the score against them (1 a win, 0.5 a draw, 0 a loss). The new
volatility is found by the paper's Illinois algorithm (step 5). ``idle(player, periods)`` is the RD
after periods without games (step 6 alone, for a number of periods that may be fractional). The RD is
kept between ``RD_FLOOR`` and ``RD_START`` (lichess's bounds), so a player who stops playing is never
less sure than a newcomer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
"""The factor between the Glicko scale and the Glicko-2 scale (step 2)."""
RATING_START, RD_START, VOLATILITY_START = 1500.0, 500.0, 0.06
"""A new player's rating, RD and volatility (lichess's constants)."""
RD_FLOOR = 45.0
"""The smallest RD a player ever has (lichess: about 45)."""
PROVISIONAL_RD = 110.0
"""A rating with an RD at least this large is provisional (lichess)."""
TAU = 0.5
"""The system constant: how much the volatility may change in one period."""
EPSILON = 1e-6
"""The convergence tolerance of the volatility's iteration."""


@dataclass(frozen=True, slots=True)
class Glicko:
    """A Glicko-2 rating on the Glicko scale: the rating, its deviation (RD) and its volatility."""

    rating: float
    rd: float
    volatility: float

    @property
    def provisional(self) -> bool:
        """Whether the rating is still provisional (RD of ``PROVISIONAL_RD`` or more)."""
        return self.rd >= PROVISIONAL_RD


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _clamped(rd: float) -> float:
    return min(RD_START, max(RD_FLOOR, rd))


def idle(player: Glicko, periods: float) -> Glicko:
    """``player``'s rating after ``periods`` rating periods without a game: phi* = sqrt(phi^2 + periods
    sigma^2) (step 6 once per period, sigma unchanged), at most ``RD_START``; unchanged for none."""
    if periods <= 0.0:
        return player
    phi, sigma = player.rd / SCALE, player.volatility
    grown = math.sqrt(phi * phi + periods * sigma * sigma) * SCALE
    return Glicko(player.rating, _clamped(grown), sigma)


def rate(player: Glicko, results: Sequence[tuple[Glicko, float]], tau: float = TAU) -> Glicko:
    """``player``'s rating after one period of ``results`` (opponent before the period, score); with
    no results only the RD grows (the paper's step 6 alone: ``idle`` for one period)."""
    if not results:
        return idle(player, 1.0)
    mu, phi, sigma = (player.rating - RATING_START) / SCALE, player.rd / SCALE, player.volatility
    games = [((other.rating - RATING_START) / SCALE, other.rd / SCALE, score) for other, score in results]
    v_inverse = 0.0
    improvement = 0.0
    for mu_j, phi_j, score in games:
        expected = _expected(mu, mu_j, phi_j)
        v_inverse += _g(phi_j) ** 2 * expected * (1.0 - expected)
        improvement += _g(phi_j) * (score - expected)
    v = 1.0 / v_inverse
    delta = v * improvement
    sigma_new = _volatility(delta, phi, v, sigma, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    return Glicko(mu_new * SCALE + RATING_START, _clamped(phi_new * SCALE), sigma_new)


def _volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """The new volatility (step 5, the Illinois algorithm)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > EPSILON:
        middle = low + (low - high) * f_low / (f_high - f_low)
        f_middle = f(middle)
        if f_middle * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = middle, f_middle
    return math.exp(low / 2.0)
