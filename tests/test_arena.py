"""The arena: seeded matches between two bots, forfeits, saved records, statistics and the command."""

from __future__ import annotations

import json
import math
import shlex
import sys
from pathlib import Path

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from schotten.arena import (
    ArenaResult,
    GameResult,
    Player,
    arena_command,
    elo,
    format_elo,
    normal_interval,
    play_game,
    play_match,
    player,
    record_name,
    wilson_interval,
)
from schotten.bots import RandomBot
from schotten.engine import Action, Settings, parse_action
from schotten.engine.record import read_record_file
from schotten.engine.view import View

runner = CliRunner()

JSON_KEYS = {
    "games", "wins", "losses", "draws", "win_rate", "ci95_low", "ci95_high", "elo", "elo_low",
    "elo_high", "forfeits", "bots", "variant", "seconds", "mean_move_seconds",
}


def _summary(result: ArenaResult) -> list[tuple[object, ...]]:
    return [(g.index, g.seed, g.a_seat, g.winner, g.scores, g.moves, g.forfeit) for g in result.games]


# ---------------------------------------------------------------------- bots that misbehave


class Flaky:
    """Plays at random, but raises at its third decision when its seed is a multiple of 4."""

    def __init__(self, seed: int) -> None:
        self.name = "flaky"
        self.fails = seed % 4 == 0
        self.asked = 0
        self.random = RandomBot(seed)

    def choose(self, seen: View) -> Action:
        self.asked += 1
        if self.fails and self.asked == 3:
            raise RuntimeError("boom")
        return self.random.choose(seen)


class Cheater:
    """Answers an action that is (almost always) not legal: a clan card it does not hold."""

    def __init__(self, seed: int) -> None:
        self.name = "cheater"

    def choose(self, seen: View) -> Action:
        assert seen.hand is not None
        card = next(c for c in ("9k", "8k", "7k") if c not in seen.hand)
        return parse_action(f"{card}@1")


class Chatter:
    """Answers text that is not an action at all."""

    def __init__(self, seed: int) -> None:
        self.name = "chatter"

    def choose(self, seen: View) -> Action:
        return "hello"  # type: ignore[return-value]


def _broken(seed: int) -> RandomBot:
    raise OSError("no such program")


# ---------------------------------------------------------------------- matches


def test_results_add_up_and_seats_alternate() -> None:
    """Game i is dealt from seed + i // 2 with A in seat i % 2; wins, losses and draws add up."""
    result = play_match("greedy", "random", games=6, variant="tactics", seed=10)
    assert result.n == 6 and result.wins + result.losses + result.draws == 6
    assert [g.index for g in result.games] == list(range(6))
    assert [g.seed for g in result.games] == [10, 10, 11, 11, 12, 12]
    assert [g.a_seat for g in result.games] == [0, 1, 0, 1, 0, 1]
    assert result.score == pytest.approx(sum(g.a_score for g in result.games) / 6)
    assert result.forfeits == (0, 0)
    for game in result.games:
        assert game.outcome == {None: "draw", game.a_seat: "win", 1 - game.a_seat: "loss"}[game.winner]
        assert game.points == (game.scores[game.a_seat], game.scores[1 - game.a_seat])
        assert sum(game.decisions) >= game.moves > 0


def test_same_seed_same_results_in_process_and_in_workers() -> None:
    """A match is reproducible from its seed, whether played in-process or by two worker processes."""
    first = play_match("greedy", "random", games=4, seed=3, jobs=1)
    again = play_match("greedy", "random", games=4, seed=3, jobs=1)
    parallel = play_match("greedy", "random", games=4, seed=3, jobs=2)
    assert _summary(first) == _summary(again) == _summary(parallel)
    assert parallel.jobs == 2


