"""Account recovery: a confirmed e-mail address that can receive one-time reset links, and recovery codes.

| secret            | made                               | lasts                   | stored         |
|-------------------|------------------------------------|-------------------------|----------------|
| confirmation link | setting an address (``ask_confirm``) | ``confirm_ttl`` (1 day) | token's SHA-256 |
| reset link        | "forgot password" (``ask_reset``)  | ``reset_ttl`` (1 hour)  | token's SHA-256 |
| recovery code     | ``CODES`` at sign-up, or on request | until used or replaced | SHA-256 of id + code |

Each works once: it is marked used in the same transaction that changes the account, so two requests
with one token cannot both succeed. A reset (by link or code) stores the new password and ends every
session of the account; a new reset link makes the older ones of the account useless. Deleted
accounts have no address, link or code. The calls block: run them in a thread.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from argon2 import PasswordHasher
from sqlalchemy import CursorResult, delete, func, select, update
from sqlalchemy.orm import Session

from ..core.settings import WebSettings
from ..storage.db import AccountRow, SessionRow, utc
from ..storage.recovery_rows import AccountTokenRow, RecoveryCodeRow
from ..storage.store import Store
from .accounts import AccountRef, check_password, name_key, session_hash

CODES = 8
"""How many recovery codes an account gets at a time."""
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
CODE_GROUPS, CODE_GROUP = 4, 4
"""A code is four groups of four characters (about 79 random bits), ``-`` between them."""
EMAIL = re.compile(r"[^@\s\x00-\x1f\x7f]{1,64}@[^@\s\x00-\x1f\x7f.]+(\.[^@\s\x00-\x1f\x7f.]+)+")
EMAIL_MAX = 254
MAILS_PER_ADDRESS = 5
"""The most accounts one "forgot password" for an address sends links for."""
_HASHER = PasswordHasher()


@dataclass(frozen=True, slots=True)
class Letter:
    """A link to e-mail: to whom, for which account, and the one-time token it carries."""

    to: str
    username: str
    token: str


@dataclass(frozen=True, slots=True)
class EmailState:
    """An account's address (confirmed, or None) and the one waiting for its confirmation, if any."""

    confirmed: str | None
    pending: str | None


def check_email(value: object) -> str:
    """``value`` if it looks like an e-mail address (the confirmation proves it is one), else ValueError."""
    if not isinstance(value, str):
        raise ValueError("an e-mail address is text")
    if len(value) > EMAIL_MAX or not EMAIL.fullmatch(value):
        raise ValueError(f"an e-mail address is a name, @ and a domain (such as ann@example.org), "
                         f"{EMAIL_MAX} characters at most, without spaces")
    return value


def normal_code(code: str) -> str:
    """A recovery code as it is hashed: lower case, without spaces or dashes."""
    return re.sub(r"[\s-]", "", code).lower()


def code_hash(account_id: int, code: str) -> str:
    """What is stored of one of the account's recovery codes."""
    return session_hash(f"{account_id}:{normal_code(code)}")


def _new_code() -> str:
    groups = ("".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_GROUP)) for _ in range(CODE_GROUPS))
    return "-".join(groups)


