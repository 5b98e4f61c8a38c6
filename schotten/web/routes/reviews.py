"""The routes of game reviews (the work is ``reviews.requests.Reviews``; docs/web/reviews.md).

| route | answer |
|---|---|
| ``POST /api/games/{id}/review`` | 202 queued (a failed one: again) or running, 200 done; 404, 409, 429 |
| ``GET /api/games/{id}/review`` | 200 with the state (decisions once done); 404 when none was asked for |
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ..core.schemas import ErrorBody
from ..edge.quotas import address_of
from ..players.identity import viewer
from ..reviews.queue import DONE
from ..service import GameService

_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody} for code in (404, 409, 429)}


def install(app: FastAPI, service: GameService) -> None:
    """Add the review routes to ``app`` (see the module's table)."""
    reviews = service.reviews

    @app.post("/api/games/{game_id}/review", status_code=202, responses=_ERRORS)
    async def start_review(game_id: str, request: Request) -> JSONResponse:
        """Ask for a finished game's review: queued once, whoever asks again gets its state; a failed
        review is queued again (counted as a new request)."""
        state, _ = await reviews.ask(game_id, lambda: service.record(game_id, "review"),
                                     address_of(request.client), await viewer(request))
        code = 200 if state.status == DONE else 202
        return JSONResponse(state.as_dict(), status_code=code)

    @app.get("/api/games/{game_id}/review", responses=_ERRORS)
    async def review_state(game_id: str) -> dict[str, Any]:
        """How a game's review goes: status, progress and, once done, every decision judged."""
        return (await reviews.status(game_id)).as_dict()
