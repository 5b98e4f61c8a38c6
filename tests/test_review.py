"""Game review (``schotten.bots.review``, ``schotten review``): each decision judged from the mover's view
(R10 itself: ``tests/test_eye_r10.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from schotten.bots.heuristic import HeuristicBot
from schotten.bots.review import MARKS, Decision, mark_of, review
from schotten.cli import app
from schotten.engine import GameState, Settings
from schotten.engine.record import Record, record_of, states_of
from schotten.engine.view import view
from tests.randgame import random_states

BUDGET = 40
"""A small review budget per decision (fast tests)."""

PLANT_SEED, PLANT_AT = 6, 54
"""A random base game (``tests.randgame``, seed 6) at move 55, the clan deck empty: the mover holds four
stones and wins a fifth, and the round, with 7b@9 (total 19 against 14, R4, R6.1); 2k@9 ties the totals,
so stone 9 goes to the other side, completed first (R4), and the round is as good as lost (nearly no
playout of the analysis wins it)."""
WINNING, LOSING = "7b@9", "2k@9"

runner = CliRunner()


def planted(move: str) -> Record:
    """The planted game: the random moves up to ``PLANT_AT``, ``move``, then heuristic play to the end."""
    *_, state = random_states(Settings.of("base"), PLANT_SEED, stop_after=PLANT_AT)
    state = state.copy()
    assert {WINNING, LOSING} <= set(view(state, state.turn).legal)
    state.apply(move)
    bots = (HeuristicBot(0), HeuristicBot(1))
    while not state.is_over:
        state.apply(bots[state.turn].choose(view(state, state.turn)))
    return record_of(state)


def test_the_planted_blunder_is_marked_and_the_best_move_is_not() -> None:
    """The record plays 2k@9 where 7b@9 wins at once: a blunder, with 7b@9 the best found and a drop
    of nearly the whole round; played instead, 7b@9 gets no mark."""
    number = PLANT_AT + 1
    [lost] = review(planted(LOSING), BUDGET, 0, only={number})
    assert (lost.move, lost.action, lost.best, lost.mark) == (number, LOSING, WINNING, "blunder")
    assert lost.win_before == 1.0 and lost.win_after < 0.3
    [won] = review(planted(WINNING), BUDGET, 0, only={number})
    assert (won.action, won.best, won.mark, won.win_after) == (WINNING, WINNING, None, 1.0)


def test_marks_follow_the_thresholds() -> None:
    """A drop of 0.10 is an inaccuracy, 0.20 a mistake, 0.30 a blunder (docs/review.md); less, no mark."""
    assert [mark_of(d) for d in (0.0, 0.09, 0.10, 0.19, 0.20, 0.29, 0.30, 1.0)] == [
        None, None, "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]
    assert [name for _, name in MARKS] == ["blunder", "mistake", "inaccuracy"]


def _short_game() -> Record:
    """A heuristic game's first dozen moves (a record of a game in progress is reviewed the same way)."""
    state = GameState.new(Settings.of("base"), 3)
    bots = (HeuristicBot(3), HeuristicBot(4))
    for _ in range(12):
        state.apply(bots[state.turn].choose(view(state, state.turn)))
    return record_of(state)


def test_every_unforced_decision_of_both_seats_is_reviewed() -> None:
    """One entry per decision with a choice, both seats, in order; chances in 0..1, the drop consistent
    with the mark, and a move that is the best found never marked; the same seed, the same review."""
    record = _short_game()
    states = list(states_of(record))
    expected = [n for n, s in enumerate(states[:-1], start=1) if len(s.legal_action_ids()) > 1]
    found = review(record, BUDGET, 2)
    assert [d.move for d in found] == expected
    assert {d.seat for d in found} == {0, 1}
    for d in found:
        assert d.seat == states[d.move - 1].turn and d.action == record["actions"][d.move - 1]
        assert 0 <= d.win_after <= d.win_before <= 1
        assert d.mark == (None if d.action == d.best else mark_of(d.win_before - d.win_after))
    assert review(record, BUDGET, 2) == found


def test_review_command_prints_the_decisions(tmp_path: Path) -> None:
    """``schotten review FILE --json``: one object with a ``decisions`` list of the API's fields; the text
    output is a table with a row per decision."""
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_short_game()), encoding="utf-8")
    result = runner.invoke(app, ["review", str(path), "--json", "--iterations", str(BUDGET)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["iterations"] == BUDGET and data["decisions"]
    for entry in data["decisions"]:
        assert set(entry) == {"move", "seat", "action", "best", "win_before", "win_after", "mark"}
        assert entry["seat"] in (1, 2) and entry["mark"] in (None, "inaccuracy", "mistake", "blunder")
    text = runner.invoke(app, ["review", str(path), "--iterations", str(BUDGET)])
    assert text.exit_code == 0 and "win played" in text.output


def test_review_command_refuses_a_bad_record(tmp_path: Path) -> None:
    """A file that is not a record: the record's error and status 1."""
    path = tmp_path / "bad.json"
    path.write_text("{}", encoding="utf-8")
    result = runner.invoke(app, ["review", str(path)])
    assert result.exit_code == 1 and "✗" in result.output


def test_decision_as_json_numbers_seats_from_one() -> None:
    """The JSON entry: seat from 1, chances to three decimals."""
    entry = Decision(3, 1, "5b@2", "6b@2", 0.81234, 0.5, "blunder").as_dict()
    assert entry == {"move": 3, "seat": 2, "action": "5b@2", "best": "6b@2",
                     "win_before": 0.812, "win_after": 0.5, "mark": "blunder"}


def test_progress_is_told_after_each_decision() -> None:
    """``progress(done, total)`` after each decision reviewed (``only``: those move numbers alone)."""
    record = _short_game()
    told: list[tuple[int, int]] = []
    found = review(record, 8, 0, progress=lambda done, total: told.append((done, total)), only={1, 2, 3})
    assert [d.move for d in found] == [1, 2, 3]
    assert told == [(1, 3), (2, 3), (3, 3)]
