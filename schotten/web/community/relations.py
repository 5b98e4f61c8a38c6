"""A player's list of other players kept in one table (``blocks`` or ``follows``): who chose whom, when.

| request                     | refused with                                                    |
|-----------------------------|-----------------------------------------------------------------|
| a name no live account has  | 404 "there is no player called ..."                             |
| one's own name              | 400 "you cannot ... yourself"                                   |
| one more than ``limit``     | 400 "you ... the most players you may (...)"                    |

Adding a player already listed, or removing one not listed, changes nothing and is no error. Every
method is a blocking call (run it in a worker thread).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from ..core.errors import ServiceError, say, saying
from ..players.accounts import AccountRef, name_key
from ..storage.db import AccountRow, BlockRow, FollowRow, utc
from ..storage.store import Store

MAX_NAME = 40
"""A longer name (or one holding a NUL character) names nobody and is not looked up."""


@dataclass(frozen=True, slots=True)
class Listed:
    """A player on one's list and since when."""

    name: str
    since: datetime

    def as_dict(self) -> dict[str, str]:
        """The entry as the API gives it."""
        return {"name": self.name, "since": self.since.isoformat()}


FULL = {
    "block": saying("You block {count} players, the most you may: unblock one before you block another."),
    "follow": saying("You follow {count} players, the most you may: unfollow one before you follow another."),
}
"""What the page says of a list that is full, by its verb."""


@dataclass(frozen=True, slots=True)
class Wording:
    """How a list's refusals are said: the verb (``block``), its past (``blocked``)."""

    verb: str
    done: str


class Relations:
    """One table of relations between accounts (``BlockRow`` or ``FollowRow``) and its limit per player."""

    def __init__(self, store: Store, table: type[BlockRow] | type[FollowRow], limit: int,
                 wording: Wording) -> None:
        self.store = store
        self.table = table
        self.limit = limit
        self.wording = wording

    def other(self, player: AccountRef, name: str) -> int:
        """The id of the live account called ``name``: 404 if there is none, 400 if it is ``player``'s."""
        found = self._account(name)
        if found is None:
            raise ServiceError(404, f"there is no player called {name!r}: check the name (as their "
                               "profile shows it)")
        if found == player.id:
            raise ServiceError(400, f"you cannot {self.wording.verb} yourself")
        return found

    def _account(self, name: str) -> int | None:
        if len(name) > MAX_NAME or "\x00" in name:
            return None
        with self.store.use() as session:
            found = session.scalar(select(AccountRow.id).where(AccountRow.name_key == name_key(name),
                                                               AccountRow.deleted.is_(None)))
        return None if found is None else int(found)

    def add(self, player: AccountRef, name: str, now: datetime) -> tuple[int, bool]:
        """List the player called ``name``: their id and whether they were newly listed."""
        other = self.other(player, name)
        mine = self.table.player_id == player.id
        try:
            with self.store.use() as session, session.begin():
                if session.get(self.table, (player.id, other)) is not None:
                    return other, False
                count = session.scalar(select(func.count()).select_from(self.table).where(mine)) or 0
                if count >= self.limit:
                    verb = self.wording.verb
                    raise ServiceError(400, f"you have {self.wording.done} {count} players, the most you "
                                       f"may: un{verb} one before you {verb} another",
                                       say(FULL[verb], count=count))
                session.add(self.table(player_id=player.id, other_id=other, created=utc(now)))
        except IntegrityError:
            return other, False
        return other, True

    def remove(self, player: AccountRef, name: str) -> int:
        """Take the player called ``name`` off the list (if listed): their id."""
        other = self.other(player, name)
        with self.store.use() as session, session.begin():
            session.execute(delete(self.table).where(self.table.player_id == player.id,
                                                     self.table.other_id == other))
        return other

    def listed(self, player_id: int) -> list[Listed]:
        """The live accounts on the player's list, by name."""
        query = (select(AccountRow.username, self.table.created)
                 .join(AccountRow, AccountRow.id == self.table.other_id)
                 .where(self.table.player_id == player_id, AccountRow.deleted.is_(None))
                 .order_by(AccountRow.name_key))
        with self.store.use() as session:
            return [Listed(name, utc(created)) for name, created in session.execute(query)]

    def ids(self, player_id: int) -> frozenset[int]:
        """The ids of the accounts on the player's list."""
        query = select(self.table.other_id).where(self.table.player_id == player_id)
        with self.store.use() as session:
            return frozenset(int(other) for other in session.scalars(query))
