"""Closing a player's sockets on every process: a ban closes all of an account's, a log-out its
session's, game sockets and player sockets (``/ws/me``) alike.

| call | closes | code | cluster event (``relay``; ``heard``) |
|---|---|---|---|
| ``ban(account)`` | the account's sockets | ``BANNED_CLOSE`` | ``{"kind", "account", "code"}`` |
| ``log_out(session)`` | the session's sockets | ``LOGGED_OUT_CLOSE`` | ``{"kind", "session", "code"}`` |

An account's sockets are those whose reader it is (their seat's account, else their session's,
``host.identify``); a session's, those opened with its cookie.

The event names a session by its hash (``accounts.session_hash``), never by its id, and only once
it has ended.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..players.accounts import session_hash
from .channels import GUEST_CLOSE, Channels, Relay
from .live import LiveGame
from .sockets import Connection

KIND = "close"
"""The kind of the cluster events that close sockets on the other processes."""
BANNED_CLOSE = 1008
"""The close code (policy violation) of a banned player's sockets."""
LOGGED_OUT_CLOSE = GUEST_CLOSE
"""The close code of a logged-out session's sockets (the page's player socket stops reconnecting)."""
CODES = (BANNED_CLOSE, LOGGED_OUT_CLOSE)


class Closing:
    """Closes sockets of ``games`` and ``channels`` here, and tells the other processes to."""

    def __init__(self, games: Mapping[str, LiveGame], channels: Channels) -> None:
        self.games = games
        self.channels = channels
        self.relay: Relay = lambda _event: None
        """Where the event is handed for the other processes (the service sets it when clustered)."""

    def ban(self, account_id: int) -> int:
        """Close every socket of the banned account, here and on every process; how many here."""
        self.relay({"kind": KIND, "account": account_id, "code": BANNED_CLOSE})
        return self._close(_of_account(account_id), BANNED_CLOSE)

    def log_out(self, session_id: str) -> int:
        """Close every socket opened with the session just ended, here and on every process; how many
        here."""
        hashed = session_hash(session_id)
        self.relay({"kind": KIND, "session": hashed, "code": LOGGED_OUT_CLOSE})
        return self._close(_of_session(hashed), LOGGED_OUT_CLOSE)

    def heard(self, event: dict[str, Any]) -> None:
        """Close what another process's event names (a malformed one is ignored)."""
        account, session, code = event.get("account"), event.get("session"), event.get("code")
        if code not in CODES:
            return
        if isinstance(account, int) and not isinstance(account, bool):
            self._close(_of_account(account), code)
        elif isinstance(session, str) and session:
            self._close(_of_session(session), code)

    def _close(self, match: Callable[[Connection], bool], code: int) -> int:
        found = [conn for game in list(self.games.values()) for conn in game.connections if match(conn)]
        for conn in found:
            conn.drop(code)
        return len(found) + self.channels.drop(match, code)


def _of_account(account_id: int) -> Callable[[Connection], bool]:
    return lambda conn: conn.reader == account_id


def _of_session(hashed: str) -> Callable[[Connection], bool]:
    return lambda conn: conn.session == hashed
