"""Reports and moderators (issue 29, docs/web/moderation.md): reports with the server's own chat
context, the role from the command line only (at once, on open sessions), every moderation route
refused to others, and what warn, mute, ban, unban and clear do. Each test runs on SQLite and on
PostgreSQL (when ``SCHOTTEN_TEST_POSTGRES_URL`` is set, see test_postgres)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from helpers_web import Duel, receive_error, service_of, test_settings
from sqlalchemy import select, update
from starlette.routing import Route
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)
from typer.testing import CliRunner

from schotten.cli import app as cli
from schotten.web.app import create_app
from schotten.web.moderation import reports
from schotten.web.storage.db import AccountRow, GameRow, ModerationRow, ReportRow

PASSWORD = "correct horse battery"


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of the test: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    found: str = request.getfixturevalue("database_url")
    return found


@pytest.fixture
def client(tmp_path: Path, url: str) -> Iterator[TestClient]:
    """An app on the test's database (this client stays a guest)."""
    with TestClient(create_app(test_settings(tmp_path, database_url=url))) as client:
        yield client


class Browser:
    """A browser of its own (its own cookies) on the test's client, so every request runs on the app's
    one event loop."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, **options: Any) -> Any:
        """Send a request with this browser's cookies, and keep the ones it sets."""
        jar = self.client.cookies
        jar.clear()
        for name, value in self.cookies.items():
            jar.set(name, value)
        response = self.client.request(method, path, **options)
        self.cookies = {cookie.name: cookie.value for cookie in jar.jar if cookie.value is not None}
        jar.clear()
        return response

    def get(self, path: str) -> Any:
        """GET ``path``."""
        return self.request("GET", path)

    def post(self, path: str, json: Any = None) -> Any:
        """POST ``json`` to ``path``."""
        return self.request("POST", path, json=json)


