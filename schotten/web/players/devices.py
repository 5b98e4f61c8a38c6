"""Trusted devices (OWASP's device cookies): the browsers that logged in to an account before.

| what   | rule                                                                                     |
|--------|------------------------------------------------------------------------------------------|
| cookie | ``device`` (``__Host-device``, Secure, over HTTPS): a random token, HttpOnly, SameSite=Lax |
| stored | only the token's SHA-256, with each account it logged in to (``trusted_devices``)         |
| given  | at every sign-up and log-in: a new token, trusted for this account and the old one's      |
| kept   | ``MAX_DEVICES`` per account (the newest), ``device_ttl`` after their last log-in          |
| grants | nothing but the browser's own allowance of log-in tries for those accounts (``tries``)    |

A new token at each log-in means a token set in a browser by someone else is never trusted.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta

from fastapi import Request, Response
from sqlalchemy import delete, select, update

from ..storage.db import AccountRow, TrustedDeviceRow, utc
from ..storage.store import Store
from .accounts import name_key
from .seats import cookie_name

DEVICE_COOKIE = "device"
MAX_DEVICES = 20
"""Browsers an account keeps trusting (a browser that logs in makes the oldest one a stranger)."""
MAX_TOKEN = 200
"""A longer cookie is no device's (tokens are 43 characters)."""


def device_hash(token: str) -> str:
    """What is stored of a device token (a long random string, so SHA-256 is enough)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def device_token(request: Request) -> str | None:
    """The device token the request's cookie holds, or None."""
    https = request.app.state.settings.https
    token = request.cookies.get(cookie_name(DEVICE_COOKIE, https))
    return token if token and len(token) <= MAX_TOKEN else None


def set_device_cookie(response: Response, request: Request, token: str) -> None:
    """Give the browser its device cookie (SameSite and Secure as the session cookie)."""
    settings = request.app.state.settings
    response.set_cookie(cookie_name(DEVICE_COOKIE, settings.https), token, max_age=int(settings.device_ttl),
                        path="/", httponly=True, samesite="lax", secure=settings.https)


class Devices:
    """The trusted devices in the store's database (blocking calls: run them in a thread)."""

    def __init__(self, store: Store, ttl: float, now: Callable[[], datetime]) -> None:
        self.store = store
        self.ttl = ttl
        self.now = now

    def trusted(self, token: str | None, username: str) -> str | None:
        """The token's hash if it is a device that logged in to the live account ``username``, else None."""
        if token is None:
            return None
        hashed, row = device_hash(token), TrustedDeviceRow
        query = (select(row.token_hash).join(AccountRow, AccountRow.id == row.account_id)
                 .where(row.token_hash == hashed, row.expires > utc(self.now()),
                        AccountRow.name_key == name_key(username), AccountRow.deleted.is_(None)))
        with self.store.use() as session:
            return hashed if session.execute(query).first() is not None else None

    def trust(self, old: str | None, account_id: int) -> str:
        """A new token for the browser that just logged in to ``account_id``, trusted for it and for
        the accounts its ``old`` token was; expired devices of every account, and the account's beyond
        ``MAX_DEVICES``, are deleted on the way."""
        token, row = secrets.token_urlsafe(32), TrustedDeviceRow
        hashed, now = device_hash(token), utc(self.now())
        expires = now + timedelta(seconds=self.ttl)
        with self.store.use() as session, session.begin():
            session.execute(delete(row).where(row.expires <= now))
            if old is not None:
                mine = row.token_hash == device_hash(old)
                session.execute(delete(row).where(mine, row.account_id == account_id))
                session.execute(update(row).where(mine).values(token_hash=hashed))
            session.add(row(token_hash=hashed, account_id=account_id, expires=expires))
            session.flush()
            newest = (select(row.token_hash).where(row.account_id == account_id)
                      .order_by(row.expires.desc()).limit(MAX_DEVICES))
            session.execute(delete(row).where(row.account_id == account_id, row.token_hash.not_in(newest)))
        return token
