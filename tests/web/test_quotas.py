"""Per-address limits (schotten/web/edge/quotas.py): one rate over a client's HTTP requests and socket
messages together, tables per address (a rate, open tables, AI games not finished), sockets per address,
spectators per game, open tables that expire, and a lobby a flood of open tables cannot hide games
from. Each limit is set low here; the TestClient's address is ``testclient``. The last tests run a
real server on 127.0.0.1 with clients bound to 127.0.0.1 and 127.0.0.2 (two addresses on loopback).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import random
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from helpers_web import (
    SEED,
    Duel,
    choose,
    create,
    join,
    log_of,
    next_message,
    receive_error,
    receive_state,
    service_of,
    socket_path,
    test_settings,
    uvicorn_in_thread,
)
from starlette.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from schotten.engine import GameState, Settings
from schotten.web import create_app
from schotten.web.core.schemas import CreateTable, SeatGrant
from schotten.web.core.settings import WebSettings
from schotten.web.edge.quotas import AI_TABLES, ExactWindow, LimitError, Quotas, Rates, address_of

TIMEOUT = 20.0
"""A guard against a hung server, not a measurement."""
OTHER = "127.0.0.2"
"""A second client address on loopback (127.0.0.0/8)."""


def _app(tmp_path: Path, **limits: Any) -> TestClient:
    return TestClient(create_app(test_settings(tmp_path, **limits)))


def _retry_after(response: Any, window: int = 3600) -> int:
    """The response's Retry-After: whole seconds, within the rate's ``window`` (the sliding window's
    estimate is shorter near the end of a clock window, hence no lower bound beyond 1 s)."""
    wait = int(response.headers["retry-after"])
    assert 1 <= wait <= window
    return wait


def test_http_requests_share_one_rate_per_address(tmp_path: Path) -> None:
    """Over ``address_rate``: 429 ``{"error"}`` naming the limit, with Retry-After; static files
    are free; a replay costs 10 requests."""
    with _app(tmp_path, address_rate="14/hour") as client:
        assert client.get("/api/games/nosuchgame/replay").status_code == 404
        for _ in range(4):
            assert client.get("/api/tables").status_code == 200
        heavy = client.get("/api/games/nosuchgame/replay")
        assert heavy.status_code == 429, heavy.text
        assert "14 per 1 hour" in heavy.json()["error"] and "try again in" in heavy.json()["error"]
        _retry_after(heavy)
        assert set(heavy.json()) == {"error"}
        for _ in range(3):
            assert client.get("/static/nothing.js").status_code == 404
        assert client.get("/api/tables").status_code == 429


def test_socket_messages_are_charged_to_the_address(tmp_path: Path) -> None:
    """Socket messages and HTTP requests share the address rate: a message over it gets error
    ``limit`` and is dropped (nothing changes); the address's requests get 429 and a new socket
    ``limit`` and close 4429."""
    with _app(tmp_path, address_rate="20/hour") as client, Duel(client) as duel:
        duel.play(choose(duel.messages[duel.state.turn][-1], random.Random(1)))
        ws = duel.sockets[duel.state.turn]
        refused = None
        for _ in range(20):
            ws.send_json({"type": "sync"})
            answer = next_message(ws)
            if answer["type"] == "error":
                refused = answer
                break
        assert refused is not None and refused["code"] == "limit", refused
        assert "dropped" in refused["message"] and "20 per 1 hour" in refused["message"]
        entries = len(log_of(client, duel.id))
        move = choose(duel.messages[duel.state.turn][-1], random.Random(2))
        ws.send_json({"type": "action", "action": move, "version": duel.version})
        receive_error(ws, "limit")
        assert len(log_of(client, duel.id)) == entries
        assert client.get("/api/tables").status_code == 429
        with client.websocket_connect(socket_path(duel.id)) as late:
            assert "this socket was dropped" in receive_error(late, "limit")["message"]
            assert late.receive()["code"] == 4429


def test_sockets_per_address(tmp_path: Path) -> None:
    """A socket beyond ``sockets_per_address`` gets error ``limit`` and close 4429; once one closes,
    another is accepted."""
    with _app(tmp_path, sockets_per_address=2) as client:
        game = create(client)["id"]
        with client.websocket_connect(socket_path(game)) as first:
            receive_state(first)
            with client.websocket_connect(socket_path(game)) as second:
                receive_state(second)
                with client.websocket_connect(socket_path(game)) as third:
                    assert "2 game sockets" in receive_error(third, "limit")["message"]
                    assert third.receive() == {"type": "websocket.close", "code": 4429, "reason": ""}
            with client.websocket_connect(socket_path(game)) as again:
                receive_state(again)


def test_spectators_per_game(tmp_path: Path) -> None:
    """A spectator beyond ``spectators_per_game`` gets ``limit`` and close 4429; seats never count."""
    with _app(tmp_path, spectators_per_game=1) as client:
        grant = create(client)
        bob = join(client, grant["id"])
        with contextlib.ExitStack() as stack:
            for token in (grant["token"], bob["token"], None):
                receive_state(stack.enter_context(client.websocket_connect(socket_path(grant["id"], token))))
            with client.websocket_connect(socket_path(grant["id"])) as extra:
                assert "as many spectators as it may have (1)" in receive_error(extra, "limit")["message"]
                assert extra.receive()["code"] == 4429
        with client.websocket_connect(socket_path(create(client)["id"])) as elsewhere:
            receive_state(elsewhere)


def _table(client: TestClient, **body: Any) -> Any:
    request = {"variant": "base", "rounds": 1, "mode": "friend", "nickname": "Ann", "seat": 0} | body
    answer = client.post("/api/tables", json=request)
    client.cookies.clear()
    return answer


def test_tables_rate(tmp_path: Path) -> None:
    """Tables beyond ``tables_rate`` are refused with 429, which limit and when to try again."""
    with _app(tmp_path, tables_rate="2/hour") as client:
        assert _table(client).status_code == 200
        assert _table(client, mode="ai", level="easy").status_code == 200
        refused = _table(client)
        assert refused.status_code == 429
        assert "too many tables" in refused.json()["error"] and "2 per 1 hour" in refused.json()["error"]
        _retry_after(refused)
        assert len(client.get("/api/tables").json()["tables"]) == 2


def test_open_tables_per_address(tmp_path: Path) -> None:
    """At most ``open_tables_per_address`` friend tables waiting at once; one joined frees a place;
    tables against the AI are not open tables."""
    with _app(tmp_path, open_tables_per_address=2) as client:
        first = _table(client).json()["id"]
        assert _table(client).status_code == 200
        assert _table(client, mode="ai", level="easy").status_code == 200
        refused = _table(client)
        assert refused.status_code == 429
        message = refused.json()["error"]
        assert "open tables waiting for a second player as it may have (2)" in message, message
        assert "the oldest expires in 24 h" in message, message
        assert _retry_after(refused, window=24 * 3600) > 23 * 3600
        join(client, first)
        assert _table(client).status_code == 200


def _our_turn(ws: Any) -> None:
    for _ in range(50):
        state = receive_state(ws)
        if state["view"]["legal"]:
            return
    raise AssertionError("never our turn")


def _ai_begins_never(client: TestClient) -> None:
    """Every new game gets ``SEED``, whose first player sits at seat 0: at an AI table opened with seat
    0 the person moves first, so no AI is ever thinking while these tests count tables."""
    service_of(client).new_seed = lambda: SEED
    assert GameState.new(Settings.of("base", 1), SEED).first == 0


def test_ai_tables_count_until_they_are_finished(tmp_path: Path) -> None:
    """``ai_tables_per_address`` AI games not finished, none watched and no AI thinking: the next is
    refused with the translated limit error; one resigned frees a place; a page closed frees none."""
    with _app(tmp_path, ai_tables_per_address=3) as client:
        _ai_begins_never(client)
        grants = [_table(client, mode="ai", level="easy").json() for _ in range(3)]
        refused = _table(client, mode="ai", level="easy")
        assert refused.status_code == 429, refused.text
        assert "unfinished games against the AI as it may have (3)" in refused.json()["error"]
        assert refused.json()["say"] == {"text": AI_TABLES, "params": {"limit": 3}}
        assert _retry_after(refused) == 10
        assert _table(client).status_code == 200, "friend tables have their own limit"
        with client.websocket_connect(socket_path(grants[0]["id"], grants[0]["token"])) as ws:
            receive_state(ws)
        assert _table(client, mode="ai", level="easy").status_code == 429, "closing a page frees nothing"
        with client.websocket_connect(socket_path(grants[1]["id"], grants[1]["token"])) as ws:
            receive_state(ws)
            ws.send_json({"type": "resign"})
            assert receive_state(ws)["status"] == "over"
        assert _table(client, mode="ai", level="easy").status_code == 200
        assert _table(client, mode="ai", level="easy").status_code == 429


def test_an_evicted_unfinished_ai_table_still_counts(tmp_path: Path) -> None:
    """The count asks the database, not the games in memory: a game dropped from the cache counts."""
    with _app(tmp_path, ai_tables_per_address=1) as client:
        _ai_begins_never(client)
        game = _table(client, mode="ai", level="easy").json()["id"]
        service_of(client).games.pop(game)
        assert _table(client, mode="ai", level="easy").status_code == 429


def test_open_tables_expire(tmp_path: Path) -> None:
    """An open table nobody joined within ``open_table_ttl`` leaves the lobby, a join is refused with
    410 "this table expired", it leaves its creator's "My games", and it no longer counts as its
    address's open table."""
    ttl = 3.0
    with _app(tmp_path, open_table_ttl=ttl, open_tables_per_address=1) as client:
        opened = time.monotonic()
        grant = create(client)
        stale = grant["id"]
        client.cookies.set(f"seat_{stale}", grant["token"])
        assert [t["id"] for t in client.get("/api/tables").json()["tables"]] == [stale]
        assert [t["id"] for t in client.get("/api/my-games").json()["tables"]] == [stale]
        time.sleep(max(0.0, opened + ttl + 0.2 - time.monotonic()))
        assert client.get("/api/tables").json()["tables"] == []
        assert client.get("/api/my-games").json()["tables"] == []
        refused = client.post(f"/api/tables/{stale}/join", json={"nickname": "Bob"})
        assert refused.status_code == 410 and "this table expired" in refused.json()["error"]
        assert _table(client).status_code == 200


