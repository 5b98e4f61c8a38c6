"""Helpers of the blocks and follows tests: an app on SQLite or PostgreSQL, players signed in (each a
browser of its own on the same app), and a game between two accounts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers_web import service_of, test_settings
from starlette.testclient import TestClient

from schotten.web import create_app
from schotten.web.players.identity import SESSION_COOKIE


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of the test: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    found: str = request.getfixturevalue("database_url")
    return found


@contextmanager
def app_on(tmp_path: Path, url: str) -> Iterator[TestClient]:
    """An app on the database at ``url`` (a guest's browser)."""
    with TestClient(create_app(test_settings(tmp_path, database_url=url))) as client:
        yield client


def player(app: TestClient, name: str) -> TestClient:
    """A new account called ``name``, signed in in a browser of its own on ``app``'s app and loop."""
    other = TestClient(app.app, base_url=str(app.base_url))
    other.portal = app.portal
    accounts = service_of(app).accounts
    account = accounts.sign_up(name, "a long password")
    other.cookies.set(SESSION_COOKIE, accounts.new_session(account.id))
    return other


def put(browser: TestClient, what: str, name: str) -> Any:
    """``PUT /api/{what}/{name}`` (``what``: blocks or follows)."""
    return browser.put(f"/api/{what}/{name}")


def names(browser: TestClient, what: str) -> list[str]:
    """The names on the browser's list (``GET /api/{what}``, which must answer 200)."""
    answer = browser.get(f"/api/{what}")
    assert answer.status_code == 200, answer.text
    return [entry["name"] for entry in answer.json()["players"]]


def account_game(ann: TestClient, bob: TestClient) -> tuple[str, list[str]]:
    """A friend game of two accounts (``ann`` seat 0, ``bob`` seat 1) being played: its id, the tokens."""
    made = ann.post("/api/tables", json={"variant": "base", "rounds": 1, "mode": "friend", "seat": 0})
    assert made.status_code == 200, made.text
    game = made.json()["id"]
    joined = bob.post(f"/api/tables/{game}/join", json={})
    assert joined.status_code == 200, joined.text
    return game, [made.json()["token"], joined.json()["token"]]
