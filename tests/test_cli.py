"""The ``schotten`` command: whole games through piped input, replay, analyze and bench."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from schotten.benchmark import proof_call, proof_cases
from schotten.bots import decide, make_bot
from schotten.cli import app, public_move
from schotten.engine import Action, GameState, Kind, Phase, Settings, parse_action
from schotten.engine.cards import NUM_STONES, card_str
from schotten.engine.explain import claim_proof
from schotten.engine.position import format_position
from schotten.engine.record import ENDINGS, load_record, write_record_file

runner = CliRunner()

BAD_LINES = ("7z@3", "claim 3", "help", "?", "why 1", "why 12", "claim?", "board", "legend")
"""Lines that are not moves (or not legal ones): the game must answer and go on."""


def _pick(actions: list[Action], rng: random.Random) -> Action:
    claims = [a for a in actions if a.kind == Kind.CLAIM]
    return claims[0] if claims else rng.choice(actions)


def scripted_game(variant: str, seed: int, opponent: str, rounds: int = 1) -> tuple[list[str], GameState]:
    """The lines a person types in a game against ``opponent`` (or hot seat), and the final state.

    Mirrors ``schotten play --seat 1 --first 1``: the bot is ``make_bot(opponent, seed)``;
    a decision with one legal action is played without input; in hot seat, each change
    of player first reads one Enter.
    """
    state = GameState.new(Settings.of(variant, rounds, first_player=0), seed)
    bot = None if opponent == "human" else make_bot(opponent, seed)
    rng = random.Random(seed)
    lines: list[str] = []
    shown: int | None = None
    while not state.is_over:
        if bot is not None and state.turn == 1:
            state.apply(decide(bot, state))
            continue
        legal = state.legal_actions()
        if len(legal) > 1:
            if bot is None and shown != state.turn:
                lines.append("")
                shown = state.turn
            lines.append(str(_pick(legal, rng)))
        state.apply(lines[-1] if len(legal) > 1 else legal[0])
    return lines, state


def _play(args: list[str], lines: list[str]) -> str:
    result = runner.invoke(app, ["play", *args], input="".join(f"{line}\n" for line in lines))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(("variant", "seed"), [("base", 3), ("tactics", 8), ("expert", 4)])
def test_whole_game_typed_against_the_random_bot(tmp_path: Path, variant: str, seed: int) -> None:
    """Moves piped in play a whole game to its end; the saved record replays to the same game."""
    lines, expected = scripted_game(variant, seed, "random")
    record = tmp_path / "game.json"
    args = ["--variant", variant, "--seed", str(seed), "--opponent", "random", "--first", "1"]
    output = _play([*args, "--save", str(record)], lines)
    assert expected.outcome is not None
    assert "Result" in output
    assert ("wins" in output) != (expected.outcome.winner is None)
    assert f"record saved to {record}" in output
    saved = load_record(record.read_text(encoding="utf-8"))
    assert saved.history == expected.history


def test_bad_input_is_explained_and_the_game_goes_on(tmp_path: Path) -> None:
    """Malformed and illegal moves print the engine's message (R3.3 here) and the game continues."""
    lines, expected = scripted_game("base", 5, "greedy")
    record = tmp_path / "game.json"
    args = ["--seed", "5", "--opponent", "greedy", "--first", "1", "--save", str(record)]
    output = _play(args, [*BAD_LINES, *lines])
    assert "'7z' is not a card" in output
    assert "claim after playing a card" in output
    assert "legal moves:" in output
    assert "you may not claim stone 1" in output
    assert "write why and a stone number" in output
    assert "none of your sides" in output
    assert "type help" in output
    assert load_record(record.read_text(encoding="utf-8")).history == expected.history


def test_hot_seat_game_hides_each_hand_from_the_other_player() -> None:
    """Two people at one keyboard: a hand is shown only after its owner pressed Enter (R10.2)."""
    lines, expected = scripted_game("tactics", 12, "human")
    output = _play(["--variant", "tactics", "--seed", "12", "--opponent", "human", "--first", "1"], lines)
    assert expected.is_over and "Result" in output
    turns = output.split("Pass the keyboard to ")[1:]
    assert len(turns) > 10
    for turn in turns[:-1]:
        player, other = ("P1", "P2") if turn.startswith("P1") else ("P2", "P1")
        assert f"{player} player {player[1]}  hand:" in turn
        assert f"{other} player {other[1]}  hand:" not in turn


def test_end_of_input_stops_cleanly_and_saves(tmp_path: Path) -> None:
    """EOF in the middle of a game ends the command without error; --save keeps the moves so far."""
    lines, full = scripted_game("base", 2, "random")
    record = tmp_path / "partial.json"
    output = _play(["--seed", "2", "--opponent", "random", "--first", "1", "--save", str(record)], lines[:3])
    assert "End of input" in output
    state = load_record(record.read_text(encoding="utf-8"))
    assert not state.is_over
    assert len(state.history) >= 3
    assert state.history == full.history[: len(state.history)]