def test_a_flood_of_open_tables_hides_no_game_in_progress(tmp_path: Path) -> None:
    """The lobby lists open tables, games in progress and finished games separately, each at most
    ``table_limit``: tables opened after a game began do not push it out."""
    with _app(tmp_path, table_limit=3) as client:
        playing = create(client)["id"]
        join(client, playing)
        flood = [create(client, nickname=f"F{i}")["id"] for i in range(6)]
        tables = client.get("/api/tables").json()["tables"]
        assert [t["id"] for t in tables] == [*flood[:-4:-1], playing]
        assert tables[-1]["status"] == "playing"


def test_an_address_that_never_comes_back_is_forgotten(tmp_path: Path) -> None:
    """The tables of every address are looked over now and then: expired open tables and finished
    AI games are no longer held for an address that opens nothing more."""
    now = [1000.0]
    quotas = Quotas(test_settings(tmp_path, open_table_ttl=60.0), clock=lambda: now[0])
    assert quotas.ai_tables_to_check("10.0.0.1") == []
    quotas.admit_table("10.0.0.1", "open", ai=False)
    quotas.admit_table("10.0.0.2", "ai", ai=True)
    assert quotas.counted() == {"open", "ai"}
    assert quotas.ai_tables_to_check("10.0.0.3") == [], "every address once a sweep's time"
    now[0] += 120
    finished = quotas.ai_tables_to_check("10.0.0.3")
    assert finished == ["ai"]
    quotas.admit_table("10.0.0.3", "new", ai=False, finished=finished)
    assert quotas.counted() == {"new"}


