"""Accounts and sessions: usernames, password hashes (argon2id, argon2-cffi) and server-side sessions.

| what          | rule                                                                          |
|---------------|-------------------------------------------------------------------------------|
| username      | 3 to 20 of ``A-Z a-z 0-9 _ -``, starting with a letter or digit               |
| unique by     | ``name_key``: lower case, ``0``→``o``, ``1`` and ``i``→``l``, ``-``→``_``     |
| password      | 8 to 200 characters; only its argon2id hash is stored, never logged           |
| session       | a random id in an HttpOnly, SameSite cookie; only its SHA-256 is stored        |

A deleted account keeps its row (its games and rating history refer to it) with no password and a
name nobody can sign up with (``~{id}``), so its username is free again; its sessions end and its
seats in games and their chat read ``DELETED_NAME``.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import CursorResult, delete, or_, select, update
from sqlalchemy.exc import IntegrityError

from ..core.errors import ServiceError
from ..storage.db import AccountRow, ChatRow, GameRow, PoolEntryRow, SessionRow, TrustedDeviceRow, utc
from ..storage.recovery_rows import AccountTokenRow, RecoveryCodeRow
from ..storage.store import Store

USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{2,19}")
PASSWORD_MIN, PASSWORD_MAX = 8, 200
DELETED_NAME = "deleted player"
"""What a deleted account's games call it."""
_FOLD = str.maketrans({"0": "o", "1": "l", "i": "l", "-": "_"})
_HASHER = PasswordHasher()
_DUMMY_HASH = _HASHER.hash("not any account's password")
"""Verified against when a name is no account's, so a log-in takes as long either way."""


@dataclass(frozen=True, slots=True)
class AccountRef:
    """An account as the rest of the app knows it: its id and username."""

    id: int
    username: str


def check_username(name: object) -> str:
    """``name`` if it is a valid username, else ValueError saying what is wrong."""
    if not isinstance(name, str):
        raise ValueError("a username is text")
    if not USERNAME.fullmatch(name):
        raise ValueError("a username has 3 to 20 characters: letters A-Z and a-z, digits, _ and -, "
                         "starting with a letter or a digit")
    return name


