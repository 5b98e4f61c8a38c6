"""The API route of the analysis of one's own game in play (the work is ``analysis.live.LiveAnalysis``;
docs/web/analysis.md).

| route | answer |
|---|---|
| ``POST /api/games/{id}/analysis`` | 200 figures, redealt ``position``, ``version``; 403, 404, 409, 429 |

A POST, not a GET: it counts as a hint, and another site's page cannot make a browser post here
(``edge.security``'s origin check; the seat cookie is ``SameSite=Lax``).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request

from ..core.schemas import ErrorBody
from ..players.identity import viewer
from ..players.seats import cookie_token
from ..service import GameService

_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody} for code in (403, 404, 409, 429)}


def install(app: FastAPI, service: GameService) -> None:
    """Add the route of the analysis in play to ``app`` (see the module's table)."""
    https = service.settings.https

    @app.post("/api/games/{game_id}/analysis", responses=_ERRORS)
    async def analyse_game_in_play(game_id: str, request: Request) -> dict[str, Any]:
        """Your own game against the AI at a table with hints on, analysed at your decision from your
        seat's view only (R10: the opponent's hand and the decks are dealt anew at random); it counts
        as a hint. The seat is the one of your seat cookie, else of your account."""
        token = cookie_token(request.cookies, game_id, https)
        return await service.live_analysis.analyse(game_id, token, await viewer(request))
