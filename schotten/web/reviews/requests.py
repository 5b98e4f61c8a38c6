"""Asking for a finished game's review and reading it (what ``routes.reviews`` calls).

| call | answer |
|---|---|
| ``status`` | the review's state, or 404 when none was asked for |
| ``ask`` | one asked for before: its state, never a second job (a failed one: queued again); else a new job |

New jobs and failed ones queued again are counted by ``reviews_rate`` per address and per account
(429 over it); asking for a review queued, running or done is free.

Only finished games are reviewed (R10.4: their record is public then): the route builds the record
with ``GameService.record``, which refuses a game in progress (409) or unknown (404).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..core.errors import ServiceError
from ..edge import quotas
from ..games.context import Context
from ..players.accounts import AccountRef
from .queue import FAILED, ReviewQueue, ReviewState
from .worker import ReviewWorker

WHAT = "reviews asked for"
"""How a refused request is named (``quotas.TOO_MANY``)."""


class Reviews:
    """The reviews of finished games: the queue, this process's worker and the rate of new requests."""

    def __init__(self, context: Context, queue: ReviewQueue, worker: ReviewWorker) -> None:
        self.db = context.db
        self.queue = queue
        self.worker = worker
        self.rates = quotas.Rates("reviews_rate", context.settings.reviews_rate, quotas.ExactWindow())

    async def status(self, game_id: str) -> ReviewState:
        """The review of ``game_id`` (404 when none was asked for)."""
        found = await self.db(self.queue.get, game_id)
        if found is None:
            raise ServiceError(404, f"no review of game {game_id} was asked for: POST to start one")
        return found

    async def ask(self, game_id: str, record: Callable[[], Awaitable[dict[str, Any]]], address: str,
                  account: AccountRef | None) -> tuple[ReviewState, bool]:
        """The game's review, queued now if it had none or it failed (``record`` builds the record to
        review: 404 or 409 for a game unknown or not finished): (its state, whether it was queued now)."""
        found = await self.db(self.queue.get, game_id)
        if found is not None and found.status != FAILED:
            return found, False
        checked = await record()
        self._charge(address, account)
        by = f"account:{account.id}" if account is not None else f"address:{address}"
        queue = self.queue.ask if found is None else self.queue.again
        state, queued = await self.db(queue, game_id, checked, by)
        if queued:
            self.worker.poke()
        return state, queued

    def _charge(self, address: str, account: AccountRef | None) -> None:
        """Count a new review against its address and account (429 over ``reviews_rate``)."""
        keys = [f"address:{address}"] + ([f"account:{account.id}"] if account is not None else [])
        for key in keys:
            refused = self.rates.hit(key)
            if refused is not None:
                raise quotas.LimitError(quotas.over_rate(refused, WHAT), refused[1],
                                        quotas.over_rate_said(refused, WHAT))
