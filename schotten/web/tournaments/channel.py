"""Each tournament's own socket (``/ws/tournaments/{id}``): its events, to everyone watching it.

| message       | to                                                   | says                           |
|---------------|------------------------------------------------------|--------------------------------|
| ``hello``     | the socket, on opening                               | ``tournament``, ``player``     |
| ``standings`` | every socket of the tournament                       | ``tournament``                 |
| ``paired``    | the paired player's sockets only (their session's)   | ``tournament``, ``game``, ``url`` |

The standings change when a game ends; a player joins, withdraws, pauses or goes berserk; a wave or
a round is paired; the tournament starts, ends or is cancelled. A process tells ``standings`` at most
once every ``STANDINGS_EVERY`` seconds per tournament (a change within that time is told at its end):
each event makes every open page read the tournament, and a busy arena ends several games a second.
No event carries a standing or a card: the page reads ``GET /api/tournaments/{id}`` (the public view,
which also sets the seat cookie). The socket's origin, address quota and flood limit are a player
socket's (``games.channels``); a guest may watch. Each event is also handed to ``relay`` (the cluster,
set by the service) as ``{"kind": KIND, "tournament", "message", "player"}`` and delivered by ``heard``
on the other processes. ``changed`` and ``paired`` may be called from any thread (the director's, the
writer's): the work is done on the event loop given to ``bind``.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.websockets import WebSocket

from ..core.settings import WebSettings
from ..edge.quotas import Quotas, address_of, over_rate
from ..games.channels import PER_PLAYER, Relay, read_until_gone, refuse
from ..games.sockets import LIMIT_CLOSE, Connection, RateLimit
from ..players.accounts import Accounts
from ..players.identity import SESSION_COOKIE
from ..players.seats import cookie_name

KIND = "tournament"
"""The kind of the cluster events that carry a tournament's message."""
NOT_FOUND_CLOSE = 4404
"""The close code of a socket opened for a tournament that does not exist."""
STANDINGS_EVERY = 1.0
"""The fewest seconds between two ``standings`` events of one tournament from one process."""


class TournamentChannel:
    """The tournament sockets open to this process, by tournament id (each knows its account)."""

    def __init__(self, settings: WebSettings, accounts: Accounts, quotas: Quotas,
                 exists: Callable[[int], Awaitable[bool]]) -> None:
        self.settings = settings
        self.accounts = accounts
        self.quotas = quotas
        self.exists = exists
        self.relay: Relay = lambda _event: None
        """Where an event is handed for the other processes (the service sets it when clustered)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._open: dict[int, set[Connection]] = {}
        self._told: dict[int, float] = {}
        """When (the loop's time) each tournament's last ``standings`` went out from here."""
        self._due: set[int] = set()
        """The tournaments whose next ``standings`` waits for the end of ``STANDINGS_EVERY``."""

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop that serves the sockets and relays the events."""
        self._loop = loop

    def changed(self, tournament_id: int) -> None:
        """The tournament's standings changed: every socket of it is told, here and elsewhere (at
        once, or at the end of ``STANDINGS_EVERY`` after the last time)."""
        self._soon(self._standings, tournament_id)

    def paired(self, tournament_id: int, player: int, game_id: str) -> None:
        """``player`` was paired in the tournament: their sockets of it are told the table."""
        message = {"type": "paired", "tournament": tournament_id, "game": game_id, "url": f"/game/{game_id}"}
        self._soon(self._tell, tournament_id, player, message)

    def heard(self, event: dict[str, Any]) -> None:
        """Deliver an event another process sent (of ``KIND``; a malformed one is ignored)."""
        tournament, player, message = event.get("tournament"), event.get("player"), event.get("message")
        if isinstance(tournament, int) and isinstance(message, dict) and (player is None
                                                                            or isinstance(player, int)):
            self.deliver(tournament, player, message)

    def deliver(self, tournament_id: int, player: int | None, message: dict[str, Any]) -> None:
        """Queue ``message`` on the tournament's sockets open here (``player``: only theirs)."""
        for conn in list(self._open.get(tournament_id, ())):
            if player is None or conn.reader == player:
                conn.send(message)

    def open_count(self, tournament_id: int) -> int:
        """How many sockets of the tournament are open here."""
        return len(self._open.get(tournament_id, ()))

    def _standings(self, tournament_id: int) -> None:
        loop = self._loop
        if loop is None or tournament_id in self._due:
            return
        wait = self._told.get(tournament_id, -math.inf) + STANDINGS_EVERY - loop.time()
        if wait <= 0:
            self._tell_standings(tournament_id)
            return
        self._due.add(tournament_id)
        loop.call_later(wait, self._tell_standings, tournament_id)

    def _tell_standings(self, tournament_id: int) -> None:
        assert self._loop is not None
        self._due.discard(tournament_id)
        self._told[tournament_id] = self._loop.time()
        self._tell(tournament_id, None, {"type": "standings", "tournament": tournament_id})

    def _tell(self, tournament_id: int, player: int | None, message: dict[str, Any]) -> None:
        self.deliver(tournament_id, player, message)
        self.relay({"kind": KIND, "tournament": tournament_id, "player": player, "message": message})

    def _soon(self, work: Callable[..., None], *args: Any) -> None:
        """Do ``work`` on the bound loop: now if called on it, else as soon as it can."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            here = asyncio.get_running_loop() is loop
        except RuntimeError:
            here = False
        if here:
            work(*args)
        else:
            loop.call_soon_threadsafe(work, *args)

    async def serve(self, socket: WebSocket, tournament_id: int) -> None:
        """Serve one socket of the tournament until it closes (see the module's table)."""
        await socket.accept()
        address = address_of(socket.client)
        if not self.quotas.open_socket(address):
            await refuse(socket, "limit", f"your address already has {self.settings.sockets_per_address} "
                         "sockets open, the most it may have: close a tab and try again", LIMIT_CLOSE)
            return
        try:
            refused = self.quotas.charge(address)
            if refused is not None:
                await refuse(socket, "limit", over_rate(refused, "messages and requests", "this socket"),
                             LIMIT_CLOSE)
                return
            await self._serve(socket, tournament_id)
        finally:
            self.quotas.close_socket(address)

    async def _serve(self, socket: WebSocket, tournament_id: int) -> None:
        if not await self.exists(tournament_id):
            await refuse(socket, "not_found", f"there is no tournament {tournament_id}", NOT_FOUND_CLOSE)
            return
        session = socket.cookies.get(cookie_name(SESSION_COOKIE, self.settings.https))
        account = await asyncio.to_thread(self.accounts.of_session, session) if session else None
        held = self._open.get(tournament_id, set())
        if account is not None and sum(c.reader == account.id for c in held) >= PER_PLAYER:
            await refuse(socket, "limit", f"you already have {PER_PLAYER} pages of this tournament open, the "
                         "most one may have: close a tab and try again", LIMIT_CLOSE)
            return
        conn = Connection(socket, None, self.settings.send_queue,
                          RateLimit(self.settings.flood_limit, self.settings.flood_window))
        conn.reader = None if account is None else account.id
        self._open.setdefault(tournament_id, set()).add(conn)
        conn.start()
        conn.send({"type": "hello", "tournament": tournament_id,
                   "player": None if account is None else account.username})
        left = False
        try:
            left = await read_until_gone(socket, conn)
        finally:
            self._forget(tournament_id, conn)
            await conn.stop(close=not left)

    def _forget(self, tournament_id: int, conn: Connection) -> None:
        held = self._open.get(tournament_id)
        if held is not None:
            held.discard(conn)
            if not held:
                del self._open[tournament_id]
