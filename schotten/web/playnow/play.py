"""Play now's work: enter a pool, ask how it goes (which pairs, see ``pairing``), cancel, the pools.

The routes are ``routes.playnow``:

| route                       | answer                                                                      |
|-----------------------------|-----------------------------------------------------------------------------|
| ``POST /api/play-now``      | enter (``EnterPool``) and try to pair at once: the status                   |
| ``GET /api/play-now``       | the status: ``waiting`` (tries to pair), ``paired`` (seat given), ``none`` |
| ``DELETE /api/play-now``    | cancel: ``cancelled``, ``paired`` (too late: the game) or ``none``          |
| ``GET /api/play-now/pools`` | how many wait in each pool and how many players are online                  |

The waiting ticket is in the HttpOnly, SameSite=Lax cookie ``pool_ticket`` (``__Host-pool_ticket``
over HTTPS), never in a URL; once paired, the answer sets the seat cookie ``seat_{id}`` to it (the
ticket is that seat's token) and clears the ticket cookie. A browser has one entry at most
(``entries``): a guest's is known by its ``pool_browser`` cookie (``browsers``), which an entry
needs (409 without it, the answer setting it) and ``GET /api/play-now`` gives.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Literal

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..core.clock import TimeControl
from ..core.errors import ServiceError
from ..core.schemas import ClockSpec, Variant, clean_nickname
from ..edge import quotas
from ..games.authority import Authority
from ..games.ports import Apart
from ..players.accounts import AccountRef
from ..players.identity import session_id
from ..players.seats import cookie_name, token_hash
from .browsers import Browsers, browser_hash, new_salt, ticket_of
from .counts import Pool, counts, offer
from .entries import Entries, Entry
from .pairing import PRESETS, Pairing, Waiter, pool_key, preset_of, reach

TICKET_COOKIE = "pool_ticket"
TICKET_AGE = 24 * 3600
SeatCookie = Callable[[Response, str, str, bool], None]
"""How a seat cookie is set (``routes.games.set_seat_cookie``): the answer, the game id, the token, https."""


class EnterPool(BaseModel):
    """Entering a pool: a variant, a preset time control (by its name, ``preset``, or as a ``clock``),
    rated (accounts only) or casual; a guest's nickname (an account plays under its username)."""

    model_config = ConfigDict(extra="ignore")

    variant: Variant = "base"
    clock: ClockSpec | None = None
    preset: str | None = Field(None, max_length=16)
    rated: bool = Field(False, strict=True)
    nickname: str | None = None

    @field_validator("nickname", mode="before")
    @classmethod
    def _nickname(cls, value: object) -> str | None:
        return None if value is None else clean_nickname(value)

    @model_validator(mode="after")
    def _preset(self) -> EnterPool:
        shown = ", ".join(f"{name} {PRESETS[name].to_dict()}" for name in PRESETS)
        if (self.clock is None) == (self.preset is None):
            raise ValueError(f'give the time control as "preset" (its name) or as "clock": {shown}')
        if self.preset is not None and self.preset not in PRESETS:
            raise ValueError(f"Play now offers these time controls only: {shown}")
        if self.clock is not None and preset_of(self.clock.control()) is None:
            raise ValueError(f"Play now offers these time controls only: {shown}")
        return self

    def control(self) -> TimeControl:
        """The time control asked for."""
        if self.preset is not None:
            return PRESETS[self.preset]
        assert self.clock is not None
        return self.clock.control()


class PoolCount(BaseModel):
    """How many wait in one pool."""

    variant: str
    preset: str
    clock: dict[str, int]
    rated: bool
    waiting: int


class PoolStatus(BaseModel):
    """Where a browser's waiting stands: ``waiting`` (its pool, since when, its rating range),
    ``paired`` (its game and seat; the seat cookie is set), ``cancelled`` or ``none``."""

    status: Literal["waiting", "paired", "cancelled", "none"]
    game: str | None = None
    seat: int | None = None
    url: str | None = None
    variant: str | None = None
    preset: str | None = None
    clock: dict[str, int] | None = None
    rated: bool | None = None
    since: str | None = None
    waited: float | None = None
    range: int | None = None
    """A rated entry's reach now: opponents within this many points (it widens as one waits)."""
    ai_offer_after: float | None = None
    """Seconds alone after which the page offers a game against the AI meanwhile."""
    offer: PoolCount | None = None
    """Waiting alone: the pool where others wait, offered instead (``counts.offer``), and how many."""


