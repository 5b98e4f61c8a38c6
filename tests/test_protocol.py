"""The text protocol (docs/protocol.md): lines, views as JSON, our bots as programs, external bots.

External programs are the small bots of ``tests/protocol_bots`` and our own bots run
with ``schotten.protocol.program``. Time limits are short (0.5-1 s) and never asserted
on: a failure must give ``BotFailure`` with a clear reason and leave no process behind.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from schotten.bots import Bot, RandomBot
from schotten.engine import GameState, Settings
from schotten.engine.cards import card_str
from schotten.engine.view import view
from schotten.protocol import BotFailure, ExternalBot, GameOver, NewGame, ProtocolError, view_from_dict
from schotten.protocol import messages as M
from schotten.protocol.program import bot_command, serve

from .randgame import ALL_SETTINGS, random_game, random_states

ROOT = Path(__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parent / "protocol_bots"
PROGRAM = [sys.executable, "-c", "from schotten.protocol.program import main; main()"]
LIMIT = 2.0
LINUX = Path("/proc/self/stat").exists()


def script(name: str, *args: str) -> list[str]:
    """The command running one of the test bots of ``tests/protocol_bots``."""
    return [sys.executable, str(BOTS / f"{name}.py"), *args]


def play(settings_: Settings, seed: int, bots: list[Bot]) -> GameState:
    """A whole game between ``bots`` (seat 0, seat 1), each asked with its seat's view only."""
    state = GameState.new(settings_, seed)
    while not state.is_over:
        state.apply(bots[state.turn].choose(view(state, state.turn)))
    return state


# ---------------------------------------------------------------- processes (Linux /proc)


def processes() -> list[tuple[int, int, int, str]]:
    """Every process as (pid, parent pid, process group, state letter)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            found.append((int(entry.name), int(fields[1]), int(fields[2]), fields[0]))
    return found


def children() -> set[int]:
    """The pids of this test process's children, zombies included."""
    me = os.getpid()
    return {pid for pid, parent, _, _ in processes() if parent == me}


def alive_in_group(group: int, settle: float = 0.0) -> list[int]:
    """The processes of a process group that still run (not zombies).

    With ``settle``, wait up to that many seconds for killed processes to finish dying
    (a signal is delivered asynchronously; only our direct child is waited for).
    """
    deadline = time.monotonic() + settle
    while True:
        alive = [pid for pid, _, grp, state in processes() if grp == group and state not in "ZX"]
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.01)


@pytest.fixture
def no_leftovers() -> Iterator[None]:
    """Check that the test leaves no child process behind, not even a zombie."""
    before = children() if LINUX else set()
    yield
    if LINUX:
        assert children() <= before


# ---------------------------------------------------------------- lines


def test_lines_round_trip() -> None:
    game = NewGame("expert-base", 3, 1)
    assert M.newgame_line(game) == "newgame expert-base 3 1"
    assert M.parse_newgame(M.split_line(M.newgame_line(game))[1]) == game
    for result in (GameOver(1, (2, 5)), GameOver(None, (3, 3))):
        assert M.parse_gameover(M.split_line(M.gameover_line(result))[1]) == result
    assert M.gameover_line(GameOver(None, (3, 3))) == "gameover draw 3 3"
    assert M.go_line(500) == "go 500" and M.parse_go("500") == 500
    assert M.go_line(None) == "go" and M.parse_go("") is None
    legal = ["7b@1", "claim 3", "draw clan", "take 7b@3"]
    assert M.legal_line(legal) == "legal 7b@1, claim 3, draw clan, take 7b@3"
    assert M.parse_legal(M.split_line(M.legal_line(legal))[1]) == legal
    assert M.split_line("  MOVE   claim 3 \r\n") == ("move", "claim 3")
    assert M.split_line("\n") == ("", "")
    assert M.one_line("a\nb\tc é") == "a b c ?"