def check_password(password: object) -> str:
    """``password`` if it is long enough and not too long, else ValueError."""
    if not isinstance(password, str):
        raise ValueError("a password is text")
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ValueError(f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    return password


def name_key(name: str) -> str:
    """What two usernames are compared by: ``Alice``, ``alice`` and ``AIice`` are one name."""
    return name.lower().translate(_FOLD)


def session_hash(session_id: str) -> str:
    """What is stored of a session id (a long random string, so SHA-256 is enough)."""
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


class Accounts:
    """Accounts and sessions in the store's database (blocking calls: run them in a thread)."""

    def __init__(self, store: Store, session_ttl: float, now: Callable[[], datetime] | None = None) -> None:
        self.store = store
        self.session_ttl = session_ttl
        self.now = now or (lambda: datetime.now(UTC))

    def sign_up(self, username: str, password: str) -> AccountRef:
        """A new account (409 if the name, or one that looks like it, is taken)."""
        check_username(username)
        hashed = _HASHER.hash(check_password(password))
        row = AccountRow(username=username, name_key=name_key(username), password_hash=hashed,
                         created=utc(self.now()))
        try:
            with self.store.use() as session, session.begin():
                session.add(row)
                session.flush()
                return AccountRef(row.id, row.username)
        except IntegrityError:
            raise ServiceError(409, f"the username {username!r} is taken (or one that looks like it, "
                               "differing only in case, 0/o or 1/l/i): choose another") from None

    def verify(self, username: str, password: str) -> AccountRef | None:
        """The account if ``password`` is its password, else None (the same time and answer whether
        or not the name is an account's)."""
        with self.store.use() as session:
            row = session.scalars(select(AccountRow).where(
                AccountRow.name_key == name_key(username), AccountRow.deleted.is_(None))).first()
        stored = row.password_hash if row is not None and row.password_hash else _DUMMY_HASH
        try:
            _HASHER.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return None
        return AccountRef(row.id, row.username) if row is not None and stored is not _DUMMY_HASH else None

    def by_name(self, username: str) -> AccountRef | None:
        """The live account called ``username`` (compared by ``name_key``), or None."""
        with self.store.use() as session:
            row = session.scalars(select(AccountRow).where(
                AccountRow.name_key == name_key(username), AccountRow.deleted.is_(None))).first()
        return AccountRef(row.id, row.username) if row is not None else None

    def new_session(self, account_id: int) -> str:
        """A new session of the account: its secret id (the cookie's value). Expired sessions of every
        account are deleted on the way, so the table holds only live ones."""
        session_id = secrets.token_urlsafe(32)
        now = utc(self.now())
        row = SessionRow(id_hash=session_hash(session_id), account_id=account_id, created=now,
                         expires=now + timedelta(seconds=self.session_ttl))
        with self.store.use() as session, session.begin():
            session.execute(delete(SessionRow).where(SessionRow.expires <= now))
            session.add(row)
        return session_id

    def of_session(self, session_id: str | None) -> AccountRef | None:
        """The account logged in with this session id, or None (unknown, expired or deleted)."""
        if not session_id or len(session_id) > 200:
            return None
        query = (select(AccountRow.id, AccountRow.username).join(SessionRow)
                 .where(SessionRow.id_hash == session_hash(session_id),
                        SessionRow.expires > utc(self.now()), AccountRow.deleted.is_(None),
                        AccountRow.banned.is_(None)))
        with self.store.use() as session:
            found = session.execute(query).first()
        return AccountRef(found[0], found[1]) if found is not None else None

    def end_session(self, session_id: str) -> None:
        """Log the session out (nothing if it is no session)."""
        with self.store.use() as session, session.begin():
            session.execute(delete(SessionRow).where(SessionRow.id_hash == session_hash(session_id)))

    def end_sessions(self, account_id: int, keep: str | None = None) -> None:
        """End every session of the account but ``keep`` (a session id), if given."""
        query = delete(SessionRow).where(SessionRow.account_id == account_id)
        if keep is not None:
            query = query.where(SessionRow.id_hash != session_hash(keep))
        with self.store.use() as session, session.begin():
            session.execute(query)

    def adopt(self, account_id: int, seats: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
        """Make these (game, seat) pairs the account's where no account holds the seat and the other
        seat is not already the account's (one account never plays both seats); the pairs it got."""
        given = []
        with self.store.use() as session, session.begin():
            for game_id, seat in seats:
                owner, other = ((GameRow.account0, GameRow.account1) if seat == 0
                                else (GameRow.account1, GameRow.account0))
                query = (update(GameRow).where(GameRow.id == game_id, owner.is_(None),
                                               or_(other.is_(None), other != account_id))
                         .values({owner: account_id}))
                if cast(CursorResult[Any], session.execute(query)).rowcount:
                    given.append((game_id, seat))
        return given

    def delete(self, account_id: int) -> None:
        """Delete the account: its name is freed, its password, e-mail address, recovery codes and links,
        sessions, trusted devices and waiting entries are gone,
        its seats in games and their chat are named ``DELETED_NAME``; its games and rating history stay."""
        with self.store.use() as session, session.begin():
            session.execute(update(AccountRow).where(AccountRow.id == account_id).values(
                username=f"~{account_id}", name_key=f"~{account_id}", password_hash=None,
                email=None, email_confirmed=None, deleted=utc(self.now())))
            session.execute(delete(SessionRow).where(SessionRow.account_id == account_id))
            session.execute(delete(AccountTokenRow).where(AccountTokenRow.account_id == account_id))
            session.execute(delete(RecoveryCodeRow).where(RecoveryCodeRow.account_id == account_id))
            session.execute(delete(TrustedDeviceRow).where(TrustedDeviceRow.account_id == account_id))
            session.execute(delete(PoolEntryRow).where(PoolEntryRow.account_id == account_id,
                                                       PoolEntryRow.game_id.is_(None)))
            session.execute(update(PoolEntryRow).where(PoolEntryRow.account_id == account_id)
                            .values(nickname=DELETED_NAME))
            for seat, owner, player in ((0, GameRow.account0, GameRow.player0),
                                        (1, GameRow.account1, GameRow.player1)):
                session.execute(update(GameRow).where(owner == account_id).values({player: DELETED_NAME}))
                games = select(GameRow.id).where(owner == account_id)
                session.execute(update(ChatRow).where(ChatRow.seat == seat, ChatRow.game_id.in_(games))
                                .values(name=DELETED_NAME))

    def set_password(self, account_id: int, password: str) -> None:
        """Store a new password for the account."""
        hashed = _HASHER.hash(check_password(password))
        with self.store.use() as session, session.begin():
            session.execute(update(AccountRow).where(AccountRow.id == account_id)
                            .values(password_hash=hashed))
