"""Follows (issue 29, docs/web/community.md): the API and each refusal, and the home page's data of
the followed players' games in progress (tables only, never a game's state: R10). On SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_community import account_game, app_on, names, player, put, url  # noqa: F401  (a fixture)
from helpers_web import service_of
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.web.core.schemas import Table


@pytest.fixture
def app(tmp_path: Path, url: str) -> Iterator[TestClient]:  # noqa: F811 (the fixture)
    """An app on the test's database (a guest's browser)."""
    with app_on(tmp_path, url) as client:
        yield client


def games_of(browser: TestClient) -> list[dict[str, object]]:
    """The games ``GET /api/follows/games`` lists (it must answer 200)."""
    answer = browser.get("/api/follows/games")
    assert answer.status_code == 200, answer.text
    found: list[dict[str, object]] = answer.json()["games"]
    return found


def test_follow_list_and_unfollow_are_idempotent(app: TestClient) -> None:
    """A follow is stored once however often it is put, listed by name; a delete (repeated) removes it."""
    ann, _, _ = player(app, "Ann"), player(app, "Bob"), player(app, "Cid")
    for name in ("Cid", "bob", "Bob"):
        assert put(ann, "follows", name).status_code == 204
    assert names(ann, "follows") == ["Bob", "Cid"]
    assert ann.get("/api/follows").json()["limit"] == 500
    for _ in range(2):
        assert ann.delete("/api/follows/Cid").status_code == 204
    assert names(ann, "follows") == ["Bob"]


def test_each_refusal_says_why_and_changes_nothing(app: TestClient) -> None:
    """A guest: 401 on every route; nobody of that name: 404; oneself: 400; beyond the limit: 400."""
    ann = player(app, "Ann")
    for name in ("Bob", "Cid", "Dee"):
        player(app, name)
    for answer in (app.put("/api/follows/Bob"), app.delete("/api/follows/Bob"), app.get("/api/follows"),
                   app.get("/api/follows/games")):
        assert answer.status_code == 401 and "not logged in" in answer.json()["error"]
    assert put(ann, "follows", "Nobody").status_code == 404
    self_follow = put(ann, "follows", "ANN")
    assert self_follow.status_code == 400 and self_follow.json()["error"] == "you cannot follow yourself"
    service_of(app).follows.relations.limit = 2
    assert put(ann, "follows", "Bob").status_code == 204 and put(ann, "follows", "Cid").status_code == 204
    over = put(ann, "follows", "Dee")
    assert over.status_code == 400 and "the most you may" in over.json()["error"]
    assert names(ann, "follows") == ["Bob", "Cid"]


def test_the_home_page_lists_the_followed_players_games_in_progress(app: TestClient) -> None:
    """Ann follows Bob: his game being played is listed with a Watch link, as the lobby's table (no
    state); Cid's game (not followed) is not; nor is Bob's game once it is over."""
    ann, bob, cid, dee = (player(app, name) for name in ("Ann", "Bob", "Cid", "Dee"))
    assert games_of(ann) == []
    assert put(ann, "follows", "Bob").status_code == 204
    bobs, tokens = account_game(bob, dee)
    account_game(cid, dee)
    listed = games_of(ann)
    assert [game["id"] for game in listed] == [bobs]
    assert listed[0]["watch"] == f"/game/{bobs}" and listed[0]["accounts"] == ["Bob", "Dee"]
    assert set(listed[0]) == set(Table.model_fields) | {"watch"}
    assert games_of(cid) == []
    with bob.websocket_connect(f"/ws/games/{bobs}?token={tokens[0]}") as ws:
        ws.receive_json()
        ws.send_json({"type": "resign"})
        while ws.receive_json().get("type") != "state":
            pass
    assert games_of(ann) == []


def test_a_deleted_account_leaves_the_follow_list(app: TestClient) -> None:
    """The list names live accounts only."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    assert put(ann, "follows", "Bob").status_code == 204
    assert bob.request("DELETE", "/api/account", json={"password": "a long password"}).status_code == 204
    assert names(ann, "follows") == []
