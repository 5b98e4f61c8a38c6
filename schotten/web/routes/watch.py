"""``/healthz`` (is the database reachable, are the AI workers alive) and ``/metrics`` (Prometheus).

``/healthz`` runs a trivial query and writes the health check's own row (``Database.prove_writable``)
in a worker thread, waiting at most ``HEALTH_TIMEOUT`` seconds; checks asked for while one is running
share it, so a hung database holds one thread, not one per request, and checks within ``WRITE_EVERY``
seconds of the last one reuse its finding, so polling (``/healthz`` is free of the address rate)
costs at most one write a second. It answers 200 with ``{"status": "ok", "database": "ok", "ai":
"ok"}``, or 503 with ``error`` naming what failed (the details go to the server's log, not to the client).
A process of several (``--redis``) also says ``"redis"`` (unreachable: 503, its game sockets are
refused meanwhile) and ``"conductor"`` (whether it plays the AI and keeps the clocks now).

``/metrics`` is the text of ``metrics.REGISTRY`` (counted where the work is done) followed by
this service's own registry: gauges read from the service when asked (``ServiceCollector``)
and the process' file descriptors, memory and CPU. Each app has its own registry, so many apps
in one process (tests) register nothing twice.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Engine, select

from ..core import metrics
from ..core.errors import StoreUnavailable
from ..core.settings import WebSettings
from ..core.vocab import Status
from ..storage.db import GameRow

if TYPE_CHECKING:
    from ..service import GameService
    from ..storage.store import Store

logger = logging.getLogger("schotten.web")

HEALTH_TIMEOUT = 2.0
"""Seconds ``/healthz`` waits for the database's answer."""
WRITE_EVERY = 1.0
"""Seconds a finding of the database is reused before it is checked (and written) again."""
OK = "ok"
CANNOT_STORE = "the database cannot store anything: a test write failed (see the server's log)"


def install(app: FastAPI, settings: WebSettings, service: GameService) -> None:
    """Add the health and metrics routes to ``app`` (left out of the OpenAPI schema)."""
    check = HealthCheck(service)
    app.state.health_check = check
    registry = CollectorRegistry(auto_describe=True)
    registry.register(ServiceCollector(service))
    ProcessCollector(registry=registry)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> JSONResponse:
        report = await check.run()
        return JSONResponse(report.body(), status_code=200 if report.healthy else 503)

    @app.get("/metrics", include_in_schema=False)
    async def prometheus() -> Response:
        text = generate_latest(metrics.REGISTRY) + generate_latest(registry)
        return Response(text, media_type=CONTENT_TYPE_LATEST)


@dataclass(frozen=True, slots=True)
class Health:
    """What ``/healthz`` found: ``ok`` or a sentence per part."""

    database: str
    ai: str
    redis: str | None = None
    """Redis, for a process of several (None: a process alone)."""
    conductor: bool | None = None

    @property
    def healthy(self) -> bool:
        """Whether every part is ``ok``."""
        return self.database == OK and self.ai == OK and self.redis in (None, OK)

    def body(self) -> dict[str, str | bool]:
        """The JSON answer: each part, and ``error`` naming the failing ones."""
        parts = {"database": self.database, "ai": self.ai}
        if self.redis is not None:
            parts["redis"] = self.redis
        extra: dict[str, str | bool] = {} if self.conductor is None else {"conductor": self.conductor}
        if self.healthy:
            return {"status": OK, **parts, **extra}
        problems = [f"{name}: {found}" for name, found in parts.items() if found != OK]
        return {"status": "unavailable", "error": "; ".join(problems), **parts, **extra}


class HealthCheck:
    """Checks the service's database and AI workers; one database query at a time."""

    def __init__(self, service: GameService, clock: Callable[[], float] = time.monotonic) -> None:
        self.service = service
        self.clock = clock
        self._query: asyncio.Future[str] | None = None
        self._found: tuple[float, str] | None = None

    async def run(self) -> Health:
        """Check both parts now."""
        database = await self._database()
        ai = OK if self.service.ai.healthy() else "the AI workers are not running"
        authority = self.service.authority
        if not authority.cluster.clustered:
            return Health(database, ai)
        redis = OK if authority.cluster.healthy else "unreachable: game sockets are refused until it is back"
        return Health(database, ai, redis, authority.conducting)

    async def _database(self) -> str:
        if self._found is not None and self.clock() - self._found[0] < WRITE_EVERY:
            return self._found[1]
        if self._query is None or self._query.done():
            self._query = asyncio.ensure_future(asyncio.to_thread(check_database, self.service.store))
        try:
            found = await asyncio.wait_for(asyncio.shield(self._query), HEALTH_TIMEOUT)
        except TimeoutError:
            logger.error("health check: the database did not answer within %g s", HEALTH_TIMEOUT)
            return f"the database did not answer within {HEALTH_TIMEOUT:g} s"
        self._found = (self.clock(), found)
        return found


def check_database(store: Store) -> str:
    """``OK`` if the database answers a query (``ping``) and stores the health check's row, else the
    sentence for the client (the cause goes to the log)."""
    try:
        ping(store.engine)
    except Exception as error:
        logger.error("health check: the database is not reachable: %s", error)
        return f"the database is not reachable ({type(error).__name__}; see the server's log)"
    try:
        store.prove_writable()
    except StoreUnavailable as error:
        logger.error("health check: a test write failed: %s", error.message)
        return CANNOT_STORE
    return OK


def ping(engine: Engine) -> None:
    """A trivial query on the games table (raises if the database cannot answer it); a SQLite
    file that was deleted under the server counts as unreachable."""
    if engine.url.get_backend_name() == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        path = str(engine.url.database)
        if not os.path.exists(path):
            raise FileNotFoundError(f"the SQLite database file {path} is missing")
    with engine.connect() as connection:
        connection.execute(select(GameRow.id).limit(1)).all()


class ServiceCollector(Collector):
    """Gauges of one service's state, read each time ``/metrics`` is asked."""

    def __init__(self, service: GameService) -> None:
        self.service = service

    def collect(self) -> Iterator[GaugeMetricFamily]:
        """Games loaded and in play, games watched, games whose AI is thinking, sockets by role."""
        games = list(self.service.games.values())
        playing = [g for g in games if g.info.status == Status.PLAYING and not g.state.is_over]
        players = spectators = 0
        for game in games:
            for conn in list(game.connections):
                if not conn.closed.is_set():
                    players += conn.seat is not None
                    spectators += conn.seat is None
        thinking = sum(1 for g in games if g.ai_task is not None and not g.ai_task.done())
        yield GaugeMetricFamily("schotten_games_loaded", "Games held in memory", len(games))
        yield GaugeMetricFamily("schotten_games_in_play", "Loaded games being played", len(playing))
        yield GaugeMetricFamily("schotten_games_watched", "Loaded games with at least one socket",
                                sum(1 for g in games if g.connections))
        yield GaugeMetricFamily("schotten_ai_thinking", "Games whose AI is deciding or waiting for a worker",
                                thinking)
        sockets = GaugeMetricFamily("schotten_sockets", "Open game sockets", labels=["role"])
        sockets.add_metric(["player"], players)
        sockets.add_metric(["spectator"], spectators)
        yield sockets
