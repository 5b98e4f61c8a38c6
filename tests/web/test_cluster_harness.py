"""The cluster harness itself (tests/web/cluster.py): three servers on a private PostgreSQL and
Redis behind nginx answer through nginx, a game socket upgrades through it, a killed server is
skipped, and Redis and PostgreSQL stop and start again. One cluster for the module; each test
puts back what it broke."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

import pytest
from cluster import Cluster, http_status
from websockets.sync.client import connect
from websockets.typing import Origin

REQUESTS = 12
RECOVERY = 20.0
"""Seconds the servers have to answer again once PostgreSQL is back."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Three servers behind nginx, for the whole module."""
    with Cluster() as started:
        started.start(processes=3)
        yield started


def served_paths(cluster: Cluster, index: int, path: str) -> int:
    """How many requests for ``path`` server ``index``'s access log shows."""
    return len(re.findall(rf'"GET {re.escape(path)} HTTP/1\.1" 200', cluster.logs(index)))


def test_requests_through_nginx_reach_every_server(cluster: Cluster) -> None:
    """Repeated requests through nginx all succeed, and each server answers some of them."""
    before = [served_paths(cluster, i, "/api/tables") for i in range(3)]
    for _ in range(REQUESTS):
        status, body = cluster.request("GET", "/api/tables")
        assert status == 200, body
    time.sleep(0.3)
    after = [served_paths(cluster, i, "/api/tables") for i in range(3)]
    assert sum(after) - sum(before) == REQUESTS, cluster.describe()
    assert all(a > b for a, b in zip(after, before, strict=True)), (before, after)


def test_servers_count_the_address_nginx_saw_not_one_a_client_claims(cluster: Cluster) -> None:
    """nginx passes on the address it was reached from, replacing any X-Forwarded-For a client sends,
    and uvicorn trusts nginx: a client cannot choose the address its limits are counted under."""
    for _ in range(3):
        status, _ = cluster.request("GET", "/healthz", headers={"X-Forwarded-For": "203.0.113.7"})
        assert status == 200
    time.sleep(0.3)
    logs = "".join(cluster.logs(i) for i in range(3))
    assert "203.0.113.7" not in logs
    assert '127.0.0.1:0 - "GET /healthz' in logs


def test_a_game_socket_upgrades_through_nginx(cluster: Cluster) -> None:
    """A table against the AI opened through nginx by a page of nginx's address (nginx passes the Host
    on, so the origin check sees the page's own origin); its socket through nginx, from that page
    too, gets the first state."""
    status, grant = cluster.request("POST", "/api/tables", {"mode": "ai", "level": "easy", "variant": "base",
                                                            "rounds": 1, "nickname": "x"},
                                    headers={"Origin": cluster.url})
    assert status == 200, grant
    address = cluster.url.replace("http://", "ws://")
    path = f"{address}/ws/games/{grant['id']}?token={grant['token']}"
    with connect(path, open_timeout=10, origin=Origin(cluster.url)) as socket:
        message = json.loads(socket.recv(timeout=10))
    assert message["type"] == "state", message
    assert message["seat"] == grant["seat"]


def test_a_killed_server_is_skipped(cluster: Cluster) -> None:
    """With server 1 killed, every request through nginx is answered by the others; started again,
    it answers."""
    cluster.kill(1)
    try:
        assert cluster.pid(1) is None
        assert http_status(f"{cluster.server_urls[1]}/healthz") is None
        statuses = [cluster.request("GET", "/api/tables")[0] for _ in range(REQUESTS)]
        assert statuses == [200] * REQUESTS, cluster.describe()
    finally:
        cluster.start_server(1)
    assert http_status(f"{cluster.server_urls[1]}/healthz") == 200


def test_redis_stops_and_starts_on_its_port(cluster: Cluster) -> None:
    """stop_redis leaves nothing answering on its port; start_redis answers there again."""
    assert cluster.redis_answers()
    cluster.stop_redis()
    try:
        assert not cluster.redis_answers()
    finally:
        cluster.start_redis()
    assert cluster.redis_answers()


def test_postgres_restarts_and_the_servers_answer_again(cluster: Cluster) -> None:
    """After restart_postgres (same port and data) every server's /healthz is 200 again, and the
    table made before is still listed."""
    status, grant = cluster.request("POST", "/api/tables", {"mode": "friend", "variant": "base", "rounds": 1,
                                                            "nickname": "kept"})
    assert status == 200, grant
    cluster.restart_postgres()
    deadline = time.monotonic() + RECOVERY
    pending = set(range(3))
    while pending and time.monotonic() < deadline:
        pending = {i for i in pending if http_status(f"{cluster.server_urls[i]}/healthz") != 200}
        time.sleep(0.2)
    assert not pending, "\n".join(cluster.logs(i)[-2000:] for i in pending)
    status, body = cluster.request("GET", "/api/tables")
    assert status == 200
    assert grant["id"] in {table["id"] for table in body["tables"]}