class Pools(BaseModel):
    """The pools someone waits in, how many wait in all, and how many players are online: the entries
    waiting plus the seats of this process's games with a socket open (a player in two games counts twice)."""

    pools: list[PoolCount]
    waiting: int
    online: int


def pool_count(pool: Pool, waiting: int) -> PoolCount:
    """How many wait in ``pool``, as the API says it."""
    variant, control, rated = pool
    return PoolCount(variant=variant, preset=preset_of(control) or "", clock=control.to_dict(), rated=rated,
                     waiting=waiting)


class PlayNow:
    """The routes' work: the pairing in worker threads, the timekeeper told of each new game."""

    def __init__(self, authority: Authority, seat_cookie: SeatCookie, apart: Apart | None = None) -> None:
        self.authority = authority
        self.db = authority.context.db
        self.pairing = Pairing(authority, apart)
        self.entries = Entries(self.pairing)
        self.browsers = Browsers(authority.settings.https)
        self.seat_cookie = seat_cookie
        self.https = authority.settings.https
        self.rates = quotas.Rates("tables_rate", authority.settings.tables_rate,
                                  quotas.ExactWindow())

    async def pair(self, ticket_hash: str) -> str | None:
        """Try to pair the entry (``Pairing.pair``); the timekeeper learns the new game's deadline."""
        game = await self.db(self.pairing.pair, ticket_hash)
        if game is not None:
            self.authority.wake_clocks()
        return game

    async def enter(self, body: EnterPool, account: AccountRef | None, request: Request,
                    response: Response) -> PoolStatus | JSONResponse:
        """Enter a pool (403 rated for a guest, 422 a guest without a nickname, 409 a guest's browser
        without its cookie, 429 too often): the status of the browser's one entry (``entries``)."""
        if body.rated and account is None:
            raise ServiceError(403, "log in to play rated games; guests play casual games")
        if account is None and body.nickname is None:
            raise ServiceError(422, 'a guest plays under a nickname: send "nickname"')
        key = self.browsers.key(request, None if account is None else session_id(request))
        if key is None:
            return self.browsers.unknown(request)
        refused = self.rates.hit(quotas.address_of(request.client))
        if refused is not None:
            raise quotas.LimitError(quotas.over_rate(refused, "entries into Play now"), refused[1],
                                    quotas.over_rate_said(refused, "entries into Play now"))
        old = self.ticket(request)
        if old is not None and await self.db(self.pairing.get, token_hash(old)) is None:
            lost = await self.handed(old, response)
            if lost.status == "paired":
                return lost
        salt = new_salt()
        entry = Entry(token_hash(ticket_of(key, salt)), salt, browser_hash(key), body.variant, body.control(),
                      body.rated, account, body.nickname or "", None if old is None else token_hash(old))
        waiter = await self.db(self.entries.enter, entry)
        ticket = self.ticket_of(waiter, key, old)
        if ticket is None:
            return PoolStatus(status="paired", game=waiter.game, seat=waiter.seat, url=f"/game/{waiter.game}",
                              **pool_key(waiter))
        status = await self.look(ticket, response)
        if status.status == "waiting":
            self.set_ticket(response, ticket)
        return status

    @staticmethod
    def ticket_of(waiter: Waiter, key: str, old: str | None) -> str | None:
        """The ticket of the browser's entry: its cookie's, or derived from its key; None for the paired
        entry of its account in another browser (the account's session seats it)."""
        if old is not None and hmac.compare_digest(token_hash(old), waiter.ticket_hash):
            return old
        if waiter.salt is None or waiter.browser != browser_hash(key):
            return None
        ticket = ticket_of(key, waiter.salt)
        return ticket if hmac.compare_digest(token_hash(ticket), waiter.ticket_hash) else None

    async def look(self, ticket: str, response: Response) -> PoolStatus:
        """The entry's status, seen now; a waiting one tries to pair, a paired one is handed over."""
        hashed = token_hash(ticket)
        waiter = await self.db(self.pairing.touch, hashed)
        if waiter is None:
            return await self.handed(ticket, response)
        if waiter.game is None and await self.pair(hashed) is None:
            return self.waiting(waiter, await self.db(counts, self.pairing))
        return await self.hand_over(ticket, response)

    async def hand_over(self, ticket: str, response: Response) -> PoolStatus:
        """Give a paired entry's seat to the browser: its seat cookie, the ticket cookie cleared."""
        waiter = await self.db(self.pairing.hand_over, token_hash(ticket))
        if waiter is None:
            return await self.handed(ticket, response)
        return self.seated(waiter, ticket, response)

    async def handed(self, ticket: str, response: Response) -> PoolStatus:
        """A ticket with no entry: the seat it was handed if that answer was lost (``Pairing.handed``),
        given again; else ``none``. The ticket cookie is cleared either way."""
        waiter = await self.db(self.pairing.handed, token_hash(ticket))
        return self.seated(waiter, ticket, response)

    def seated(self, waiter: Waiter | None, ticket: str, response: Response) -> PoolStatus:
        """The answer handing ``waiter``'s seat to the browser (its cookie set, the ticket's cleared)."""
        self.clear_ticket(response)
        if waiter is None or waiter.game is None:
            return PoolStatus(status="none")
        self.seat_cookie(response, waiter.game, ticket, self.https)
        return PoolStatus(status="paired", game=waiter.game, seat=waiter.seat, url=f"/game/{waiter.game}",
                          **pool_key(waiter))

    async def cancel(self, ticket: str, response: Response) -> PoolStatus:
        """Stop waiting (a paired entry is handed over instead, also one whose answer was lost)."""
        waiter = await self.db(self.pairing.cancel, token_hash(ticket))
        if waiter is None:
            return await self.handed(ticket, response)
        if waiter.game is not None:
            return await self.hand_over(ticket, response)
        self.clear_ticket(response)
        return PoolStatus(status="none" if waiter is None else "cancelled")

    def waiting(self, waiter: Waiter, waiting: dict[Pool, int]) -> PoolStatus:
        """The answer of an entry still waiting, with the pool offered to it if it waits alone."""
        settings, now = self.authority.settings, self.authority.now()
        widened = int(reach(settings.pair_range, settings.pair_widen, waiter, now)) if waiter.rated else None
        offered = offer(waiting, waiter)
        return PoolStatus(status="waiting", since=waiter.since.isoformat(),
                          waited=round(waiter.waited(now), 1), range=widened,
                          ai_offer_after=settings.pool_ai_offer, **pool_key(waiter),
                          offer=None if offered is None else pool_count(*offered))

    async def pools(self) -> Pools:
        """How many wait in each pool, in all, and how many players are online."""
        waiting = await self.db(counts, self.pairing)
        seats = await self.authority.cluster.online(self.authority.games)
        total = sum(waiting.values())
        return Pools(pools=[pool_count(pool, count) for pool, count in waiting.items()], waiting=total,
                     online=total + seats)

    def ticket(self, request: Request) -> str | None:
        """The waiting ticket the request's cookie holds, or None."""
        found = request.cookies.get(cookie_name(TICKET_COOKIE, self.https))
        return found if found and len(found) <= 200 else None

    def set_ticket(self, response: Response, ticket: str) -> None:
        """Give the browser its waiting ticket (HttpOnly, SameSite=Lax, the whole site)."""
        response.set_cookie(cookie_name(TICKET_COOKIE, self.https), ticket, max_age=TICKET_AGE, path="/",
                            httponly=True, samesite="lax", secure=self.https)

    def clear_ticket(self, response: Response) -> None:
        """Take the waiting ticket away from the browser."""
        response.delete_cookie(cookie_name(TICKET_COOKIE, self.https), path="/", httponly=True,
                               samesite="lax", secure=self.https)