@pytest.mark.parametrize(
    ("parse", "text", "says"),
    [
        (M.parse_newgame, "chess 1 0", "newgame <variant> <rounds> <seat>"),
        (M.parse_newgame, "base 1 2", "newgame <variant> <rounds> <seat>"),
        (M.parse_gameover, "2 1 1", "gameover <0|1|draw>"),
        (M.parse_go, "soon", "whole number of milliseconds"),
        (M.parse_view, "{not json", "not valid JSON"),
    ],
)
def test_malformed_lines_are_named(parse: object, text: str, says: str) -> None:
    assert callable(parse)
    with pytest.raises(ProtocolError, match=re.escape(says)):
        parse(text)


def test_view_line_is_one_ascii_line_of_the_view() -> None:
    state = random_game(Settings.of("expert"), 3, stop_after=40)
    state.forfeit(0, "gave up\nwith a line break, é")
    seen = view(state, 1)
    line = M.view_line(seen)
    assert line.isascii() and "\n" not in line
    assert json.loads(line.removeprefix("view ")) == seen.to_dict()


# ---------------------------------------------------------------- view_from_dict


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(ALL_SETTINGS), st.integers(0, 10_000), st.sampled_from((0, 1, None)))
def test_view_from_dict_reads_back_every_view(settings_: Settings, seed: int, seat: int | None) -> None:
    for state in random_states(settings_, seed):
        seen = view(state, seat)
        assert view_from_dict(json.loads(json.dumps(seen.to_dict()))) == seen


def test_view_from_dict_reads_a_finished_and_forfeited_game() -> None:
    state = random_game(Settings.of("tactics", rounds=3), 5)
    assert view_from_dict(view(state, 0).to_dict()) == view(state, 0)
    state = random_game(Settings.of("expert"), 5, stop_after=30)
    state.forfeit(1, "no answer within 1 s")
    assert view_from_dict(view(state, 1).to_dict()) == view(state, 1)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.pop("hand"), "view misses hand"),
        (lambda d: d.update(extra=1), "view has unknown fields extra"),
        (lambda d: d.update(turn="0"), "view.turn should be of type int, not str"),
        (lambda d: d.update(turn=True), "view.turn should be of type int, not bool"),
        (lambda d: d.update(scores=[0]), "view.scores should have 2 items, not 1"),
        (lambda d: d.update(hand="7b"), "view.hand should be a list"),
        (lambda d: d["stones"][4].update(owner=None), "view.stones[4].owner should be of type int"),
        (
            lambda d: d["stones"][2].update(complete=[0, 0]),
            "view.stones[2].complete[0] should be of type bool",
        ),
        (lambda d: d.update(under_clan=[{"card": "7b"}]), "view.under_clan[0] misses from_bottom"),
        (lambda d: d.update(result=[]), "view.result should be an object"),
    ],
)
def test_view_from_dict_names_the_bad_field(change: object, says: str) -> None:
    data = view(GameState.new(Settings.of("tactics"), 1), 0).to_dict()
    data = json.loads(json.dumps(data))
    assert callable(change)
    change(data)
    with pytest.raises(ProtocolError, match=re.escape(says)):
        view_from_dict(data)


# ---------------------------------------------------------------- serve (in process)


def session(bot: Bot, lines: list[str]) -> list[str]:
    """What ``serve`` answers to ``lines``."""
    out = io.StringIO()
    serve(bot, io.StringIO("".join(f"{line}\n" for line in lines)), out)
    return out.getvalue().splitlines()


def test_serve_greets_and_answers_go_with_a_legal_move() -> None:
    state = GameState.new(Settings.of("tactics"), 2)
    seen = view(state, state.turn)
    answer = session(
        RandomBot(1),
        [
            "schotten 1",
            "newgame tactics 1 0",
            "something new",
            M.view_line(seen),
            M.legal_line(seen.legal),
            "go 1000",
            "gameover 0 5 0",
            "quit",
            "go",
        ],
    )
    assert answer[:2] == ["name random", "ready"]
    assert len(answer) == 3
    word, rest = M.split_line(answer[2])
    assert word == "move" and rest in seen.legal