def test_quit_stops_the_game() -> None:
    """``quit`` ends the game at once."""
    output = _play(["--seed", "1"], ["quit", "7b@1"])
    assert "Game stopped." in output
    assert "Result" not in output


@pytest.mark.parametrize("variant", ["base", "tactics", "expert", "expert-base"])
def test_bot_against_bot_through_the_command(variant: str) -> None:
    """The hidden --autoplay lets a bot play the person's seat: a whole match of two rounds (R9)."""
    args = ["--variant", variant, "--rounds", "2", "--seed", "9", "--opponent", "greedy"]
    output = _play([*args, "--autoplay", "random"], [])
    assert "Round 2 " in output
    assert "Result" in output


def test_bad_options_are_refused() -> None:
    """An unknown variant or seat is a usage error, not a crash."""
    assert runner.invoke(app, ["play", "--variant", "chess"]).exit_code == 2
    assert runner.invoke(app, ["play", "--seat", "3"]).exit_code == 2
    assert runner.invoke(app, ["play", "--autoplay", "clever"]).exit_code == 2


def test_public_move_hides_the_other_seats_recruiter_return() -> None:
    """R10.2: a Recruiter return reads ``return clan`` to everyone but the seat that made it."""
    action = parse_action("return 7b")
    assert public_move(action, 0, 0) == "return 7b"
    assert public_move(action, 0, 1) == "return clan"
    assert public_move(parse_action("return JO"), 1, None) == "return tactic"
    assert public_move(parse_action("7b@3"), 0, 1) == "7b@3"


# ---------------------------------------------------------------------- replay


def _saved_game(tmp_path: Path, seed: int = 6) -> tuple[Path, GameState]:
    record = tmp_path / "game.json"
    args = ["--variant", "tactics", "--seed", str(seed), "--opponent", "random", "--autoplay", "greedy"]
    _play([*args, "--save", str(record)], [])
    return record, load_record(record.read_text(encoding="utf-8"))


def test_replay_prints_every_position(tmp_path: Path) -> None:
    """Non-interactive replay prints the deal and the position after each move."""
    record, state = _saved_game(tmp_path)
    result = runner.invoke(app, ["replay", str(record), "--all"])
    assert result.exit_code == 0, result.output
    moves = len(state.history)
    assert result.output.count(f" of {moves} ") == moves + 1
    assert "Result" in result.output


def test_replay_for_one_seat_never_shows_the_other_hand(tmp_path: Path) -> None:
    """R10: replayed for seat 2, no position shows seat 1's hand."""
    record, _ = _saved_game(tmp_path)
    result = runner.invoke(app, ["replay", str(record), "--all", "--seat", "2"])
    assert result.exit_code == 0, result.output
    assert "hand: " in result.output
    assert not any(line.startswith("P1 ") and "hand: " in line for line in result.output.splitlines())


def test_replay_steps_forward_and_back(tmp_path: Path) -> None:
    """Enter goes to the next position, b back, q quits."""
    record, _ = _saved_game(tmp_path)
    result = runner.invoke(app, ["replay", str(record), "--step"], input="\n\nb\nq\n")
    assert result.exit_code == 0, result.output
    headers = [line.strip("─ ").split() for line in result.output.splitlines() if " of " in line]
    assert [h[1] for h in headers if h[0] == "position"] == ["0", "1", "2", "1"]


def test_replay_of_a_corrupt_record_says_why(tmp_path: Path) -> None:
    """A tampered record is refused with the record error (the move at fault)."""
    record, _ = _saved_game(tmp_path)
    data = json.loads(record.read_text(encoding="utf-8"))
    data["actions"][0] = "claim 9"
    record.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["replay", str(record), "--all"])
    assert result.exit_code == 1
    assert "move 1 'claim 9' is illegal" in result.output


@pytest.mark.parametrize(
    ("ending", "said"),
    [
        ({"reason": "time", "seat": 1}, "P2 bob ran out of time"),
        ({"reason": "resigned", "seat": 0}, "P1 ann resigned"),
        ({"reason": "aborted", "seat": 1}, "P2 bob aborted the game"),
        ({"reason": "abandoned", "seat": None}, "the game was abandoned"),
    ],
)
def test_replay_of_a_version_2_record_says_how_it_ended(
    tmp_path: Path, ending: dict[str, Any], said: str
) -> None:
    """A record with a clock, decision times and an ending off the board replays, its last frame saying so."""
    state = GameState.new(Settings.of("tactics"), 3)
    for _ in range(5):
        state.apply(state.legal_actions()[0])
    if ending["reason"] in ENDINGS[:3]:
        state.forfeit(ending["seat"], ending["reason"])
    path = tmp_path / "game.json"
    write_record_file(path, state, ["ann", "bob"], time_control={"initial": 60, "increment": 1},
                      decision_ms=[900, 1200, None, 30, 0], ending=ending)
    result = runner.invoke(app, ["replay", str(path), "--all"])
    assert result.exit_code == 0, result.output
    frames = 5 + (state.forfeited is not None)
    assert result.output.count(f" of {frames} ") == frames + 1
    before, last = result.output.split(f"position {frames} of {frames}")
    assert said in last and said not in before


