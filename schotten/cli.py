"""The ``schotten`` command: play in the terminal, replay a record, analyse a position, benchmark.

``schotten play`` pits you against a built-in bot (or a friend at the same keyboard);
moves are typed in the action notation (``7b@3``, ``claim 3``, ``draw clan``...).
It reads standard input line by line, so moves can also be piped in.
"""

import json
import random
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from . import tui
from .arena import arena_command
from .benchmark import BenchConfig, report_lines
from .benchmark import run as run_bench
from .bots import Bot, decide, make_bot
from .bots.analysis import DEFAULT_ITERATIONS
from .bots.eye import analysis, chances
from .bots.registry import BOT_NAMES, LEVELS
from .bots.review import review as review_game
from .engine import (
    VARIANTS,
    Action,
    GameState,
    IllegalActionError,
    Kind,
    NotationError,
    RecordError,
    Settings,
    parse_action,
    prove,
)
from .engine.actions import DECK_NAMES
from .engine.cards import NUM_CLAN, NUM_STONES, card_str
from .engine.position import parse_position
from .engine.record import parse_record, states_of, write_record_file
from .engine.view import actors, view
from .protocol.flags import FlagCommand, FlagGroup
from .protocol.program import bot_command

app = typer.Typer(
    cls=FlagGroup,
    help="Schotten Totten: play, replay, analyse and benchmark.",
    no_args_is_help=True,
    add_completion=False,
)

LAST_MOVES = 6
COMMANDS_HELP = (
    "commands: help or ? (legal moves), claim? (which stones you could claim and why), "
    "why N (the claim proof for stone N), board, legend, quit"
)


HUMAN = "human"
"""The opponent that is a friend at the same keyboard."""

if TYPE_CHECKING:
    VariantName = str
    Opponent = str
else:
    VariantName = Literal[VARIANTS]
    """The variants of the game (R7, R8), from the engine."""
    Opponent = Literal[(*BOT_NAMES, *LEVELS, HUMAN)]
    """Who plays the other seat: a built-in bot, a level (from the bots' registry) or a human."""


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True)


# ---------------------------------------------------------------------- input


class Input:
    """Lines typed (or piped) on standard input; None at the end of input."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.interactive = sys.stdin.isatty()

    def read(self, prompt: str) -> str | None:
        """Print ``prompt`` and read one line (echoed when input is piped); None at end of input."""
        if self.interactive:
            try:
                return self.console.input(prompt)
            except EOFError:
                return None
        self.console.print(prompt, end="")
        line = sys.stdin.readline()
        if not line:
            self.console.print()
            return None
        self.console.print(line.rstrip("\n"), markup=False)
        return line.rstrip("\n")


# ---------------------------------------------------------------------- play


def public_move(action: Action, actor: int, viewer: int | None) -> str:
    """An action as ``viewer`` may read it: another seat's Recruiter return hides its card (R10.2)."""
    if action.kind == Kind.RETURN and actor != viewer:
        return f"return {DECK_NAMES[0 if action.card < NUM_CLAN else 1]}"
    return str(action)


def legal_summary(actions: Sequence[Action]) -> list[str]:
    """The legal actions, plays grouped by card: ``7b@ 1 2 3``, then the others."""
    plays: dict[int, list[int]] = {}
    others = []
    for action in actions:
        if action.kind == Kind.PLAY:
            plays.setdefault(action.card, []).append(action.stone + 1)
        else:
            others.append(str(action))
    lines = [f"{card_str(card)}@ {' '.join(map(str, stones))}" for card, stones in plays.items()]
    return lines + ([", ".join(others)] if others else [])


