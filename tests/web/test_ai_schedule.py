"""Fair AI scheduling, retries of a failed AI step, and AI workers that die with the server.

The scheduling tests replace the bots by a stand-in (``choose_action`` in ``schotten.web.games.ai``)
that records which decision a worker took and, for search levels, holds the worker until
the test lets it go: the order in which decisions reach a worker is then exact, with no
timing in it. One test runs ``schotten serve`` in a subprocess on 127.0.0.1, kills it with
SIGKILL and checks that its AI worker processes end too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from helpers_web import (
    SEED,
    WAIT,
    create,
    free_port,
    log_of,
    receive_state,
    service_of,
    socket_path,
    test_settings,
    until,
)
from starlette.testclient import TestClient
from websockets.sync.client import connect

from schotten.engine import GameState, Settings
from schotten.engine.view import View, view
from schotten.web import create_app
from schotten.web.core.errors import StoreUnavailable
from schotten.web.core.metrics import REGISTRY
from schotten.web.games import ai
from schotten.web.games.ai import AiPool, decision_seed
from schotten.web.games.aiseat import AiSeat
from schotten.web.games.gamelog import replay
from schotten.web.games.scheduler import CHEAP, SEARCH, Lane, lane_of


class Gate:
    """A stand-in for ``choose_action``: records each decision's seed as a worker takes it; search
    levels then wait until the test lets one go (``release``)."""

    def __init__(self) -> None:
        self.taken: list[tuple[str, int]] = []
        self.allowed = threading.Semaphore(0)

    def __call__(self, level: str, seed: int, seen: View) -> str:
        self.taken.append((level, seed))
        if lane_of(level) == SEARCH:
            assert self.allowed.acquire(timeout=WAIT), "the test never let this decision go"
        return seen.legal[0]

    def release(self, count: int = 1) -> None:
        for _ in range(count):
            self.allowed.release()


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    """The stand-in bot; every held decision is let go at the end."""
    stand_in = Gate()
    monkeypatch.setattr(ai, "choose_action", stand_in)
    yield stand_in
    stand_in.release(100)


def ai_first(client: TestClient, level: str, seed: int) -> dict[str, Any]:
    """An AI table at ``level`` where the AI begins (the human takes the other seat)."""
    first = GameState.new(Settings.of("base"), seed).turn
    return create(client, seed=seed, mode="ai", level=level, seat=1 - first)


def first_decision(seed: int) -> int:
    """The seed of a game's first AI decision (the AI begins)."""
    return decision_seed(seed, 0)


def queued() -> float:
    """The AI decisions waiting for a worker (the gauge)."""
    return REGISTRY.get_sample_value("schotten_ai_queue") or 0.0


def waits() -> float:
    """How many AI decisions' waits were counted (the histogram)."""
    return REGISTRY.get_sample_value("schotten_ai_wait_seconds_count") or 0.0


def test_levels_have_their_lanes() -> None:
    """Easy and medium never search; hard and expert do (and an unknown level is treated as a search)."""
    assert [lane_of(level) for level in ("easy", "medium", "hard", "expert", "other")] == [
        CHEAP, CHEAP, SEARCH, SEARCH, SEARCH]


def test_an_easy_reply_never_waits_behind_expert_searches(tmp_path: Path, gate: Gate) -> None:
    """Three expert games hold the only search worker and wait for it; an easy game's AI still plays."""
    with TestClient(create_app(test_settings(tmp_path, ai_workers=1))) as client:
        experts = [ai_first(client, "expert", SEED + n) for n in range(3)]
        until(lambda: len(gate.taken) == 1, "the first expert decision")
        easy = ai_first(client, "easy", SEED + 10)
        until(lambda: len(log_of(client, easy["id"])) >= 1, "the easy AI's move")
        assert all(not log_of(client, table["id"]) for table in experts)
        assert ("easy", first_decision(SEED + 10)) in gate.taken


def test_watched_games_go_first_then_each_game_in_turn(tmp_path: Path, gate: Gate) -> None:
    """One search worker: A holds it, B and C wait unwatched, D waits watched. D goes first, then B and
    C in their order, then A's next decision (A went to the back of the queue); the queue is counted."""
    before, waited = queued(), waits()
    with TestClient(create_app(test_settings(tmp_path, ai_workers=1))) as client:
        tables = [ai_first(client, "hard", SEED + n) for n in range(4)]
        until(lambda: len(gate.taken) == 1, "A's decision")
        until(lambda: queued() - before == 3, "three decisions waiting")
        with client.websocket_connect(socket_path(tables[3]["id"], tables[3]["token"])) as ws:
            receive_state(ws)
            gate.release()
            until(lambda: len(gate.taken) == 2, "the next decision")
            gate.release(3)
            until(lambda: len(gate.taken) >= 4, "B's and C's decisions")
        seeds = [seed for _, seed in gate.taken[:4]]
        assert seeds == [first_decision(SEED + n) for n in (0, 3, 1, 2)]
        gate.release(100)
        until(lambda: queued() == before, "an empty queue")
        assert waits() - waited >= 4


