"""Each signed-in player's own socket (``/ws/me``): what is sent to a player on any page they have open.

| step      | rule                                                                                   |
|-----------|----------------------------------------------------------------------------------------|
| origin    | checked before the socket is served, as a game socket's (``edge.security``)             |
| who       | the session cookie's account; a guest is told ``not_logged_in`` and closed (``GUEST_CLOSE``) |
| limits    | counted in the address's sockets and rate (``edge.quotas``); ``PER_PLAYER`` sockets a player |
| frames in | none are needed: each is counted against the flood limit and otherwise ignored          |
| frames out| ``send(player, message)``: queued on each of the player's sockets (``sockets.Connection``) |
| processes | ``send`` also hands ``{"kind": KIND, "player", "message"}`` to ``relay`` (Redis, set by the |
|           | service); an event heard from another process is delivered here (``heard``)            |

The transport knows nothing of what it carries: features (challenges) call ``send``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket

from ..core.messages import ErrorCode, error_message
from ..core.settings import WebSettings
from ..edge.quotas import Quotas, address_of, over_rate
from ..players.accounts import Accounts, session_hash
from ..players.identity import SESSION_COOKIE
from ..players.seats import cookie_name
from .sockets import LIMIT_CLOSE, Connection, RateLimit

KIND = "player"
"""The kind of the cluster events that carry a message for a player's channel."""
GUEST_CLOSE = 4401
"""The close code of a player socket opened without a signed-in session."""
PER_PLAYER = 16
"""How many player sockets (tabs) one account may hold open in a process."""
Relay = Callable[[dict[str, Any]], None]


class Channels:
    """The player sockets open to this process, by account id."""

    def __init__(self, settings: WebSettings, accounts: Accounts, quotas: Quotas) -> None:
        self.settings = settings
        self.accounts = accounts
        self.quotas = quotas
        self.relay: Relay = lambda _event: None
        """Where a message is handed for the other processes (the service sets it when clustered)."""
        self._open: dict[int, set[Connection]] = {}

    def send(self, player: int, message: dict[str, Any]) -> None:
        """Send ``message`` to every socket of ``player``, in this process and the others."""
        self.deliver(player, message)
        self.relay({"kind": KIND, "player": player, "message": message})

    def heard(self, event: dict[str, Any]) -> None:
        """Deliver a message another process sent (an event of ``KIND``; a malformed one is ignored)."""
        player, message = event.get("player"), event.get("message")
        if isinstance(player, int) and isinstance(message, dict):
            self.deliver(player, message)

    def deliver(self, player: int, message: dict[str, Any]) -> None:
        """Queue ``message`` on the sockets of ``player`` open here."""
        for conn in list(self._open.get(player, ())):
            conn.send(message)

    def drop(self, match: Callable[[Connection], bool], code: int) -> int:
        """Close every socket open here that ``match`` holds, with ``code``; how many."""
        found = [conn for held in self._open.values() for conn in held if match(conn)]
        for conn in found:
            conn.drop(code)
        return len(found)

    def open_count(self, player: int) -> int:
        """How many sockets ``player`` has open here."""
        return len(self._open.get(player, ()))

    async def serve(self, socket: WebSocket) -> None:
        """Serve one player socket until it closes (see the module's table)."""
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
            await self._serve(socket)
        finally:
            self.quotas.close_socket(address)

    async def _serve(self, socket: WebSocket) -> None:
        session = socket.cookies.get(cookie_name(SESSION_COOKIE, self.settings.https))
        account = await asyncio.to_thread(self.accounts.of_session, session) if session else None
        if account is None:
            await refuse(socket, "not_logged_in", "log in to get your challenges and notices here",
                          GUEST_CLOSE)
            return
        if self.open_count(account.id) >= PER_PLAYER:
            await refuse(socket, "limit", f"you already have {PER_PLAYER} pages open with this socket, the "
                          "most one may have: close a tab and try again", LIMIT_CLOSE)
            return
        conn = Connection(socket, None, self.settings.send_queue,
                          RateLimit(self.settings.flood_limit, self.settings.flood_window))
        conn.reader = account.id
        conn.session = session_hash(session) if session else None
        self._open.setdefault(account.id, set()).add(conn)
        conn.start()
        conn.send({"type": "hello", "player": account.username})
        left = False
        try:
            left = await read_until_gone(socket, conn)
        finally:
            self._forget(account.id, conn)
            await conn.stop(close=not left)

    def _forget(self, player: int, conn: Connection) -> None:
        held = self._open.get(player)
        if held is not None:
            held.discard(conn)
            if not held:
                del self._open[player]


async def refuse(socket: WebSocket, code: ErrorCode, message: str, close_code: int) -> None:
    """Tell the client why and close the socket."""
    try:
        await socket.send_json(error_message(code, message))
        await socket.close(close_code)
    except Exception:
        return


async def read_until_gone(socket: WebSocket, conn: Connection) -> bool:
    """Read (and ignore) the client's frames, each counted against the flood limit: True when the client
    went away, False when it was dropped."""
    while not conn.closed.is_set():
        receive = asyncio.ensure_future(socket.receive())
        dropped = asyncio.ensure_future(conn.closed.wait())
        done, _ = await asyncio.wait({receive, dropped}, return_when=asyncio.FIRST_COMPLETED)
        dropped.cancel()
        if receive not in done:
            receive.cancel()
            return False
        if receive.result()["type"] == "websocket.disconnect":
            return True
        if not conn.limit.allow():
            conn.drop(LIMIT_CLOSE)
    return False