class Game:
    """A game at the terminal: bots and people (None in ``bots``) take their turns until the end."""

    def __init__(self, state: GameState, bots: list[Bot | None], names: tuple[str, str],
                 console: Console, lines: Input) -> None:
        self.state = state
        self.bots = bots
        self.names = names
        self.console = console
        self.lines = lines
        self.people = [seat for seat in (0, 1) if bots[seat] is None]
        self.viewer: int | None = self.people[0] if len(self.people) == 1 else None
        self.shown_to: int | None = None
        self.rounds_seen = 0

    def run(self) -> bool:
        """Play until the game is over (True) or the person at the keyboard stops (False)."""
        while not self.state.is_over:
            seat = self.state.turn
            bot = self.bots[seat]
            if bot is None:
                if not self.person_turn(seat):
                    return False
            else:
                self.apply(decide(bot, self.state), seat)
        self.show_end()
        return True

    def apply(self, action: Action, seat: int) -> None:
        """Play a checked action and tell what happened."""
        before, round_before = Counter(self.state.hands[seat]), self.state.round
        self.state.apply(action)
        if self.bots[seat] is not None:
            said = f"{tui.seat_label(seat)} {self.names[seat]}: {public_move(action, seat, self.viewer)}"
            self.console.print(said, style=tui.SEAT_STYLES[seat])
        elif self.state.round == round_before:
            drawn = sorted((Counter(self.state.hands[seat]) - before).elements())
            if drawn:
                cards = tui.cards_text([card_str(c) for c in drawn])
                self.console.print(Text("you drew ").append_text(cards))
        self.report_rounds()

    def report_rounds(self) -> None:
        """Announce each round that has just ended (R6, R9)."""
        for outcome in self.state.round_outcomes[self.rounds_seen :]:
            self.rounds_seen += 1
            if outcome.winner is None:
                verdict = "is drawn"
            else:
                verdict = f"is won by {tui.seat_label(outcome.winner)} {self.names[outcome.winner]}"
            self.console.rule(f"Round {self.rounds_seen} {verdict} ({outcome.reason})")

    def board(self, seat: int | None) -> tui.Board:
        """The board as ``seat`` sees it (a spectator, None, sees no hand)."""
        state = self.state
        seen = view(state, seat)
        claimable = tuple(frozenset(state.claimable_stones(s)) for s in (0, 1))
        hands = tuple(seen.hand if s == seat else None for s in (0, 1))
        return tui.Board(
            seen=seen,
            names=self.names,
            bottom=0 if seat is None else seat,
            hands=(hands[0], hands[1]),
            claimable=(claimable[0], claimable[1]),
            moves=tui.move_words(actors(state), seen.history, LAST_MOVES),
        )

    def show(self, seat: int | None) -> None:
        """Draw the board for ``seat``."""
        self.console.print(tui.render(self.board(seat)))

    def hand_over(self, seat: int) -> bool:
        """Hot seat: hide the board until the next player presses Enter."""
        if len(self.people) < 2 or self.shown_to == seat:
            return True
        self.console.clear()
        self.console.rule(f"{tui.seat_label(seat)}'s turn")
        answer = self.lines.read(f"Pass the keyboard to {tui.seat_label(seat)} and press Enter ")
        self.console.clear()
        self.shown_to = seat
        return answer is not None

    def person_turn(self, seat: int) -> bool:
        """One decision of a person: read lines until a legal action; False to stop the game."""
        legal = self.state.legal_actions()
        if len(legal) == 1:
            self.console.print(f"{tui.seat_label(seat)}: {legal[0]} (the only legal action)")
            self.apply(legal[0], seat)
            return True
        if not self.hand_over(seat):
            return False
        self.show(seat)
        while True:
            line = self.lines.read(f"{tui.seat_label(seat)} > ")
            if line is None:
                self.console.print("End of input: the game stops here.")
                return False
            answer = self.command(line.strip(), seat)
            if answer is not None:
                return answer

    def command(self, text: str, seat: int) -> bool | None:
        """Handle one line: a command (None: read again), quit (False) or an action (True if played)."""
        lower = text.lower()
        if not text:
            return None
        if lower in ("quit", "q", "exit"):
            self.console.print("Game stopped.")
            return False
        if lower in ("help", "?"):
            self.help()
        elif lower == "board":
            self.show(seat)
        elif lower == "legend":
            self.console.print(tui.legend())
        elif lower == "claim?":
            self.claims(seat)
        elif lower.startswith("why"):
            self.why(text[3:].strip(), seat)
        else:
            return self.try_action(text, seat)
        return None

    def try_action(self, text: str, seat: int) -> bool | None:
        """Play ``text`` if legal; otherwise say what is wrong and read again."""
        try:
            action = parse_action(text)
            self.apply(action, seat)
        except NotationError as error:
            self.console.print(f"✗ {error}", style="bold red", markup=False)
        except IllegalActionError as error:
            self.console.print(f"✗ {text}: {error}", style="bold red", markup=False)
        else:
            return True
        self.console.print("type help (or ?) for the legal moves", style="dim")
        return None

    def help(self) -> None:
        """List the legal actions and the commands."""
        self.console.print("legal moves:", style="bold")
        for line in legal_summary(self.state.legal_actions()):
            self.console.print(f"  {line}", markup=False)
        self.console.print(COMMANDS_HELP, style="dim")

    def claims(self, seat: int) -> None:
        """The claim proof of every unclaimed stone where the seat's side is complete (R5)."""
        stones = [s for s in range(NUM_STONES) if self.state.owner[s] < 0 and self.state.is_complete(seat, s)]
        if not stones:
            self.console.print("none of your sides of an unclaimed stone is complete (R5)")
        for stone in stones:
            self.why(str(stone + 1), seat)

    def why(self, number: str, seat: int) -> None:
        """Print the claim proof for stone ``number`` (1-9)."""
        if number not in [str(n) for n in range(1, NUM_STONES + 1)]:
            self.console.print("write why and a stone number 1-9, like: why 3", style="bold red")
            return
        proof = prove(self.state, seat, int(number) - 1)
        mark = "✓ you may claim" if proof.holds else "✗ you may not claim"
        self.console.print(f"{mark} stone {number}: {proof.reason}", markup=False)

    def show_end(self) -> None:
        """The final table, every card revealed (R10.4), and the result."""
        final = self.board(None)
        hands = (tuple(card_str(c) for c in sorted(self.state.hands[0])),
                 tuple(card_str(c) for c in sorted(self.state.hands[1])))
        shown = tui.Board(final.seen, final.names, self.viewer or 0, hands, final.claimable, final.moves)
        self.console.print(tui.render(shown))
        self.console.print(tui.render_outcome(final.seen, self.names))


