"""Terminal rendering with rich: cards in colour with a symbol per colour, the board, outcomes.

Everything is drawn from a view (``engine.view``), so a player's screen shows only
what that player may know (R10). Hands are passed separately: a player's own hand,
or both hands when a finished game is replayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from .engine import Phase, Settings
from .engine.cards import COLOUR_LETTERS, COLOURS, NUM_STONES, TACTIC_CODES, TACTIC_NAMES
from .engine.explain import PHASE_TASKS
from .engine.view import View

SYMBOLS: dict[str, str] = {"g": "▲", "b": "●", "r": "♥", "y": "★", "p": "◆", "k": "✿"}
"""A symbol per colour letter, so colours can be told apart without colour."""

STYLES: dict[str, str] = {
    "g": "bold green3",
    "b": "bold dodger_blue1",
    "r": "bold red1",
    "y": "bold gold1",
    "p": "bold medium_purple1",
    "k": "bold hot_pink",
}
"""The rich style of each colour letter."""

TACTIC_STYLE = "bold black on grey78"
TACTIC_SYMBOL = "✦"
SEAT_STYLES = ("bold cyan", "bold orange1")


def seat_label(seat: int) -> str:
    """A seat's name in text: P1 for seat 0, P2 for seat 1."""
    return f"P{seat + 1}"


def card_text(card: str) -> Text:
    """A card in notation (``7b``, ``JO``) as coloured text with its colour's symbol."""
    if len(card) == 2 and card[1] in SYMBOLS and card[0].isdigit():
        return Text(f"{card}{SYMBOLS[card[1]]}", style=STYLES[card[1]])
    return Text(f"{card}{TACTIC_SYMBOL}", style=TACTIC_STYLE)


def cards_text(cards: Sequence[str], empty: str = "-") -> Text:
    """Cards separated by spaces, or ``empty`` when there are none."""
    if not cards:
        return Text(empty, style="dim")
    return Text(" ").join(card_text(c) for c in cards)


def legend() -> Text:
    """Which symbol and colour stands for which colour, and the tactic codes."""
    parts = [
        Text(f"{SYMBOLS[letter]} {letter}={name}", style=STYLES[letter])
        for letter, name in zip(COLOUR_LETTERS, COLOURS, strict=True)
    ]
    tactics = ", ".join(f"{TACTIC_CODES[c]}={TACTIC_NAMES[c]}" for c in TACTIC_CODES)
    marks = (
        "\n[3] a stone; ▼P1 its owner (the arrow points to their side); ✓P1 P1 could claim it now;"
        " ¹ the side that was completed first (R4.6)"
    )
    return Text("  ").join(parts) + Text(f"\ntactic cards ({TACTIC_SYMBOL}): {tactics}{marks}")


@dataclass(frozen=True, slots=True)
class Board:
    """What to draw: a view, who sits at the bottom, the names and the extras around the board.

    ``hands`` holds each seat's hand to show, or None to show only its size;
    ``claimable`` the stones each seat could claim now (R5, public knowledge);
    ``moves`` the last moves, already worded.
    """

    seen: View
    names: tuple[str, str]
    bottom: int = 0
    hands: tuple[Sequence[str] | None, Sequence[str] | None] = (None, None)
    claimable: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset())
    moves: Sequence[str] = field(default_factory=tuple)


def render(board: Board) -> RenderableType:
    """The whole table: header, the opponent's line, the nine stones, the bottom line, the rest."""
    seen, top = board.seen, 1 - board.bottom
    parts: list[RenderableType] = [
        _header(seen),
        _player_line(board, top),
        _stones_table(board),
        _player_line(board, board.bottom),
        _footer(board),
    ]
    return Group(*parts)


def _header(seen: View) -> Text:
    text = Text(f"Schotten Totten · {seen.variant}", style="bold")
    if seen.rounds > 1:
        shown = min(seen.round + 1, seen.rounds)
        text.append(f" · round {shown} of {seen.rounds} · score ")
        text.append(f"P1 {seen.scores[0]}", style=SEAT_STYLES[0])
        text.append(" - ")
        text.append(f"P2 {seen.scores[1]}", style=SEAT_STYLES[1])
    return text


def _name(board: Board, seat: int) -> Text:
    return Text(f"{seat_label(seat)} {board.names[seat]}", style=SEAT_STYLES[seat])


def _player_line(board: Board, seat: int) -> Text:
    seen = board.seen
    clan, tactic = seen.hand_sizes[seat]
    line = _name(board, seat)
    hand = board.hands[seat]
    if hand is not None:
        line.append("  hand: ")
        line.append_text(cards_text(hand))
    line.append(f"  ({clan} clan" + (f" + {tactic} tactic)" if has_tactics(seen) else ")"))
    if seen.discards[seat]:
        line.append("  discards: ")
        line.append_text(cards_text(seen.discards[seat]))
    if has_tactics(seen):
        line.append(f"  tactics played: {seen.tactics_played[seat]}", style="dim")
    return line


