"""Matches between two bots: many seeded games, played in parallel, with statistics.

``play_match("greedy", "random", games=100)`` plays game ``i`` from seed
``seed + i // 2`` with bot A in seat ``i % 2`` (so each deal is played twice, each bot
in each seat once, which removes the luck of the deal from the comparison) and
returns an ``ArenaResult``: A's wins, losses and draws, its score (a draw counts
half), the 95% Wilson score interval of that score and the Elo difference it
implies. Bots see only their seat's view (R10). A bot that raises, answers
something that is not a legal action or (for an external program) fails the text
protocol loses that game by forfeit (``GameState.forfeit``), and the match goes on.

A player is named by a *spec*: a built-in bot or level (``random``, ``greedy``,
``heuristic``, ``mcts``, ``easy`` .. ``expert``) or ``cmd:COMMAND``, a program
driven through the text protocol (``cmd:python mybot.py``). ``schotten arena``
(``arena_command``) is the command line over the same functions.
"""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing
import os
import shlex
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from .bots import BOT_NAMES, LEVELS, Bot, make_bot
from .engine import VARIANTS, GameState, SchottenError, Settings
from .engine.record import write_record_file
from .engine.view import view
from .protocol import BotFailure, ExternalBot

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

CMD_PREFIX = "cmd:"
"""A player spec starting with this runs the rest as an external program (text protocol)."""

DEFAULT_TIME_LIMIT = 5.0
"""Seconds an external program has for each decision, by default."""


# ---------------------------------------------------------------------- statistics


