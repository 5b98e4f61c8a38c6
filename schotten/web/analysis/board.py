"""The analysis of a pasted position: its stones in words and the mover's chances (``bots.eye``)."""

from __future__ import annotations

import asyncio
from typing import Any

from ...bots.eye import analysis, chances
from ...engine import GameState
from ...engine.actions import action_parts, parse_action
from ...engine.errors import NotationError
from ...engine.explain import formations
from ...engine.position import parse_position
from ...engine.view import view
from ..core.errors import ServiceError
from ..edge import quotas
from ..edge.quotas import ExactWindow, Rates
from ..games.ai import AiPool
from ..games.scheduler import SEARCH

WHAT = "analyses"
MAX_POSITION = 4000
"""The longest position text read (a real one is a few hundred characters)."""


class AnalysisBoard:
    """Answers ``POST /api/analysis``: the figures of one position, from the mover's view."""

    def __init__(self, iterations: int, rate: str, ai: AiPool) -> None:
        self.iterations = iterations
        self.ai = ai
        self.rates = Rates("analysis_rate", rate, ExactWindow())

    async def analyse(self, position: object, iterations: object, address: str) -> dict[str, Any]:
        """The figures of ``position`` (see docs/web/analysis.md); 400 with the engine's sentence for
        a position it refuses, 429 over ``analysis_rate``."""
        state = read_position(position)
        budget = self._budget(iterations)
        refused = self.rates.hit(f"address:{address}")
        if refused is not None:
            raise quotas.LimitError(quotas.over_rate(refused, WHAT), refused[1],
                                    quotas.over_rate_said(refused, WHAT))
        async with self.ai.lanes[SEARCH].slot(lambda: True):
            return await asyncio.to_thread(figures, state, budget)

    def _budget(self, iterations: object) -> int:
        """The iterations asked for, capped at ``analysis_iterations``; 400 if not a positive integer."""
        if iterations is None:
            return self.iterations
        if not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 1:
            raise ServiceError(400, f"iterations must be a positive integer, not {iterations!r}")
        return min(iterations, self.iterations)


def read_position(position: object) -> GameState:
    """The state of a position's notation; 400 with the engine's sentence if it is not one."""
    if not isinstance(position, str) or not position.strip():
        raise ServiceError(400, "position must be a non-empty string in the position notation "
                           "(docs/notation.md)")
    if len(position) > MAX_POSITION:
        raise ServiceError(400, f"position is too long (at most {MAX_POSITION} characters)")
    try:
        return parse_position(position.strip())
    except NotationError as error:
        raise ServiceError(400, f"not a valid position: {error}") from None


def figures(state: GameState, iterations: int) -> dict[str, Any]:
    """The stones in words, each stone's chances, the round's and the best moves, each with its
    ``parts`` (``engine.actions.action_parts``) for the page's words (blocking). The
    analysis sees only the mover's view; the seed is fixed, so a position always gets one answer."""
    data = analysis(state)
    eye = chances(state, iterations, seed=0)
    for stone, chance in zip(data["stones"], eye.pop("chance"), strict=True):
        stone["chance"] = chance
    data.update(eye)
    for best in data["best"]:
        best["parts"] = action_parts(parse_action(best["action"]).id)
    data["to_move"] = None if state.is_over else state.turn + 1
    data["iterations"] = iterations
    data["board"] = board_of(state)
    return data


def board_of(state: GameState) -> dict[str, Any]:
    """The table as the seat to move sees it (R10: the other hand face down), with the stones'
    formations, for the page's board rendering."""
    seen = view(state, None if state.is_over else state.turn).to_dict()
    seen["formations"] = formations(state)
    return seen