def test_a_lane_hands_out_slots_fairly() -> None:
    """The lane itself: a free slot at once, then watched before unwatched, each kind oldest first;
    a waiting job that is cancelled leaves the queue and takes no slot."""

    async def scenario() -> list[str]:
        lane = Lane("search", 1)
        order: list[str] = []
        watching = {"u1": False, "u2": False, "w1": True, "gone": True}

        async def job(name: str) -> None:
            async with lane.slot(lambda: watching[name]):
                order.append(name)
                await asyncio.sleep(0.01)

        first = asyncio.create_task(job("first"))
        await asyncio.sleep(0)
        rest = {name: asyncio.create_task(job(name)) for name in ("u1", "gone", "u2", "w1")}
        await asyncio.sleep(0)
        rest["gone"].cancel()
        await asyncio.gather(first, *rest.values(), return_exceptions=True)
        assert lane.busy == 0 and not lane.waiting
        return order

    assert asyncio.run(scenario()) == ["first", "w1", "u1", "u2"]


class FlakyAppend:
    """A store's ``append_many`` (what group commit calls) that fails ``failures`` times as the store
    fails when its database is briefly unavailable, then works."""

    def __init__(self, append: Callable[..., Any], failures: int) -> None:
        self.append = append
        self.failures = failures
        self.calls = 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        if self.calls <= self.failures:
            raise StoreUnavailable("database is unavailable (a test)")
        return self.append(*args)


def test_a_failed_ai_step_is_retried_with_backoff(tmp_path: Path, gate: Gate, caplog: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Nobody connected: the AI's move cannot be stored three times, then can. The AI plays it once
    (no duplicate entry), one log line per failure, each wait longer than the one before."""
    monkeypatch.setattr(AiSeat, "AI_RETRY_FIRST", 0.02, raising=False)
    with TestClient(create_app(test_settings(tmp_path))) as client:
        store = service_of(client).store
        flaky = FlakyAppend(store.append_many, 3)
        monkeypatch.setattr(store, "append_many", flaky)
        with caplog.at_level(logging.ERROR, logger="schotten.web"):
            table = ai_first(client, "easy", SEED)
            games = service_of(client).games
            until(lambda: flaky.calls >= 4 and games[table["id"]].version >= 1, "the AI's stored move")
        entries = log_of(client, table["id"])
        assert [entry.index for entry in entries] == list(range(len(entries)))
        game = service_of(client).games[table["id"]]
        assert game.version == len(entries) and entries[0].seat == game.info.ai_seat
        assert replay("base", 1, SEED, entries).history == game.state.history
        failures = [r.getMessage() for r in caplog.records if "tries again" in r.getMessage()]
        assert [line.rsplit(" in ", 1)[1] for line in failures] == ["0.02 s", "0.04 s", "0.08 s"]
        assert all("StoreUnavailable: database is unavailable (a test)" in line for line in failures)


def test_the_pool_says_whether_it_is_healthy() -> None:
    """``healthy``: true before and after a search decision; false once its worker process was killed;
    a broken pool is replaced by the next decision."""
    seen = view(GameState.new(Settings.of("base"), SEED), 0)
    pool = AiPool(1, processes=True)
    try:
        assert pool.healthy()
        assert asyncio.run(pool.decide("hard", 1, seen)) in seen.legal
        assert pool.healthy()
        workers: Any = pool._workers[SEARCH].executor
        (process,) = list(workers._processes.values())
        os.kill(process.pid, signal.SIGKILL)
        until(lambda: not pool.healthy(), "the pool to notice its dead worker")
        assert asyncio.run(pool.decide("hard", 1, seen)) in seen.legal
        assert pool.healthy()
    finally:
        pool.shutdown()


# ---------------------------------------------------------------- worker processes and a crash


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry))
    return found


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (a dead process not yet reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_ai_workers_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    """``schotten serve`` with its AI process pool: a hard game makes it start a worker (an easy game runs
    in the server); the server is killed with SIGKILL (no chance to tidy up) and every worker is gone
    within seconds."""
    port = free_port()
    command = [sys.executable, "-m", "schotten", "serve", "--port", str(port),
               "--database", f"sqlite:///{tmp_path / 'games.db'}"]
    env = os.environ | {"SCHOTTEN_AI_WORKERS": "1", "SCHOTTEN_AI_PROCESSES": "true"}
    with (tmp_path / "server.log").open("wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp_path,
                                  start_new_session=True)
    workers: list[int] = []
    try:
        http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=WAIT)
        until(lambda: _answers(http), "the server to start", 60.0)
        for level in ("easy", "hard"):
            table = http.post("/api/tables", json={"variant": "base", "mode": "ai", "level": level,
                                                   "nickname": "Ann", "seat": 1}).json()
            _until_the_ai_moved(port, table)
        http.close()
        workers = children(server.pid)
        assert workers, "the AI workers did not start"
        server.send_signal(signal.SIGKILL)
        server.wait(WAIT)
        until(lambda: not any(running(pid) for pid in workers), "the AI workers to exit", 10.0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(WAIT)


def _until_the_ai_moved(port: int, table: dict[str, Any]) -> None:
    """Over a socket, play a move if we begin, until a state shows the AI's move."""
    url = f"ws://127.0.0.1:{port}/ws/games/{table['id']}?token={table['token']}"
    with connect(url, open_timeout=WAIT) as ws:
        while True:
            state = json.loads(ws.recv(timeout=60.0))
            assert state["type"] == "state", state
            if state["last"] is not None and state["last"]["mover"] != state["seat"]:
                return
            if state["view"]["legal"]:
                ws.send(json.dumps({"type": "action", "action": state["view"]["legal"][0],
                                    "version": state["version"]}))


def _answers(http: httpx.Client) -> bool:
    try:
        return http.get("/api/tables").status_code == 200
    except httpx.TransportError:
        return False
