"""Hints at tables against the AI: the move the engine would play for the human, and why.

A hint is the best move of ``bots.analysis.analyse`` run on the seat's own view (R10: never the
state), at ``hint_iterations``, in a thread off the event loop while holding a slot of the AI's
search lane (``scheduler``). Its reason is data a page puts in words (``reason``) and an English
sentence (``say``): for a card played, the formation its side of the stone makes or keeps
reachable and the opponent's best reachable formation there that it blocks (``engine.explain``).
The same position and game seed always give the same hint. A game is given one hint at a time,
within ``hint_rate``; each hint given is counted on its row (``games.hints_used``). The analysis of
the game in play (``analysis.live``) is engine help too: it goes through ``Hints.given`` as well.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from ...bots.analysis import Analysis, analyse
from ...engine import Action, GameState
from ...engine.actions import Kind
from ...engine.explain import Shown, claim_proof, formation_words, reachable
from ...engine.view import view
from ..core.errors import StoreUnavailable
from ..core.messages import ClientError
from ..core.vocab import Status
from ..edge.quotas import ExactWindow, Rates
from .ai import AiPool
from .context import Context
from .live import LiveGame
from .outbound import encode
from .scheduler import SEARCH

logger = logging.getLogger("schotten.web")


def hint_seed(game_seed: int, version: int) -> int:
    """The seed of the hint asked for when the game's log holds ``version`` entries."""
    return random.Random(f"{game_seed}/hint/{version}").getrandbits(63)


class Hints:
    """Answers the ``hint`` messages of every served game (see the module docstring)."""

    def __init__(self, context: Context, ai: AiPool) -> None:
        self.context = context
        self.ai = ai
        self.rates = Rates("hint_rate", context.settings.hint_rate, ExactWindow())
        self.busy: set[str] = set()

    async def hint(self, game: LiveGame, seat: int | None) -> str:
        """The ``hint`` message (JSON text) for ``seat``; ClientError ``cannot_hint`` (or ``spectator``,
        ``not_your_turn``, ``limit``) when it may not have one now."""
        state, version = self._check(game, seat)
        assert seat is not None
        async with self.given(game):
            found = await self._analyse(game, state, seat, version)
        action = found.best[0].action
        reason = reason_of(state, seat, action, found)
        return encode({"type": "hint", "version": version, "action": action, "reason": reason,
                       "say": words_of(reason)})

    @asynccontextmanager
    async def given(self, game: LiveGame) -> AsyncIterator[None]:
        """One engine help for ``game`` (a hint, or its analysis in play: ``analysis.live``): refused
        with ClientError ``limit`` while another is worked out or over ``hint_rate``; counted on the
        game's row once the block ends without an error (``StoreUnavailable`` if it cannot be)."""
        game_id = game.info.id
        if game_id in self.busy:
            raise ClientError("limit", "a hint for this game is being worked out: wait for it")
        refused = self.rates.hit(game_id)
        if refused is not None:
            raise ClientError("limit", f"too many hints in this game (at most {refused[0]}): try again "
                              f"in {refused[1]} s")
        self.busy.add(game_id)
        try:
            yield
            await self._count(game)
        finally:
            self.busy.discard(game_id)

    async def _count(self, game: LiveGame) -> None:
        """Count the hint on the game's row; ``StoreUnavailable`` (no hint given) if it cannot be."""
        try:
            await self.context.db(self.context.store.count_hint, game.info.id)
        except Exception as error:
            logger.warning("game %s: a hint could not be counted (%s)", game.info.id, type(error).__name__)
            raise StoreUnavailable(f"the hint of game {game.info.id} could not be counted") from error
        game.info.hints_used += 1

    def _check(self, game: LiveGame, seat: int | None) -> tuple[GameState, int]:
        """The state and version the hint is for; refuse a hint that may not be given."""
        if seat is None:
            raise ClientError("spectator", "spectators get no hints: only the player at the table may ask")
        if not game.info.hints:
            raise ClientError("cannot_hint", "this table has no hints: they are allowed only at a table "
                              "against the AI created with hints on")
        if game.info.status != Status.PLAYING or game.finished:
            raise ClientError("cannot_hint", "no game is being played here: a hint is only for a game "
                              "in play")
        if game.state.turn != seat:
            raise ClientError("not_your_turn", "it is the AI's turn: ask for a hint at your own decision")
        return game.state.copy(), game.version

    async def _analyse(self, game: LiveGame, state: GameState, seat: int, version: int) -> Analysis:
        """The analysis of ``seat``'s view, in a thread, holding a slot of the AI's search lane."""
        seen = view(state, seat)
        seed = hint_seed(game.info.seed, version)
        iterations = self.context.settings.hint_iterations
        async with self.ai.lanes[SEARCH].slot(lambda: True):
            return await asyncio.to_thread(analyse, seen, iterations, seed)


def reason_of(state: GameState, seat: int, action: str, found: Analysis) -> dict[str, Any]:
    """Why ``action`` is the hint, as data: ``{"kind", "win", ...}`` (see docs/web/games.md). Reads only
    what both players may know (``engine.explain``), and the seat's own move."""
    move = Action.parse(action)
    win = round(found.win[seat], 2)
    if move.kind == Kind.CLAIM:
        return {"kind": "claim", "win": win, "stone": move.stone + 1,
                "proof": claim_proof(state, seat, move.stone).to_dict()}
    if move.kind != Kind.PLAY:
        return {"kind": "move", "win": win}
    after = state.copy()
    after.apply(move)
    mine = reachable(after, seat, move.stone)
    theirs_before = reachable(state, 1 - seat, move.stone)
    theirs_after = reachable(after, 1 - seat, move.stone)
    blocked = theirs_before is not None and (
        theirs_after is None or theirs_after[0].strength < theirs_before[0].strength)
    return {
        "kind": "play", "win": win, "card": action.split("@")[0], "stone": move.stone + 1,
        "mine": _data(mine[0] if mine else None),
        "complete": after.is_complete(seat, move.stone),
        "blocks": _data(theirs_before[0] if blocked and theirs_before else None),
    }


def _data(shown: Shown | None) -> dict[str, Any] | None:
    return None if shown is None else shown.to_dict()


def words_of(reason: dict[str, Any]) -> str:
    """The reason of a hint in English (the page says it in its reader's language from the data)."""
    chance = f"you win about {round(reason['win'] * 100)}% of the rounds played from here"
    if reason["kind"] == "claim":
        return f"claim stone {reason['stone']}: it is yours now; {chance}"
    if reason["kind"] == "move":
        return f"the engine's choice: {chance}"
    text = f"{reason['card']} on stone {reason['stone']}"
    if reason["mine"] is not None:
        verb = "makes" if reason["complete"] else "keeps"
        text += f" {verb} {formation_words(_shown(reason['mine']))}"
        text += "" if reason["complete"] else " open"
    if reason["blocks"] is not None:
        text += f" and blocks their {formation_words(_shown(reason['blocks']))}"
    return f"{text}; {chance}"


def _shown(data: dict[str, Any]) -> Shown:
    troops = tuple((t["card"], t["as"]) for t in data["troops"])
    return Shown(data["rank"], data["total"], tuple(data["cards"]), troops, data["bluff"])