@pytest.mark.parametrize(("client", "counted"), [
    (("203.0.113.7", 5000), "203.0.113.7"),
    (("2001:db8:1:2:aaaa::1", 5000), "2001:db8:1:2::/64"),
    (("2001:db8:1:2:bbbb::9", 5000), "2001:db8:1:2::/64"),
    (("::ffff:198.51.100.4", 5000), "198.51.100.4"),
    (("testclient", 50000), "testclient"),
    (None, "unknown"),
])
def test_the_address_a_client_is_counted_under(client: Any, counted: str) -> None:
    """IPv4 by address, IPv6 by /64 network (a subscriber can change the rest at will)."""
    assert address_of(client) == counted


def test_a_rate_that_is_not_one_is_refused_at_start(tmp_path: Path) -> None:
    """A rate setting the ``limits`` notation cannot read stops the app from being built, naming it."""
    with pytest.raises(ValueError, match="SCHOTTEN_TABLES_RATE='lots' is not a valid tables_rate"):
        create_app(test_settings(tmp_path, tables_rate="lots"))


# ------------------------------------------------------------ two real addresses on loopback


@contextlib.contextmanager
def _server(settings: WebSettings) -> Iterator[int]:
    """The app served by uvicorn on 127.0.0.1 (a free port) in a thread; stopped at the end."""
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=0, log_level="warning",
                            ws_max_size=64 * 1024)
    with uvicorn_in_thread(config, TIMEOUT) as port:
        yield port


