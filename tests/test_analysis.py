"""The engine's eye (``schotten.bots.analysis``, ``schotten analyze``): chances from the mover's view only
(R10 itself: ``tests/test_eye_r10.py``)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from schotten.bots.analysis import SHOWN, Analysis, analyse
from schotten.cli import app
from schotten.engine import GameState, Phase, Settings
from schotten.engine.cards import NUM_STONES
from schotten.engine.position import format_position
from schotten.engine.view import view
from tests.randgame import random_states

BUDGET = 40
"""A small analysis budget: the tests check the figures' shape and their sources, not their accuracy."""

runner = CliRunner()


def positions(variant: str, seed: int, every: int = 9) -> list[GameState]:
    """Copies of a random game's states, one in ``every`` moves, where the mover has a choice."""
    found = []
    for number, state in enumerate(random_states(Settings.of(variant), seed)):
        if number % every == 3 and not state.is_over and len(state.legal_action_ids()) > 1:
            found.append(state.copy())
    return found


def _check_ranges(found: Analysis, legal: tuple[str, ...]) -> None:
    assert 0 <= found.win[0] <= 1 and abs(sum(found.win) - 1) < 1e-9
    assert len(found.stones) == NUM_STONES
    for pair in found.stones:
        assert min(pair) >= 0 and sum(pair) <= 1 + 1e-9
    assert len(found.best) == min(SHOWN, len(legal))
    assert [c.win for c in found.best] == sorted((c.win for c in found.best), reverse=True)
    assert all(c.action in legal and 0 <= c.win <= 1 for c in found.best)
    assert found.best[0].win == found.win[found.seat]


def test_values_are_in_range_and_the_same_for_a_seed() -> None:
    """Chances lie in 0..1 (a seat's pair sums to 1, a stone's to at most 1), at least three moves are
    listed best first, and the same view, budget and seed give the same analysis."""
    for state in positions("base", 5, every=13):
        seen = view(state, state.turn)
        found = analyse(seen, BUDGET, 1)
        _check_ranges(found, seen.legal)
        assert analyse(seen, BUDGET, 1) == found


def test_fewer_moves_are_listed_only_when_fewer_are_legal() -> None:
    """A claim step with one claim offers the claim and ``done``: both are listed, nothing more."""
    for state in random_states(Settings.of("base"), 2):
        if state.phase == Phase.CLAIM and len(state.legal_action_ids()) == 2:
            seen = view(state, state.turn)
            found = analyse(seen, BUDGET, 0)
            assert sorted(c.action for c in found.best) == sorted(seen.legal)
            return
    raise AssertionError("no claim step with a single claim")


def test_a_move_asked_for_is_measured_and_a_view_without_the_move_is_refused() -> None:
    """``also`` adds moves to those measured; the other seat's view or a spectator's cannot be analysed."""
    state = positions("base", 4)[1]
    seen = view(state, state.turn)
    found = analyse(seen, BUDGET, 0, also=(seen.legal[-1],))
    assert found.win_of(seen.legal[-1]) is not None
    for seat in (1 - state.turn, None):
        with pytest.raises(ValueError):
            analyse(view(state, seat), BUDGET)


def test_analyze_json_has_best_moves_and_chances() -> None:
    """``schotten analyze --json``: ``best`` (at least 3 entries, each an action and a win chance in
    0..1), ``win`` per seat, and per stone ``chance``; the same seed gives the same figures."""
    state = positions("base", 8)[2]
    args = ["analyze", format_position(state), "--json", "--iterations", str(BUDGET), "--seed", "4"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    legal = view(state, state.turn).legal
    assert len(data["best"]) >= 3
    assert all(entry["action"] in legal and 0 <= entry["win"] <= 1 for entry in data["best"])
    assert len(data["win"]) == 2 and abs(sum(data["win"]) - 1) < 0.01
    for stone in data["stones"]:
        assert len(stone["chance"]) == 2 and sum(stone["chance"]) <= 1.001
    assert json.loads(runner.invoke(app, args).output) == data


def test_analyze_text_prints_the_best_moves_and_the_chances() -> None:
    """The text output ends with the best moves and a table of the chances, round and stones."""
    state = positions("base", 8)[2]
    result = runner.invoke(app, ["analyze", format_position(state), "--iterations", str(BUDGET)])
    assert result.exit_code == 0, result.output
    assert "the best moves found" in result.output
    assert "round" in result.output and "stone 9" in result.output


def test_analyze_of_a_finished_game_has_no_chances() -> None:
    """A finished game has no move to analyse: ``win`` is null and ``best`` empty."""
    *_, last = random_states(Settings.of("base"), 1)
    result = runner.invoke(app, ["analyze", format_position(last), "--json", "--iterations", "5"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["win"] is None and data["best"] == []
