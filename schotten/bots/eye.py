"""The engine's eye on a position as plain data: each stone's formations and claim proofs in words
(public information only: ``engine.explain``), and the chances and best moves of the seat to move,
analysed from its own view (R10; ``bots.analysis``). Used by ``schotten analyze`` and the web's
analysis board."""

from __future__ import annotations

from typing import Any

from ..engine import GameState
from ..engine.cards import NUM_STONES, card_name, card_str
from ..engine.explain import claim_proof, formation_words, reachable
from ..engine.view import view
from .analysis import DEFAULT_ITERATIONS, analyse


def _side_words(state: GameState, seat: int, stone: int) -> tuple[str | None, int | None]:
    """A side's formation (or the best it can still reach, R5.2) in words, and its strength."""
    found = reachable(state, seat, stone)
    if found is None:
        return None, None
    shown, added = found
    text = formation_words(shown)
    if added:
        text += f" with {', '.join(card_name(c) for c in added)}"
    return text, shown.strength


def analysis(state: GameState) -> dict[str, Any]:
    """Every stone of a position: both sides' formations and both seats' claim proofs (R4, R5).

    A complete side shows its formation; for an incomplete one ``best_reachable`` is the
    best it can still reach from the unseen clan cards (R5.2) and ``strength`` that
    formation's strength. Each claim is ``explain.claim_proof``'s: whether it holds, its kind,
    its words (``reason``) and the unseen cards a refuting completion needs. Seats and stones
    are numbered from 1.
    """
    stones = []
    for stone in range(NUM_STONES):
        sides = []
        for seat in (0, 1):
            complete = state.is_complete(seat, stone)
            text, strength = _side_words(state, seat, stone)
            sides.append({
                "seat": seat + 1,
                "cards": [card_str(c) for c in state.sides[seat][stone]],
                "complete": complete,
                "formation": text if complete else None,
                "best_reachable": text,
                "strength": strength,
            })
        claims = []
        for seat in (0, 1):
            proof = claim_proof(state, seat, stone)
            claims.append({"seat": seat + 1, "holds": proof.holds, "kind": proof.kind.value,
                           "reason": proof.text, "needed": [card_str(c) for c in proof.needed]})
        stones.append({
            "stone": stone + 1,
            "owner": None if state.owner[stone] < 0 else state.owner[stone] + 1,
            "modes": [m for bit, m in ((1, "BB"), (2, "MF")) if state.modes[stone] & bit],
            "capacity": state.capacity(stone),
            "sides": sides,
            "claims": claims,
        })
    return {
        "variant": state.settings.variant,
        "turn": state.turn + 1,
        "phase": state.phase.name.lower(),
        "claimable": [s + 1 for s in state.claimable],
        "stones": stones,
    }


def chances(state: GameState, iterations: int = DEFAULT_ITERATIONS, seed: int = 0) -> dict[str, Any]:
    """The engine's eye on a position, from the view of the seat to move only (R10; ``bots.analysis``):
    ``win``, each seat's chance of winning the round; ``best``, the best moves found with the mover's
    chance after each; ``chance``, per stone, each seat's chance of ending up with it. All None or
    empty when the game is over. Seats are listed P1 first, chances to three decimals."""
    if state.is_over:
        return {"win": None, "best": [], "chance": [None] * NUM_STONES}
    found = analyse(view(state, state.turn), iterations, seed)
    return {
        "win": [round(w, 3) for w in found.win],
        "best": [{"action": c.action, "win": round(c.win, 3)} for c in found.best],
        "chance": [[round(p, 3) for p in pair] for pair in found.stones],
    }
