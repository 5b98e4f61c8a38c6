"""The other server processes, seen from this one: what it tells them, what it hears from them, and
whether it is the conductor (the process that plays the AI and keeps the clocks).

- ``game`` (``version``, ``ai``): a game's log or row changed here (a move, a seat taken, a clock,
  a rematch). A process holding the game catches up from the database and sends its clients their
  views; the conductor also loads a game whose AI is to move.
- ``chat`` (``line``): a chat line was stored; a process holding the game sends it to its clients.
- ``mute`` (``seat``, ``muted``): a seat muted or unmuted the other's chat; its clients get their state.
- ``presence`` (``seats``, ``spectators``): how many sockets of each seat and of spectators this
  process serves, when that changes and every ``PRESENCE_EVERY`` s; the others count them there
  until ``PRESENCE_TTL``.
- ``hello``: this process began to hold a game; those serving its seats or spectators answer with
  ``presence``.
- ``clocks``: a new conductor gave the running clocks back a time when no process served; every
  process catches up its timed games.
- any other kind given a handler with ``hear`` (``player``: a message for a player's own socket,
  ``games.channels``; ``close``: a ban's or a log-out's sockets, ``games.closing``), told with
  ``relay``. (Each process notes every ``PRESENCE_EVERY`` s in the database
  that it serves, while Redis can be reached.)

A process alone (no Redis) tells nobody and is the conductor from its start. With Redis, the
conductor holds the lease ``CONDUCTOR`` (``lease``); a process that loses Redis closes its game
sockets (clients see "reconnecting" and come back once it is back) and refuses new ones meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from typing import Any

from redis.exceptions import RedisError

from ..core.settings import WebSettings
from ..games.authority import Authority
from ..games.live import LiveGame
from ..games.ports import local_online
from ..storage.rows import Entry
from .fanout import Bus, Event, Handler, LocalBus, RedisBus
from .following import committed, follow_event, heard_deadline
from .lease import RedisLease

logger = logging.getLogger("schotten.web")

CONDUCTOR = "schotten:conductor"
ONLINE = "schotten:online:"
"""Each process's set of the seats it serves sockets of (``game:seat``), for "players online"."""
PRESENCE_EVERY = 5.0
PRESENCE_TTL = 15.0
"""Seconds a process's word that a seat is connected there holds unless it says it again."""
REDIS_LOST_CLOSE = 1012
"""The close code of the game sockets when Redis is lost ("service restart": the page reconnects)."""