def test_serve_plays_like_the_bot_itself() -> None:
    state = GameState.new(Settings.of("expert"), 4)
    ours, direct = RandomBot(9), RandomBot(9)
    while not state.is_over and len(state.history) < 60:
        seen = view(state, state.turn)
        answer = session(ours, [M.view_line(seen), "go"])
        expected = direct.choose(seen)
        assert answer == [f"move {expected}"]
        state.apply(expected)


def test_serve_answers_error_when_it_cannot_act() -> None:
    answer = session(RandomBot(1), ["schotten 2", "go", "view {}", "newgame chess 1 0", "go 100"])
    assert len(answer) == 5
    assert all(line.startswith("error ") for line in answer)
    assert "speaks protocol version 1" in answer[0]
    assert "without a view" in answer[1]
    assert "view misses" in answer[2]


def test_bot_command_serves_stdin() -> None:
    app = typer.Typer()
    app.command()(bot_command)
    runner = CliRunner()
    result = runner.invoke(app, ["greedy", "--seed", "1"], input="schotten 1\nquit\n")
    assert result.exit_code == 0
    assert result.output.splitlines() == ["name greedy", "ready"]
    result = runner.invoke(app, ["nobody"], input="quit\n")
    assert result.exit_code != 0
    assert "unknown bot 'nobody'" in result.output


# ---------------------------------------------------------------- ExternalBot: whole games


def test_our_random_bot_as_a_program_plays_as_it_does_in_process(no_leftovers: None) -> None:
    for settings_, seed in ((Settings.of("tactics"), 11), (Settings.of("expert-base", rounds=2), 12)):
        with ExternalBot([*PROGRAM, "random", "--seed", "1"], time_limit=LIMIT) as program:
            remote = play(settings_, seed, [program, RandomBot(2)])
            assert program.name == "random"
        local = play(settings_, seed, [RandomBot(1), RandomBot(2)])
        assert remote.is_over and remote.history == local.history
        assert remote.forfeited is None


def test_handshake_then_lazy_start_and_quit(no_leftovers: None) -> None:
    said: list[str] = []
    bot = ExternalBot([*PROGRAM, "greedy"], time_limit=LIMIT, echo=said.append)
    assert bot.pid is None and bot.name == "greedy"
    bot.start()
    assert said == ["> schotten 1", "< name greedy", "< ready"]
    assert bot.pid is not None
    bot.close()
    bot.close()
    assert said[-1] == "> quit" and bot.pid is None


def test_the_minimal_bot_of_the_docs_plays_whole_games(no_leftovers: None) -> None:
    docs = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    example = docs.split("## A minimal bot", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert example == (BOTS / "minimal.py").read_text(encoding="utf-8")
    for variant in ("base", "tactics", "expert"):
        with ExternalBot(script("minimal"), time_limit=LIMIT) as minimal:
            state = play(Settings.of(variant), 21, [RandomBot(3), minimal])
            assert minimal.name == "minimal"
        assert state.is_over and state.forfeited is None


def test_a_chatty_bot_is_fine(no_leftovers: None) -> None:
    with ExternalBot(script("chatter"), time_limit=LIMIT) as chatty:
        state = play(Settings.of("tactics"), 8, [chatty, RandomBot(4)])
        assert chatty.name == "chatty bot"
        assert "done thinking" in chatty.infos
        assert chatty.stderr_tail and chatty.stderr_tail[-1].startswith("debug ")
    assert state.is_over and state.forfeited is None


def test_one_program_for_several_games(no_leftovers: None) -> None:
    said: list[str] = []
    with ExternalBot([*PROGRAM, "random", "--seed", "5"], time_limit=LIMIT, echo=said.append) as program:
        for seed, seat in ((1, 0), (2, 1), (3, 1)):
            bots: list[Bot] = [RandomBot(seed), RandomBot(seed)]
            bots[seat] = program
            state = play(Settings.of("base"), seed, bots)
            program.game_over(view(state, seat))
        pid = program.pid
    assert [line for line in said if "newgame" in line] == [
        "> newgame base 1 0",
        "> newgame base 1 1",
        "> newgame base 1 1",
    ]
    assert sum(line.startswith("> gameover ") for line in said) == 3
    assert not any(line.startswith("< error") for line in said)
    assert pid is not None


# ---------------------------------------------------------------- nothing hidden is sent (R10)


CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])([1-9][gbrypk]|JO|SP|SH|BB|MF|ST|BA|TR|RE)(?![0-9A-Za-z])")