def _names(opponent: Opponent, human: int, autoplay: str | None) -> tuple[str, str]:
    if opponent == HUMAN:
        return ("player 1", "player 2") if autoplay is None else (f"{autoplay} bot", f"{autoplay} bot")
    names = [f"{opponent} bot", f"{opponent} bot"]
    names[human] = "you" if autoplay is None else f"{autoplay} bot (for you)"
    return names[0], names[1]


def _bots(opponent: Opponent, human: int, autoplay: str | None, seed: int) -> list[Bot | None]:
    bots: list[Bot | None] = [None, None]
    if opponent != HUMAN:
        bots[1 - human] = make_bot(opponent, seed)
    for seat in (0, 1):
        if bots[seat] is None and autoplay is not None:
            bots[seat] = make_bot(autoplay, seed + 1 + seat)
    return bots


def _save(path: Path | None, game: Game, lines: Input, finished: bool) -> None:
    if path is None and finished and lines.interactive:
        answer = lines.read("Save the game record? file name (Enter to skip): ")
        path = Path(answer.strip()) if answer and answer.strip() else None
    if path is None:
        return
    try:
        write_record_file(path, game.state, players=[game.names[0], game.names[1]])
    except OSError as error:
        game.console.print(f"✗ the record could not be saved: {error}", style="bold red", markup=False)
        raise typer.Exit(1) from None
    game.console.print(f"record saved to {path}", markup=False)


