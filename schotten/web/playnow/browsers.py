"""Whose browser a Play now request comes from, and the waiting ticket derived from it.

| what        | value                                                                                   |
|-------------|-----------------------------------------------------------------------------------------|
| browser key | an account's session id; a guest's ``pool_browser`` cookie (``__Host-`` over HTTPS)     |
| browser     | ``sha256("pool-browser:" + key)``: ``pool_entries.browser_hash``, unique                |
| ticket      | ``HMAC-SHA256(key, salt)``, base64url; the entry stores its hash and ``salt``           |

A request holding the key can derive the ticket of its browser's entry from the stored salt, so a
second entry sent at the same moment is answered with the same ticket (and seat); the database alone
holds neither the key nor the ticket. The ``pool_browser`` cookie is HttpOnly, SameSite=Lax, for the
whole site, kept a year; every ``GET /api/play-now`` sets it if the browser has none.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from fastapi import Request, Response
from fastapi.responses import JSONResponse

from ..players.seats import cookie_name

BROWSER_COOKIE = "pool_browser"
BROWSER_AGE = 365 * 24 * 3600
MAX_KEY = 200
UNKNOWN_BROWSER = ("a guest's browser is known to Play now by its pool_browser cookie, which this request "
                   "did not send: this answer sets it, send the entry again (the lobby's first "
                   "GET /api/play-now sets it too)")


def browser_hash(key: str) -> str:
    """What is stored of a browser key."""
    return hashlib.sha256(f"pool-browser:{key}".encode()).hexdigest()


def ticket_of(key: str, salt: str) -> str:
    """The waiting ticket of the entry that the browser of ``key`` made with ``salt``."""
    digest = hmac.new(key.encode(), salt.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def new_salt() -> str:
    """A new entry's salt."""
    return secrets.token_urlsafe(12)


class Browsers:
    """The browser cookie of a site served over HTTPS or not."""

    def __init__(self, https: bool) -> None:
        self.https = https
        self.name = cookie_name(BROWSER_COOKIE, https)

    def cookie(self, request: Request) -> str | None:
        """The ``pool_browser`` cookie the request holds, or None."""
        found = request.cookies.get(self.name)
        return found if found and len(found) <= MAX_KEY else None

    def key(self, request: Request, session: str | None) -> str | None:
        """The browser key of a request: its session id if it is an account's (``session``), else its
        ``pool_browser`` cookie; None if it is a guest's without one."""
        return session if session is not None else self.cookie(request)

    def give(self, request: Request, response: Response) -> None:
        """Set a new ``pool_browser`` cookie unless the request holds one."""
        if self.cookie(request) is None:
            response.set_cookie(self.name, secrets.token_urlsafe(24), max_age=BROWSER_AGE, path="/",
                                httponly=True, samesite="lax", secure=self.https)

    def unknown(self, request: Request) -> JSONResponse:
        """The answer to a guest's entry without a browser cookie: 409, the cookie set, nothing stored."""
        answer = JSONResponse({"error": UNKNOWN_BROWSER}, status_code=409)
        self.give(request, answer)
        return answer