# ---------------------------------------------------------------------- analyze


def _position_with_proofs() -> GameState:
    """A mid-game tactics position in which some claim is proved against an incomplete side (R5.2)."""
    for seed in range(50):
        state = GameState.new(Settings.of("tactics"), seed)
        bots = (make_bot("random", seed), make_bot("random", seed + 1))
        while not state.is_over:
            if state.phase == Phase.PLAY and any(
                state.can_claim(seat, s) and not state.is_complete(1 - seat, s)
                for seat in (0, 1)
                for s in range(NUM_STONES)
            ):
                return state
            state.apply(decide(bots[state.turn], state))
    raise AssertionError("no position with an R5.2 proof")


def test_analyze_json_gives_formations_and_proofs_for_every_stone() -> None:
    """--json: one object; each stone has both sides and both seats' claims, matching the engine."""
    state = _position_with_proofs()
    result = runner.invoke(app, ["analyze", format_position(state), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["turn"] == state.turn + 1
    assert [s["stone"] for s in data["stones"]] == list(range(1, 10))
    reasons = []
    for stone, info in enumerate(data["stones"]):
        for seat in (0, 1):
            side, claim = info["sides"][seat], info["claims"][seat]
            assert side["cards"] == [card_str(c) for c in state.sides[seat][stone]]
            assert side["complete"] == state.is_complete(seat, stone)
            assert (side["formation"] is not None) == side["complete"]
            assert claim["holds"] == state.can_claim(seat, stone)
            proof = claim_proof(state, seat, stone)
            assert (claim["kind"], claim["reason"]) == (proof.kind, proof.text)
            reasons.append(claim["reason"])
    assert any("R5.2" in reason for reason in reasons)


def test_analyze_text_reads_a_position_file(tmp_path: Path) -> None:
    """Text output, from a file holding the position: a section per stone with the proofs."""
    state = _position_with_proofs()
    path = tmp_path / "position.txt"
    path.write_text(format_position(state) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["analyze", str(path)])
    assert result.exit_code == 0, result.output
    for stone in range(1, 10):
        assert f"stone {stone}" in result.output
    assert "(R5" in result.output


def test_analyze_refuses_a_bad_position() -> None:
    """A malformed position prints the notation error and exits with status 1."""
    result = runner.invoke(app, ["analyze", "tactics 1/1 0"])
    assert result.exit_code == 1
    assert "✗" in result.output


# ---------------------------------------------------------------------- bench and entry points


def test_bench_short_json_has_the_figures() -> None:
    """bench --short --json prints one JSON object with every headline figure."""
    result = runner.invoke(app, ["bench", "--short", "--json", "--games", "20"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    for key in ("base_games_per_s", "tactics_games_per_s", "claim_proofs_per_s",
                "claim_proof_us_median", "claim_proof_us_max", "claim_proof_us_p99", "actions_per_s"):
        assert figures[key] > 0
    assert figures["claim_proof_us_median"] <= figures["claim_proof_us_p99"] <= figures["claim_proof_us_max"]
    assert figures["games"] == 20


def test_python_dash_m_runs_the_command() -> None:
    """``python -m schotten`` is the same command."""
    command = [sys.executable, "-m", "schotten", "--help"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0
    for name in ("play", "replay", "analyze", "bench"):
        assert name in done.stdout


def test_bench_positions_are_real_r5_2_proofs() -> None:
    """Every timed position: the mover's side of an unclaimed stone is complete, the other is not."""
    cases = proof_cases(40, seed=3)
    assert len(cases) == 40
    for case in cases:
        state, stone = case.state, case.stone
        assert case.seat == state.turn and state.owner[stone] < 0
        assert state.is_complete(case.seat, stone) and not state.is_complete(1 - case.seat, stone)
        found = proof_call(case)()
        assert (found is None) == state.can_claim(case.seat, stone)


@pytest.mark.parametrize("command", [[], ["play"], ["replay"], ["analyze"], ["review"], ["bench"], ["serve"],
                                     ["arena"], ["bot"]])
def test_help_shows_no_value_type_beside_a_flag(command: list[str]) -> None:
    """A flag (``--help``, ``--json``, ``--step/--all``) takes no value: its help line shows no
    ``<bool>`` (issue 26); options that take one still show their type (``--port <int range>``)."""
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "--help" in result.output and "<bool>" not in result.output
    if command == ["serve"]:
        assert "<int range>" in result.output