@app.command(cls=FlagCommand)
def play(
    variant: Annotated[VariantName, typer.Option(help="The variant (R7, R8).")] = "base",
    rounds: Annotated[int, typer.Option(min=1, max=99, help="Rounds in the match (R9).")] = 1,
    seed: Annotated[int | None, typer.Option(help="Seed of the deal (random if not given).")] = None,
    opponent: Annotated[Opponent, typer.Option(help="A bot, a level or human.")] = "greedy",
    seat: Annotated[int, typer.Option(min=1, max=2, help="Your seat, 1 or 2.")] = 1,
    first: Annotated[int | None, typer.Option(min=1, max=2, help="Who plays first (R2.3).")] = None,
    save: Annotated[Path | None, typer.Option(help="Save the game record to this file.")] = None,
    autoplay: Annotated[str | None, typer.Option(hidden=True, help="Let this bot play your seat.")] = None,
) -> None:
    """Play a game in the terminal against a built-in bot, or hot seat against a friend."""
    if autoplay is not None and autoplay not in ("random", "greedy"):
        raise typer.BadParameter("random or greedy", param_hint="--autoplay")
    console = _console()
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000_000)
    settings = Settings.of(variant, rounds, None if first is None else first - 1)
    state = GameState.new(settings, seed)
    human = seat - 1
    names = _names(opponent, human, autoplay)
    lines = Input(console)
    game = Game(state, _bots(opponent, human, autoplay, seed), names, console, lines)
    console.print(f"Schotten Totten, {variant}, seed {seed}: "
                  f"{tui.seat_label(state.turn)} plays first. Type help for the legal moves.")
    if autoplay is None:
        console.print(tui.legend())
    finished = game.run()
    _save(save, game, lines, finished)


# ---------------------------------------------------------------------- replay


@app.command(cls=FlagCommand)
def replay(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A game record (JSON).")],
    seat: Annotated[int | None, typer.Option(min=1, max=2, help="Show what seat 1/2 saw.")] = None,
    step: Annotated[bool | None, typer.Option("--step/--all", help="Step with Enter, or print all.")] = None,
) -> None:
    """Step through a recorded game: Enter next, b back, q quit (or print every position)."""
    console = _console()
    try:
        text = file.read_text(encoding="utf-8")
        record = parse_record(text)
        states = list(states_of(text))
    except (RecordError, UnicodeDecodeError) as error:
        console.print(f"✗ {file}: {error}", style="bold red", markup=False)
        raise typer.Exit(1) from None
    players = record.get("players") or ("player 1", "player 2")
    names = (str(players[0]), str(players[1]))
    shown = None if seat is None else seat - 1
    frames = [
        _replay_frame(state, names, shown, ended=i == len(states) - 1 or _round_ended(states, i))
        for i, state in enumerate(states)
    ]
    if "ending" in record:
        frames[-1] = Group(frames[-1], Text(_ending_line(record["ending"], names), style="bold"))
    lines = Input(console)
    if step if step is not None else lines.interactive:
        _step_through(frames, console, lines)
        return
    for number, frame in enumerate(frames):
        console.rule(f"position {number} of {len(frames) - 1}")
        console.print(frame)


ENDING_WORDS = {
    "time": "{who} ran out of time",
    "resigned": "{who} resigned",
    "left": "{who} left the game",
    "aborted": "{who} aborted the game",
    "abandoned": "the game was abandoned ({who} to move)",
}
"""How a replay says a game ended off the board (a version 2 record's ``ending``)."""


def _ending_line(ending: dict[str, Any], names: tuple[str, str]) -> str:
    """The last line of a replay of a game that ended off the board."""
    seat = ending["seat"]
    if seat is None:
        return f"the game was {ending['reason']}"
    return ENDING_WORDS[ending["reason"]].format(who=f"P{seat + 1} {names[seat]}")


def _round_ended(states: list[GameState], index: int) -> bool:
    return index > 0 and len(states[index].round_outcomes) > len(states[index - 1].round_outcomes)


