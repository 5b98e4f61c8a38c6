"""What one seat may know (R10): ``view(state, seat)`` and the redacted move history.

A view is computed from the state alone and holds only what rule R10 (docs/rules.md) lets
that seat know: the board, the discard piles, the deck sizes, both hands' sizes
as (clan, tactic) counts, the seat's own hand, the cards it put under a deck with
the Recruiter that are still there (R10.2) and the move history with the other
seat's Recruiter returns redacted to ``return clan`` / ``return tactic``. The
spectator (seat ``None``) sees no hand and every return redacted.

Stones are indices 0-8 in the data and 1-9 in notation strings. A view never
holds the deck order, the other hand's cards, the seed or the other seat's
Recruiter returns, not even once the game is over; ``reveal`` shows everything
of a finished game.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from . import actions as A
from .actions import ACTIONS, Kind, action_parts
from .cards import (
    BLUFF,
    MODE_BLUFF,
    MODE_MUD,
    MUD,
    NUM_CLAN,
    NUM_STONES,
    card_str,
)
from .explain import board_formations, formations
from .phases import Phase
from .state import GameState, Outcome

_MODE_CODES = ((MODE_BLUFF, card_str(BLUFF)), (MODE_MUD, card_str(MUD)))


def _plain(value: object) -> object:
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class StoneView:
    """One stone: both sides' cards in play order, completeness, combat modes, owner.

    ``first`` is the seat whose side became complete first (R4.6 ties), or -1 when
    neither side is complete; ``modes`` lists the combat-mode codes on the stone.
    """

    cards: tuple[tuple[str, ...], tuple[str, ...]]
    complete: tuple[bool, bool]
    modes: tuple[str, ...]
    owner: int
    first: int


@dataclass(frozen=True, slots=True)
class Under:
    """A card this seat put under a deck (R7.7) that is still there, ``from_bottom`` cards up."""

    card: str
    from_bottom: int


@dataclass(frozen=True, slots=True)
class RoundView:
    """How a finished round ended: winner (None: draw), reason, stone owners (-1 none), points."""

    winner: int | None
    reason: str
    stones: tuple[int, ...]
    points: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ResultView:
    """How the match ended (R9.3): the winner (None: a drawn match) and the points."""

    winner: int | None
    scores: tuple[int, int]


@dataclass(frozen=True, slots=True)
class View:
    """Everything ``seat`` may know about a game (R10); see ``view``.

    ``hand`` is the seat's own hand, sorted (None for a spectator); ``hand_sizes``
    gives each seat's (clan, tactic) card counts (R10.1). ``held`` is the card a
    Strategist or Traitor has taken and ``held_from`` its stone (None and -1 when
    none). ``claimable`` (stones) and ``legal`` (notation) are empty unless the
    decision is this seat's. ``under_clan`` / ``under_tactic`` list, bottom up, the
    seat's Recruiter returns still in that deck (R10.2). ``result`` is None until
    the match is over. ``tactics`` says whether the variant plays with tactic cards (R7).
    ``first_player`` is the seat that began the match (R2.3);
    ``movers[i]`` the seat that made ``history[i]``; ``forfeit`` the seat that
    forfeited and why, if one did.
    """

    variant: str
    rounds: int
    tactics: bool
    round: int
    scores: tuple[int, int]
    rounds_won: tuple[int, int]
    seat: int | None
    first_player: int
    turn: int
    phase: str
    stones: tuple[StoneView, ...]
    hand: tuple[str, ...] | None
    hand_sizes: tuple[tuple[int, int], tuple[int, int]]
    clan_deck: int
    tactic_deck: int
    discards: tuple[tuple[str, ...], tuple[str, ...]]
    tactics_played: tuple[int, int]
    passes: int
    held: str | None
    held_from: int
    recruit_draws: int
    recruit_returns: int
    under_clan: tuple[Under, ...]
    under_tactic: tuple[Under, ...]
    claimable: tuple[int, ...]
    legal: tuple[str, ...]
    round_outcomes: tuple[RoundView, ...]
    result: ResultView | None
    history: tuple[str, ...]
    movers: tuple[int, ...]
    forfeit: tuple[int, str] | None

    def to_dict(self) -> dict[str, object]:
        """The view as plain JSON-ready data (dicts, lists, ints, strings, booleans, None)."""
        data = _plain(self)
        assert isinstance(data, dict)
        return data


# ---------------------------------------------------------------- who made each move


def actors(state: GameState) -> tuple[tuple[int, int], ...]:
    """For each move of the history, the round it belongs to and the seat that made it."""
    starts = state.round_starts
    result = []
    round_index = 0
    for i, seat in enumerate(state.movers):
        while round_index + 1 < len(starts) and starts[round_index + 1] <= i:
            round_index += 1
        result.append((round_index, seat))
    return tuple(result)


def _redacted(action_id: int) -> str:
    card = ACTIONS[action_id].card
    return f"return {A.DECK_NAMES[0 if card < NUM_CLAN else 1]}"


def public_history(state: GameState, seat: int | None) -> tuple[str, ...]:
    """The moves in notation as ``seat`` may see them (R10.2, R10.4).

    The other seat's Recruiter returns read ``return clan`` / ``return tactic``;
    a spectator (``None``) sees every return that way.
    """
    return _public_history(state, seat)


def _public_history(state: GameState, seat: int | None) -> tuple[str, ...]:
    return _history_of(_Moves.of(state), seat)


@dataclass(frozen=True, slots=True)
class _Moves:
    """The moves in notation, and where the Recruiter returns are (redacted for all but their mover)."""

    texts: tuple[str, ...]
    returns: tuple[tuple[int, int, str], ...]
    """(index, mover, redacted text) of each return."""

    @staticmethod
    def of(state: GameState) -> _Moves:
        """The moves of ``state``."""
        texts = tuple(str(ACTIONS[a]) for a in state.history)
        moves = enumerate(zip(state.history, state.movers, strict=True))
        returns = tuple((i, mover, _redacted(a)) for i, (a, mover) in moves if ACTIONS[a].kind == Kind.RETURN)
        return _Moves(texts, returns)


def _history_of(moves: _Moves, seat: int | None) -> tuple[str, ...]:
    """The moves as ``seat`` may see them: the other seat's returns redacted."""
    hidden = [(i, text) for i, mover, text in moves.returns if mover != seat]
    if not hidden:
        return moves.texts
    texts = list(moves.texts)
    for i, text in hidden:
        texts[i] = text
    return tuple(texts)


