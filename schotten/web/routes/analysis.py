"""The API route of the analysis board (the work is ``analysis.board.AnalysisBoard``; its page is
served by ``routes.pages``; docs/web/analysis.md).

| route | answer |
|---|---|
| ``POST /api/analysis`` | 200 the position's figures; 400 not a position (the engine's sentence), 429 |
| ``POST /api/analysis/edit`` | 200 the edited position, its places; 400 a bad edit (its sentence); 429 |
"""

from __future__ import annotations

from typing import Any

from fastapi import Body, FastAPI, Request

from ..core.schemas import ErrorBody
from ..edge.quotas import address_of
from ..service import GameService

_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody} for code in (400, 429)}


def install(app: FastAPI, service: GameService) -> None:
    """Add the analysis board's routes to ``app`` (see the module's table)."""

    @app.post("/api/analysis", responses=_ERRORS)
    async def analyse_position(request: Request, body: Any = Body(...)) -> dict[str, Any]:  # noqa: B008
        """A position's stones in words, its chances and the best moves of the seat to move, from
        that seat's view only (R10)."""
        fields = body if isinstance(body, dict) else {}
        return await service.analysis.analyse(fields.get("position"), fields.get("iterations"),
                                              address_of(request.client))

    @app.post("/api/analysis/edit", responses=_ERRORS)
    async def edit_analysed_position(request: Request, body: Any = Body(...)) -> dict[str, Any]:  # noqa: B008
        """The position after one edit by hand (a card moved, or the seat to move switched), checked
        as the engine checks a position; without an edit, the position's places as they are."""
        fields = body if isinstance(body, dict) else {}
        return service.editor.edit(fields.get("position"), fields.get("edit"), address_of(request.client))
