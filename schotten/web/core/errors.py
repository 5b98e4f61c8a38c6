"""Refused API requests: ``ServiceError`` (an HTTP status and a clear English message), the
refusal shared by every request that needs a game at a table where none was played,
``GameDamaged`` (a stored log that does not replay: 409, on a socket ``damaged``) and
``StoreUnavailable`` (the database cannot be used now: HTTP 503, on a socket ``unavailable``)."""

from __future__ import annotations

from typing import Any

NOTHING_AT_A_CLOSED_TABLE = {
    "record": "there is no game record to download",
    "replay": "there is nothing to replay",
    "review": "there is no game to review",
    "rematch": "there is no game here to have a rematch of: answer or ask from the page of the game before",
}
"""What each request needing a game is told at a closed rematch table (``games.tables.check_has_game``)."""
NOTHING_YET = {
    "record": "there is no game record to download yet",
    "replay": "there is nothing to replay yet",
    "review": "there is no game to review yet",
    "rematch": "there is no game to have a rematch of yet: a rematch can be asked for once a game "
               "here is over",
}
"""What each request needing a game is told at a table waiting for its second player."""
NOT_BEGUN = "the game has not begun yet: this table is waiting for its second player, so {}"
"""The refusal (409) of a request needing a game at an open table, filled in from ``NOTHING_YET``."""


SAYINGS: set[str] = set()
"""Every sentence the server may send a page to say in its reader's language (``saying``): its English
text (a msgid of every catalogue, ``{name}`` filled in from the error's ``say`` params)."""
Say = dict[str, Any]
"""What a page says of a refusal: ``{"text": a saying, "params": {name: value}}``."""


def saying(text: str) -> str:
    """Register ``text`` as a sentence pages translate (each catalogue has it: tests/web/test_i18n.py)."""
    SAYINGS.add(text)
    return text


def say(text: str, **params: str | int) -> Say:
    """What a page says of a refusal: the registered ``text`` with ``params``."""
    if text not in SAYINGS:
        raise ValueError(f"not a registered saying: {text!r}")
    return {"text": text, "params": params}


class ServiceError(Exception):
    """A refused API request: the HTTP status, a clear English message and, for the page, what it
    says in its reader's language (``say``: None, the page shows ``message``)."""

    def __init__(self, status: int, message: str, say: Say | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.say = say


UNAVAILABLE = ("the server cannot store anything right now (its database is unavailable): nothing changed, "
               "try again in a moment")
"""What a client is told (HTTP 503, socket ``unavailable``) when the database cannot be used."""
DAMAGED = ("this game's stored record is damaged and cannot be replayed: it cannot be shown or played on "
           "(the other games are not affected)")
"""What a client is told (HTTP 409, socket ``damaged``) about a game whose log does not replay."""


class GameDamaged(ServiceError):
    """A game whose stored log does not replay (409 over HTTP, ``damaged`` on a socket)."""

    def __init__(self) -> None:
        super().__init__(409, DAMAGED)


class LogConflict(Exception):
    """An entry not stored because the game's log already holds an entry at its index: another
    server process stored that game's next entry first (the log's key is (game, index))."""


class StoreUnavailable(Exception):
    """The database cannot be used now (locked, full, down, its file deleted or read-only): nothing
    was stored. ``message`` is a clear English sentence naming what went wrong (never a secret)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
