"""The interfaces through which the games reach the parts above them, and what a process alone uses.

| interface | implemented by             | alone     |
|-----------|----------------------------|-----------|
| Cluster   | ``cluster.peers.Peers``    | ``Alone`` |
| Talk      | ``talk.chat.Chat``         | (always the chat) |
| Apart     | ``community.blocks.Blocks`` | ``Strangers`` (nobody blocks anyone) |

The games call these and never import the packages that implement them: a server without Redis
runs ``Alone`` and loads no cluster code.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..core.messages import ChatMessage, MuteMessage
from ..storage.rows import Entry
from .live import LiveGame
from .sockets import Connection


class Cluster(Protocol):
    """The other server processes, as the games see them: whom to tell of a change, and their health."""

    @property
    def clustered(self) -> bool:
        """Whether other processes may serve the same games (Redis is configured)."""
        ...

    @property
    def healthy(self) -> bool:
        """Whether the other processes hear this one (always, alone)."""
        ...

    async def start(self) -> None:
        """Hear the others and try for the conductor's lease."""
        ...

    async def stop(self) -> None:
        """Give the lease back, stop hearing and telling."""
        ...

    def changed(self, game: LiveGame, stored: Entry | None = None) -> None:
        """The game's log or row changed here (``stored``: the entry just stored)."""
        ...

    def said(self, game: LiveGame, line: dict[str, Any]) -> None:
        """A chat line of the game was stored here."""
        ...

    def muted(self, game: LiveGame, seat: int, muted: bool) -> None:
        """A seat of the game muted or unmuted the other's chat here."""
        ...

    def present(self, game: LiveGame) -> None:
        """The sockets of the game's seats here changed."""
        ...

    def holding(self, game: LiveGame) -> None:
        """This process began to hold the game."""
        ...

    def catch_up(self, game_id: str) -> None:
        """Bring this process's copy of the game up to the database, soon and in order."""
        ...

    def clocks_moved(self) -> None:
        """The running clocks were given back a downtime in the database."""
        ...

    async def online(self, games: dict[str, LiveGame]) -> int:
        """How many seats have a socket open to any process (``games``: those served here)."""
        ...


class Alone:
    """The cluster of a process alone: nobody to tell, always healthy, every seat its own."""

    clustered = False
    healthy = True

    async def start(self) -> None:
        """Nothing to hear."""

    async def stop(self) -> None:
        """Nothing to give back."""

    def changed(self, game: LiveGame, stored: Entry | None = None) -> None:
        """Nobody to tell."""

    def said(self, game: LiveGame, line: dict[str, Any]) -> None:
        """Nobody to tell."""

    def muted(self, game: LiveGame, seat: int, muted: bool) -> None:
        """Nobody to tell."""

    def present(self, game: LiveGame) -> None:
        """Nobody to tell."""

    def holding(self, game: LiveGame) -> None:
        """Nobody to ask."""

    def catch_up(self, game_id: str) -> None:
        """Nobody else writes: this copy is the database's."""

    def clocks_moved(self) -> None:
        """Nobody to tell."""

    async def online(self, games: dict[str, LiveGame]) -> int:
        """The seats with a socket open here."""
        return len(local_online(games))


def local_online(games: dict[str, LiveGame]) -> set[str]:
    """The seats (``game:seat``) of ``games`` with a socket open to this process."""
    return {f"{game_id}:{conn.seat}" for game_id, game in list(games.items())
            for conn in game.connections if conn.seat is not None and not conn.closed.is_set()}


class Talk(Protocol):
    """A game's chat, as the games see it: loaded with the game, sent to who enters, fed messages."""

    async def load(self, game: LiveGame) -> None:
        """Read the game's chat once (``StoreUnavailable`` if not now)."""
        ...

    async def know(self, conn: Connection) -> None:
        """Learn whose lines to hide from the reader of an arriving client (``Connection.reader``)."""
        ...

    def enter(self, game: LiveGame, conn: Connection) -> None:
        """Send an arriving client its rooms' history."""
        ...

    def opened(self, game: LiveGame) -> None:
        """The game changed: once it is over, both rooms open to everyone."""
        ...

    async def say(self, game: LiveGame, conn: Connection, message: ChatMessage) -> None:
        """A client's chat message."""
        ...

    async def mute(self, game: LiveGame, conn: Connection, message: MuteMessage) -> None:
        """A seat mutes or unmutes the other player."""
        ...

    def heard(self, game: LiveGame, data: dict[str, Any]) -> None:
        """A chat line another process stored."""
        ...

    def heard_mute(self, game: LiveGame, seat: int, muted: bool) -> None:
        """A mute another process stored."""
        ...


class Apart(Protocol):
    """Who keeps away from whom (blocks), as the games, their chat and Play now see it."""

    async def know(self, reader: int) -> None:
        """Read whom ``reader`` blocks, before their socket enters a game (``hides`` answers from it)."""
        ...

    def hides(self, reader: int | None, author: int | None) -> bool:
        """Whether a chat line of ``author``'s is hidden from ``reader`` (who blocks them), from what is
        known here (no database call)."""
        ...

    def apart(self, account: int) -> frozenset[int]:
        """The accounts that block ``account`` or that it blocks (a blocking call)."""
        ...


class Strangers:
    """Nobody blocks anyone (a server or a test built without ``community``)."""

    async def know(self, reader: int) -> None:
        """Nothing to read."""

    def hides(self, reader: int | None, author: int | None) -> bool:
        """Nothing is hidden."""
        return False

    def apart(self, account: int) -> frozenset[int]:
        """Nobody."""
        return frozenset()