def strings(data: object) -> Iterator[str]:
    """Every string value inside JSON data (not the keys)."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from strings(value)


def this_round(state: GameState, sent: dict[str, object]) -> dict[str, object]:
    """The view's data with the history (and movers) of the current round only.

    Earlier rounds' moves name cards that have been dealt again since.
    """
    start = state.round_starts[-1]
    history, movers = sent["history"], sent["movers"]
    assert isinstance(history, list) and isinstance(movers, list)
    return {**sent, "history": history[start:], "movers": movers[start:]}


def hidden_cards(state: GameState, seat: int, sent: dict[str, object]) -> set[str]:
    """Cards ``seat`` may not know the place of: the other hand and the decks.

    Left out: the seat's own Recruiter returns this round (it knows where they went,
    R10.2) and cards of which another copy is visible (the second Joker).
    """
    hidden = {card_str(c) for c in state.hands[1 - seat] + state.clan_deck + state.tactic_deck}
    assert isinstance(sent["history"], list) and isinstance(sent["movers"], list)
    own_returns = {
        move.split()[1]
        for move, mover in zip(sent["history"], sent["movers"], strict=True)
        if mover == seat and move.startswith("return ")
    }
    visible = {card_str(c) for c in state.hands[seat]}
    visible |= {card_str(c) for side in state.sides for stone in side for c in stone}
    visible |= {card_str(c) for pile in state.discards for c in pile}
    return hidden - own_returns - visible


def test_only_the_view_is_sent_and_no_hidden_card(no_leftovers: None) -> None:
    said: list[list[str]] = [[], []]
    returns = 0
    for variant, seed in (("expert", 31), ("tactics", 32)):
        bots = [
            ExternalBot(script("good", str(seat)), time_limit=LIMIT, echo=said[seat].append)
            for seat in (0, 1)
        ]
        state = GameState.new(Settings.of(variant, rounds=2), seed)
        checked = 0
        try:
            while not state.is_over:
                seat = state.turn
                start = len(said[seat])
                action = bots[seat].choose(view(state, seat))
                sent = [line[2:] for line in said[seat][start:] if line.startswith("> ")]
                views = [json.loads(line.removeprefix("view ")) for line in sent if line.startswith("view ")]
                assert len(views) == 1 and views[0] == view(state, seat).to_dict()
                current = this_round(state, views[0])
                tokens = {m for text in strings(current) for m in CARD_TOKEN.findall(text)}
                assert not tokens & hidden_cards(state, seat, current)
                moves = current["history"]
                assert isinstance(moves, list)
                returns += sum(move.startswith("return ") for move in moves)
                others = [
                    line
                    for line in sent
                    if not line.startswith(("schotten 1", "view ", "legal ", "go", "newgame "))
                ]
                assert others == []
                checked += 1
                state.apply(action)
        finally:
            for bot in bots:
                bot.close()
        assert state.forfeited is None and checked > 50
    assert returns > 0


# ---------------------------------------------------------------- failures


FAILURES = [
    pytest.param(script("garbage"), "answered 'banana': expected 'move <action>'", id="garbage"),
    pytest.param(script("garbage", "move 7z@3"), "answered 'move 7z@3': '7z' is not a card", id="bad-card"),
    pytest.param(script("garbage", "move"), "answered 'move': no action given", id="no-action"),
    pytest.param(
        script("garbage", "move claim 10"), "answered 'move claim 10': '10' is not a stone", id="bad-stone"
    ),
    pytest.param(
        script("garbage", "error out of ideas"), "the program reported an error: out of ideas", id="error"
    ),
    pytest.param(script("illegal"), "answered 'move pass': pass is not legal now (legal: ", id="illegal"),
    pytest.param(script("sleeper"), "no answer within 0.5 s", id="silent"),
    pytest.param(
        script("crasher", "exit"),
        "the program exited with code 3 (its last error line: giving up)",
        id="exit",
    ),
    pytest.param(
        script("crasher", "raise"),
        "the program exited with code 1 (its last error line: RuntimeError: the bot",
        id="exception",
    ),
]


@pytest.mark.parametrize(("command", "reason"), FAILURES)
def test_a_failing_bot_gives_a_clear_reason(command: list[str], reason: str, no_leftovers: None) -> None:
    state = GameState.new(Settings.of("tactics"), 6)
    bot = ExternalBot(command, time_limit=0.5)
    bot.start()
    with pytest.raises(BotFailure) as failure:
        bot.choose(view(state, state.turn))
    assert failure.value.reason.startswith(reason)
    assert str(failure.value) == failure.value.reason
    assert bot.pid is None
    bot.close()


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (script("sleeper", "start"), "did not answer 'ready' within 0.5 s"),
        (script("crasher", "start"), "the program exited with code 2"),
        (
            [sys.executable, "-c", "print('hello'); input()"],
            "answered 'hello' to the greeting: expected 'ready'",
        ),
        ([str(BOTS / "no-such-bot")], "could not start "),
    ],
)
def test_a_failing_start_gives_a_clear_reason(command: list[str], reason: str, no_leftovers: None) -> None:
    state = GameState.new(Settings.of("base"), 6)
    bot = ExternalBot(command, time_limit=0.5, start_limit=0.5)
    with pytest.raises(BotFailure, match=re.escape(reason)):
        bot.choose(view(state, state.turn))
    assert bot.pid is None


def test_after_a_failure_the_next_decision_starts_the_program_again(no_leftovers: None) -> None:
    state = GameState.new(Settings.of("base"), 6)
    bot = ExternalBot(script("illegal"), time_limit=LIMIT)
    pids = []
    for _ in range(2):
        bot.start()
        pids.append(bot.pid)
        with pytest.raises(BotFailure):
            bot.choose(view(state, state.turn))
    assert pids[0] != pids[1]


@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_processes_started_by_the_bot_are_killed_too(no_leftovers: None) -> None:
    state = GameState.new(Settings.of("base"), 6)
    bot = ExternalBot(script("sleeper", "child"), time_limit=0.5)
    bot.start()
    group = bot.pid
    assert group is not None
    assert len(alive_in_group(group)) == 2
    with pytest.raises(BotFailure, match=re.escape("no answer within 0.5 s")):
        bot.choose(view(state, state.turn))
    assert alive_in_group(group, settle=5.0) == []


def test_choose_needs_a_seat_to_move() -> None:
    state = GameState.new(Settings.of("base"), 6)
    bot = ExternalBot(script("minimal"))
    with pytest.raises(ValueError, match="the seat to move"):
        bot.choose(view(state, None))
    with pytest.raises(ValueError, match="the seat to move"):
        bot.choose(view(state, 1 - state.turn))
    assert bot.pid is None
    with pytest.raises(ValueError, match="empty"):
        ExternalBot("")
    assert ExternalBot("python3 my/bot.py --fast").argv == ["python3", "my/bot.py", "--fast"]
    assert ExternalBot("python3 my/bot.py").name == "bot.py"
    assert ExternalBot(["./mybot", "-x"]).name == "mybot"


SPAM = """
import sys
sys.stdin.readline()
while True:
    print("info still thinking", flush=True)
"""


def test_a_bot_that_only_chatters_still_times_out(no_leftovers: None) -> None:
    bot = ExternalBot([sys.executable, "-c", SPAM], start_limit=0.5)
    with pytest.raises(BotFailure, match=re.escape("did not answer 'ready' within 0.5 s")):
        bot.start()
    assert len(bot.infos) == bot.infos.maxlen


def test_the_bot_program_s_help_shows_no_value_type_beside_a_flag() -> None:
    """The bot program's ``--help`` takes no value: its help line shows no ``<bool>`` (issue 26);
    its options that take one still show their type."""
    done = subprocess.run([*PROGRAM, "--help"], capture_output=True, text=True, check=False,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "--help" in done.stdout and "<bool>" not in done.stdout and "<int>" in done.stdout
