"""Forfeits: a game lost at once by one seat (a resignation, a bot's bad answer), kept in records."""

import json

import pytest

from schotten.engine import GameState, IllegalActionError, RecordError, Settings
from schotten.engine.record import dumps_record, load_record
from schotten.engine.state import Phase, Reason
from schotten.engine.view import view


def _started() -> GameState:
    state = GameState.new(Settings.of("tactics", rounds=3, first_player=0), seed=11)
    state.apply(state.legal_actions()[0])
    return state


def test_forfeit_ends_the_match_for_the_opponent() -> None:
    """The forfeiting seat loses the round (5 points to the other, R9.2) and the match."""
    state = _started()
    state.forfeit(1, "no answer within 2 s")
    assert state.phase == Phase.OVER and state.legal_actions() == []
    assert state.outcome is not None and state.outcome.winner == 0
    assert state.round_outcomes[-1].reason == Reason.FORFEIT
    assert state.scores[0] == 5
    assert view(state, 1).forfeit == (1, "no answer within 2 s")


def test_forfeit_after_the_end_is_refused() -> None:
    """A finished game cannot be forfeited; nothing changes."""
    state = _started()
    state.forfeit(0, "resigned")
    with pytest.raises(IllegalActionError, match="over"):
        state.forfeit(1, "resigned")
    assert state.forfeited == (0, "resigned")


def test_record_keeps_the_forfeit_and_replays_it() -> None:
    """The record names the seat and the reason; loading it reaches the same result."""
    state = _started()
    state.forfeit(1, "answered '7z@3', which is not an action")
    text = dumps_record(state)
    assert json.loads(text)["forfeit"] == {"seat": 1, "reason": "answered '7z@3', which is not an action"}
    loaded = load_record(text)
    assert loaded.outcome == state.outcome and loaded.forfeited == state.forfeited


@pytest.mark.parametrize(
    "forfeit",
    [
        {"seat": 2, "reason": "x"},
        {"seat": 0},
        {"seat": 0, "reason": 3},
        "seat 0",
        {"seat": True, "reason": "x"},
    ],
)
def test_malformed_forfeit_is_refused(forfeit: object) -> None:
    """A forfeit field that is not {seat: 0 or 1, reason: text} is a corrupt record."""
    state = _started()
    state.forfeit(1, "resigned")
    data = json.loads(dumps_record(state))
    data["forfeit"] = forfeit
    with pytest.raises(RecordError, match="'forfeit' must be"):
        load_record(data)


def test_removing_the_forfeit_is_detected() -> None:
    """A record whose forfeit was removed no longer matches its stored result."""
    state = _started()
    state.forfeit(1, "resigned")
    data = json.loads(dumps_record(state))
    del data["forfeit"]
    with pytest.raises(RecordError, match="result"):
        load_record(data)
