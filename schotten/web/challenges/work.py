"""Challenges' work: sending one (and each refusal), listing, accepting, declining, cancelling.

| refusal                                   | answer                                              |
|-------------------------------------------|-----------------------------------------------------|
| no account by that name (or a banned one) | 404, the same sentence (a ban is not told)          |
| oneself                                   | 400                                                 |
| ``MOST`` pending already sent             | 429                                                 |
| over ``RATE`` sent (cancelled ones too)   | 429 (``Retry-After``)                               |
| either player blocks the other            | none: 201 as if sent, stored ``hidden`` (never shown to them) |
| not one's challenge (or hidden from one)  | 404                                                 |
| no longer pending                         | 409 (410 once expired)                              |
| accepting when either player is banned    | 409                                                 |

Notices on the players' own sockets (``games.channels``), each ``{"type", "challenge": view}``:
``challenge`` to the challenged player when sent; ``challenge_accepted`` (with the game's ``url``),
``challenge_declined`` (with ``reason``) and ``challenge_cancelled`` to both players when closed.
A moderator's ban cancels the banned player's pending challenges (``ban_reach``): the other player of
each hears ``challenge_cancelled``, as on a cancel.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from fastapi import Response
from sqlalchemy.orm import Session

from ...engine import GameState, Settings
from ..core.clock import Clock
from ..core.errors import ServiceError
from ..core.vocab import Mode, Status
from ..edge import quotas
from ..games.channels import Channels
from ..players.accounts import AccountRef
from ..players.seats import new_token, token_hash
from ..storage.rows import GameInfo
from .book import Book, Challenge, cancel_banned, row_for
from .models import Accepted, ChallengeList, ChallengeView, NewChallenge, Reason

if TYPE_CHECKING:
    from ..games.authority import Authority

TTL = 300.0
"""Seconds a challenge waits for its answer."""
MOST = 3
"""How many pending challenges one player may have sent."""
RATE = "10/minute;30/hour"
"""How many challenges one player may send (so cancelling and sending again cannot flood anyone)."""
Blocked = Callable[[int, int], bool]
"""Whether either of two accounts blocks the other (a blocking call)."""
SeatCookie = Callable[[Response, str, str, bool], None]


class Challenges:
    """Challenges between the accounts of ``authority``'s database, told on ``channels``."""

    def __init__(self, authority: Authority, channels: Channels, blocked: Blocked, seat_cookie: SeatCookie,
                 ttl: float = TTL, most: int = MOST, rate: str = RATE) -> None:
        self.authority = authority
        self.db = authority.context.db
        self.book = Book(authority.store)
        self.channels = channels
        self.blocked = blocked
        self.seat_cookie = seat_cookie
        self.ttl = ttl
        self.most = most
        self.rates = quotas.Rates("challenges_rate", rate, quotas.ExactWindow())

    async def send(self, me: AccountRef, body: NewChallenge) -> ChallengeView:
        """Challenge the player ``body.player`` (see the module's table of refusals)."""
        other = await self.db(self.authority.accounts.by_name, body.player)
        if other is None or await self.db(self.book.banned, other.id):
            raise ServiceError(404, f"there is no player called {body.player!r}: check the name (as their "
                               "profile shows it)")
        if other.id == me.id:
            raise ServiceError(400, "you cannot challenge yourself: challenge another player")
        refused = self.rates.hit(str(me.id))
        if refused is not None:
            raise quotas.LimitError(f"you sent too many challenges (at most {refused[0]}): try again in "
                                    f"{quotas.seconds(refused[1])}", refused[1])
        hidden = await self.db(self.blocked, me.id, other.id)
        now = self.authority.now()
        control = body.clock.control() if body.clock is not None else None
        row = row_for(secrets.token_hex(8), me.id, other.id, body.variant, control, body.rated, body.seat,
                      hidden, now, self.ttl)
        if not await self.db(self.book.add, row, self.most):
            raise ServiceError(429, f"you already have {self.most} challenges waiting for an answer, the "
                               "most one may have: cancel one or wait for its answer")
        challenge = await self._get(row.id)
        view = challenge.view(now)
        if not hidden:
            self.channels.send(other.id, {"type": "challenge", "challenge": view.model_dump()})
        return view

    async def listed(self, me: AccountRef) -> ChallengeList:
        """One's challenges of the last ``ttl`` seconds, sent to one and sent by one."""
        now = self.authority.now()
        found = await self.db(self.book.recent, me.id, now - timedelta(seconds=self.ttl))
        return ChallengeList(incoming=[c.view(now) for c in found if c.player_id == me.id],
                             outgoing=[c.view(now) for c in found if c.challenger_id == me.id])

    async def accept(self, me: AccountRef, challenge_id: str, response: Response) -> Accepted:
        """Accept a challenge sent to one: its table is made with both players seated (the accepter's seat
        cookie is set in ``response``), and the challenger is told where it is."""
        challenge = await self._answerable(me, challenge_id, "accept")
        if await self.db(self.book.banned, challenge.challenger_id, challenge.player_id):
            raise ServiceError(409, "this challenge can no longer be accepted: one of its players may not "
                               "play now")
        info, token = self._table(challenge)
        if not await self.db(self.book.accept, challenge.id, info, self.authority.now()):
            raise await self._closed(challenge.id)
        self.authority.wake_clocks()
        seat = info.accounts.index(me.id)
        self.seat_cookie(response, info.id, token, self.authority.settings.https)
        await self._tell(challenge.id, "challenge_accepted")
        return Accepted(id=challenge.id, game=info.id, seat=seat, url=f"/game/{info.id}")

    async def decline(self, me: AccountRef, challenge_id: str, reason: Reason) -> ChallengeView:
        """Decline a challenge sent to one, with a reason the challenger is told."""
        challenge = await self._answerable(me, challenge_id, "decline")
        if not await self.db(self.book.close, challenge.id, "declined", self.authority.now(), reason):
            raise await self._closed(challenge.id)
        return await self._tell(challenge.id, "challenge_declined")

    async def cancel(self, me: AccountRef, challenge_id: str) -> ChallengeView:
        """Cancel a challenge one sent."""
        challenge = await self._get(challenge_id)
        if challenge.challenger_id != me.id:
            raise _not_yours(challenge_id)
        if not await self.db(self.book.close, challenge.id, "cancelled", self.authority.now()):
            raise await self._closed(challenge.id)
        return await self._tell(challenge.id, "challenge_cancelled")

    # ------------------------------------------------------------ parts

    async def _get(self, challenge_id: str) -> Challenge:
        found = await self.db(self.book.get, challenge_id) if len(challenge_id) <= 32 else None
        if found is None:
            raise _not_yours(challenge_id)
        return found

    async def _answerable(self, me: AccountRef, challenge_id: str, what: str) -> Challenge:
        """A challenge sent to ``me`` that it may see; 404 for any other."""
        challenge = await self._get(challenge_id)
        if challenge.player_id != me.id or challenge.hidden:
            raise _not_yours(challenge_id, what)
        return challenge

    async def _closed(self, challenge_id: str) -> ServiceError:
        """The refusal of an answer to a challenge that is no longer pending."""
        state = (await self._get(challenge_id)).state(self.authority.now())
        if state == "expired":
            return ServiceError(410, f"this challenge expired: it waits {round(self.ttl / 60)} minutes for "
                                "an answer; send a new one")
        return ServiceError(409, f"this challenge was already {state}: it can no longer be answered")

    async def _tell(self, challenge_id: str, kind: str) -> ChallengeView:
        """Tell both players the challenge's new state: its view."""
        challenge = await self._get(challenge_id)
        view = challenge.view(self.authority.now())
        message = {"type": kind, "challenge": view.model_dump()}
        self.channels.send(challenge.challenger_id, message)
        if not challenge.hidden:
            self.channels.send(challenge.player_id, message)
        return view

    def _table(self, challenge: Challenge) -> tuple[GameInfo, str]:
        """The game of an accepted challenge, both seats taken, its clock running; the accepter's token."""
        now = self.authority.now()
        first = challenge.seat if challenge.seat is not None else secrets.randbelow(2)
        accounts: list[int | None] = [challenge.challenger_id, challenge.player_id]
        names: list[str | None] = [challenge.challenger, challenge.player]
        if first == 1:
            accounts.reverse()
            names.reverse()
        tokens = [new_token(), new_token()]
        seed = self.authority.new_seed()
        turn = GameState.new(Settings.of(challenge.variant, 1), seed).turn
        clock = Clock.new(challenge.control).start(turn, now) if challenge.control is not None else None
        info = GameInfo(id=secrets.token_hex(8), variant=challenge.variant, rounds=1, seed=seed,
                        mode=Mode.FRIEND, level=None, ai_seat=None, players=names,
                        token_hashes=[token_hash(t) for t in tokens], status=Status.PLAYING, created=now,
                        clock=clock, moved=now, accounts=accounts, rated=challenge.rated)
        return info, tokens[accounts.index(challenge.player_id)]


def ban_reach(channels: Channels) -> Callable[[Session, int, datetime], Callable[[], None]]:
    """What a moderator's ban does to challenges (``moderation.actions.Reach``): in the ban's
    transaction, every pending challenge sent by or to the banned account is cancelled; once the ban
    is stored, the other player of each hears ``challenge_cancelled`` on their own socket."""
    def reach(session: Session, account_id: int, now: datetime) -> Callable[[], None]:
        cancelled = cancel_banned(session, account_id, now)

        def tell() -> None:
            for challenge in cancelled:
                message = {"type": "challenge_cancelled", "challenge": challenge.view(now).model_dump()}
                if challenge.challenger_id != account_id:
                    channels.send(challenge.challenger_id, message)
                elif not challenge.hidden:
                    channels.send(challenge.player_id, message)
        return tell
    return reach


def _not_yours(challenge_id: str, what: str = "answer") -> ServiceError:
    return ServiceError(404, f"there is no challenge {challenge_id[:32]!r} for you to {what}")