def _replay_frame(state: GameState, names: tuple[str, str], seat: int | None, ended: bool) -> RenderableType:
    seen = view(state, seat)
    hands: tuple[Sequence[str] | None, ...]
    if seat is None:
        hands = tuple(tuple(card_str(c) for c in sorted(state.hands[s])) for s in (0, 1))
    else:
        hands = tuple(seen.hand if s == seat else None for s in (0, 1))
    board = tui.Board(
        seen=seen,
        names=names,
        bottom=seat or 0,
        hands=(hands[0], hands[1]),
        claimable=(frozenset(state.claimable_stones(0)), frozenset(state.claimable_stones(1))),
        moves=tui.move_words(actors(state), seen.history, 1),
    )
    parts: list[RenderableType] = [tui.render(board)]
    if ended and seen.round_outcomes:
        parts.append(tui.render_outcome(seen, names))
    return Group(*parts)


def _step_through(frames: list[RenderableType], console: Console, lines: Input) -> None:
    index = 0
    while True:
        console.rule(f"position {index} of {len(frames) - 1}")
        console.print(frames[index])
        answer = lines.read("Enter: next, b: back, q: quit > ")
        if answer is None or answer.strip().lower() in ("q", "quit"):
            return
        if answer.strip().lower() == "b":
            index = max(0, index - 1)
        elif index == len(frames) - 1:
            console.print("that was the last position")
            return
        else:
            index += 1


# ---------------------------------------------------------------------- analyze


def _read_position(position: str) -> str:
    try:
        path = Path(position)
        if path.is_file():
            return path.read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        pass
    return position.strip()


@app.command(cls=FlagCommand)
def analyze(
    position: Annotated[str, typer.Argument(help="A position string, or a file holding one.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    iterations: Annotated[int, typer.Option(min=1, help="The analysis budget (search and playouts).")]
    = DEFAULT_ITERATIONS,
    seed: Annotated[int, typer.Option(help="The seed of the sampled deals (same seed, same figures).")] = 0,
) -> None:
    """Each stone's formations, claim proofs (R5) and chances; the best moves of the seat to move."""
    console = _console()
    try:
        state = parse_position(_read_position(position))
    except NotationError as error:
        console.print(f"✗ {error}", style="bold red", markup=False)
        raise typer.Exit(1) from None
    data = analysis(state)
    eye = chances(state, iterations, seed)
    for stone, chance in zip(data["stones"], eye.pop("chance"), strict=True):
        stone["chance"] = chance
    data.update(eye)
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False))
        return
    _print_analysis(console, state, data)
    _print_chances(console, data)


def _print_chances(console: Console, data: dict[str, Any]) -> None:
    """The best moves and the chances, as two short tables."""
    if data["win"] is None:
        return
    console.rule(f"P{data['turn']} to move: the best moves found")
    moves = Table(show_header=True, box=None, padding=(0, 2))
    for column in ("move", f"P{data['turn']} wins the round"):
        moves.add_column(column)
    for entry in data["best"]:
        moves.add_row(entry["action"], f"{entry['win']:.0%}")
    console.print(moves)
    console.rule("chances: the round, and each stone")
    table = Table(show_header=True, box=None, padding=(0, 2))
    for column in ("", "P1", "P2"):
        table.add_column(column)
    table.add_row("round", *(f"{w:.0%}" for w in data["win"]))
    for stone in data["stones"]:
        table.add_row(f"stone {stone['stone']}", *(f"{p:.0%}" for p in stone["chance"]))
    console.print(table)