def public_log(state: GameState, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
    """Every move of the match as ``seat`` may know it (R10.2, R10.4), oldest first, as data;
    with ``start``, only the moves from ``history[start]`` on.

    Each entry is ``action_parts`` of the move (the other seat's Recruiter returns redacted as
    in ``public_history``, with no card) and its ``index`` in the history, ``mover`` and
    ``round`` (0-based). A ``place`` (Strategist, Traitor) names the card it puts down: the
    card of the ``take`` just before it.
    """
    log: list[dict[str, Any]] = []
    held: str | int | None = None
    first = max(0, min(start, len(state.history)) - 1)
    round_index = state.round_of_move(first) if state.history else 0
    starts = state.round_starts
    for index in range(first, len(state.history)):
        while round_index + 1 < len(starts) and starts[round_index + 1] <= index:
            round_index += 1
        action_id, mover = state.history[index], state.movers[index]
        action = ACTIONS[action_id]
        if action.kind == Kind.RETURN and mover != seat:
            entry = action_parts(action_id) | {"action": _redacted(action_id), "card": None}
        else:
            entry = action_parts(action_id)
        if action.kind == Kind.TAKE:
            held = entry["card"]
        elif action.kind == Kind.PLACE:
            entry["card"] = held
        if index >= start:
            entry.update(index=index, mover=mover, round=round_index)
            log.append(entry)
    return log


def round_board(state: GameState, index: int) -> dict[str, Any] | None:
    """The board as round ``index`` ended, public (R10.1): ``{"round", "stones": [{"cards":
    [side 0, side 1], "modes", "owner"}], "formations"}``; None if the state does not hold it."""
    if not 0 <= index < len(state.round_boards):
        return None
    board = state.round_boards[index]
    owners = state.round_outcomes[index].stones
    stones = [
        {
            "cards": [list(_cards(list(pair[0]))), list(_cards(list(pair[1])))],
            "modes": [code for bit, code in _MODE_CODES if board.modes[stone] & bit],
            "owner": -1 if owners[stone] is None else owners[stone],
        }
        for stone, pair in enumerate(board.sides)
    ]
    return {"round": index, "stones": stones, "formations": board_formations(board.sides, board.modes)}


# ---------------------------------------------------------------- the view


def _under(state: GameState, seat: int | None) -> tuple[tuple[Under, ...], tuple[Under, ...]]:
    """The seat's Recruiter returns still in each deck, bottom up (R10.2)."""
    if seat is None:
        return (), ()
    clan, tactic = state.known_under(seat)
    return (
        tuple(Under(card_str(card), i) for i, card in clan),
        tuple(Under(card_str(card), i) for i, card in tactic),
    )


def _stone(state: GameState, stone: int) -> StoneView:
    complete = (state.is_complete(0, stone), state.is_complete(1, stone))
    stamps = [state.stamps[seat][stone] if complete[seat] else -1 for seat in (0, 1)]
    if not any(complete):
        first = -1
    elif all(complete):
        first = 0 if stamps[0] < stamps[1] else 1
    else:
        first = 0 if complete[0] else 1
    return StoneView(
        cards=(_cards(state.sides[0][stone]), _cards(state.sides[1][stone])),
        complete=complete,
        modes=tuple(code for bit, code in _MODE_CODES if state.modes[stone] & bit),
        owner=state.owner[stone],
        first=first,
    )


def _cards(cards: list[int]) -> tuple[str, ...]:
    return tuple(card_str(c) for c in cards)


def _pair(values: list[int]) -> tuple[int, int]:
    return values[0], values[1]


def _hand_size(hand: list[int]) -> tuple[int, int]:
    clan = sum(1 for c in hand if c < NUM_CLAN)
    return clan, len(hand) - clan


def _round_view(outcome: Outcome) -> RoundView:
    stones = tuple(-1 if s is None else s for s in outcome.stones)
    return RoundView(outcome.winner, outcome.reason.value, stones, outcome.points)


def _decision(state: GameState, seat: int | None) -> tuple[tuple[int, ...], tuple[str, ...]]:
    if seat != state.turn or state.phase == Phase.OVER:
        return (), ()
    claimable = tuple(state.claimable) if state.phase == Phase.CLAIM else ()
    return claimable, tuple(str(a) for a in state.legal_actions())


def view(state: GameState, seat: int | None) -> View:
    """What ``seat`` (0 or 1; None for a spectator) may know of ``state`` (R10)."""
    _check_seat(seat)
    return _seat_view(state, seat, _public(state), _Moves.of(state))


def views(state: GameState, seats: Iterable[int | None]) -> dict[int | None, View]:
    """``view(state, seat)`` for each of ``seats``, what every seat may know built once (for a
    server telling both seats and the spectators the same position)."""
    chosen = set(seats)
    for seat in chosen:
        _check_seat(seat)
    public, moves = _public(state), _Moves.of(state)
    return {seat: _seat_view(state, seat, public, moves) for seat in chosen}


def _check_seat(seat: object) -> None:
    if seat not in (None, 0, 1):
        raise ValueError(f"a seat is 0, 1 or None (spectator), not {seat!r}")


def _public(state: GameState) -> dict[str, Any]:
    """The fields of a view that are the same for every seat (R10.1)."""
    result = state.outcome
    return {
        "variant": state.settings.variant,
        "tactics": state.settings.tactics,
        "rounds": state.settings.rounds,
        "round": state.round,
        "scores": _pair(state.scores),
        "rounds_won": _pair(state.rounds_won),
        "first_player": state.first,
        "turn": state.turn,
        "phase": state.phase.name,
        "stones": tuple(_stone(state, s) for s in range(NUM_STONES)),
        "hand_sizes": (_hand_size(state.hands[0]), _hand_size(state.hands[1])),
        "clan_deck": len(state.clan_deck),
        "tactic_deck": len(state.tactic_deck),
        "discards": (_cards(state.discards[0]), _cards(state.discards[1])),
        "tactics_played": _pair(state.tactics_played),
        "passes": state.passes,
        "held": None if state.held < 0 else card_str(state.held),
        "held_from": state.held_from,
        "recruit_draws": state.recruit_draws,
        "recruit_returns": state.recruit_returns,
        "round_outcomes": tuple(_round_view(o) for o in state.round_outcomes),
        "result": None if result is None else ResultView(result.winner, result.scores),
        "movers": tuple(state.movers),
        "forfeit": state.forfeited,
    }


def _seat_view(state: GameState, seat: int | None, public: dict[str, Any], moves: _Moves) -> View:
    """The view of ``seat``: the ``public`` fields, the ``moves`` as it may see them, and what only
    this seat may know."""
    claimable, legal = _decision(state, seat)
    under_clan, under_tactic = _under(state, seat)
    return View(
        seat=seat,
        hand=None if seat is None else _cards(sorted(state.hands[seat])),
        under_clan=under_clan,
        under_tactic=under_tactic,
        claimable=claimable,
        legal=legal,
        history=_history_of(moves, seat),
        **public,
    )


def reveal(state: GameState, finished: bool = False) -> dict[str, object]:
    """Everything about a finished game (R10.4 hides nothing once play is over).

    The spectator's view plus both hands, the decks bottom up, the full history and every
    stone's formations (``explain.formations``).
    Raises ValueError while the game is still being played, unless ``finished`` says that
    ``state`` is an earlier position of a game that is over (a step of its replay).
    """
    if state.phase != Phase.OVER and not finished:
        raise ValueError("the game is still being played: its hidden cards stay hidden (R10.4)")
    data = view(state, None).to_dict()
    data["hands"] = [list(_cards(state.hands[0])), list(_cards(state.hands[1]))]
    data["decks"] = [list(_cards(state.clan_deck)), list(_cards(state.tactic_deck))]
    data["history"] = [str(ACTIONS[a]) for a in state.history]
    data["formations"] = formations(state)
    return data
