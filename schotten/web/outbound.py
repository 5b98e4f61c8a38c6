"""What clients are sent about a game: the state message, a table as the lobby lists it and a
finished game's replay steps. Everything here is derived; nothing changes a game.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from ..engine import ACTIONS, GameState
from ..engine.actions import action_parts
from ..engine.explain import claim_proof, formations
from ..engine.view import public_log, reveal, round_board, view
from .gamelog import undo_span
from .schemas import Table
from .store import GameInfo
from .vocab import Status


class Served(Protocol):
    """What a state message is made of: a game's row, its state and its version."""

    info: GameInfo
    state: GameState
    version: int


def state_text(game: Served, seat: int | None) -> str:
    """The state message (JSON text) for one client of ``game``: ``seat``'s view (R10) and what
    goes with it (see docs/web.md)."""
    state, info = game.state, game.info
    seen = view(state, seat)
    last = {"action": seen.history[-1], "mover": seen.movers[-1]} if seen.history else None
    claims = {str(s + 1): claim_proof(state, state.turn, s).to_dict() for s in seen.claimable}
    can_undo = seat is not None and info.status == Status.PLAYING and isinstance(undo_span(state, seat), int)
    message = {
        "type": "state",
        "version": game.version,
        "seat": seat,
        "players": list(info.players),
        "view": seen.to_dict(),
        "last": last,
        "can_undo": can_undo,
        "claims": claims,
        "legal": legal(game, seat),
        "auto_draw": seat == state.turn and state.draw_is_forced,
        "formations": formations(state),
        "log": public_log(state, seat),
        "round_end": round_board(state, len(state.round_outcomes) - 1),
        "status": info.status,
        "reveal": reveal(state) if state.is_over else None,
        "rematch": info.rematch.told() if info.rematch is not None else None,
        "rematch_of": info.rematch_of,
        "rematch_closed": info.rematch_closed.told() if info.rematch_closed is not None else None,
    }
    return json.dumps(message, separators=(",", ":"))


def legal(game: Served, seat: int | None) -> list[dict[str, Any]]:
    """The seat's legal actions as data (``action_parts``) while its game is played, else none."""
    state = game.state
    if seat is None or seat != state.turn or state.is_over or game.info.status != Status.PLAYING:
        return []
    return [action_parts(i) for i in state.legal_action_ids()]


def table_of(info: GameInfo) -> Table:
    """A game row as the lobby shows it (never the seed or a token)."""
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
    )


def replay_steps(state: GameState) -> list[dict[str, Any]]:
    """Step 0 (the deal) and the position after every move of a finished game, everything shown."""
    step = GameState.new(state.settings, state.seed)
    steps: list[dict[str, Any]] = [{"action": None, "mover": None, "state": reveal(step, finished=True)}]
    for action_id, mover in zip(state.history, state.movers, strict=True):
        step.apply_id(action_id)
        shown = reveal(step, finished=True)
        steps.append({"action": str(ACTIONS[action_id]), "mover": mover, "state": shown})
    return steps