def _print_analysis(console: Console, state: GameState, data: dict[str, Any]) -> None:
    console.print(tui.render(tui.Board(
        seen=view(state, None),
        names=("", ""),
        hands=(tuple(card_str(c) for c in sorted(state.hands[0])),
               tuple(card_str(c) for c in sorted(state.hands[1]))),
        claimable=(frozenset(state.claimable_stones(0)), frozenset(state.claimable_stones(1))),
    )))
    for stone in data["stones"]:
        owner = f", claimed by P{stone['owner']}" if stone["owner"] else ""
        modes = f" [{' '.join(stone['modes'])}]" if stone["modes"] else ""
        console.rule(f"stone {stone['stone']}{modes}{owner}")
        table = Table(show_header=True, box=None, padding=(0, 2))
        for column in ("seat", "cards", "formation", "claim now"):
            table.add_column(column)
        for side, claim in zip(stone["sides"], stone["claims"], strict=True):
            if side["complete"]:
                formation = side["formation"]
            else:
                best = side["best_reachable"] or "cannot be completed"
                formation = f"incomplete; best still reachable: {best}"
            table.add_row(f"P{side['seat']}", tui.cards_text(side["cards"]), formation,
                          "yes" if claim["holds"] else "no")
        console.print(table)
        for claim in stone["claims"]:
            console.print(f"  P{claim['seat']}: {claim['reason']}", markup=False)


# ---------------------------------------------------------------------- review


@app.command(cls=FlagCommand)
def review(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A game record (JSON).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    iterations: Annotated[int, typer.Option(min=1, help="The analysis budget per decision.")]
    = DEFAULT_ITERATIONS,
    seed: Annotated[int, typer.Option(help="The seed of the sampled deals.")] = 0,
) -> None:
    """Judge every decision of a game from the mover's view: the best move, the winning chances, marks."""
    console = _console()
    try:
        decisions = review_game(file.read_text(encoding="utf-8"), iterations, seed)
    except (RecordError, UnicodeDecodeError) as error:
        console.print(f"✗ {file}: {error}", style="bold red", markup=False)
        raise typer.Exit(1) from None
    rows = [d.as_dict() for d in decisions]
    if as_json:
        typer.echo(json.dumps({"iterations": iterations, "decisions": rows}, ensure_ascii=False))
        return
    table = Table(show_header=True, box=None, padding=(0, 2))
    for column in ("move", "seat", "played", "best", "win best", "win played", "mark"):
        table.add_column(column)
    for row in rows:
        table.add_row(str(row["move"]), f"P{row['seat']}", row["action"], row["best"],
                      f"{row['win_before']:.0%}", f"{row['win_after']:.0%}", row["mark"] or "")
    console.print(table)


# ---------------------------------------------------------------------- bench


@app.command(cls=FlagCommand)
def bench(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    short: Annotated[bool, typer.Option("--short", help="A run of a couple of seconds (for CI).")] = False,
    games: Annotated[int | None, typer.Option(min=1, help="Random games per variant.")] = None,
) -> None:
    """The engine's speed: random games/s, actions/s and claim-proof times."""
    config = BenchConfig.short() if short else BenchConfig()
    if games is not None:
        config = BenchConfig(games, config.positions, config.repeats)
    result = run_bench(config)
    if as_json:
        typer.echo(json.dumps(result.as_dict()))
        return
    for line in report_lines(result):
        typer.echo(line)


# ---------------------------------------------------------------------- serve


@app.command(cls=FlagCommand)
def serve(
    host: Annotated[str | None, typer.Option(
        help="The address to listen on (default: $SCHOTTEN_HOST, else 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(
        min=1, max=65535, help="The port to listen on (default: $SCHOTTEN_PORT, else 8000).")] = None,
    database: Annotated[str | None, typer.Option(
        help="Database URL (default: $SCHOTTEN_DATABASE_URL, else sqlite:///schotten.db here).")] = None,
    redis: Annotated[str | None, typer.Option(
        help="Redis URL shared by several server processes on one PostgreSQL database "
             "(default: $SCHOTTEN_REDIS_URL, else none: one process).")] = None,
) -> None:
    """Serve the web app: lobby, games against a friend or the AI, spectators and replays."""
    import contextlib
    import faulthandler

    from .web.app import run
    from .web.core.settings import WebSettings

    with contextlib.suppress(ValueError, OSError):
        faulthandler.enable()
    try:
        settings = WebSettings.from_env(host=host, port=port, database_url=database, redis_url=redis)
    except ValueError as error:
        typer.echo(f"schotten serve: {error}", err=True)
        raise typer.Exit(2) from None
    shown = _shown_url(settings.database_url)
    _check_database(settings.database_url, settings.db_busy_timeout, bool(settings.redis_url))
    typer.echo(f"Open {settings.address} in a browser to play (database: {shown}).")
    run(settings)


