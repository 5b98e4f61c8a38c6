"""The analysis of one's own game in play (issue 27): allowed only to the human seat of a table against
the AI created with hints on, at its own decision, and counted as a hint (``games.hints.Hints.given``).

R10: the figures are those of the analysis board (``board.figures``) for a position in which the
opponent's hand and the decks are dealt anew at random from what the seat's view leaves unseen
(``bots.sample.determinize``), seeded by the game's id and version only. So the answer, the position
notation it carries and every refusal are the same for any two states the seat cannot tell apart.

| refusal | when |
|---|---|
| 404 | no such game |
| 409 | a table whose game has not begun or was closed, a game over (its replay analyses it), the AI's turn |
| 403 | no seat of this game (a spectator, a cookie of another seat or game), a table without hints |
| 429 | a hint or an analysis of this game is being worked out, or over ``hint_rate`` |
"""

from __future__ import annotations

import asyncio
import random
from typing import Any, NoReturn

from ...bots.sample import determinize
from ...engine import GameState
from ...engine.position import format_position
from ...engine.view import view
from ..core.errors import ServiceError, say, saying
from ..core.messages import ClientError
from ..core.vocab import Status
from ..games.authority import Authority
from ..games.live import LiveGame
from ..games.scheduler import SEARCH
from ..players.accounts import AccountRef
from .board import figures

NOT_BEGUN = saying("This table is waiting for its second player: there is no game to analyse yet.")
CLOSED = saying("This table was closed before its game began: there is no game to analyse.")
OVER = saying("This game is over: analyse any of its positions from its replay (\"Analyse from here\"), "
              "open to everyone.")
NO_SEAT = saying("Only the player at this table may analyse its game while it is played: open the page "
                 "with your seat's link.")
NO_HINTS = saying("A game in play is not analysed (no engine help while playing), except your own game "
                  "against the AI at a table created with hints on.")
AI_TURN = saying("It is the AI's turn: analyse at your own decision.")
"""The refusals (sayings: the page says them in its reader's language)."""


def redeal_seed(game_id: str, version: int) -> int:
    """The seed of the deal of the unseen cards for ``game_id`` at ``version`` (public values only)."""
    return random.Random(f"{game_id}/live-analysis/{version}").getrandbits(63)


def redealt(state: GameState, seat: int, seed: int) -> GameState:
    """A state ``seat`` cannot tell from ``state``: its view kept, every card it cannot see dealt anew."""
    return determinize(view(state, seat), random.Random(seed))


def live_figures(state: GameState, seat: int, seed: int, iterations: int) -> dict[str, Any]:
    """The analysis board's figures of a redealt copy of ``state`` and that copy's position notation
    (blocking: run it off the event loop)."""
    copy = redealt(state, seat, seed)
    data = figures(copy, iterations)
    data["position"] = format_position(copy)
    return data


class LiveAnalysis:
    """Answers ``POST /api/games/{id}/analysis`` (see the module docstring; docs/web/analysis.md)."""

    def __init__(self, authority: Authority, iterations: int) -> None:
        self.authority = authority
        self.iterations = iterations

    async def analyse(self, game_id: str, token: str, account: AccountRef | None) -> dict[str, Any]:
        """The figures of ``game_id``'s position now, from the view of the seat whose ``token`` (a seat
        cookie, or "") or ``account`` this is, with ``version`` and the redealt ``position``."""
        game = await self.authority.tables.game(game_id)
        if self.authority.cluster.clustered:
            await self.authority.catchup.catch_up(game_id)
        seat = await self._seat(game, token, account)
        check(game, seat)
        assert seat is not None
        state, version = game.state.copy(), game.version
        hints = self.authority.host.hints
        try:
            async with hints.given(game):
                data = await self._work(state, seat, redeal_seed(game_id, version))
        except ClientError as error:
            raise ServiceError(429, error.message, error.say) from None
        data["version"] = version
        return data

    async def _seat(self, game: LiveGame, token: str, account: AccountRef | None) -> int | None:
        """The seat ``token`` or ``account`` holds in ``game``, or None."""
        seat = await self.authority.host.seat_of(game, token) if token else None
        if seat is None and account is not None and account.id in game.info.accounts:
            seat = game.info.accounts.index(account.id)
        return seat

    async def _work(self, state: GameState, seat: int, seed: int) -> dict[str, Any]:
        """``live_figures`` in a thread, holding a slot of the AI's search lane."""
        async with self.authority.ai.lanes[SEARCH].slot(lambda: True):
            return await asyncio.to_thread(live_figures, state, seat, seed, self.iterations)


def check(game: LiveGame, seat: int | None) -> None:
    """Refuse an analysis that may not be given now (see the module's table)."""
    if game.info.status == Status.OPEN:
        _refuse(409, NOT_BEGUN)
    if game.info.status == Status.CLOSED:
        _refuse(409, CLOSED)
    if game.finished or game.info.status != Status.PLAYING:
        _refuse(409, OVER)
    if seat is None:
        _refuse(403, NO_SEAT)
    if not game.info.hints:
        _refuse(403, NO_HINTS)
    if game.state.turn != seat:
        _refuse(409, AI_TURN)


def _refuse(status: int, sentence: str) -> NoReturn:
    raise ServiceError(status, sentence, say(sentence))
