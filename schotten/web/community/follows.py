"""Following: a player's list of followed players, and their games in progress for the home page.

| what     | rule                                                                                |
|----------|-------------------------------------------------------------------------------------|
| list     | at most ``MAX_FOLLOWS`` players (see ``relations`` for the refusals)                |
| games    | the followed players' games being played, newest first, ``GAMES_LIMIT`` at most,    |
|          | each as the lobby's table (never a game's state, R10) with a link to watch it       |
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import or_, select

from ..core.vocab import Status
from ..games.outbound import table_of
from ..players.accounts import AccountRef
from ..players.people import seated
from ..storage.db import FollowRow, GameRow
from ..storage.rows import info_of
from ..storage.store import Store
from .relations import Listed, Relations, Wording

MAX_FOLLOWS = 500
"""How many players one may follow."""
GAMES_LIMIT = 30
"""The most games of followed players the home page lists."""


class Follows:
    """The follows in the store's database (blocking calls: run them in a thread)."""

    def __init__(self, store: Store, limit: int = MAX_FOLLOWS) -> None:
        self.store = store
        self.relations = Relations(store, FollowRow, limit, Wording("follow", "followed"))

    def follow(self, player: AccountRef, name: str, now: datetime) -> bool:
        """Follow the player called ``name``: whether they were newly followed."""
        return self.relations.add(player, name, now)[1]

    def unfollow(self, player: AccountRef, name: str) -> None:
        """Stop following the player called ``name`` (nothing if they were not followed)."""
        self.relations.remove(player, name)

    def listed(self, player_id: int) -> list[Listed]:
        """The players ``player_id`` follows, by name."""
        return self.relations.listed(player_id)

    def games(self, player_id: int, now: datetime) -> list[dict[str, Any]]:
        """The games being played by the players ``player_id`` follows, newest first, as lobby tables
        (JSON) with a ``watch`` link each."""
        followed = select(FollowRow.other_id).where(FollowRow.player_id == player_id).scalar_subquery()
        query = (select(GameRow)
                 .where(GameRow.status == Status.PLAYING.value,
                        or_(GameRow.account0.in_(followed), GameRow.account1.in_(followed)))
                 .order_by(GameRow.created.desc(), GameRow.id).limit(GAMES_LIMIT))
        with self.store.use() as session:
            infos = [info_of(row) for row in session.scalars(query)]
            seats = seated(session, infos, now)
        return [{**table_of(info, None, seats.get(info.id)).model_dump(mode="json"),
                 "watch": f"/game/{info.id}"} for info in infos]