def _get(port: int, source: str, path: str = "/api/tables") -> tuple[int, dict[str, Any]]:
    """GET ``path`` from the client address ``source``: (status, JSON body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT, source_address=(source, 0))
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        conn.close()


def _socket(port: int, source: str, game: str) -> ClientConnection:
    return connect(f"ws://127.0.0.1:{port}/ws/games/{game}", source_address=(source, 0), open_timeout=TIMEOUT)


@pytest.fixture
def loopback(tmp_path: Path) -> Iterator[int]:
    """A real server with low limits for two clients: 127.0.0.1 and 127.0.0.2."""
    settings = test_settings(tmp_path, address_rate="30/hour", sockets_per_address=2)
    with _server(settings) as port:
        yield port


def test_one_address_flooding_requests_does_not_refuse_another(loopback: int) -> None:
    """127.0.0.2 runs out of its rate; 127.0.0.1 is still answered."""
    statuses = [_get(loopback, OTHER)[0] for _ in range(31)]
    assert statuses[:30] == [200] * 30 and statuses[30] == 429
    assert _get(loopback, "127.0.0.1") == (200, {"tables": []})
    assert _get(loopback, OTHER)[0] == 429


def test_one_address_holding_its_sockets_does_not_refuse_another(loopback: int, tmp_path: Path) -> None:
    """127.0.0.2 holds its 2 sockets and is refused a third (limit, close 4429); 127.0.0.1 connects."""
    body = json.dumps({"mode": "friend", "nickname": "Ann", "seat": 0})
    conn = http.client.HTTPConnection("127.0.0.1", loopback, timeout=TIMEOUT)
    conn.request("POST", "/api/tables", body=body, headers={"Content-Type": "application/json"})
    game = json.loads(conn.getresponse().read())["id"]
    conn.close()
    with _socket(loopback, OTHER, game) as one, _socket(loopback, OTHER, game) as two:
        for ws in (one, two):
            assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "state"
        with _socket(loopback, OTHER, game) as three:
            refusal = json.loads(three.recv(timeout=TIMEOUT))
            assert refusal["type"] == "error" and refusal["code"] == "limit", refusal
            with pytest.raises(ConnectionClosed) as closed:
                three.recv(timeout=TIMEOUT)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        with _socket(loopback, "127.0.0.1", game) as mine:
            assert json.loads(mine.recv(timeout=TIMEOUT))["type"] == "state"


def test_an_exact_window_counts_every_minute_and_forgets_keys_whose_tries_left() -> None:
    """"2/minute": two tries half a second before a minute's edge, a third half a second after: refused,
    saying 59 s; one after the two left the window: admitted. A thousand keys tried once and left for
    over a minute are dropped at the next sweep (memory stays bounded)."""
    now = [119.5]
    window = ExactWindow(lambda: now[0])
    rates = Rates("login_rate", "2/minute", window)
    assert rates.hit("a") is None and rates.hit("a") is None
    now[0] = 120.5
    assert rates.hit("a") == ("2 per 1 minute", 59)
    now[0] = 179.6
    assert rates.hit("a") is None
    for key in range(ExactWindow.SWEEP_EVERY):
        rates.hit(f"k{key}")
    now[0] += 61
    for _ in range(ExactWindow.SWEEP_EVERY):
        rates.hit("a")
    assert len(window._times) <= 2



class _Clock:
    """Seconds the test sets by hand (``wait``: how long each reading lets other threads run)."""

    def __init__(self, now: float, wait: float = 0.0) -> None:
        self.now = now
        self.wait = wait

    def __call__(self) -> float:
        if self.wait:
            time.sleep(self.wait)
        return self.now


def test_the_address_rate_holds_exactly_across_a_window_edge(tmp_path: Path) -> None:
    """"3/minute" of an address's requests: one half a minute before a minute's edge and two just
    before it count in full just after it (Retry-After: until the first leaves the minute); once the
    first has left, a request is served again."""
    edge = 6000.0
    with _app(tmp_path, address_rate="3/minute") as client:
        rates = client.app.state.service.quotas.requests  # type: ignore[attr-defined]
        rates.limiter.clock = rates.clock = clock = _Clock(edge - 30)
        assert client.get("/api/tables").status_code == 200
        clock.now = edge - 0.5
        assert [client.get("/api/tables").status_code for _ in range(2)] == [200, 200]
        clock.now = edge + 0.5
        refused = client.get("/api/tables")
        assert refused.status_code == 429 and refused.headers["retry-after"] == "30"
        assert "3 per 1 minute" in refused.json()["error"]
        clock.now = edge + 29.9
        assert client.get("/api/tables").headers["retry-after"] == "1"
        clock.now = edge + 30.1
        assert client.get("/api/tables").status_code == 200
        assert client.get("/api/tables").status_code == 429


def test_tries_at_once_from_threads_are_counted_exactly() -> None:
    """Log-ins are counted in worker threads: of 32 tries at once on "3/minute", 3 are admitted,
    even when the threads take turns between a try's test and its count (a clock that lets them)."""
    rates = Rates("login_rate", "3/minute", ExactWindow(_Clock(6000.0, wait=0.001)))
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: rates.hit("Ann"), range(32)))
    assert answers.count(None) == 3


def test_a_burst_of_ai_tables_from_one_address_admits_the_limit(tmp_path: Path) -> None:
    """Eight AI tables asked for at once from one address (the attack benchmark's burst): three are
    opened, whichever order the database answers in (a table still being stored counts)."""
    with _app(tmp_path, ai_tables_per_address=3) as client:
        _ai_begins_never(client)
        service = service_of(client)
        request = CreateTable(mode="ai", level="easy", nickname="Flood", seat=0)

        async def burst() -> list[Any]:
            return await asyncio.gather(*(service.create(request, "198.51.100.7") for _ in range(8)),
                                        return_exceptions=True)

        results = client.portal.call(burst)  # type: ignore[union-attr]
        assert sum(isinstance(result, SeatGrant) for result in results) == 3, results
        assert all(isinstance(result, SeatGrant | LimitError) for result in results), results