def test_play_game_seats_bot_a_where_asked() -> None:
    """The bot built from A plays ``a_seat``: a failing A forfeits that seat."""
    for seat in (0, 1):
        result = play_game(Player("broken", _broken), "random", seed=5, a_seat=seat)
        assert result.forfeit is not None and result.forfeit[0] == seat
        assert result.winner == 1 - seat and result.forfeited_by == "a"
        assert "broken could not start: OSError: no such program" in result.forfeit[1]


def test_saved_records_replay_to_the_same_outcome(tmp_path: Path) -> None:
    """--save writes game-0001.json, ...; each record loads back to the game's result and names."""
    result = play_match("random", "greedy", games=3, variant="expert", seed=7, save=tmp_path / "games")
    files = sorted((tmp_path / "games").iterdir())
    assert [f.name for f in files] == ["game-0001.json", "game-0002.json", "game-0003.json"]
    for game, path in zip(result.games, files, strict=True):
        state = read_record_file(path)
        assert state.outcome is not None and state.seed == game.seed
        assert (state.outcome.winner, state.outcome.scores) == (game.winner, game.scores)
        players = json.loads(path.read_text())["players"]
        assert players[game.a_seat] == "random" and players[1 - game.a_seat] == "greedy"


def test_same_bot_on_both_sides_is_named_by_side(tmp_path: Path) -> None:
    """With the same bot on both sides the record's players say which side was A."""
    play_match("random", "random", games=2, save=tmp_path)
    second = json.loads((tmp_path / "game-0002.json").read_text())
    assert second["players"] == ["random (B)", "random (A)"]


def test_a_bot_that_raises_forfeits_and_the_match_goes_on(tmp_path: Path) -> None:
    """Games where the bot raises are lost by forfeit with the reason in the record; the others are played."""
    result = play_match(Player("flaky", Flaky), "random", games=6, save=tmp_path)
    assert result.n == 6
    failed = [g for g in result.games if g.seed % 2 == 0]
    assert all(g.forfeited_by == "a" and g.outcome == "loss" for g in failed)
    assert all(g.forfeit is None for g in result.games if g.seed % 2 == 1)
    assert len(failed) == 4
    assert result.forfeits == (4, 0)
    assert result.forfeit_reasons() == [("flaky failed: RuntimeError: boom", 4)]
    state = read_record_file(tmp_path / "game-0001.json")
    assert state.forfeited == (0, "flaky failed: RuntimeError: boom")


@pytest.mark.parametrize(
    ("bot", "reason"),
    [(Cheater, "cheater answered '9k@1', which is not legal"), (Chatter, "chatter answered 'hello'")],
)
def test_an_illegal_or_malformed_answer_forfeits(bot: type, reason: str, tmp_path: Path) -> None:
    """An action that is not legal (or not an action) loses the game for that side, reason recorded."""
    result = play_match("random", Player(bot.__name__.lower(), bot), games=2, save=tmp_path)
    assert result.forfeits == (0, 2) and result.wins == 2
    for game in result.games:
        assert game.forfeit is not None and game.forfeit[1].startswith(reason)
    record = json.loads((tmp_path / "game-0002.json").read_text())
    assert record["forfeit"]["seat"] == 0 and record["forfeit"]["reason"].startswith(reason)


def test_unknown_bots_are_refused() -> None:
    """A spec that names no bot, an empty command or a bad quote is a ValueError, before any game."""
    with pytest.raises(ValueError, match="unknown bot 'deep-blue'"):
        player("deep-blue")
    with pytest.raises(ValueError, match="needs a command"):
        player("cmd:  ")
    with pytest.raises(ValueError, match="cannot read the command"):
        player("cmd:python 'mybot.py")
    with pytest.raises(ValueError, match="unknown variant"):
        play_match("random", "random", games=1, variant="chess")


