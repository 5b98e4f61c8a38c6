"""What clients are sent about a game: the state message, a table as the lobby lists it and a
finished game's replay steps. Everything here is derived; nothing changes a game.

A state message is built for one seat (R10: its own view, log and legal actions), but part of
it is the same for every client of one position: the stones' formations, the board the last
round ended with and, at the end, the reveal. ``Told`` (one per game) encodes those once per
position; each message is then put together from encoded parts. A message carries the whole
log only when a client asks (on connecting, on ``sync``); a change tells only the entries from
``log_from`` on, the first that changed (none after an undo: the client drops the rest).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields, is_dataclass
from datetime import datetime
from typing import Any, Protocol

import orjson

from ...engine import ACTIONS, GameState
from ...engine.actions import action_parts
from ...engine.explain import claim_proof, formations
from ...engine.position import format_position
from ...engine.view import View, public_log, reveal, round_board, view, views
from ...engine.whynot import askable, why_not
from ..core.schemas import Table, TournamentRef, UnratedReason
from ..core.vocab import Status
from ..players import rating_rules
from ..players.people import Seated
from ..storage.rows import GameInfo, TournamentLink
from .gamelog import undo_span


def _fields(value: object) -> dict[str, Any]:
    """A dataclass as the JSON object of its fields (what ``View.to_dict`` makes of it)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    raise TypeError(f"{type(value).__name__} is not JSON data")


def encode(value: object) -> str:
    """Compact JSON of plain data and of the engine's dataclass views (tuples as arrays), by orjson
    (a quarter of the standard library's time on a view)."""
    return orjson.dumps(value, default=_fields).decode()


class Served(Protocol):
    """What a state message is made of: a game's row, its state, its version and its ``Told``."""

    info: GameInfo
    state: GameState
    version: int
    told: Told

    def undos_left(self, seat: int) -> int:
        """How many more undos ``seat`` may ask for."""
        ...

    def extras(self, seat: int | None) -> dict[str, Any]:
        """The clock, the ending and the seat's choices (resign, abort, claim), as plain data."""
        ...


class Told:
    """A game's parts of the state message that do not depend on who is told, encoded once per
    position (``shared``)."""

    def __init__(self) -> None:
        self._state: GameState | None = None
        self._shared: dict[str, str] = {}
        self._round_end = (-2, "null")

    def shared(self, state: GameState) -> dict[str, str]:
        """``formations``, ``round_end`` and ``reveal`` of ``state`` as JSON (computed once for it)."""
        if state is not self._state:
            self._state = state
            self._shared = {
                "formations": encode(formations(state)),
                "round_end": self._last_round_end(state),
                "reveal": encode(reveal(state)) if state.is_over else "null",
            }
        return self._shared

    def _last_round_end(self, state: GameState) -> str:
        """The board the last finished round ended with, encoded once per round: a round's final
        board never changes (an undo never reaches back into an earlier round)."""
        last = len(state.round_outcomes) - 1
        if self._round_end[0] != last:
            self._round_end = (last, encode(round_board(state, last)))
        return self._round_end[1]


WIRE_VIEW_FIELDS = tuple(f.name for f in fields(View) if f.name not in ("history", "movers"))
"""The view's fields a state message carries: all but the moves, which its ``log`` tells."""


def wire_view(seen: View) -> dict[str, Any]:
    """The view as a state message carries it (``WIRE_VIEW_FIELDS``)."""
    return {name: getattr(seen, name) for name in WIRE_VIEW_FIELDS}


def state_texts(game: Served, seats: Iterable[int | None], log_from: int = 0) -> dict[int | None, str]:
    """``state_text`` for each of ``seats``, their views built together (``views``)."""
    seen = views(game.state, seats)
    return {seat: state_text(game, seat, log_from, seen[seat]) for seat in seen}


def state_text(game: Served, seat: int | None, log_from: int = 0, seen: View | None = None) -> str:
    """The state message (JSON text) for one client of ``game``: ``seat``'s view (R10; ``seen`` if
    already built) and what goes with it (see docs/web.md), with the log's entries from ``log_from`` on."""
    state, info = game.state, game.info
    if seen is None:
        seen = view(state, seat)
    shared = game.told.shared(state)
    last = {"action": seen.history[-1], "mover": seen.movers[-1]} if seen.history else None
    claims = {str(s + 1): claim_proof(state, state.turn, s).to_dict() for s in seen.claimable}
    asked = [s + 1 for s in askable(seen)] if info.status == Status.PLAYING else []
    can_undo = (seat is not None and info.status == Status.PLAYING and game.undos_left(seat) > 0
                and isinstance(undo_span(state, seat), int))
    parts = (
        ("type", '"state"'),
        ("version", encode(game.version)),
        ("seat", encode(seat)),
        ("players", encode(info.players)),
        ("view", encode(wire_view(seen))),
        ("last", encode(last)),
        ("can_undo", encode(can_undo)),
        ("claims", encode(claims)),
        ("why_not", encode(asked)),
        ("legal", encode(legal(game, seat))),
        ("auto_draw", encode(seat == state.turn and state.draw_is_forced)),
        ("formations", shared["formations"]),
        ("log_from", encode(log_from)),
        ("log", encode(public_log(state, seat, log_from))),
        ("round_end", shared["round_end"]),
        ("status", encode(info.status)),
        ("reveal", shared["reveal"]),
        ("rematch", encode(info.rematch.told() if info.rematch is not None else None)),
        ("rematch_of", encode(info.rematch_of)),
        *((("hints", "true"),) if info.hints else ()),
        ("rematch_closed", encode(info.rematch_closed.told() if info.rematch_closed is not None else None)),
        *((key, encode(value)) for key, value in game.extras(seat).items()),
    )
    return "{" + ",".join(f'"{key}":{text}' for key, text in parts) + "}"