def member(client: TestClient, name: str) -> Browser:
    """Another browser, signed up (and so logged in) as ``name``."""
    browser = Browser(client)
    response = browser.post("/api/accounts", json={"username": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    return browser


def moderators(url: str, *args: str) -> Any:
    """Run ``schotten moderators ARGS --database URL``."""
    return CliRunner().invoke(cli, ["moderators", *args, "--database", url])


def grant(url: str, name: str) -> None:
    """Make ``name`` a moderator from the command line."""
    result = moderators(url, "add", name)
    assert result.exit_code == 0, result.output


def account_id(client: TestClient, name: str) -> int:
    """The id of the account ``name``."""
    with service_of(client).store.use() as session:
        found = session.scalar(select(AccountRow.id).where(AccountRow.username == name))
    assert found is not None
    return int(found)


def seat_accounts(client: TestClient, duel: Duel, *names: str) -> None:
    """Make the duel's seats these accounts' (as a log-in with their seat cookies would)."""
    ids = [account_id(client, name) for name in names]
    with service_of(client).store.use() as session, session.begin():
        session.execute(update(GameRow).where(GameRow.id == duel.id).values(account0=ids[0], account1=ids[1]))
    service_of(client).games[duel.id].info.accounts[:] = ids


def rows(client: TestClient, table: Any) -> list[Any]:
    """Every row of ``table``."""
    with service_of(client).store.use() as session:
        return list(session.scalars(select(table)).all())


def test_a_report_keeps_the_chat_as_the_server_stored_it(client: TestClient) -> None:
    """A reported chat line comes with the lines around it from the database; the reporter cannot send
    lines of its own (an unknown field is refused and nothing is stored)."""
    ann = member(client, "ann")
    member(client, "bob")
    store = service_of(client).store
    game = Duel(client)
    game.close()
    for index in range(25):
        store.add_chat(game.id, "players", index % 2, ["ann", "bob"][index % 2], f"line {index}",
                       datetime.now().astimezone())
    forged = ann.post("/api/reports", json={"player": "bob", "reason": "abuse", "game": game.id, "line": 12,
                                             "chat": [{"text": "what bob never said"}]})
    assert forged.status_code == 422 and "chat" in forged.json()["error"] and rows(client, ReportRow) == []
    filed = ann.post("/api/reports", json={"player": "bob", "reason": "abuse", "game": game.id, "line": 12,
                                            "text": "insults"})
    assert filed.status_code == 201, filed.text
    (row,) = rows(client, ReportRow)
    assert row.id == filed.json()["id"] and row.reason == "abuse" and row.text == "insults"
    stored = json.loads(row.context)
    around = range(12 - reports.AROUND, 12 + reports.AROUND + 1)
    assert [line["text"] for line in stored] == [f"line {i}" for i in around]
    assert [line["index"] for line in stored if line["reported"]] == [12]


def test_reports_refused_change_nothing(client: TestClient) -> None:
    """A guest gets 401; an unknown player, oneself, a bad reason, an unknown game or line, a too long
    text get a sentence and store nothing; the hourly rate gives 429."""
    assert client.post("/api/reports", json={"player": "bob", "reason": "abuse"}).status_code == 401
    ann = member(client, "ann")
    member(client, "bob")
    refused: dict[int, list[dict[str, Any]]] = {
        404: [{"player": "nobody", "reason": "abuse"}, {"player": "bob", "reason": "abuse", "game": "nope"}],
        400: [{"player": "ann", "reason": "abuse"}, {"player": "bob", "reason": "rude"},
              {"player": "bob", "reason": "other", "line": 3}],
        422: [{"player": "bob", "reason": "other", "text": "x" * (reports.TEXT_MAX + 1)}],
    }
    for status, bodies in refused.items():
        for body in bodies:
            response = ann.post("/api/reports", json=body)
            assert response.status_code == status, (body, response.text)
            assert response.json()["error"]
    assert rows(client, ReportRow) == []
    for _ in range(reports.PER_HOUR):
        assert ann.post("/api/reports", json={"player": "bob", "reason": "other"}).status_code == 201
    over = ann.post("/api/reports", json={"player": "bob", "reason": "other"})
    assert over.status_code == 429 and "reports" in over.json()["error"]
    assert len(rows(client, ReportRow)) == reports.PER_HOUR


def moderation_routes(client: TestClient) -> list[tuple[str, str]]:
    """Every (method, path) of the app under /api/moderation/ (walked, so a new one cannot be missed)."""
    routes: list[Any] = client.app.routes  # type: ignore[attr-defined]
    found = [(method, route.path) for route in routes
             if isinstance(route, Route) and route.path.startswith("/api/moderation/")
             for method in sorted(route.methods or ()) if method != "HEAD"]
    assert len(found) >= 3
    return found


def test_every_moderation_route_is_refused_to_others(client: TestClient) -> None:
    """A guest and a signed-in player who is no moderator get 403 on every moderation route; nothing
    is logged."""
    ann = member(client, "ann")
    member(client, "bob")
    body = {"player": "bob", "action": "ban", "note": "x"}
    for browser in (Browser(client), ann):
        for method, path in moderation_routes(client):
            response = browser.request(method, path, json=body if method == "POST" else None)
            assert response.status_code == 403, (method, path, response.text)
            assert "moderators" in response.json()["error"]
    assert rows(client, ModerationRow) == []


def test_the_role_is_granted_and_removed_from_the_command_line_at_once(client: TestClient, url: str) -> None:
    """``schotten moderators add/list/remove`` on the app's database: an open session gains and loses
    the role at the next request; an unknown name exits 1 naming it."""
    carol = member(client, "carol")
    assert carol.get("/api/moderation/reports").status_code == 403
    grant(url, "carol")
    assert carol.get("/api/moderation/reports").json() == {"reports": []}
    listed = moderators(url, "list")
    assert listed.exit_code == 0 and listed.output.split() == ["carol"]
    assert moderators(url, "remove", "carol").exit_code == 0
    assert carol.get("/api/moderation/reports").status_code == 403
    unknown = moderators(url, "add", "nobody")
    assert unknown.exit_code == 1 and "nobody" in unknown.output


def test_a_moderator_sees_the_evidence_and_mutes_the_offender(client: TestClient, url: str) -> None:
    """The queue shows the stored chat; a mute closes the report, is logged, and the muted player's
    next chat line is refused with the moderator's note and the time it ends."""
    ann, bob, carol = member(client, "ann"), member(client, "bob"), member(client, "carol")
    grant(url, "carol")
    with Duel(client) as duel:
        seat_accounts(client, duel, "ann", "bob")
        duel.sockets[1].send_json({"type": "chat", "text": "you are an idiot"})
        duel.sockets[1].receive_json()
        duel.sockets[0].receive_json()
        body = {"player": "bob", "reason": "abuse", "game": duel.id, "line": 0}
        filed = ann.post("/api/reports", json=body)
        assert filed.status_code == 201
        (report,) = carol.get("/api/moderation/reports").json()["reports"]
        assert report["player"] == "bob" and report["reporter"] == "ann"
        assert [line["text"] for line in report["chat"]] == ["you are an idiot"]
        assert report["chat"][0]["reported"] is True
        assert set(report["fair_play"]) >= {"agreement", "band_agreement"}
        mute = {"player": "bob", "action": "mute", "hours": 24, "note": "insults in chat",
                "report": report["id"]}
        taken = carol.post("/api/moderation/actions", json=mute)
        assert taken.status_code == 200, taken.text
        assert taken.json()["moderator"] == "carol" and taken.json()["action"] == "mute"
        assert carol.get("/api/moderation/reports").json() == {"reports": []}
        duel.sockets[1].send_json({"type": "chat", "text": "still here"})
        refused = receive_error(duel.sockets[1], "cannot_chat")
        assert "insults in chat" in refused["message"] and "muted" in refused["message"]
    standing = bob.get("/api/account/standing").json()
    assert standing["muted_until"] and standing["note"] == "insults in chat" and not standing["banned"]
    again = carol.post("/api/moderation/actions", json={"player": "bob", "action": "clear", "note": "dup",
                                                        "report": report["id"]})
    assert again.status_code == 409
    (entry,) = carol.get("/api/moderation/log").json()["log"]
    assert entry["player"] == "bob" and entry["note"] == "insults in chat"


def test_a_ban_ends_sessions_and_games_and_refuses_the_log_in(client: TestClient, url: str) -> None:
    """A ban: the player's session ends, their game in progress is lost by forfeit (``banned``), their
    socket is closed, the log-in is refused with the note; an unban lets them in again."""
    member(client, "ann")
    bob, carol = member(client, "bob"), member(client, "carol")
    grant(url, "carol")
    assert bob.get("/api/session").json()["username"] == "bob"
    with Duel(client) as duel:
        seat_accounts(client, duel, "ann", "bob")
        ban = {"player": "bob", "action": "ban", "note": "cheating"}
        taken = carol.post("/api/moderation/actions", json=ban)
        assert taken.status_code == 200, taken.text
        game = client.get(f"/api/games/{duel.id}").json()
        assert game["status"] == "over" and game["winner"] == 0
    with service_of(client).store.use() as session:
        assert session.scalar(select(GameRow.ended).where(GameRow.id == duel.id)) == "banned"
    assert bob.get("/api/session").json()["username"] is None
    refused = bob.post("/api/session", json={"username": "bob", "password": PASSWORD})
    assert refused.status_code == 403 and "cheating" in refused.json()["error"]
    assert carol.post("/api/moderation/actions", json={"player": "bob", "action": "ban",
                                                       "note": "again"}).status_code == 409
    assert carol.post("/api/moderation/actions", json={"player": "bob", "action": "unban",
                                                       "note": "appeal"}).status_code == 200
    assert bob.post("/api/session", json={"username": "bob", "password": PASSWORD}).status_code == 200
    assert [e["action"] for e in carol.get("/api/moderation/log").json()["log"]] == ["unban", "ban"]


def test_actions_refused_change_nothing(client: TestClient, url: str) -> None:
    """Bad actions get a sentence and leave no log entry: unknown action or player, a mute with no
    hours, hours on a warning, a clear with no report, no note, acting on oneself."""
    member(client, "bob")
    carol = member(client, "carol")
    grant(url, "carol")
    for status, body in [
        (400, {"player": "bob", "action": "kick", "note": "x"}),
        (404, {"player": "nobody", "action": "warn", "note": "x"}),
        (400, {"player": "bob", "action": "mute", "note": "x"}),
        (400, {"player": "bob", "action": "mute", "hours": 0, "note": "x"}),
        (400, {"player": "bob", "action": "warn", "hours": 3, "note": "x"}),
        (400, {"player": "bob", "action": "clear", "note": "x"}),
        (400, {"player": "bob", "action": "warn", "note": " "}),
        (400, {"player": "carol", "action": "warn", "note": "x"}),
        (404, {"player": "bob", "action": "clear", "note": "x", "report": 99}),
    ]:
        response = carol.post("/api/moderation/actions", json=body)
        assert response.status_code == status, (body, response.text)
    assert rows(client, ModerationRow) == []
    warn = {"player": "bob", "action": "warn", "note": "be nice"}
    warned = carol.post("/api/moderation/actions", json=warn)
    assert warned.status_code == 200


def test_a_warned_player_sees_why(client: TestClient, url: str) -> None:
    """The warning's note is the player's to read (``GET /api/account/standing``); a guest gets 401."""
    bob, carol = member(client, "bob"), member(client, "carol")
    grant(url, "carol")
    assert bob.get("/api/account/standing").json()["warning"] is None
    carol.post("/api/moderation/actions", json={"player": "bob", "action": "warn", "note": "mind your words"})
    assert bob.get("/api/account/standing").json()["warning"] == "mind your words"
    assert client.get("/api/account/standing").status_code == 401
