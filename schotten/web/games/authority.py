"""The authority over the games being served, put together from parts that each own one state.

| part         | owns                                          | job                                     |
|--------------|-----------------------------------------------|-----------------------------------------|
| ``Tables``   | the served games, the damaged ones            | loading, replaying, adding a table      |
| ``News``     | (nothing)                                     | telling clients and the other processes |
| ``CatchUp``  | (nothing)                                     | a copy brought up to the database       |
| ``Play``     | the group commit (``Writer``)                 | actions, undos, endings stored and told |
| ``Endings``  | (nothing)                                     | resign, abort, claim, flag, abandon     |
| ``AiSeat``   | each game's AI task                           | the AI decides and plays                |
| ``Presence`` | away timers, clock syncs in flight            | seats coming and going                  |
| ``Conductor``| the timekeeper                                | playing the AI and keeping the clocks   |
| ``Opening``  | (the quotas it is given)                      | tables opened, seats taken              |
| ``Eviction`` | the sweep's task                              | idle games leave the cache              |
| ``Attendance``| when it last marked each game seen           | the games someone is at, in the database |
| ``Hints``    | the games with a hint being worked out, rates | hints at AI tables (``hints``)          |
| ``SocketHost``| (nothing)                                    | the sockets' host (``sockets.Host``)    |

Each game is a ``LiveGame`` with its own ``asyncio.Lock``: one change at a time reaches a game.
Store calls run in worker threads; AI decisions in the AI pool (``ai``). The other processes and the
chat are reached through ``ports``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.settings import WebSettings
from ..edge.quotas import Quotas
from ..players.accounts import Accounts
from ..storage.store import Store
from ..storage.writer import Writer
from .ai import AiPool
from .aiseat import AiSeat, cancelled
from .attendance import Attendance
from .catchup import CatchUp
from .conductor import Conductor
from .context import Context
from .endings import Endings
from .eviction import Eviction
from .hints import Hints
from .host import SocketHost
from .live import LiveGame, Now, utc_now
from .news import News
from .opening import Opening
from .play import Play
from .ports import Alone, Cluster, Talk
from .presence import Presence
from .tables import Tables
from .timekeeper import Timekeeper


class Authority:
    """Every game being served, through its parts (see the module's docstring)."""

    def __init__(self, settings: WebSettings, store: Store, ai: AiPool, new_seed: Callable[[], int],
                 talk: Talk, cluster: Cluster | None = None, now: Now = utc_now) -> None:
        self.context = Context(settings, store, now)
        self.cluster: Cluster = cluster if cluster is not None else Alone()
        self.chat = talk
        self.ai = ai
        self.new_seed = new_seed
        """Where each new game's seed comes from."""
        self.quotas = Quotas(settings)
        self.accounts = Accounts(store, settings.session_ttl, lambda: self.context.now())
        self.writer = Writer(store)
        self.news = News(self.cluster, talk)
        self.tables = Tables(self.context, self.cluster, self.news)
        self.catchup = CatchUp(self.context, self.tables, self.news)
        self.play = Play(self.context, self.news, self.cluster, self.catchup, self.writer)
        self.endings = Endings(self.context, self.tables, self.play)
        self.aiseat = AiSeat(self.context, self.tables, self.play, ai)
        self.presence = Presence(self.context, self.news, self.catchup)
        self.conductor = Conductor(self.context, self.tables, self.aiseat, self.presence, self.endings,
                                   self.cluster)
        self.opening = Opening(self.context, self.tables, self.news, self.cluster, self.quotas,
                               self.accounts, new_seed)
        self.eviction = Eviction(self.context, self.tables)
        self.attendance = Attendance(self.context, self.tables)
        self.host = SocketHost(self.context, self.tables, self.news, self.cluster, talk, self.catchup,
                               self.play, self.endings, self.presence, self.opening,
                               Hints(self.context, ai))
        self.news.kick_ai = self.aiseat.kick
        self.news.wake_clocks = self.conductor.wake_clocks

    @property
    def settings(self) -> WebSettings:
        """The server's settings."""
        return self.context.settings

    @property
    def store(self) -> Store:
        """The database."""
        return self.context.store

    @property
    def games(self) -> dict[str, LiveGame]:
        """The games this process serves, by id."""
        return self.tables.games

    @property
    def now(self) -> Now:
        """Where every part reads the time."""
        return self.context.now

    @now.setter
    def now(self, now: Now) -> None:
        self.context.now = now

    @property
    def conducting(self) -> bool:
        """Whether this process plays the AI and keeps the clocks."""
        return self.context.conducting

    @property
    def timekeeper(self) -> Timekeeper | None:
        """The conductor's timekeeper (None while this process does not conduct)."""
        return self.conductor.timekeeper

    async def start(self) -> None:
        """Hear the other processes (if any) and conduct: alone at once, else once this process holds
        the conductor's lease (``cluster``); start the sweep of idle games and the marking of the games
        someone is at."""
        await self.cluster.start()
        if not self.cluster.clustered:
            await self.conductor.conduct()
        self.eviction.start()
        self.attendance.start()

    async def stop(self) -> None:
        """Stop the timekeeper, the eviction sweep and every AI (a task still thinking is cancelled)."""
        self.context.closing = True
        await self.cluster.stop()
        await self.conductor.stop()
        self.presence.stop(list(self.games.values()))
        tasks = self.aiseat.tasks()
        if self.eviction.sweeper is not None:
            tasks.append(self.eviction.sweeper)
            self.eviction.sweeper = None
        if self.attendance.looker is not None:
            tasks.append(self.attendance.looker)
            self.attendance.looker = None
        await cancelled(tasks)

    def wake_clocks(self) -> None:
        """Tell the timekeeper a deadline may have changed (it looks again at once)."""
        self.conductor.wake_clocks()

    def sweep(self) -> int:
        """Evict the idle games now (``Eviction.sweep``); how many went."""
        return self.eviction.sweep()
