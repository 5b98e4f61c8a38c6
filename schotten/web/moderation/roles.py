"""The moderator role: a flag on an account, granted and removed from the command line only
(``schotten moderators add NAME``), read from the database on every request, so a grant or a
removal takes effect at once on sessions already open."""

from __future__ import annotations

from sqlalchemy import select, update

from ..core.errors import ServiceError
from ..players.accounts import AccountRef, name_key
from ..storage.db import AccountRow
from ..storage.store import Store

NOT_A_MODERATOR = "only moderators may see or do this"
"""The 403's sentence for anyone else, guests included."""


def set_moderator(store: Store, username: str, moderator: bool) -> AccountRef:
    """Grant (or remove) the role of the live account ``username``; ValueError naming it if none."""
    with store.use() as session, session.begin():
        row = session.scalars(select(AccountRow).where(
            AccountRow.name_key == name_key(username), AccountRow.deleted.is_(None))).first()
        if row is None:
            raise ValueError(f"there is no account called {username!r}")
        session.execute(update(AccountRow).where(AccountRow.id == row.id).values(moderator=moderator))
        return AccountRef(row.id, row.username)


def moderators(store: Store) -> list[str]:
    """The usernames of every live moderator, in alphabetical order."""
    with store.use() as session:
        names = session.scalars(select(AccountRow.username).where(
            AccountRow.moderator.is_(True), AccountRow.deleted.is_(None))).all()
    return sorted(names, key=str.lower)


def is_moderator(store: Store, account_id: int) -> bool:
    """Whether the account holds the role now (and is neither deleted nor banned)."""
    with store.use() as session:
        row = session.get(AccountRow, account_id)
    return row is not None and row.moderator and row.deleted is None and row.banned is None


def require_moderator(store: Store, account: AccountRef | None) -> AccountRef:
    """``account`` if it is a moderator's; else a 403 (guests too: nothing here is for them)."""
    if account is None or not is_moderator(store, account.id):
        raise ServiceError(403, NOT_A_MODERATOR)
    return account