class Recovery:
    """Addresses, one-time links and recovery codes of the accounts in the store's database."""

    def __init__(self, store: Store, settings: WebSettings,
                 now: Callable[[], datetime] | None = None) -> None:
        self.store = store
        self.settings = settings
        self.now = now or (lambda: datetime.now(UTC))

    def email_of(self, account_id: int) -> EmailState:
        """The account's confirmed address and the one it asked to confirm (still valid), if any."""
        now = utc(self.now())
        with self.store.use() as session:
            confirmed = session.scalar(select(AccountRow.email).where(AccountRow.id == account_id))
            pending = session.scalar(select(AccountTokenRow.email).where(
                AccountTokenRow.account_id == account_id, AccountTokenRow.kind == "confirm",
                AccountTokenRow.used.is_(None), AccountTokenRow.expires > now))
        return EmailState(confirmed, pending)

    def ask_confirm(self, account: AccountRef, email: str) -> Letter:
        """A link confirming ``email`` as the account's address (older unconfirmed ones are dropped)."""
        check_email(email)
        with self.store.use() as session, session.begin():
            session.execute(delete(AccountTokenRow).where(AccountTokenRow.account_id == account.id,
                                                          AccountTokenRow.kind == "confirm"))
            token = self._token(session, "confirm", account.id, self.settings.confirm_ttl, email)
        return Letter(email, account.username, token)

    def confirm(self, token: str) -> bool:
        """Make the link's address its account's (True), or False: no such link, used or expired."""
        with self.store.use() as session, session.begin():
            row = self._consume(session, "confirm", token)
            if row is None:
                return False
            session.execute(update(AccountRow).where(AccountRow.id == row.account_id).values(
                email=row.email, email_confirmed=utc(self.now())))
        return True

    def remove_email(self, account_id: int) -> None:
        """The account has no address any more (nor one waiting, nor reset links)."""
        with self.store.use() as session, session.begin():
            session.execute(update(AccountRow).where(AccountRow.id == account_id).values(
                email=None, email_confirmed=None))
            session.execute(delete(AccountTokenRow).where(AccountTokenRow.account_id == account_id))

    def ask_reset(self, name_or_email: str) -> list[Letter]:
        """Reset links for the live account of that name, or the accounts of that confirmed address
        (none if there is none: the caller says the same either way)."""
        wanted = name_or_email.strip()
        key = (func.lower(AccountRow.email) == wanted.lower() if "@" in wanted
               else AccountRow.name_key == name_key(wanted))
        query = (select(AccountRow.id, AccountRow.username, AccountRow.email)
                 .where(key, AccountRow.email.is_not(None), AccountRow.deleted.is_(None))
                 .order_by(AccountRow.id).limit(MAILS_PER_ADDRESS))
        letters = []
        with self.store.use() as session, session.begin():
            for account_id, username, email in session.execute(query).all():
                token = self._token(session, "reset", account_id, self.settings.reset_ttl)
                letters.append(Letter(str(email), username, token))
        return letters

    def reset_by_token(self, token: str, password: str) -> AccountRef | None:
        """Store the new password of the reset link's account and end its sessions; None if the link is
        no link, used or expired (nothing changes)."""
        hashed = _HASHER.hash(check_password(password))
        with self.store.use() as session, session.begin():
            row = self._consume(session, "reset", token)
            if row is None:
                return None
            session.execute(update(AccountTokenRow).where(
                AccountTokenRow.account_id == row.account_id, AccountTokenRow.kind == "reset",
                AccountTokenRow.used.is_(None)).values(used=utc(self.now())))
            return self._new_password(session, row.account_id, hashed)

    def new_codes(self, account_id: int) -> list[str]:
        """``CODES`` new recovery codes of the account (shown once); its older codes stop working."""
        codes = [_new_code() for _ in range(CODES)]
        now = utc(self.now())
        with self.store.use() as session, session.begin():
            session.execute(delete(RecoveryCodeRow).where(RecoveryCodeRow.account_id == account_id))
            session.add_all(RecoveryCodeRow(code_hash=code_hash(account_id, code), account_id=account_id,
                                            created=now) for code in codes)
        return codes

    def codes_left(self, account_id: int) -> int:
        """How many of the account's recovery codes are not used yet."""
        with self.store.use() as session:
            count = session.scalar(select(func.count()).select_from(RecoveryCodeRow).where(
                RecoveryCodeRow.account_id == account_id, RecoveryCodeRow.used.is_(None)))
        return int(count or 0)

    def reset_by_code(self, username: str, code: str, password: str) -> AccountRef | None:
        """Use one of the account's codes to store its new password and end its sessions; None if the
        name is no live account's or the code is not one of its unused codes (nothing changes)."""
        hashed = _HASHER.hash(check_password(password))
        with self.store.use() as session, session.begin():
            account_id = session.scalar(select(AccountRow.id).where(
                AccountRow.name_key == name_key(username), AccountRow.deleted.is_(None)))
            if account_id is None:
                return None
            used = session.execute(update(RecoveryCodeRow).where(
                RecoveryCodeRow.code_hash == code_hash(account_id, code),
                RecoveryCodeRow.account_id == account_id, RecoveryCodeRow.used.is_(None),
            ).values(used=utc(self.now())))
            if not cast(CursorResult[Any], used).rowcount:
                return None
            return self._new_password(session, account_id, hashed)

    def _token(self, session: Session, kind: str, account_id: int, ttl: float,
               email: str | None = None) -> str:
        """A new one-time token of the account (its hash stored); expired tokens are swept on the way."""
        now = utc(self.now())
        session.execute(delete(AccountTokenRow).where(AccountTokenRow.expires <= now))
        token = secrets.token_urlsafe(32)
        session.add(AccountTokenRow(token_hash=session_hash(token), kind=kind, account_id=account_id,
                                    email=email, created=now, expires=now + timedelta(seconds=ttl)))
        return token

    def _consume(self, session: Session, kind: str, token: str) -> AccountTokenRow | None:
        """The token's row, marked used, if it is an unused, unexpired token of ``kind`` of a live account."""
        if not token or len(token) > 200:
            return None
        now = utc(self.now())
        live = select(AccountRow.id).where(AccountRow.deleted.is_(None))
        taken = session.execute(update(AccountTokenRow).where(
            AccountTokenRow.token_hash == session_hash(token), AccountTokenRow.kind == kind,
            AccountTokenRow.used.is_(None), AccountTokenRow.expires > now,
            AccountTokenRow.account_id.in_(live)).values(used=now))
        if not cast(CursorResult[Any], taken).rowcount:
            return None
        return session.get(AccountTokenRow, session_hash(token))

    def _new_password(self, session: Session, account_id: int, hashed: str) -> AccountRef:
        """Store the password hash and end every session of the account."""
        session.execute(update(AccountRow).where(AccountRow.id == account_id).values(password_hash=hashed))
        session.execute(delete(SessionRow).where(SessionRow.account_id == account_id))
        username = session.scalar(select(AccountRow.username).where(AccountRow.id == account_id))
        return AccountRef(account_id, str(username))