def wilson_interval(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``score`` observed over ``n`` games.

    Here the proportion is the mean game score (win 1, draw 1/2, loss 0). With no
    games the interval is (0, 1).
    """
    if n <= 0:
        return 0.0, 1.0
    z2 = z * z
    centre = (score + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(score * (1 - score) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def normal_interval(scores: Sequence[float], z: float = Z95) -> tuple[float, float]:
    """The normal (Wald) interval of the mean of per-game ``scores``, clipped to [0, 1].

    It uses the sample standard deviation, so draws narrow it; with fewer than two
    games, or when every game scored the same, it says nothing useful: (0, 1) or
    the single value.
    """
    if len(scores) < 2:
        return 0.0, 1.0
    mean = statistics.fmean(scores)
    half = z * statistics.stdev(scores) / math.sqrt(len(scores))
    return max(0.0, mean - half), min(1.0, mean + half)


def elo(score: float) -> float:
    """The Elo difference that makes ``score`` the expected score: -400 log10(1/score - 1).

    A score of 0 or 1 gives minus or plus infinity.
    """
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return 400 * math.log10(score / (1 - score))


def format_elo(value: float) -> str:
    """An Elo difference with its sign, rounded: ``+191``, ``-35``, ``0``, ``+inf``."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    rounded = round(value)
    return f"{rounded:+d}" if rounded else "0"


# ---------------------------------------------------------------------- players


@dataclass(frozen=True, slots=True)
class BuiltIn:
    """Builds a built-in bot or level (``make_bot``) with a game's seed and a search budget."""

    name: str
    seconds: float | None = None
    iterations: int | None = None

    def __call__(self, seed: int) -> Bot:
        """A fresh bot for one game."""
        return make_bot(self.name, seed, self.seconds, self.iterations)


@dataclass(frozen=True, slots=True)
class External:
    """Starts an external program that speaks the text protocol, with a limit per decision (0: none)."""

    command: tuple[str, ...]
    name: str
    time_limit: float = DEFAULT_TIME_LIMIT

    def __call__(self, seed: int) -> Bot:
        """A fresh program for one game (the seed is not used)."""
        return ExternalBot(list(self.command), name=self.name, time_limit=self.time_limit or None)


@dataclass(frozen=True, slots=True)
class Player:
    """One side of a match: a label (for reports and records) and how to build its bot for a game.

    ``build`` takes the game's bot seed; it must be picklable (a top-level function
    or class) when games run in worker processes.
    """

    label: str
    build: Callable[[int], Bot]


def player(
    spec: str | Player,
    seconds: float | None = None,
    iterations: int | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> Player:
    """The player a spec names: a built-in bot or level, or ``cmd:COMMAND`` (an external program).

    ``seconds`` / ``iterations`` are the search budget of built-in bots, ``time_limit``
    an external program's limit per decision. Raises ValueError for an unknown name,
    a bot that is not available or an empty command.
    """
    if isinstance(spec, Player):
        return spec
    text = spec.strip()
    if text.startswith(CMD_PREFIX):
        return _external(text[len(CMD_PREFIX):].strip(), time_limit)
    if text not in BOT_NAMES and text not in LEVELS:
        choices = ", ".join((*BOT_NAMES, *LEVELS))
        raise ValueError(f"unknown bot {text!r}: choose one of {choices}, or {CMD_PREFIX}COMMAND")
    build = BuiltIn(text, seconds, iterations)
    try:
        build(0)
    except ImportError as error:
        raise ValueError(f"bot {text!r} is not available: {error}") from None
    return Player(text, build)


def _external(command: str, time_limit: float) -> Player:
    try:
        words = tuple(shlex.split(command))
    except ValueError as error:
        raise ValueError(f"cannot read the command {command!r}: {error}") from None
    if not words:
        raise ValueError(f"{CMD_PREFIX} needs a command, as in '{CMD_PREFIX}python mybot.py'")
    return Player(command, External(words, command, time_limit))


# ---------------------------------------------------------------------- one game


@dataclass(frozen=True, slots=True)
class GameResult:
    """How one game of a match went, from the point of view of sides A and B.

    ``winner``, ``scores`` and ``forfeit`` are by seat, as in the engine; ``a_seat``
    is A's seat. ``think`` (seconds) and ``decisions`` are by side (A, B).
    """

    index: int
    seed: int
    a_seat: int
    winner: int | None
    scores: tuple[int, int]
    moves: int
    forfeit: tuple[int, str] | None
    think: tuple[float, float]
    decisions: tuple[int, int]

    @property
    def a_score(self) -> float:
        """A's score: 1 for a win, 1/2 for a draw, 0 for a loss."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == self.a_seat else 0.0

    @property
    def outcome(self) -> str:
        """``win``, ``draw`` or ``loss``, for A."""
        return {1.0: "win", 0.5: "draw", 0.0: "loss"}[self.a_score]

    @property
    def forfeited_by(self) -> str | None:
        """``a`` or ``b`` if that side lost by forfeit, else None."""
        if self.forfeit is None:
            return None
        return "a" if self.forfeit[0] == self.a_seat else "b"

    @property
    def points(self) -> tuple[int, int]:
        """The match points of A and B (R9.2)."""
        return self.scores[self.a_seat], self.scores[1 - self.a_seat]


def record_name(index: int, games: int = 1) -> str:
    """The file name of game ``index`` (from 0) of a saved match: ``game-0001.json`` for the first."""
    width = max(4, len(str(games)))
    return f"game-{index + 1:0{width}d}.json"


def play_game(
    a: Player | str,
    b: Player | str,
    seed: int = 0,
    a_seat: int = 0,
    settings: Settings | None = None,
    index: int = 0,
    record: str | Path | None = None,
) -> GameResult:
    """Play one game of ``settings`` dealt from ``seed``, A in seat ``a_seat``; save it to ``record``.

    Each bot is built for this game with seed ``2 * seed`` (A) or ``2 * seed + 1`` (B)
    and sees only its seat's view. A bot that cannot start, raises, or answers an
    action that is not legal forfeits the game, with the reason kept in the record.
    """
    sides = (player(a), player(b))
    state = GameState.new(settings or Settings(), seed)
    bots: list[Bot] = []
    think, asked = [0.0, 0.0], [0, 0]
    try:
        for side, each in enumerate(sides):
            bot = _start(each, 2 * seed + side, state, side ^ a_seat)
            if bot is None:
                break
            bots.append(bot)
        while not state.is_over:
            side = state.turn ^ a_seat
            think[side] += _turn(bots[side], sides[side].label, state)
            asked[side] += 1
        for side, bot in enumerate(bots):
            _tell_over(bot, state, side ^ a_seat)
    finally:
        for bot in bots:
            _close(bot)
    if record is not None:
        names = [sides[seat ^ a_seat].label for seat in (0, 1)]
        if names[0] == names[1]:
            names = [f"{name} ({'AB'[seat ^ a_seat]})" for seat, name in enumerate(names)]
        write_record_file(record, state, players=names)
    return _result(state, index, a_seat, think, asked)


def _result(state: GameState, index: int, a_seat: int, think: list[float], asked: list[int]) -> GameResult:
    assert state.outcome is not None
    return GameResult(
        index=index,
        seed=state.seed,
        a_seat=a_seat,
        winner=state.outcome.winner,
        scores=state.outcome.scores,
        moves=len(state.history),
        forfeit=state.forfeited,
        think=(think[0], think[1]),
        decisions=(asked[0], asked[1]),
    )


def _start(side: Player, seed: int, state: GameState, seat: int) -> Bot | None:
    try:
        return side.build(seed)
    except Exception as error:
        state.forfeit(seat, f"{side.label} could not start: {_describe(error)}")
        return None


def _tell_over(bot: Bot, state: GameState, seat: int) -> None:
    over = getattr(bot, "game_over", None)
    if callable(over):
        with contextlib.suppress(Exception):
            over(view(state, seat))


def _close(bot: Bot) -> None:
    close = getattr(bot, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):
            close()


def _turn(bot: Bot, label: str, state: GameState) -> float:
    """Ask the bot of the seat to move for its action and apply it, or forfeit; the seconds taken."""
    seat = state.turn
    start = time.perf_counter()
    try:
        action = bot.choose(view(state, seat))
    except Exception as error:
        state.forfeit(seat, f"{label} failed: {_describe(error)}")
        return time.perf_counter() - start
    elapsed = time.perf_counter() - start
    try:
        state.apply(action)
    except SchottenError as error:
        state.forfeit(seat, f"{label} answered {str(action)!r}, which is not legal: {error}")
    return elapsed


def _describe(error: Exception) -> str:
    if isinstance(error, BotFailure):
        return error.reason
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


# ---------------------------------------------------------------------- a match


@dataclass(frozen=True, slots=True)
class Job:
    """One game of a match, as sent to a worker process."""

    a: Player
    b: Player
    index: int
    seed: int
    a_seat: int
    settings: Settings
    record: Path | None

    def __call__(self) -> GameResult:
        """Play this game."""
        return play_game(self.a, self.b, self.seed, self.a_seat, self.settings, self.index, self.record)


def match_jobs(
    a: Player, b: Player, games: int, settings: Settings, seed: int = 0, save: Path | None = None
) -> list[Job]:
    """The games of a match: game ``i`` from seed ``seed + i // 2`` with A in seat ``i % 2``."""
    return [
        Job(a, b, i, seed + i // 2, i % 2, settings, None if save is None else save / record_name(i, games))
        for i in range(games)
    ]


def iter_games(jobs: Sequence[Job], workers: int = 1) -> Generator[GameResult, None, None]:
    """Play ``jobs``, yielding each result as its game ends (in order of completion).

    With ``workers`` above 1 the games run in that many worker processes, no more
    games started at once than there are workers (so an interrupt stops quickly).
    """
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield job()
        return
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context)
    try:
        queue = iter(jobs)
        running: set[Future[GameResult]] = {pool.submit(job) for job in islice(queue, workers)}
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                following = next(queue, None)
                if following is not None:
                    running.add(pool.submit(following))
                yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@dataclass(frozen=True, slots=True)
class ArenaResult:
    """The games of a match between A and B and their statistics, from A's point of view.

    The score counts a draw as half a win; its 95% interval is the Wilson score
    interval, and the Elo difference and its interval follow from the score and
    the interval's ends.
    """

    a: str
    b: str
    variant: str
    rounds: int
    seed: int
    games: tuple[GameResult, ...]
    planned: int
    seconds: float | None = None
    iterations: int | None = None
    time_limit: float = DEFAULT_TIME_LIMIT
    jobs: int = 1
    wall_seconds: float = 0.0
    counts: Counter[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "games", tuple(sorted(self.games, key=lambda g: g.index)))
        object.__setattr__(self, "counts", Counter(g.outcome for g in self.games))

    @property
    def n(self) -> int:
        """The games played."""
        return len(self.games)

    @property
    def wins(self) -> int:
        """A's wins."""
        return self.counts["win"]

    @property
    def losses(self) -> int:
        """A's losses."""
        return self.counts["loss"]

    @property
    def draws(self) -> int:
        """Drawn games."""
        return self.counts["draw"]

    @property
    def score(self) -> float:
        """A's mean score (a draw counts half); 1/2 when no game was played."""
        return (self.wins + self.draws / 2) / self.n if self.n else 0.5

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% Wilson score interval of A's score."""
        return wilson_interval(self.score, self.n)

    @property
    def elo(self) -> float:
        """The Elo difference of A over B implied by the score (infinite for 0% or 100%)."""
        return elo(self.score)

    @property
    def elo_ci95(self) -> tuple[float, float]:
        """The Elo differences at the ends of the score's 95% interval."""
        low, high = self.ci95
        return elo(low), elo(high)

    @property
    def forfeits(self) -> tuple[int, int]:
        """The games A and B lost by forfeit."""
        sides = Counter(g.forfeited_by for g in self.games)
        return sides["a"], sides["b"]

    def forfeit_reasons(self, most: int = 5) -> list[tuple[str, int]]:
        """The most frequent forfeit reasons, with how many games each ended."""
        return Counter(g.forfeit[1] for g in self.games if g.forfeit).most_common(most)

    @property
    def move_seconds(self) -> tuple[float | None, float | None]:
        """The mean seconds A and B took per decision (None for a side never asked)."""
        return _mean_think(self.games, 0), _mean_think(self.games, 1)

    @property
    def decisions(self) -> tuple[int, int]:
        """How many decisions A and B made in all."""
        return sum(g.decisions[0] for g in self.games), sum(g.decisions[1] for g in self.games)

    def as_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready object (infinite Elo values become null)."""
        low, high = self.ci95
        elo_low, elo_high = self.elo_ci95
        move_a, move_b = self.move_seconds
        return {
            "bots": {"a": self.a, "b": self.b},
            "variant": self.variant,
            "rounds": self.rounds,
            "seed": self.seed,
            "seconds": self.seconds,
            "iterations": self.iterations,
            "time_limit": self.time_limit,
            "jobs": self.jobs,
            "games": self.n,
            "planned": self.planned,
            "complete": self.n == self.planned,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "win_rate": self.score,
            "interval": "wilson",
            "ci95_low": low,
            "ci95_high": high,
            "elo": _finite(self.elo),
            "elo_low": _finite(elo_low),
            "elo_high": _finite(elo_high),
            "forfeits": dict(zip("ab", self.forfeits, strict=True)),
            "forfeit_reasons": [{"reason": r, "games": k} for r, k in self.forfeit_reasons()],
            "points": {"a": sum(g.points[0] for g in self.games), "b": sum(g.points[1] for g in self.games)},
            "decisions": dict(zip("ab", self.decisions, strict=True)),
            "mean_move_seconds": {"a": move_a, "b": move_b},
            "mean_moves": statistics.fmean(g.moves for g in self.games) if self.games else None,
            "wall_seconds": self.wall_seconds,
        }

    def lines(self) -> list[str]:
        """The result as a few lines of text for people."""
        low, high = self.ci95
        elo_low, elo_high = self.elo_ci95
        seeds = f"seeds {self.seed}..{self.seed + (self.planned - 1) // 2}, each with seats swapped"
        rounds = "" if self.rounds == 1 else f", {self.rounds} rounds"
        lines = [
            f"{self.a} (A) vs {self.b} (B): {self.variant}{rounds}, {self.n} games ({seeds}), "
            f"{self.jobs} job{'s' if self.jobs > 1 else ''}, {self.wall_seconds:.1f} s",
        ]
        if self.n < self.planned:
            lines.append(f"interrupted: {self.n} of {self.planned} games played")
        lines += [
            f"A wins {self.wins}, losses {self.losses}, draws {self.draws}",
            f"A's score {self.score:.1%} (a draw counts half), 95% CI {low:.1%} .. {high:.1%} (Wilson)",
            f"Elo difference {format_elo(self.elo)} (95% CI {format_elo(elo_low)} .. {format_elo(elo_high)})",
            f"mean time per decision: A {_ms(self.move_seconds[0])}, B {_ms(self.move_seconds[1])}",
            f"forfeits: A {self.forfeits[0]}, B {self.forfeits[1]}",
        ]
        lines += [f"  {count} x {reason}" for reason, count in self.forfeit_reasons()]
        return lines


def _mean_think(games: Sequence[GameResult], side: int) -> float | None:
    asked = sum(g.decisions[side] for g in games)
    return sum(g.think[side] for g in games) / asked if asked else None


def _finite(value: float) -> float | None:
    return None if math.isinf(value) else value


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f} ms"


def play_match(
    spec_a: str | Player,
    spec_b: str | Player,
    games: int = 100,
    variant: str = "base",
    rounds: int = 1,
    seed: int = 0,
    seconds: float | None = None,
    iterations: int | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
    jobs: int = 1,
    save: str | Path | None = None,
    on_game: Callable[[GameResult], None] | None = None,
) -> ArenaResult:
    """Play ``games`` games between A and B and return the results with their statistics.

    Game ``i`` is dealt from ``seed + i // 2`` with A in seat ``i % 2``; ``jobs`` above 1
    plays in that many worker processes. ``save`` names a folder that receives each
    game's record (``game-0001.json``, ...). ``on_game`` is called with each result
    as its game ends. Raises ValueError for an unknown bot or variant.
    """
    a = player(spec_a, seconds, iterations, time_limit)
    b = player(spec_b, seconds, iterations, time_limit)
    settings = Settings.of(variant, rounds)
    folder = _folder(save)
    start = time.perf_counter()
    results = []
    for result in iter_games(match_jobs(a, b, games, settings, seed, folder), jobs):
        results.append(result)
        if on_game is not None:
            on_game(result)
    return ArenaResult(
        a.label, b.label, variant, rounds, seed, tuple(results), games,
        seconds, iterations, time_limit, jobs, time.perf_counter() - start,
    )


def _folder(save: str | Path | None) -> Path | None:
    if save is None:
        return None
    folder = Path(save)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# ---------------------------------------------------------------------- command line


class _Bar:
    """A rich progress bar on standard error showing games done and the running score (or nothing)."""

    def __init__(self, a: str, b: str, games: int, shown: bool) -> None:
        self.a, self.b = escape(a), escape(b)
        self.tally: Counter[str] = Counter()
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            disable=not shown,
        )
        self.task = self.progress.add_task(self._text(), total=games)

    def _text(self) -> str:
        win, loss, draw = self.tally["win"], self.tally["loss"], self.tally["draw"]
        played = win + loss + draw
        score = f" {(win + draw / 2) / played:.0%}" if played else ""
        return f"[bold]{self.a}[/] {win}-{loss}-{draw} [bold]{self.b}[/]{score}"

    def add(self, result: GameResult) -> None:
        """Count a finished game."""
        self.tally[result.outcome] += 1
        self.progress.update(self.task, advance=1, description=self._text())


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def arena_command(
    bot_a: Annotated[str, typer.Argument(
        metavar="BOT_A",
        help="Bot A: random, greedy, heuristic, mcts, a level (easy, medium, hard, expert) or "
        "'cmd:COMMAND', a program speaking the text protocol (e.g. 'cmd:python mybot.py').",
    )],
    bot_b: Annotated[str, typer.Argument(metavar="BOT_B", help="Bot B, named like BOT_A.")],
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Games to play.")] = 100,
    variant: Annotated[str, typer.Option(help=f"One of {', '.join(VARIANTS)}.")] = "base",
    rounds: Annotated[int, typer.Option(min=1, max=99, help="Rounds per game (R9.1).")] = 1,
    seconds: Annotated[float | None, typer.Option(
        "--time", min=0.0, help="Seconds per decision for search bots."
    )] = None,
    iterations: Annotated[int | None, typer.Option(
        min=1, help="Iterations per decision for search bots (reproducible), instead of --time."
    )] = None,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", min=1, help="Worker processes (default: 2, or 1 on one CPU); 1 plays in-process."
    )] = None,
    save: Annotated[Path | None, typer.Option(
        file_okay=False, help="A folder for every game's record: game-0001.json, ..."
    )] = None,
    seed: Annotated[int, typer.Option(help="Game i is dealt from seed + i // 2.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    time_limit: Annotated[float, typer.Option(
        "--time-limit", min=0.0, help="Seconds an external program may take per decision (0: no limit)."
    )] = DEFAULT_TIME_LIMIT,
) -> None:
    """Play many seeded games between two bots; report A's score, its 95% interval and the Elo gap.

    Game i is dealt from seed + i // 2, with A in seat i % 2: each deal is played twice,
    seats swapped.
    A's score counts a draw as half a win; its 95% interval is Wilson's.
    The Elo difference is -400 log10(1/score - 1), likewise for the interval.
    A bot that raises, answers an illegal or malformed action, does not
    answer within --time-limit, or whose program dies, forfeits that game.
    """
    if variant not in VARIANTS:
        raise _fail(f"unknown variant {variant!r}: choose one of {', '.join(VARIANTS)}")
    try:
        a = player(bot_a, seconds, iterations, time_limit)
        b = player(bot_b, seconds, iterations, time_limit)
        folder = _folder(save)
    except (ValueError, OSError) as error:
        raise _fail(str(error)) from None
    workers = jobs if jobs is not None else min(2, os.cpu_count() or 1)
    start = time.perf_counter()
    played = _run_match(match_jobs(a, b, games, Settings.of(variant, rounds), seed, folder), workers,
                        _Bar(a.label, b.label, games, shown=not as_json and sys.stderr.isatty()))
    result = ArenaResult(
        a.label, b.label, variant, rounds, seed, tuple(played), games,
        seconds, iterations, time_limit, workers, time.perf_counter() - start,
    )
    if as_json:
        typer.echo(json.dumps(result.as_dict(), allow_nan=False))
    else:
        for line in result.lines():
            typer.echo(line)
    if result.n < games:
        raise typer.Exit(130)


def _run_match(jobs: list[Job], workers: int, bar: _Bar) -> list[GameResult]:
    """Play the games with a progress bar; an interrupt (Ctrl-C) keeps the games already played."""
    results: list[GameResult] = []
    played = iter_games(jobs, workers)
    with bar.progress:
        try:
            for game in played:
                results.append(game)
                bar.add(game)
        except KeyboardInterrupt:
            pass
        finally:
            played.close()
    return results