def test_external_programs_play_and_fail_by_forfeit() -> None:
    """cmd:COMMAND runs a protocol program; one that exits at once forfeits, saying so."""
    python = shlex.quote(sys.executable)
    good = play_match(f"cmd:{python} -m schotten.protocol.program greedy --seed 1", "random", games=2)
    assert good.forfeits == (0, 0) and good.wins == 2
    dead = play_match("random", f"cmd:{python} -c pass", games=2)
    assert dead.forfeits == (0, 2)
    assert all("failed: the program" in (g.forfeit or (0, ""))[1] for g in dead.games)


def test_record_names_grow_with_the_match() -> None:
    """Record files sort in game order, with at least four digits."""
    assert record_name(0) == "game-0001.json"
    assert record_name(41, 100) == "game-0042.json"
    assert record_name(0, 10_000) == "game-00001.json"


# ---------------------------------------------------------------------- statistics


def test_wilson_interval_on_known_values() -> None:
    """5/10: 23.7% .. 76.3%; 0/10: 0 .. 27.8%; 10/10: 72.2% .. 100%; no games: 0 .. 1."""
    assert wilson_interval(0.5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0.0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(1.0, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson_interval(0.5, 0) == (0.0, 1.0)


def test_normal_interval_on_known_values() -> None:
    """Mean +- 1.96 sd / sqrt(n); draws narrow it; equal scores give a point; one game says nothing."""
    low, high = normal_interval([1.0, 0.0] * 5)
    assert (low, high) == pytest.approx((0.5 - 0.32670, 0.5 + 0.32670), abs=1e-4)
    assert normal_interval([1.0, 0.5] * 5) == pytest.approx((0.75 - 0.16335, 0.75 + 0.16335), abs=1e-4)
    assert normal_interval([1.0] * 8) == (1.0, 1.0)
    assert normal_interval([1.0]) == (0.0, 1.0)


def test_elo_on_known_values() -> None:
    """50% is 0 Elo, 75% about +190.8, 25% about -190.8; 0% and 100% are infinite."""
    assert elo(0.5) == 0
    assert elo(0.75) == pytest.approx(190.849, abs=1e-3)
    assert elo(0.25) == pytest.approx(-190.849, abs=1e-3)
    assert elo(0.0) == -math.inf and elo(1.0) == math.inf
    assert [format_elo(v) for v in (190.849, -35.2, -0.3, math.inf, -math.inf)] == [
        "+191", "-35", "0", "+inf", "-inf"
    ]


@given(st.floats(0.0, 1.0), st.integers(1, 5000))
def test_wilson_interval_holds_the_score(score: float, n: int) -> None:
    """The interval lies in [0, 1] and holds the observed score."""
    low, high = wilson_interval(score, n)
    assert 0.0 <= low <= score + 1e-12 and score - 1e-12 <= high <= 1.0


@given(st.floats(0.001, 0.999), st.floats(0.001, 0.999))
def test_elo_is_odd_and_increasing(s: float, t: float) -> None:
    """Elo(1 - s) = -Elo(s), and a higher score is a higher Elo."""
    assert elo(1 - s) == pytest.approx(-elo(s), abs=1e-6)
    if s < t:
        assert elo(s) < elo(t)


def _game(index: int, winner: int | None, a_seat: int = 0) -> GameResult:
    return GameResult(index, index, a_seat, winner, (5, 0), 40, None, (0.2, 0.1), (20, 10))


def test_arena_result_statistics() -> None:
    """Three wins and a loss: 75%, the Wilson interval on it, +191 Elo and the interval's Elo."""
    result = ArenaResult("a", "b", "base", 1, 0, (_game(3, 1, 1), _game(0, 0), _game(2, 0), _game(1, 1)), 4)
    assert [g.index for g in result.games] == [0, 1, 2, 3]
    assert (result.wins, result.losses, result.draws, result.score) == (3, 1, 0, 0.75)
    assert result.ci95 == wilson_interval(0.75, 4)
    assert result.elo == pytest.approx(190.849, abs=1e-3)
    assert result.elo_ci95 == (elo(result.ci95[0]), elo(result.ci95[1]))
    assert result.move_seconds == pytest.approx((0.01, 0.01))
    data = result.as_dict()
    assert data["win_rate"] == 0.75 and data["elo"] == pytest.approx(190.849, abs=1e-3)
    assert data["elo_high"] == pytest.approx(elo(wilson_interval(0.75, 4)[1]))


def test_infinite_elo_is_null_in_json() -> None:
    """A clean sweep: infinite Elo (null in JSON) but a finite lower end; the JSON is strict."""
    result = ArenaResult("a", "b", "base", 1, 0, (_game(0, 0), _game(1, 1, 1)), 2)
    assert result.elo == math.inf and math.isfinite(result.elo_ci95[0])
    data = json.loads(json.dumps(result.as_dict(), allow_nan=False))
    assert data["elo"] is None and data["elo_high"] is None
    assert data["elo_low"] == pytest.approx(elo(2 / (2 + 1.959964**2)))


def test_draws_count_half() -> None:
    """A win and a draw score 75%."""
    result = ArenaResult("a", "b", "base", 1, 0, (_game(0, 0), _game(1, None)), 2)
    assert (result.wins, result.draws, result.score) == (1, 1, 0.75)


# ---------------------------------------------------------------------- command line


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command("arena")(arena_command)

    @app.callback()
    def main() -> None:
        """The arena alone, as cli.py registers it."""

    return app


def test_command_json_has_the_figures(tmp_path: Path) -> None:
    """--json prints one JSON object with the counts, the interval, the Elo gap and more."""
    out = runner.invoke(_app(), ["arena", "greedy", "random", "--games", "4", "--jobs", "1",
                                 "--variant", "tactics", "--seed", "2", "--json", "--save", str(tmp_path)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert set(data) >= JSON_KEYS
    assert data["games"] == 4 == data["wins"] + data["losses"] + data["draws"]
    assert data["bots"] == {"a": "greedy", "b": "random"} and data["variant"] == "tactics"
    assert data["ci95_low"] <= data["win_rate"] <= data["ci95_high"]
    assert len(list(tmp_path.glob("game-*.json"))) == 4
    same = play_match("greedy", "random", games=4, variant="tactics", seed=2)
    assert (data["wins"], data["losses"], data["draws"]) == (same.wins, same.losses, same.draws)


def test_command_text_report() -> None:
    """Without --json: the record of A, its score with the Wilson interval, the Elo gap, forfeits."""
    out = runner.invoke(_app(), ["arena", "random", "random", "-n", "3", "-j", "1", "--seed", "4"])
    assert out.exit_code == 0, out.output
    result = play_match("random", "random", games=3, seed=4)
    assert f"A wins {result.wins}, losses {result.losses}, draws {result.draws}" in out.stdout
    assert "95% CI" in out.stdout and "Wilson" in out.stdout and "Elo difference" in out.stdout
    assert "forfeits: A 0, B 0" in out.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nobody", "random"], "unknown bot 'nobody'"),
        (["random", "random", "--variant", "go"], "unknown variant"),
    ],
)
def test_command_refuses_bad_arguments(args: list[str], message: str) -> None:
    """An unknown bot or variant stops before any game, with exit code 2 and a message."""
    out = runner.invoke(_app(), ["arena", *args, "-n", "1"])
    assert out.exit_code == 2 and message in out.output


def test_settings_reach_the_games(tmp_path: Path) -> None:
    """The variant and rounds given to play_game are those of the game played and recorded."""
    settings = Settings.of("tactics", rounds=3)
    result = play_game("greedy", "random", seed=1, settings=settings, record=tmp_path / "g.json")
    state = read_record_file(tmp_path / "g.json")
    assert state.settings == settings
    assert state.outcome is not None and len(state.outcome.rounds) >= 2
    assert (state.outcome.winner, state.outcome.scores) == (result.winner, result.scores)