def why_not_text(game: Served, seat: int | None, stone: int) -> str:
    """The answer to ``seat``'s "why not?" on ``stone`` (1-9), from its view alone (R10):
    ``{"type": "why_not", "version", "stone", "answer"}``, the answer null where the state's
    ``why_not`` does not list the stone (a spectator, a game not being played, a stone it may claim)."""
    answers = why_not(view(game.state, seat)) if game.info.status == Status.PLAYING else {}
    answer = answers.get(stone - 1)
    return encode({"type": "why_not", "version": game.version, "stone": stone,
                   "answer": answer.to_dict() if answer is not None else None})

def legal(game: Served, seat: int | None) -> list[dict[str, Any]]:
    """The seat's legal actions as data (``action_parts``) while its game is played, else none."""
    state = game.state
    if seat is None or seat != state.turn or state.is_over or game.info.status != Status.PLAYING:
        return []
    return [action_parts(i) for i in state.legal_action_ids()]


def table_of(info: GameInfo, turn: int | None = None, seats: Seated | None = None) -> Table:
    """A game row as the lobby shows it (never the seed or a token); ``turn`` the seat to move, if
    known (else the seat whose clock runs); ``seats`` its accounts' names and ratings, if read."""
    if turn is None and info.clock is not None:
        turn = info.clock.running
    seats = seats or Seated()
    return Table(
        id=info.id,
        variant=info.variant,
        rounds=info.rounds,
        mode=info.mode,
        level=info.level,
        players=list(info.players),
        status=info.status,
        created=info.created.isoformat(),
        winner=info.winner,
        rematch=info.rematch.id if info.rematch is not None else None,
        rematch_of=info.rematch_of,
        clock=info.clock.control.to_dict() if info.clock is not None else None,
        ended=str(info.ended) if info.ended is not None else None,
        turn=turn if info.status == Status.PLAYING else None,
        rated=info.rated,
        accounts=seats.usernames,
        ratings=seats.ratings,
        provisional=seats.provisional,
        rating_range=list(info.rating_range),
        unrated_reason=_unrated(seats.unrated or info.unrated),
        hints=info.hints,
        hints_used=info.hints_used,
        tournament=tournament_ref(info.tournament),
    )


def tournament_ref(link: TournamentLink | None) -> TournamentRef | None:
    """The game's tournament as a table names it (None: none)."""
    if link is None:
        return None
    ends_at = link.ends_at.isoformat() if link.ends_at is not None else None
    return TournamentRef(id=link.id, name=link.name, format=link.format, ends_at=ends_at)


def tournament_told(link: TournamentLink, now: datetime) -> dict[str, Any]:
    """The state message's ``tournament``: the table's (``tournament_ref``) and ``left_ms``, the
    milliseconds to an arena's end at ``now`` (0: it has ended; None: a Swiss)."""
    left = None if link.ends_at is None else max(0, int((link.ends_at - now).total_seconds() * 1000))
    return {"id": link.id, "name": link.name, "format": link.format,
            "ends_at": link.ends_at.isoformat() if link.ends_at is not None else None, "left_ms": left}


def _unrated(reason: str | None) -> UnratedReason | None:
    return UnratedReason.model_validate(rating_rules.explain(reason)) if reason is not None else None


def replay_steps(state: GameState) -> list[dict[str, Any]]:
    """Step 0 (the deal) and the position after every move of a finished game, everything shown:
    each step's ``action`` (notation), its ``parts`` (``action_parts``; a ``place`` with the card
    it puts down), its ``mover``, the ``state`` after it and its ``position`` notation (public once the
    game is over)."""
    step = GameState.new(state.settings, state.seed)
    steps: list[dict[str, Any]] = [
        {"action": None, "parts": None, "mover": None, "state": reveal(step, finished=True),
         "position": format_position(step)}
    ]
    held = None
    for action_id, mover in zip(state.history, state.movers, strict=True):
        step.apply_id(action_id)
        parts = action_parts(action_id)
        if parts["kind"] == "take":
            held = parts["card"]
        elif parts["kind"] == "place":
            parts["card"] = held
        shown = reveal(step, finished=True)
        steps.append({"action": str(ACTIONS[action_id]), "parts": parts, "mover": mover, "state": shown,
                      "position": format_position(step)})
    return steps
