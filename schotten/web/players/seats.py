"""Seats and their secret tokens: what is stored of a token, which seat a token is, the seat
cookie, and the grant a player is given with a seat.

A token is the credential of one seat of one table. Only its SHA-256 is stored; it is
compared in constant time, and never logged or put in an error.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping

from ..core.schemas import SeatGrant
from ..storage.rows import GameInfo

SEAT_COOKIE = "seat_"
"""The prefix of the cookie holding a seat's token (``seat_{game id}``)."""
HOST_PREFIX = "__Host-"
"""The prefix of every seat cookie's name when the server is reached over HTTPS (the ``https``
setting): a browser keeps such a cookie only if it is ``Secure``, for the whole host and set by
it, so no other site and no plain-HTTP page can have set or read it."""
MAX_ID = 32
"""The longest table id (longer names are no table's)."""


def token_hash(token: str) -> str:
    """What is stored of a seat token (tokens are long random strings, so SHA-256 is enough)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A new secret seat token."""
    return secrets.token_urlsafe(24)


def seat_cookie(game_id: str) -> str:
    """The name of the cookie holding this browser's seat token of the table ``game_id``."""
    return f"{SEAT_COOKIE}{game_id}"


def cookie_name(name: str, https: bool) -> str:
    """The name a cookie called ``name`` has in the browser: ``__Host-`` prefixed over HTTPS."""
    return f"{HOST_PREFIX}{name}" if https else name


def seat_cookies(cookies: Mapping[str, str], https: bool) -> dict[str, str]:
    """A request's seat cookies by their plain names (``seat_{id}``); over HTTPS only the
    ``__Host-`` prefixed ones count."""
    prefix = cookie_name(SEAT_COOKIE, https)
    return {name[len(prefix) - len(SEAT_COOKIE):]: value for name, value in cookies.items()
            if name.startswith(prefix)}


def cookie_token(cookies: Mapping[str, str], game_id: str, https: bool) -> str:
    """The seat token of the table ``game_id`` a request's cookies hold, or ""."""
    return cookies.get(cookie_name(seat_cookie(game_id), https), "")


def seat_of_token(info: GameInfo, token: str) -> int | None:
    """The seat of the table ``info`` whose token this is, or None (compared in constant time)."""
    digest = token_hash(token)
    found = None
    for seat, stored in enumerate(info.token_hashes):
        if stored is not None and hmac.compare_digest(stored, digest):
            found = seat
    return found


def cookie_tokens(cookies: Mapping[str, str]) -> dict[str, str]:
    """The seat tokens a browser's cookies hold, by table id."""
    return {name[len(SEAT_COOKIE):]: value for name, value in cookies.items()
            if name.startswith(SEAT_COOKIE) and 1 <= len(name) - len(SEAT_COOKIE) <= MAX_ID}


def one_seat_taken(seat: int, nickname: str | None) -> tuple[list[str | None], list[str | None], str]:
    """A new table's players and token hashes with ``seat`` taken by ``nickname``, and its token."""
    token = new_token()
    players: list[str | None] = [None, None]
    hashes: list[str | None] = [None, None]
    players[seat], hashes[seat] = nickname, token_hash(token)
    return players, hashes, token


def grant(game_id: str, seat: int, token: str, invite: bool) -> SeatGrant:
    """The answer giving a player ``seat``: its token and link (and an invitation link to share)."""
    return SeatGrant(
        id=game_id,
        seat=seat,
        token=token,
        url=f"/game/{game_id}?token={token}",
        invite=f"/game/{game_id}?join=1" if invite else None,
    )