def process_name() -> str:
    """This process's name among the others: host, process id and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Peers:
    """This process's side of the cluster (``games.ports.Cluster``; see the module's docstring), for the
    ``authority`` it is given (``serve``) before it starts."""

    def __init__(self, settings: WebSettings) -> None:
        self._authority: Authority | None = None
        self.origin = process_name()
        self.clustered = bool(settings.redis_url)
        self.bus: Bus = RedisBus(settings.redis_url, self.origin) if self.clustered else LocalBus()
        self.lease = RedisLease(settings.redis_url, CONDUCTOR, self.origin) if self.clustered else None
        self._catching: dict[str, asyncio.Task[None]] = {}
        self._pending: dict[str, list[Event]] = {}
        self._beat: asyncio.Task[None] | None = None
        self._hearers: dict[str, Handler] = {}

    @property
    def authority(self) -> Authority:
        """The games this process serves."""
        assert self._authority is not None, "Peers.serve(authority) comes before start"
        return self._authority

    def serve(self, authority: Authority) -> None:
        """Serve the games of ``authority``."""
        self._authority = authority

    @property
    def healthy(self) -> bool:
        """Whether the other processes hear this one (always, alone)."""
        return self.bus.healthy

    async def start(self) -> None:
        """Hear the others and try for the conductor's lease (alone: conduct at once)."""
        await self.bus.start(self._heard, self._lost, self._back)
        conductor = self.authority.conductor
        if self.lease is None:
            await conductor.conduct()
            return
        self.lease.start(conductor.conduct, conductor.step_down)
        self._beat = asyncio.create_task(self._presence_loop())

    async def stop(self) -> None:
        """Give the lease back, stop hearing and telling."""
        if self._beat is not None:
            self._beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beat
        if self.lease is not None:
            await self.lease.stop()
        for task in list(self._catching.values()):
            task.cancel()
        await self.bus.stop()

    # ------------------------------------------------------------ telling

    def hear(self, kind: str, handler: Handler) -> None:
        """Hand every event of ``kind`` heard from another process to ``handler``."""
        self._hearers[kind] = handler

    def relay(self, event: Event) -> None:
        """Tell the others ``event`` (its ``kind`` one a handler was given for, with ``hear``)."""
        if self.clustered:
            self.bus.tell(event)

    def changed(self, game: LiveGame, stored: Entry | None = None) -> None:
        """The game's log or row changed here (``stored``: the entry just stored; the event carries it
        and the row after it, ``following.committed``): the others follow."""
        if self.clustered:
            carried = committed(game, stored) if stored is not None else {}
            self.bus.tell({"kind": "game", "game": game.info.id, "version": game.version,
                           "ai": game.ai_to_move, **carried})

    def said(self, game: LiveGame, line: dict[str, Any]) -> None:
        """A chat line of the game was stored here."""
        if self.clustered:
            self.bus.tell({"kind": "chat", "game": game.info.id, "line": line})

    def muted(self, game: LiveGame, seat: int, muted: bool) -> None:
        """A seat of the game muted or unmuted the other's chat here."""
        if self.clustered:
            self.bus.tell({"kind": "mute", "game": game.info.id, "seat": seat, "muted": muted})

    def present(self, game: LiveGame) -> None:
        """Tell which seats of the game have sockets here, and how many spectators."""
        if self.clustered:
            self.bus.tell({"kind": "presence", "game": game.info.id, "seats": game.local_seats(),
                           "spectators": game.local_spectators()})

    def clocks_moved(self) -> None:
        """The running clocks were given back a downtime in the database: the others catch up."""
        if self.clustered:
            self.bus.tell({"kind": "clocks"})

    def holding(self, game: LiveGame) -> None:
        """This process began to hold the game: the others say which of its seats they serve, and the
        game catches up once more (a change heard while it was being loaded was not applied to it)."""
        if self.clustered:
            self.bus.tell({"kind": "hello", "game": game.info.id})
            self.catch_up(game.info.id)

    # ------------------------------------------------------------ hearing

    def _heard(self, event: Event) -> None:
        game_id, kind = event.get("game"), event.get("kind")
        hearer = self._hearers.get(kind) if isinstance(kind, str) else None
        if hearer is not None:
            hearer(event)
            return
        if kind == "clocks":
            for held in list(self.authority.games.values()):
                if held.clock is not None and held.clock.running is not None:
                    self.catch_up(held.info.id)
            return
        if not isinstance(game_id, str):
            return
        game = self.authority.games.get(game_id)
        if kind == "game":
            if self.authority.conducting:
                heard_deadline(self.authority, event)
            wanted = bool(event.get("ai")) and self.authority.conducting
            if game is not None or wanted:
                self.catch_up(game_id, event)
            return
        if game is None:
            return
        if kind == "chat" and isinstance(event.get("line"), dict):
            self.authority.chat.heard(game, event["line"])
        elif kind == "mute":
            self.authority.chat.heard_mute(game, int(event["seat"]), bool(event["muted"]))
        elif kind == "presence":
            self._heard_presence(game, str(event.get("from")), event.get("seats"))
            self._heard_spectators(game, str(event.get("from")), event.get("spectators"))
        elif kind == "hello" and (any(game.local_seats()) or game.local_spectators()):
            self.present(game)

    def _heard_presence(self, game: LiveGame, origin: str, seats: Any) -> None:
        if not (isinstance(seats, list) and len(seats) == 2):
            return
        before = game.connected_seats()
        counts = (int(seats[0]), int(seats[1]))
        if any(counts):
            game.remote[origin] = (counts, time.monotonic() + PRESENCE_TTL)
        else:
            game.remote.pop(origin, None)
        self.authority.presence.moved(game, before)

    def _heard_spectators(self, game: LiveGame, origin: str, count: Any) -> None:
        if not isinstance(count, int) or count < 0:
            return
        before = game.spectators()
        if count:
            game.remote_spectators[origin] = (count, time.monotonic() + PRESENCE_TTL)
        else:
            game.remote_spectators.pop(origin, None)
        if game.spectators() != before:
            self.authority.presence.watching(game)

    def catch_up(self, game_id: str, event: Event | None = None) -> None:
        """Bring this process's copy of the game up to date: with the change ``event`` carries, else
        from the database. A game's changes are followed one at a time, in the order heard."""
        self._pending.setdefault(game_id, []).append(event or {})
        if game_id not in self._catching:
            self._catching[game_id] = asyncio.create_task(self._catch_up(game_id))

    async def _catch_up(self, game_id: str) -> None:
        try:
            while self._pending.get(game_id):
                event = self._pending[game_id].pop(0)
                try:
                    await follow_event(self.authority, game_id, event)
                except Exception as error:
                    logger.error("game %s could not catch up (%s: %s)", game_id, type(error).__name__, error)
        finally:
            self._catching.pop(game_id, None)
            self._pending.pop(game_id, None)

    def _lost(self) -> None:
        self.authority.host.drop_sockets(REDIS_LOST_CLOSE)

    def _back(self) -> None:
        for game_id in list(self.authority.games):
            self.catch_up(game_id)

    async def _presence_loop(self) -> None:
        while True:
            await asyncio.sleep(PRESENCE_EVERY)
            try:
                self.beat()
                await self._store_online()
                if self.healthy:
                    await self.authority.context.db(self.authority.store.beat, self.authority.now())
            except (RedisError, OSError):
                pass
            except Exception:
                logger.exception("the presence beat failed")

    async def _store_online(self) -> None:
        """Keep this process's seats online in Redis (``ONLINE``), until ``PRESENCE_TTL`` unless renewed."""
        if not isinstance(self.bus, RedisBus):
            return
        key, seats = ONLINE + self.origin, sorted(local_online(self.authority.games))
        async with self.bus.client.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            if seats:
                pipe.sadd(key, *seats)
                pipe.pexpire(key, int(PRESENCE_TTL * 1000))
            await pipe.execute()

    async def online(self, games: dict[str, LiveGame]) -> int:
        """How many seats have a socket open to any process (other processes' as they last said; this
        process's, ``games``, as it is now)."""
        seats = local_online(games)
        if isinstance(self.bus, RedisBus) and self.bus.healthy:
            try:
                keys = [key async for key in self.bus.client.scan_iter(match=ONLINE + "*", count=500)
                        if key.decode() != ONLINE + self.origin]
                if keys:
                    found = await self.bus.client.sunion(keys)
                    seats |= {m.decode() if isinstance(m, bytes) else str(m) for m in found}
            except (RedisError, OSError):
                pass
        return len(seats)

    def beat(self) -> None:
        """Say again which seats have sockets here, and forget what others said and did not renew."""
        now = time.monotonic()
        for game in list(self.authority.games.values()):
            if any(game.local_seats()) or game.local_spectators():
                self.present(game)
            stale = [origin for origin, (_, until) in game.remote.items() if until <= now]
            if stale:
                before = game.connected_seats()
                for origin in stale:
                    del game.remote[origin]
                self.authority.presence.moved(game, before)
            gone = [origin for origin, (_, until) in game.remote_spectators.items() if until <= now]
            for origin in gone:
                del game.remote_spectators[origin]
            if gone:
                self.authority.presence.watching(game)
