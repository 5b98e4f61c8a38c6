"""The routes of challenges by name and the player's own socket (the work is ``challenges``;
docs/web/challenges.md).

| route                                 | answer                                                        |
|---------------------------------------|---------------------------------------------------------------|
| ``POST /api/challenges``              | 201 the challenge (refusals: ``challenges.work``; 422 a bad body) |
| ``GET /api/challenges``               | ``{"incoming", "outgoing"}`` of the last minutes, with their state |
| ``POST /api/challenges/{id}/accept``  | the table (``game``, ``seat``, ``url``); the seat cookie is set |
| ``POST /api/challenges/{id}/decline`` | the challenge, declined (body ``{"reason"}``)                 |
| ``POST /api/challenges/{id}/cancel``  | the challenge, cancelled (by its challenger)                  |
| ``WS /ws/me``                         | the signed-in player's notices (``games.channels``)           |

Every route is for a signed-in player: a guest gets 401 and nothing changes.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request, Response
from starlette.websockets import WebSocket

from ..challenges.models import Accepted, ChallengeList, ChallengeView, Decline, NewChallenge
from ..challenges.work import Challenges, SeatCookie
from ..core.errors import ServiceError
from ..core.schemas import ErrorBody
from ..players.accounts import AccountRef
from ..players.identity import viewer
from ..service import GameService

_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody}
                                            for code in (400, 401, 404, 409, 410, 422, 429)}


async def _signed_in(request: Request, what: str) -> AccountRef:
    """The signed-in account of the request; 401 for a guest."""
    account = await viewer(request)
    if account is None:
        raise ServiceError(401, f"you are not logged in: log in to {what}")
    return account


def install(app: FastAPI, service: GameService, seat_cookie: SeatCookie) -> Challenges:
    """Add the challenge routes and the player socket to ``app`` (see the module's table)."""
    challenges = Challenges(service.authority, service.channels, service.blocks.either_blocks, seat_cookie)
    app.state.challenges = challenges

    @app.post("/api/challenges", status_code=201, response_model=ChallengeView, responses=_ERRORS)
    async def challenge(body: NewChallenge, request: Request) -> ChallengeView:
        """Challenge a player by name: they see it at once on any page they have open."""
        me = await _signed_in(request, "challenge players")
        return await challenges.send(me, body)

    @app.get("/api/challenges", response_model=ChallengeList, responses=_ERRORS)
    async def listed(request: Request) -> ChallengeList:
        """Your challenges of the last minutes, sent to you and sent by you, with their state."""
        me = await _signed_in(request, "see your challenges")
        return await challenges.listed(me)

    @app.post("/api/challenges/{challenge_id}/accept", response_model=Accepted, responses=_ERRORS)
    async def accept(challenge_id: str, request: Request, response: Response) -> Accepted:
        """Accept a challenge sent to you: the table is made with both of you seated."""
        me = await _signed_in(request, "accept challenges")
        return await challenges.accept(me, challenge_id, response)

    @app.post("/api/challenges/{challenge_id}/decline", response_model=ChallengeView, responses=_ERRORS)
    async def decline(challenge_id: str, request: Request, body: Decline | None = None) -> ChallengeView:
        """Decline a challenge sent to you, with a reason (default ``generic``)."""
        me = await _signed_in(request, "decline challenges")
        return await challenges.decline(me, challenge_id, (body or Decline()).reason)

    @app.post("/api/challenges/{challenge_id}/cancel", response_model=ChallengeView, responses=_ERRORS)
    async def cancel(challenge_id: str, request: Request) -> ChallengeView:
        """Cancel a challenge you sent."""
        me = await _signed_in(request, "cancel challenges")
        return await challenges.cancel(me, challenge_id)

    @app.websocket("/ws/me")
    async def player_socket(websocket: WebSocket) -> None:
        await service.channels.serve(websocket)

    return challenges
