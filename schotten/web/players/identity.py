"""Who a request comes from: the session cookie and the account it is logged in as.

The cookie ``session`` (``__Host-session`` over HTTPS) holds a session's secret id: HttpOnly,
SameSite=Lax, for the whole site, ``Secure`` over HTTPS. A request without one, or with one that
is expired or ended, is a guest's.
"""

from __future__ import annotations

import asyncio

from fastapi import Request, Response

from .accounts import AccountRef
from .seats import cookie_name

SESSION_COOKIE = "session"


def session_id(request: Request) -> str | None:
    """The session id the request's cookie holds, or None."""
    https = request.app.state.settings.https
    return request.cookies.get(cookie_name(SESSION_COOKIE, https)) or None


async def viewer(request: Request) -> AccountRef | None:
    """The account the request is logged in as, or None (a guest); usable as a FastAPI dependency."""
    found = session_id(request)
    if found is None:
        return None
    accounts = request.app.state.service.accounts
    account: AccountRef | None = await asyncio.to_thread(accounts.of_session, found)
    return account


def set_session_cookie(response: Response, request: Request, value: str) -> None:
    """Give the browser its session cookie (it lasts as long as the session)."""
    settings = request.app.state.settings
    response.set_cookie(cookie_name(SESSION_COOKIE, settings.https), value, max_age=int(settings.session_ttl),
                        path="/", httponly=True, samesite="lax", secure=settings.https)


def clear_session_cookie(response: Response, request: Request) -> None:
    """Take the session cookie away from the browser."""
    settings = request.app.state.settings
    response.delete_cookie(cookie_name(SESSION_COOKIE, settings.https), path="/", httponly=True,
                           samesite="lax", secure=settings.https)
