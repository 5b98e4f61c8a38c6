"""Per client address: one rate over all of its HTTP requests and socket messages together, the
tables it opens (a rate, open tables at once, AI tables not finished) and its sockets.

The address is the ASGI scope's client host (``request.client.host``); behind a proxy, uvicorn's
``--proxy-headers --forwarded-allow-ips=<the proxy>`` decide it (docs/web/limits.md). Every rate
(the address's, log-in, sign-up, tables, chat) is an exact moving window (``ExactWindow``: N per
minute holds for every minute, not only the clock's). Counts in this process's memory are forgotten
by a restart. ``install`` adds the ASGI middleware that charges each HTTP request
(see ``request_cost``) and answers 429 with ``Retry-After``, and the handler of ``LimitError``.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from limits import RateLimitItem, parse_many
from limits.errors import StorageError
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter
from limits.util import WindowStats
from starlette.types import ASGIApp, Receive, Scope, Send

from ..core.errors import Say, ServiceError, say, saying
from ..core.metrics import REFUSED
from ..core.settings import WebSettings

logger = logging.getLogger("schotten.web")

IPV6_PREFIX = 64
"""IPv6 clients are counted by network: the first 64 bits of their address."""
UNKNOWN_ADDRESS = "unknown"
"""The address of a client the server was not told (every such client shares one budget)."""
FREE_PATHS = frozenset({"/healthz", "/metrics"})
FREE_PREFIXES = ("/static/",)
HEAVY = re.compile(r"/api/games/[^/]+/(replay|record)")
HEAVY_COST = 10
"""What a replay or a game record costs of the address rate (an ordinary request costs 1)."""
AI_RETRY = 10
"""The Retry-After (seconds) of a table refused because of the AI tables in play."""
SWEEP_EVERY = 60.0
"""How often (seconds, at most) the tables of every address are looked over, so an address that
never comes back is forgotten once its tables are joined, expired, finished or closed."""


TOO_MANY = {what: saying(f"Too many {what} from your address: try again in {{wait}}.")
            for what in ("tables opened", "entries into Play now", "accounts made",
                                 "reviews asked for", "analyses", "edits of a position")}
"""What a page says of a rate exceeded (``over_rate``), by what was counted."""
DROPPED = {what: saying(f"Too many messages from your address: {what} was dropped; try again in {{wait}}.")
           for what in ("this socket", "this message")}
OPEN_TABLES = saying("Your address already has as many open tables waiting for a second player as it may "
                     "have ({limit}): wait until someone joins one, or until the oldest expires in {wait}.")
AI_TABLES = saying("Your address already has as many unfinished games against the AI as it may have "
                   "({limit}): finish or resign one of them (My games lists them), then open a new one.")


class LimitError(ServiceError):
    """A request refused by a quota or a rate (429): the sentence, what the page says, when to try again."""

    def __init__(self, message: str, retry_after: int, said: Say | None = None) -> None:
        super().__init__(429, message, said)
        self.retry_after = retry_after


def address_of(client: Any) -> str:
    """The address an ASGI ``client`` (a ``(host, port)`` pair, Starlette's ``Address``, or None) is
    counted under: its IPv4 address, or its IPv6 /64 network (one subscriber holds a whole /64)."""
    if client is None:
        return UNKNOWN_ADDRESS
    host = client[0] if isinstance(client, tuple | list) else getattr(client, "host", None)
    if not host:
        return UNKNOWN_ADDRESS
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return str(host)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


def request_cost(path: str) -> int:
    """What an HTTP request to ``path`` costs of the address rate: health, metrics and static
    files are free, a replay or a game record costs ``HEAVY_COST``, the rest 1."""
    if path in FREE_PATHS or path.startswith(FREE_PREFIXES):
        return 0
    return HEAVY_COST if HEAVY.fullmatch(path) else 1


def seconds(amount: float) -> str:
    """A duration as a person reads it: ``42 s``, ``5 min``, ``3 h 20 min``."""
    whole = max(1, math.ceil(amount))
    if whole < 120:
        return f"{whole} s"
    minutes = math.ceil(whole / 60)
    if minutes < 120:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"


class Limiter(Protocol):
    """What ``Rates`` needs of a strategy (the ``limits`` library's, or ``ExactWindow``)."""

    def test(self, item: RateLimitItem, *identifiers: str, cost: int = 1) -> bool:
        """Whether ``cost`` more would stay within ``item``."""
        ...

    def hit(self, item: RateLimitItem, *identifiers: str, cost: int = 1) -> bool:
        """Count ``cost`` if it stays within ``item``."""
        ...

    def get_window_stats(self, item: RateLimitItem, *identifiers: str) -> WindowStats:
        """When a unit is free again, and how many are left."""
        ...

    def clear(self, item: RateLimitItem, *identifiers: str) -> None:
        """Forget the units counted."""
        ...


class ExactWindow:
    """An exact moving window in this process's memory: at most ``item.amount`` units in any span of
    ``item``'s length, per key. A key keeps the times of its units still in the window (at most the
    amount), and keys whose units all left are dropped every ``SWEEP_EVERY`` looks, or every as many
    looks as there are keys if more (a sweep looks at each key once). Threads may share one: each
    call is one step (a hit that no longer fits counts nothing)."""

    SWEEP_EVERY = 1000

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self.clock = clock if clock is not None else (lambda: time.time())
        self._times: dict[str, tuple[int, deque[float]]] = {}
        self._looks = 0
        self._lock = threading.Lock()

    def test(self, item: RateLimitItem, *identifiers: str, cost: int = 1) -> bool:
        """Whether ``cost`` more units would stay within ``item`` now."""
        with self._lock:
            return len(self._live(item, identifiers)) + cost <= item.amount

    def hit(self, item: RateLimitItem, *identifiers: str, cost: int = 1) -> bool:
        """Count ``cost`` units now if they stay within ``item``; whether they were counted."""
        with self._lock:
            times = self._live(item, identifiers)
            if len(times) + cost > item.amount:
                return False
            times.extend([self.clock()] * cost)
            return True

    def get_window_stats(self, item: RateLimitItem, *identifiers: str) -> WindowStats:
        """When the oldest unit in the window leaves it (its reset time), and how many are left."""
        with self._lock:
            times = self._live(item, identifiers)
            reset = times[0] + item.get_expiry() if times else self.clock()
            return WindowStats(reset, max(0, item.amount - len(times)))

    def clear(self, item: RateLimitItem, *identifiers: str) -> None:
        """Forget the units of ``item`` counted for these identifiers."""
        with self._lock:
            self._times.pop(item.key_for(*identifiers), None)

    def _live(self, item: RateLimitItem, identifiers: tuple[str, ...]) -> deque[float]:
        """The times of ``item``'s units for these identifiers still in the window (older ones dropped)."""
        self._looks += 1
        if self._looks >= max(self.SWEEP_EVERY, len(self._times)):
            self._looks = 0
            self._sweep()
        key, expiry = item.key_for(*identifiers), item.get_expiry()
        times = self._times.setdefault(key, (expiry, deque()))[1]
        since = self.clock() - expiry
        while times and times[0] <= since:
            times.popleft()
        return times

    def _sweep(self) -> None:
        """Drop the keys with no unit left in their window."""
        now = self.clock()
        for key, (expiry, times) in list(self._times.items()):
            if not times or times[-1] <= now - expiry:
                del self._times[key]


class Rates:
    """Several rates in the ``limits`` notation (``"50/second;1000/minute"``) counted together per key.

    ``shared`` counts them in a storage every server process shares (Redis, see ``shared_limiter``):
    while it cannot be reached they are counted by ``limiter``, in this process, instead."""

    def __init__(self, setting: str, text: str, limiter: Limiter, shared: Limiter | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        try:
            self.items: list[RateLimitItem] = parse_many(text)
        except ValueError:
            raise ValueError(f"SCHOTTEN_{setting.upper()}={text!r} is not a valid {setting}: write rates "
                             "such as '50/second;1000/minute'") from None
        self.limiter = limiter
        self.shared = shared
        self.name = setting
        self.clock = clock if clock is not None else getattr(limiter, "clock", lambda: time.time())

    def hit(self, key: str, cost: int = 1) -> tuple[str, int] | None:
        """Count ``cost`` if every rate allows it (None); if one does not, nothing is counted and
        the answer is (the rates exceeded, in words; the seconds until one unit is free again). A
        try whose last unit another thread took meanwhile is refused too (its other rates counted)."""
        if self.shared is not None:
            try:
                return self._hit(self.shared, key, cost)
            except StorageError:
                logger.warning("the %s is counted in this process: Redis cannot be reached", self.name)
        return self._hit(self.limiter, key, cost)

    def clear(self, key: str) -> None:
        """Forget what was counted under ``key`` (in Redis and in this process)."""
        for limiter in (self.shared, self.limiter):
            if limiter is None:
                continue
            try:
                for item in self.items:
                    limiter.clear(item, self.name, key)
            except StorageError:
                logger.warning("the %s of a key could not be cleared: Redis cannot be reached", self.name)

    def _hit(self, limiter: Limiter, key: str, cost: int) -> tuple[str, int] | None:
        blocked = [item for item in self.items if not limiter.test(item, self.name, key,
                                                                    cost=min(cost, item.amount))]
        if not blocked:
            blocked = [item for item in self.items if not limiter.hit(item, self.name, key,
                                                                       cost=min(cost, item.amount))]
            if not blocked:
                return None
        now = self.clock()
        wait = max(limiter.get_window_stats(item, self.name, key).reset_time - now for item in blocked)
        return ", ".join(str(item) for item in blocked), max(1, math.ceil(wait))


def shared_limiter(redis_url: str) -> MovingWindowRateLimiter | None:
    """An exact moving window counted in Redis at ``redis_url``, shared by every server process (None
    without Redis). Its calls block for a round trip to Redis: it counts the rare requests (log-in,
    sign-up)."""
    if not redis_url:
        return None
    storage = RedisStorage(redis_url, wrap_exceptions=True, socket_timeout=0.5, socket_connect_timeout=0.5)
    return MovingWindowRateLimiter(storage)


class Quotas:
    """The counts and rates of every client address (in memory: a restart forgets them)."""

    def __init__(self, settings: WebSettings, clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.clock = clock
        self.requests = Rates("address_rate", settings.address_rate, ExactWindow())
        self.table_rate = Rates("tables_rate", settings.tables_rate, ExactWindow())
        self.sockets: Counter[str] = Counter()
        self._open: dict[str, dict[str, float]] = {}
        self._ai: dict[str, dict[str, float]] = {}
        self._owner: dict[str, str] = {}
        self._next_sweep = 0.0
        self._next_ai_sweep = 0.0

    # ------------------------------------------------------------ the address rate

    def charge(self, address: str, cost: int = 1) -> tuple[str, int] | None:
        """Count one request or message of ``address`` (see ``Rates.hit``)."""
        refused = self.requests.hit(address, cost) if cost > 0 else None
        if refused is not None:
            REFUSED.labels("address_rate").inc()
        return refused

    # ------------------------------------------------------------ sockets

    def open_socket(self, address: str) -> bool:
        """Count a socket of ``address``; False (not counted) if it holds ``sockets_per_address``."""
        if self.sockets[address] >= self.settings.sockets_per_address:
            REFUSED.labels("sockets").inc()
            return False
        self.sockets[address] += 1
        return True

    def close_socket(self, address: str) -> None:
        """A socket of ``address`` closed."""
        self.sockets[address] -= 1
        if self.sockets[address] <= 0:
            del self.sockets[address]

    # ------------------------------------------------------------ tables

    def admit_table(self, address: str, game_id: str, ai: bool, finished: Iterable[str] = ()) -> None:
        """Count a new table of ``address`` (against the AI if ``ai``), or raise ``LimitError`` (nothing
        counted) if it would break a limit. ``finished``: tables of ``ai_tables_to_check`` that are
        over or closed now, forgotten first; every other AI table counted stays counted."""
        for done in finished:
            self.forget(done)
        self._sweep()
        if ai:
            self._check_ai(address)
        else:
            self._check_open(address)
        refused = self.table_rate.hit(address)
        if refused is not None:
            REFUSED.labels("tables_rate").inc()
            rates, wait = refused
            raise LimitError(f"too many tables opened from your address (at most {rates}): try again in "
                             f"{seconds(wait)}", wait, say(TOO_MANY["tables opened"], wait=seconds(wait)))
        (self._ai if ai else self._open).setdefault(address, {})[game_id] = self.clock()
        self._owner[game_id] = address

    def ai_tables_to_check(self, address: str) -> list[str]:
        """The AI tables counted for ``address`` (once a ``SWEEP_EVERY``, for every address: one that
        never comes back is forgotten once its games end), whose state ``admit_table`` is told."""
        if self.clock() >= self._next_ai_sweep:
            self._next_ai_sweep = self.clock() + SWEEP_EVERY
            return [game_id for tables in self._ai.values() for game_id in tables]
        return list(self._ai.get(address, {}))

    def _check_open(self, address: str) -> None:
        tables = self._open_tables(address)
        limit = self.settings.open_tables_per_address
        if len(tables) >= limit:
            REFUSED.labels("open_tables").inc()
            wait = min(tables.values()) + self.settings.open_table_ttl - self.clock()
            raise LimitError(
                f"your address already has as many open tables waiting for a second player as it may have "
                f"({limit}): wait until someone joins one, or until the oldest expires in {seconds(wait)}",
                max(1, math.ceil(wait)), say(OPEN_TABLES, limit=limit, wait=seconds(wait)))

    def _open_tables(self, address: str) -> dict[str, float]:
        """The open tables of ``address`` not joined yet nor expired, with when each was opened."""
        tables = self._open.get(address, {})
        since = self.clock() - self.settings.open_table_ttl
        for game_id in [g for g, opened in tables.items() if opened < since]:
            self.forget(game_id)
        return self._open.get(address, {})

    def _sweep(self) -> None:
        """Forget the open tables of every address that expired (once a ``SWEEP_EVERY``)."""
        if self.clock() < self._next_sweep:
            return
        self._next_sweep = self.clock() + SWEEP_EVERY
        for address in list(self._open):
            self._open_tables(address)

    def _check_ai(self, address: str) -> None:
        tables = self._ai.get(address, {})
        limit = self.settings.ai_tables_per_address
        if len(tables) >= limit:
            REFUSED.labels("ai_tables").inc()
            raise LimitError(
                f"your address already has as many unfinished games against the AI as it may have ({limit}): "
                "finish or resign one of them (My games lists them), then open a new one", AI_RETRY,
                say(AI_TABLES, limit=limit))

    def counted(self) -> set[str]:
        """The ids of the tables counted now (open ones and AI ones not known to be finished)."""
        return set(self._owner)

    def joined(self, game_id: str) -> None:
        """Someone took the free seat of ``game_id``: it is no longer an open table."""
        address = self._owner.get(game_id)
        if address is not None and game_id in self._open.get(address, {}):
            self.forget(game_id)

    def forget(self, game_id: str) -> None:
        """Stop counting the table ``game_id`` (joined, expired, finished, closed, or never stored)."""
        address = self._owner.pop(game_id, None)
        if address is None:
            return
        for tables in (self._open, self._ai):
            held = tables.get(address, {})
            held.pop(game_id, None)
            if not held:
                tables.pop(address, None)


def over_rate(refused: tuple[str, int], what: str, dropped: str | None = None) -> str:
    """The sentence of ``what`` refused by the address rate (``refused`` as ``Rates.hit`` gives it),
    saying what was ``dropped`` if anything."""
    rates, wait = refused
    then = f"{dropped} was dropped; try again" if dropped else "try again"
    return f"too many {what} from your address (at most {rates}): {then} in {seconds(wait)}"


def over_rate_said(refused: tuple[str, int], what: str, dropped: str | None = None) -> Say:
    """What a page says of ``over_rate(refused, what, dropped)``."""
    text = DROPPED[dropped] if dropped else TOO_MANY[what]
    return say(text, wait=seconds(refused[1]))


class AddressRate:
    """Pure ASGI middleware: every HTTP request is charged to its address (``request_cost``); one
    over the address rate is answered 429 ``{"error": ...}`` with ``Retry-After``."""

    def __init__(self, app: ASGIApp, quotas: Quotas) -> None:
        self.app = app
        self.quotas = quotas

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Charge an HTTP request, then pass it on or refuse it."""
        if scope["type"] == "http":
            refused = self.quotas.charge(address_of(scope.get("client")), request_cost(scope["path"]))
            if refused is not None:
                await _limited(over_rate(refused, "requests"), refused[1])(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _limited(message: str, wait: int, said: Say | None = None) -> JSONResponse:
    body: dict[str, Any] = {"error": message} if said is None else {"error": message, "say": said}
    return JSONResponse(body, status_code=429, headers={"Retry-After": str(wait)})


def install(app: FastAPI, settings: WebSettings, quotas: Quotas) -> None:
    """Add the per-address rate to ``app`` and answer ``LimitError`` with 429 and ``Retry-After``."""
    app.add_middleware(AddressRate, quotas=quotas)

    async def limit_error(_request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, LimitError)
        return _limited(error.message, error.retry_after, error.say)

    app.add_exception_handler(LimitError, limit_error)
