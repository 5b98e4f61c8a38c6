"""A game's log: replaying it into a state, and the misclick-undo rule.

The log is the truth; a ``GameState`` is a cache rebuilt by replaying the log's
actions with the engine, after folding away the moves each undo entry took back. An ``end``
entry, always the last, ends the game off the board: its notation is an ``Ending``; a forfeit
(time, resigned, left) replays as the engine's forfeit by the entry's seat, an abort or an
abandonment leaves the board as it was, with no winner.

Misclick undo is a rule of this web app, as Board Game Arena offers it, not a rule of
the game (it is not in docs/rules.md): a seat may take back its last card play of the turn
(a card on a stone, a combat mode or a ruse, with every move it made after it) only

- while that seat is still the one deciding, in the same round, and
- while nothing hidden was revealed to it since: no card was drawn or taken from a deck
  (a draw, a Recruiter draw, an automatic draw).

It is read from the engine's history and ``movers``: the moves since the seat's turn
began are the last moves made by that seat in the current round.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...engine import ACTIONS, GameState, Kind, SchottenError, Settings
from ..core.vocab import Ending
from ..storage.rows import ACTION, END, UNDO, UNDO_SEPARATOR, Entry

_CARD_PLAYS = (Kind.PLAY, Kind.RUSE)


class LogError(Exception):
    """A stored log that does not replay (a corrupt database): ``index`` is the first entry that
    does not."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


def fold(entries: Iterable[Entry]) -> list[tuple[str, int]]:
    """The moves that stand, as (notation, seat), once every undo has taken its moves back."""
    return [(text, seat) for text, seat, _ in _fold(entries)]


def _fold(entries: Iterable[Entry]) -> list[tuple[str, int, int]]:
    """The moves that stand, as (notation, seat, index of their entry)."""
    moves: list[tuple[str, int, int]] = []
    ended = False
    for entry in entries:
        if ended:
            raise LogError(f"entry {entry.index} comes after the game's end entry", entry.index)
        if entry.kind == END:
            ended = True
            _ending(entry)
        elif entry.kind == ACTION:
            moves.append((entry.notation, entry.seat, entry.index))
        elif entry.kind == UNDO:
            undone = entry.notation.split(UNDO_SEPARATOR)
            tail = moves[-len(undone):]
            seats = {s for _, s, _ in tail}
            if len(tail) != len(undone) or [m for m, _, _ in tail] != undone or seats != {entry.seat}:
                raise LogError(f"undo entry {entry.index} does not match the moves before it", entry.index)
            del moves[-len(undone):]
        else:
            raise LogError(f"entry {entry.index} has an unknown kind {entry.kind!r}", entry.index)
    return moves


def standing(entries: Iterable[Entry]) -> list[Entry]:
    """The action entries whose moves stand (every undo folded away), in order."""
    entries = list(entries)
    by_index = {entry.index: entry for entry in entries}
    return [by_index[index] for _, _, index in _fold(entries)]


def _ending(entry: Entry) -> Ending:
    """The ending an ``end`` entry records; ``LogError`` if it is not one."""
    try:
        return Ending(entry.notation)
    except ValueError:
        raise LogError(f"end entry {entry.index} names no known ending ({entry.notation!r})",
                       entry.index) from None


def ending_of(entries: list[Entry]) -> tuple[Ending, int] | None:
    """How the log's game ended off the board (the ending and the seat its end entry names), or None."""
    if entries and entries[-1].kind == END:
        return _ending(entries[-1]), entries[-1].seat
    return None


def replay(variant: str, rounds: int, seed: int, entries: Iterable[Entry]) -> GameState:
    """The state a game's log leads to (every move checked by the engine); ``LogError`` naming the
    first entry that does not replay."""
    entries = list(entries)
    state = GameState.new(Settings.of(variant, rounds), seed)
    for text, seat, index in _fold(entries):
        if state.turn != seat:
            raise LogError(f"entry {index} ({text}) was made by seat {seat} out of turn", index)
        try:
            state.apply(text)
        except SchottenError as error:
            raise LogError(f"entry {index} ({text}) does not replay: {error}", index) from None
    ending = ending_of(entries)
    if ending is not None and ending[0].forfeits:
        try:
            state.forfeit(ending[1], str(ending[0]))
        except (SchottenError, ValueError) as error:
            index = entries[-1].index
            raise LogError(f"end entry {index} does not replay: {error}", index) from None
    return state


def advanced(state: GameState, entries: Iterable[Entry]) -> GameState:
    """The state ``entries`` (the log's entries after those ``state`` came from) lead to, every move
    checked by the engine; ``state`` itself is left as it was. ``LogError`` naming the first entry
    that does not follow."""
    after, ended = state.copy(), False
    for entry in entries:
        if ended or (after.is_over and entry.kind != END):
            raise LogError(f"entry {entry.index} comes after the game's end", entry.index)
        if entry.kind == ACTION:
            _follow(after, entry)
        elif entry.kind == UNDO:
            count = len(entry.notation.split(UNDO_SEPARATOR))
            if (count > len(after.history) or undo_notation(after, count) != entry.notation
                    or any(seat != entry.seat for seat in after.movers[-count:])):
                raise LogError(f"undo entry {entry.index} does not match the moves before it", entry.index)
            after = rebuilt(after, len(after.history) - count)
        elif entry.kind == END:
            ended, ending = True, _ending(entry)
            if ending.forfeits and not after.is_over:
                after.forfeit(entry.seat, str(ending))
        else:
            raise LogError(f"entry {entry.index} has an unknown kind {entry.kind!r}", entry.index)
    return after


def _follow(state: GameState, entry: Entry) -> None:
    """Apply an action entry to ``state``; ``LogError`` if it is out of turn or illegal."""
    if state.turn != entry.seat:
        raise LogError(f"entry {entry.index} ({entry.notation}) was made by seat {entry.seat} out of turn",
                       entry.index)
    try:
        state.apply(entry.notation)
    except SchottenError as error:
        text = f"entry {entry.index} ({entry.notation}) does not replay: {error}"
        raise LogError(text, entry.index) from None


def rebuilt(state: GameState, keep: int) -> GameState:
    """The state after only the first ``keep`` moves of ``state``'s history."""
    other = GameState.new(state.settings, state.seed)
    for action_id in state.history[:keep]:
        other.apply_id(action_id)
    return other


def undo_span(state: GameState, seat: int) -> int | str:
    """How many of the last moves an undo by ``seat`` takes back, or why it may not undo now."""
    if state.is_over:
        return "the game is over: nothing can be taken back"
    if state.turn != seat:
        return "you can take back a card only while it is still your turn"
    begin = len(state.history)
    while begin > state.round_starts[-1] and state.movers[begin - 1] == seat:
        begin -= 1
    plays = [i for i in range(begin, len(state.history)) if ACTIONS[state.history[i]].kind in _CARD_PLAYS]
    if not plays:
        return "you have played no card this turn that could be taken back"
    if _revealed_since(state, plays[-1]):
        return "a card was taken from a deck since your play: it can no longer be taken back"
    return len(state.history) - plays[-1]


def _revealed_since(state: GameState, start: int) -> bool:
    """Whether a card left a deck (something hidden reached a hand) at move ``start`` or after."""
    return state.last_draw >= start


def undo_notation(state: GameState, count: int) -> str:
    """The text of an undo entry taking back the last ``count`` moves."""
    return UNDO_SEPARATOR.join(str(ACTIONS[a]) for a in state.history[-count:])