def _check_database(url: str, busy_timeout: float, shared: bool) -> None:
    """Exit (status 1, one line naming the path or URL) if the database cannot be used."""
    from .web.core.errors import StoreUnavailable
    from .web.storage.store import Store

    try:
        store = Store(url, busy_timeout, shared)
    except Exception as error:
        typer.echo(f"schotten serve: the database URL {_shown_url(url)} cannot be used: {error}", err=True)
        raise typer.Exit(1) from None
    try:
        store.check()
    except StoreUnavailable as error:
        typer.echo(f"schotten serve: {error.message}", err=True)
        raise typer.Exit(1) from None
    finally:
        store.close()


def _shown_url(url: str) -> str:
    """A database URL with its password hidden."""
    from sqlalchemy import make_url

    return make_url(url).render_as_string(hide_password=True)


# ---------------------------------------------------------------------- moderators

moderators_app = typer.Typer(help="Grant, remove and list the moderator role (never from the web).",
                             no_args_is_help=True)
app.add_typer(moderators_app, name="moderators")
DatabaseOption = Annotated[str | None, typer.Option(
    help="Database URL (default: $SCHOTTEN_DATABASE_URL, else sqlite:///schotten.db here).")]


def _moderation_store(database: str | None) -> Any:
    """The web app's store at ``database`` (as ``serve`` takes it), migrated; usable while a server
    serves it (unlike ``serve``, it takes no lock on the database)."""
    from .web.core.errors import StoreUnavailable
    from .web.core.settings import WebSettings
    from .web.storage.store import Store

    settings = WebSettings.from_env(database_url=database)
    try:
        store = Store(settings.database_url, settings.db_busy_timeout)
        store.create_schema()
    except StoreUnavailable as error:
        typer.echo(f"schotten moderators: {error.message}", err=True)
        raise typer.Exit(1) from None
    except Exception as error:
        typer.echo(f"schotten moderators: the database {_shown_url(settings.database_url)} cannot be used: "
                   f"{error}", err=True)
        raise typer.Exit(1) from None
    return store


def _set_moderator(name: str, database: str | None, moderator: bool) -> None:
    from .web.moderation.roles import set_moderator

    store = _moderation_store(database)
    try:
        account = set_moderator(store, name, moderator)
    except ValueError as error:
        typer.echo(f"schotten moderators: {error}", err=True)
        raise typer.Exit(1) from None
    finally:
        store.close()
    typer.echo(f"{account.username} is {'now' if moderator else 'no longer'} a moderator")


@moderators_app.command("add")
def moderators_add(name: Annotated[str, typer.Argument(help="The account's username.")],
                   database: DatabaseOption = None) -> None:
    """Make an account a moderator (at once, on its open sessions too)."""
    _set_moderator(name, database, True)


@moderators_app.command("remove")
def moderators_remove(name: Annotated[str, typer.Argument(help="The account's username.")],
                      database: DatabaseOption = None) -> None:
    """Take the moderator role from an account (at once)."""
    _set_moderator(name, database, False)


@moderators_app.command("list")
def moderators_list(database: DatabaseOption = None) -> None:
    """Print every moderator's username, one a line."""
    from .web.moderation.roles import moderators

    store = _moderation_store(database)
    try:
        for name in moderators(store):
            typer.echo(name)
    finally:
        store.close()


app.command("arena", cls=FlagCommand)(arena_command)
app.command("bot", cls=FlagCommand)(bot_command)


def main() -> None:
    """Run the command line (``python -m schotten``)."""
    app(prog_name="schotten")