def _stones_table(board: Board) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_header=False, pad_edge=False, padding=(0, 1))
    table.add_column("", no_wrap=True)
    for _ in range(NUM_STONES):
        table.add_column("", justify="center", no_wrap=True, min_width=5)
    top, bottom = 1 - board.bottom, board.bottom
    table.add_row(Text(seat_label(top), style=SEAT_STYLES[top]), *_side_cells(board, top))
    table.add_row("", *(_stone_cell(board, s) for s in range(NUM_STONES)), end_section=True)
    table.add_row(Text(seat_label(bottom), style=SEAT_STYLES[bottom]), *_side_cells(board, bottom))
    return table


def _side_cells(board: Board, seat: int) -> list[Text]:
    cells = []
    for stone in board.seen.stones:
        cards = list(stone.cards[seat])
        cell = Text("\n").join(card_text(c) for c in cards) if cards else Text("·", style="dim")
        if stone.complete[seat] and stone.first == seat and stone.complete[1 - seat]:
            cell.append(" ¹", style="dim")
        cells.append(cell)
    return cells


def _stone_cell(board: Board, index: int) -> Text:
    stone = board.seen.stones[index]
    cell = Text(f"[{index + 1}]", style="bold reverse" if stone.owner >= 0 else "bold")
    if stone.owner >= 0:
        arrow = "▼" if stone.owner == board.bottom else "▲"
        cell.append(f"\n{arrow}{seat_label(stone.owner)}", style=SEAT_STYLES[stone.owner])
    for mode in stone.modes:
        cell.append(f"\n{mode}", style=TACTIC_STYLE)
    for seat in (0, 1):
        if index in board.claimable[seat]:
            cell.append(f"\n✓{seat_label(seat)}", style="bold green")
    return cell


def has_tactics(seen: View) -> bool:
    """Whether the variant seen is played with tactic cards (the engine's settings say)."""
    return Settings.of(seen.variant).tactics


def _footer(board: Board) -> Group:
    seen = board.seen
    lines: list[RenderableType] = []
    decks = Text(f"clan deck: {seen.clan_deck}")
    if has_tactics(seen):
        decks.append(f" · tactic deck: {seen.tactic_deck}")
    under = [u.card for u in (*seen.under_clan, *seen.under_tactic)]
    if under:
        decks.append(" · you put under the decks: ")
        decks.append_text(cards_text(under))
    lines.append(decks)
    if board.moves:
        lines.append(Text("last moves: " + " · ".join(board.moves), style="dim"))
    if seen.held is not None:
        held = Text("holding: ")
        held.append_text(card_text(seen.held))
        held.append(f" taken from stone {seen.held_from + 1}")
        lines.append(held)
    if seen.result is None:
        task = PHASE_TASKS[Phase[seen.phase]]
        turn = Text("to move: ")
        turn.append_text(_name(board, seen.turn))
        turn.append(f" — {task}")
        lines.append(turn)
    return Group(*lines)


def move_words(made: Sequence[tuple[int, int]], history: Sequence[str], last: int) -> list[str]:
    """The last ``last`` moves as ``P1 7b@3``, from ``view.actors`` and a view's history."""
    start = max(0, len(history) - last)
    return [f"{seat_label(made[i][1])} {history[i]}" for i in range(start, len(history))]


def render_outcome(seen: View, names: tuple[str, str]) -> RenderableType:
    """Each round's outcome and the match result (R6, R9)."""
    table = Table(title="Result", box=box.SIMPLE_HEAD)
    for column in ("round", "winner", "how", "stones P1-P2", "points P1-P2"):
        table.add_column(column)
    for number, outcome in enumerate(seen.round_outcomes, start=1):
        winner = "draw" if outcome.winner is None else f"{seat_label(outcome.winner)} {names[outcome.winner]}"
        stones = f"{outcome.stones.count(0)}-{outcome.stones.count(1)}"
        points = f"{outcome.points[0]}-{outcome.points[1]}"
        table.add_row(str(number), winner, outcome.reason, stones, points)
    parts: list[RenderableType] = [table]
    if seen.result is not None:
        result = seen.result
        if result.winner is None:
            verdict = Text("The game is drawn", style="bold")
        else:
            verdict = Text(f"{seat_label(result.winner)} {names[result.winner]} wins",
                           style=SEAT_STYLES[result.winner])
        if seen.rounds > 1:
            verdict.append(f" ({result.scores[0]}-{result.scores[1]})")
        parts.append(verdict)
    return Group(*parts)
