"""The rematch of a finished friend game: asking, accepting, withdrawing and declining its offer.

The ``Rematcher`` moves an ``offer.Offer`` through its states (the table is in ``offer``),
always under the finished game's lock, the database first (it is the arbiter: an offer is
either accepted or closed, never both), then the games in memory, then every client.

A tournament's game has none (409): the tournament pairs its players' next games.

The first player to ask opens the rematch table (same variant and rounds, same seats; the
seat that did not begin the match begins it) and sits down; the other player's clients are
told. The other player asking takes the seat kept for them (the offer is accepted). A closed
offer is over: asking again makes a new offer at a new table, up to ``MAX_REMATCH_OFFERS``.

The credential is a seat token of the finished game (``token``, else its seat cookie); to
answer an offer, the token of the rematch table does too (same seats).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping

from ...engine import GameState, Settings
from ..core.clock import Clock
from ..core.errors import ServiceError, say, saying
from ..core.offer import TOO_LATE, Offer, OfferState
from ..core.schemas import ClosedOffer, SeatGrant
from ..core.vocab import Mode, Status
from ..edge.quotas import UNKNOWN_ADDRESS
from ..games.authority import Authority
from ..games.live import LiveGame
from ..games.tables import check_has_game
from ..players.seats import grant, one_seat_taken, seat_cookie
from ..storage.rows import GameInfo

SEED_RANGE = 2**63
"""Seeds are 63-bit numbers (a signed 64-bit column holds them)."""
SEED_STEPS = 256
"""How many seeds a rematch tries to find one its other seat begins (see ``seed_begun_by``)."""
MAX_REMATCH_OFFERS = 5
"""How many rematch offers a finished game may have in all: after that many were withdrawn or
declined, asking again is refused (429), so nobody is pestered with offer after offer."""
INVALID_TOKEN = "this seat token is not valid for this game: use the link you were given"


def seed_begun_by(seed: int, settings: Settings, first: int) -> int:
    """The first seed from ``seed`` on (``seed``, ``seed + 1``, ...) whose match seat ``first`` begins.

    Who begins comes from the seed (R2.3), so this keeps the seed as random as ``seed`` except
    for who begins; half the seeds qualify (after ``SEED_STEPS`` misses, all but impossible,
    ``seed`` itself is kept).
    """
    for step in range(SEED_STEPS):
        candidate = (seed + step) % SEED_RANGE
        if GameState.new(settings, candidate).first == first:
            return candidate
    return seed


GONE = saying("This rematch offer was withdrawn or declined: ask for a new one instead.")
IN_TOURNAMENT = saying("A tournament game has no rematch: the tournament pairs your next game by itself.")


class Rematcher:
    """The rematch offers of the games the ``authority`` serves."""

    def __init__(self, authority: Authority) -> None:
        self.authority = authority
        self.store = authority.store
        self.db = authority.context.db

    async def ask(self, game_id: str, token: str | None, cookies: Mapping[str, str],
                  offer: str | None = None, address: str = UNKNOWN_ADDRESS) -> SeatGrant:
        """A player of a finished friend game asks for a rematch: open an offer, or accept the
        open one (see the module). Asking again never opens a second table: a seat already taken
        is given back only to the browser holding its cookie (in ``cookies``). ``offer`` names
        the rematch table a click answers (Accept the rematch): if that offer was closed
        meanwhile, the request is refused (410) and changes nothing. The table an offer opens is a
        table ``address`` opened (429 beyond its quotas, as ``Opening.create``)."""
        game = await self.authority.tables.game(game_id)
        seat = _asking_seat(game, token)
        async with game.lock:
            if offer is not None:
                await self._check_current(game, offer)
            if game.info.rematch is None:
                await self._check_offers_left(game)
                opened = await self._open(game, seat, address)
                if opened is not None:
                    return opened
            return await self._take_seat(game, seat, cookies)

    async def withdraw(self, game_id: str, token: str | None, cookies: Mapping[str, str],
                       offer: str | None = None) -> ClosedOffer:
        """The player who asked withdraws the offer ``offer`` (default: the current one) while the
        other seat is free: its table is closed and every client of both tables is told.
        Withdrawing an offer already closed changes nothing and answers how it was closed."""
        return await self._answer(game_id, token, cookies, offer, OfferState.WITHDRAWN)

    async def decline(self, game_id: str, token: str | None, cookies: Mapping[str, str],
                      offer: str | None = None) -> ClosedOffer:
        """The other player declines the offer: as ``withdraw``, by the seat that did not ask."""
        return await self._answer(game_id, token, cookies, offer, OfferState.DECLINED)

    # ------------------------------------------------------------ open -> (new offer)

    async def _open(self, game: LiveGame, seat: int, address: str) -> SeatGrant | None:
        """Open the rematch table with ``seat`` taken, counted as a table ``address`` opened; None if the
        database already holds a rematch."""
        old = game.info
        settings = Settings.of(old.variant, old.rounds)
        players, hashes, token = one_seat_taken(seat, old.players[seat])
        accounts: list[int | None] = [None, None]
        accounts[seat] = old.accounts[seat]
        info = GameInfo(
            id=secrets.token_hex(8),
            variant=old.variant,
            rounds=old.rounds,
            seed=seed_begun_by(self.authority.opening.new_seed(), settings, 1 - game.state.first),
            mode=Mode.FRIEND,
            level=None,
            ai_seat=None,
            players=players,
            token_hashes=hashes,
            status=Status.OPEN,
            rematch_of=old.id,
            clock=Clock.new(old.clock.control) if old.clock is not None else None,
            accounts=accounts,
            rated=old.rated,
        )
        await self.authority.opening.admit(address, info.id, ai=False)
        stored = False
        try:
            stored = await self.db(self.store.add_rematch, old.id, seat, info)
        finally:
            if not stored:
                self.authority.quotas.forget(info.id)
        if not stored:
            old.rematch = await self.db(self.store.rematch_of, old.id)
            return None
        self.authority.tables.add(info)
        old.rematch, old.rematch_closed = Offer(info.id, old.id, seat), None
        self.authority.news.broadcast(game)
        return grant(info.id, seat, token, invite=False)

    async def _check_offers_left(self, game: LiveGame) -> None:
        """Refuse a new offer once ``MAX_REMATCH_OFFERS`` offers of ``game`` were closed."""
        if await self.db(self.store.closed_offers, game.info.id) >= MAX_REMATCH_OFFERS:
            raise ServiceError(
                429,
                f"this game has had {MAX_REMATCH_OFFERS} rematch offers, all withdrawn or declined: "
                "no more can be made, but a new table can be opened from the lobby",
            )

    # ------------------------------------------------------------ open -> accepted

    async def _take_seat(self, game: LiveGame, seat: int, cookies: Mapping[str, str]) -> SeatGrant:
        """Seat ``seat`` at the rematch table (or give back its seat to the browser that holds it);
        the other player sitting down accepts the offer."""
        offer = game.info.rematch
        if offer is None:
            raise ServiceError(409, "the rematch could not be opened: please try again")
        table = await self.authority.tables.game(offer.id)
        async with table.lock:
            if table.info.token_hashes[seat] is None:
                name = game.info.players[seat] or f"player {seat + 1}"
                token = await self.authority.opening.sit(table, seat, name,
                                                         "that seat of the rematch was just taken",
                                                         game.info.accounts[seat])
            else:
                token = cookies.get(seat_cookie(offer.id)) or ""
                if not token or table.seat_of(token) != seat:
                    raise ServiceError(409, "you already took your seat in the rematch: open it with "
                                       "the link you were given there, or from the browser you took it in")
        self.authority.quotas.joined(offer.id)
        if seat != offer.by and offer.accept():
            self.authority.news.broadcast(game)
        return grant(offer.id, seat, token, invite=False)

    # ------------------------------------------------------------ open -> withdrawn | declined

    async def _answer(self, game_id: str, token: str | None, cookies: Mapping[str, str],
                      offer: str | None, how: OfferState) -> ClosedOffer:
        game = await self.authority.tables.game(game_id)
        async with game.lock:
            table = await self._offer_table(game, offer)
            seat = _answering_seat(game, table, token, cookies)
            if table is None:
                if offer is not None:
                    raise ServiceError(404, f"there is no rematch {offer!r} of this game")
                raise ServiceError(409, "there is no rematch offer to answer: nobody asked for one")
            closed = await self._close(game, table, seat, how)
        return ClosedOffer.model_validate(closed.told())

    async def _close(self, game: LiveGame, table: LiveGame, seat: int, how: OfferState) -> Offer:
        """Close the offer of ``table`` for ``seat``, or tell how it was closed (under ``game``'s lock)."""
        closed = table.info.rematch_closed
        if table.info.status == Status.CLOSED and closed is not None:
            closed.check_closing(seat, how)
            return closed
        current = game.info.rematch
        if current is None or current.id != table.info.id:
            raise ServiceError(409, "this rematch offer is no longer the game's: reload the page")
        current.check_closing(seat, how)
        if table.info.status != Status.OPEN:
            raise ServiceError(409, TOO_LATE)
        return await self._shut(game, table, how)

    async def _shut(self, game: LiveGame, table: LiveGame, how: OfferState) -> Offer:
        """Close the open rematch ``table`` of ``game`` in the database, then in memory; tell every client."""
        async with table.lock:
            done = await self.db(self.store.close_rematch, game.info.id, table.info.id, how)
            if done is None:
                raise ServiceError(409, TOO_LATE)
            table.info.status, table.info.rematch_closed = Status.CLOSED, done
            self.authority.quotas.forget(table.info.id)
            self.authority.news.broadcast(table)
        game.info.rematch, game.info.rematch_closed = None, done
        self.authority.news.broadcast(game)
        return done

    # ------------------------------------------------------------ which offer

    async def _check_current(self, game: LiveGame, offer: str) -> None:
        """Refuse a request about the rematch table ``offer`` unless it is ``game``'s current offer."""
        current = game.info.rematch
        if current is not None and current.id == offer:
            return
        if await self._offer_table(game, offer) is None:
            raise ServiceError(404, f"there is no rematch {offer!r} of this game")
        raise ServiceError(410, "this rematch offer was withdrawn or declined: ask for a new one instead",
                           say(GONE))

    async def _offer_table(self, game: LiveGame, offer: str | None) -> LiveGame | None:
        """The rematch table ``offer`` of ``game`` (by default its current or last closed offer), or None."""
        known = game.info.rematch or game.info.rematch_closed
        wanted = offer or (known.id if known is not None else None)
        if wanted is None:
            return None
        table = await self.authority.tables.live(wanted)
        return table if table is not None and table.info.rematch_of == game.info.id else None


def _asking_seat(game: LiveGame, token: str | None) -> int:
    """The seat of a finished friend game asking for its rematch; refused (403, 409) otherwise."""
    if not token:
        raise ServiceError(403, "spectators cannot ask for a rematch: open the game with your seat's link")
    seat = game.seat_of(token)
    if seat is None:
        raise ServiceError(403, INVALID_TOKEN)
    _check_rematch_game(game)
    return seat


def _answering_seat(game: LiveGame, table: LiveGame | None, token: str | None,
                    cookies: Mapping[str, str]) -> int:
    """The seat of ``game`` answering its rematch offer: ``token`` (else a seat cookie) of the finished
    game or of the rematch ``table`` (same seats); refused (403, 409) otherwise."""
    ids = [game.info.id] + ([table.info.id] if table is not None else [])
    given = [token] if token else [c for c in (cookies.get(seat_cookie(i)) for i in ids) if c]
    if not given:
        raise ServiceError(403, "spectators cannot answer a rematch offer: open the game with your "
                           "seat's link")
    for candidate in given:
        seat = game.seat_of(candidate)
        if seat is None and table is not None:
            seat = table.seat_of(candidate)
        if seat is not None:
            _check_rematch_game(game)
            return seat
    raise ServiceError(403, INVALID_TOKEN)


def _check_rematch_game(game: LiveGame) -> None:
    """Refuse (409) a rematch of a game that is not a finished friend game, or of a tournament's game."""
    if game.info.mode != Mode.FRIEND:
        raise ServiceError(409, "a rematch is for games between two people: against the AI, open a new table")
    if game.info.tournament is not None:
        raise ServiceError(409, "a tournament game has no rematch: the tournament pairs your next game by "
                           "itself (go back to the tournament's page)", say(IN_TOURNAMENT))
    check_has_game(game.info, "rematch")
    if not game.state.is_over:
        raise ServiceError(409, "the game is still being played: a rematch can be asked for once it is over")
