"""Who hears of a change to a game: this process's clients, the other processes, the AI and the clocks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .live import LiveGame
from .outbound import state_texts
from .ports import Cluster, Talk
from .sockets import Connection


def _nothing(*_: object) -> None:
    """Nobody listens yet."""


class News:
    """Tells a game's clients its state, the other processes that it changed, and the parts that act
    on a change: ``kick_ai`` (the AI seat looks whether it is to move) and ``wake_clocks`` (the
    timekeeper looks again at the deadlines), set by the ``Authority`` when it puts the parts together."""

    def __init__(self, cluster: Cluster, talk: Talk) -> None:
        self.cluster = cluster
        self.talk = talk
        self.kick_ai: Callable[[LiveGame], None] = _nothing
        self.wake_clocks: Callable[[], None] = _nothing

    def tell(self, game: LiveGame, log_from: int | None = None) -> None:
        """Queue the game's state for every client of this process (one message built per seat), with
        the log's entries from ``log_from`` on (the first that changed; default: none changed)."""
        start = len(game.state.history) if log_from is None else log_from
        for conn in [c for c in game.connections if c.closed.is_set()]:
            game.connections.discard(conn)
        texts = state_texts(game, {conn.seat for conn in game.connections}, start)
        for conn in list(game.connections):
            conn.send(texts[conn.seat])
        self.talk.opened(game)

    def broadcast(self, game: LiveGame, log_from: int | None = None) -> None:
        """The game changed here: queue its state for every client (``tell``) and tell the others."""
        self.tell(game, log_from)
        self.cluster.changed(game)

    def tell_presence(self, game: LiveGame, skip: Connection | None = None) -> None:
        """Send every client of ``game`` (but ``skip``) who is away, whether it may now claim the win and
        how many spectators watch (``presence_of``)."""
        away, spectators = game.away(), game.spectators()
        for conn in [c for c in game.connections if c is not skip]:
            conn.send(presence_of(game, conn.seat, away, spectators))

    def changed(self, game: LiveGame, kept: int) -> None:
        """A change heard from the database: this process's clients get it, the AI and clocks look again."""
        self.tell(game, kept)
        self.kick_ai(game)
        self.wake_clocks()


def presence_of(game: LiveGame, seat: int | None, away: list[int | None] | None = None,
                spectators: int | None = None) -> dict[str, Any]:
    """The ``presence`` message for a client of ``seat``: who is away, whether it may claim the win, and
    how many spectators' sockets are open (a count only: never who watches)."""
    return {
        "type": "presence",
        "away": game.away() if away is None else away,
        "can_claim_victory": game.can_claim(seat),
        "spectators": game.spectators() if spectators is None else spectators,
    }
