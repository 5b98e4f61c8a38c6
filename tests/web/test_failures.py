"""Unexpected errors (issue 26, item 4): a route that raises is answered 500 with the JSON error of
docs/web.md, an id that the server's log line carries, and the security headers; the log line holds
no cookie and no token. Through the test client, and through uvicorn with the edge's protocols (as
``schotten serve`` runs it)."""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Request
from helpers_web import service_of, test_settings, uvicorn_in_thread
from starlette.testclient import TestClient

from schotten.web import create_app
from schotten.web.core.settings import WebSettings
from schotten.web.edge import server as edge

TIMEOUT = 30.0
"""A guard against a hung server, not a measurement."""
SECRET_SESSION = "session-secret-never-logged"
SECRET_TOKEN = "seat-token-never-logged"


def _failing_app(settings: WebSettings) -> FastAPI:
    """The app with one more route, ``/api/boom``, that raises."""
    app = create_app(settings)

    @app.get("/api/boom")
    async def boom(request: Request) -> None:
        raise RuntimeError(f"something nobody expected: {request.cookies.get('session')} "
                           f"{request.query_params.get('token')}")

    return app


def server_log(caplog: pytest.LogCaptureFixture) -> str:
    """What the server logged (schotten's and uvicorn's loggers; the test's own client logs its URLs)."""
    return "\n".join(logging.Formatter("%(name)s %(message)s").format(record) for record in caplog.records
                     if record.name.startswith(("schotten", "uvicorn")))


def _check(status: int, headers: dict[str, str], body: dict[str, Any], log: str) -> None:
    """A 500 in JSON, with the headers of every answer, whose id is in the log line and no secret is."""
    assert status == 500
    assert headers["content-type"] == "application/json"
    assert headers["x-content-type-options"] == "nosniff" and "content-security-policy" in headers
    assert set(body) == {"error", "id", "say"}
    assert body["id"] in body["error"] and body["say"]["params"] == {"id": body["id"]}
    assert "something nobody expected" not in body["error"]
    line = next(line for line in log.splitlines() if body["id"] in line)
    assert "/api/boom" in line and "RuntimeError" in line
    assert SECRET_SESSION not in log and SECRET_TOKEN not in log


def test_a_route_that_raises_answers_json_with_an_id_the_log_carries(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A route raising: 500 ``{"error", "id", "say"}``, not Starlette's text/plain; two errors, two ids."""
    caplog.set_level(logging.INFO)
    with TestClient(_failing_app(test_settings(tmp_path)), raise_server_exceptions=False) as client:
        client.cookies.set("session", SECRET_SESSION)
        first = client.get(f"/api/boom?token={SECRET_TOKEN}")
        second = client.get("/api/boom")
    _check(first.status_code, dict(first.headers), first.json(), server_log(caplog))
    assert second.status_code == 500 and second.json()["id"] != first.json()["id"]


def test_a_store_method_that_raises_answers_json(client: TestClient, monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """A bug below the routes (the store raising what it never should): the same JSON 500; the app
    answers the next request as usual."""
    def broken(*_args: Any, **_kwargs: Any) -> None:
        raise KeyError("a row nobody expected")

    monkeypatch.setattr(service_of(client).store, "lobby", broken)
    client.cookies.set("session", SECRET_SESSION)
    answer = client.get("/api/tables")
    assert answer.status_code == 500 and answer.headers["content-type"] == "application/json"
    body, log = answer.json(), server_log(caplog)
    assert body["id"] in log and "KeyError" in log and SECRET_SESSION not in log
    monkeypatch.undo()
    assert client.get("/api/tables").status_code == 200


@contextlib.contextmanager
def _served(app: FastAPI, settings: WebSettings) -> Iterator[int]:
    """``app`` served by uvicorn with the edge's protocols (as ``app.run`` serves it), in a thread."""
    http_protocol, ws_protocol = edge.protocols(settings)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, http=http_protocol, ws=ws_protocol,
                            log_level="info")
    with uvicorn_in_thread(config, TIMEOUT) as port:
        yield port


def test_uvicorn_with_the_edge_protocols_answers_json_too(tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    """Over a real connection to uvicorn: the same JSON 500, one log line with the id, and no second
    traceback from uvicorn ("Exception in ASGI application")."""
    caplog.set_level(logging.INFO)
    settings = test_settings(tmp_path)
    with _served(_failing_app(settings), settings) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        try:
            conn.request("GET", f"/api/boom?token={SECRET_TOKEN}",
                         headers={"Cookie": f"session={SECRET_SESSION}"})
            answer = conn.getresponse()
            status, headers, body = answer.status, dict(answer.getheaders()), json.loads(answer.read())
        finally:
            conn.close()
    headers = {name.lower(): value for name, value in headers.items()}
    _check(status, headers, body, server_log(caplog))
    assert "Exception in ASGI application" not in server_log(caplog)
