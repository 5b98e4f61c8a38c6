"""Accounts and sessions (issue 15, "Accounts"): sign-up rules, log-in and its one answer for a wrong
name or password, sessions (rotated, ended, expired, forged), cross-site requests, rate limits,
changing the password, deleting the account and keeping a guest's games."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_web import FakeClock, app_at, service_of, socket_path, test_settings
from sqlalchemy import select
from starlette.testclient import TestClient

from schotten.web.core.settings import WebSettings
from schotten.web.players.accounts import DELETED_NAME, session_hash
from schotten.web.players.identity import SESSION_COOKIE
from schotten.web.storage.db import AccountRow, GameRow, SessionRow

PASSWORD = "correct horse battery"


def sign_up(client: TestClient, username: str, password: str = PASSWORD) -> Any:
    """POST a sign-up; the response."""
    return client.post("/api/accounts", json={"username": username, "password": password})


def log_in(client: TestClient, username: str, password: str = PASSWORD) -> Any:
    """POST a log-in; the response."""
    return client.post("/api/session", json={"username": username, "password": password})


def who(client: TestClient) -> str | None:
    """The username the client's cookie is logged in as."""
    name: str | None = client.get("/api/session").json()["username"]
    return name


def session_of(client: TestClient) -> str:
    """The session id the client's cookie holds."""
    value = client.cookies.get(SESSION_COOKIE)
    assert value
    return str(value)


def use_session(client: TestClient, session_id: str) -> None:
    """Make ``session_id`` the client's only cookie."""
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, session_id)


def accounts_in(client: TestClient) -> list[tuple[str, str, bool]]:
    """Every account row: its username, name key, and whether it has a password."""
    with service_of(client).store.use() as session:
        rows = session.scalars(select(AccountRow).order_by(AccountRow.id))
        return [(row.username, row.name_key, row.password_hash is not None) for row in rows]


def test_sign_up_logs_in_with_an_httponly_session_cookie(client: TestClient) -> None:
    """201 and the name; the cookie is HttpOnly and SameSite; only the id's hash is stored."""
    response = sign_up(client, "Ann_1")
    assert response.status_code == 201 and response.json()["username"] == "Ann_1"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=") and "HttpOnly" in cookie
    assert "samesite=lax" in cookie.lower()
    assert who(client) == "Ann_1"
    with service_of(client).store.use() as session:
        stored = list(session.scalars(select(SessionRow.id_hash)))
    assert stored == [session_hash(session_of(client))]
    assert PASSWORD not in str(accounts_in(client))


@pytest.mark.parametrize(("name", "why"), [
    ("ab", "3 to 20 characters"), ("a" * 21, "3 to 20 characters"), ("_ann", "starting with a letter"),
    ("an n", "letters A-Z"), ("añn", "letters A-Z"), ("ann<script>", "letters A-Z"),
])
def test_usernames_follow_the_documented_rule(client: TestClient, name: str, why: str) -> None:
    """A name outside the rule is refused with the rule; nothing is stored."""
    response = sign_up(client, name)
    assert response.status_code == 422 and why in response.json()["error"]
    assert accounts_in(client) == []


def test_a_short_or_long_password_is_refused_without_echoing_it(client: TestClient) -> None:
    """The rule is said; the password itself appears in no answer."""
    for password in ("seven77", "x" * 201):
        response = sign_up(client, "Ann", password)
        assert response.status_code == 422 and "8 to 200 characters" in response.json()["error"]
        assert password not in response.text
    assert accounts_in(client) == []


@pytest.mark.parametrize("taken", ["Alice", "alice", "ALICE", "AIice", "al1ce", "A1ICE"])
def test_duplicate_and_look_alike_names_are_taken(client: TestClient, taken: str) -> None:
    """Case, I/l/1 and 0/o do not make a new name: 409, one account."""
    assert sign_up(client, "alice").status_code == 201
    client.cookies.clear()
    response = sign_up(client, taken)
    assert response.status_code == 409 and "is taken" in response.json()["error"]
    assert len(accounts_in(client)) == 1


def test_a_wrong_password_and_an_unknown_name_get_one_answer(client: TestClient) -> None:
    """Nothing tells whether a name exists: the same status and words, and no cookie."""
    sign_up(client, "Ann")
    client.cookies.clear()
    wrong, unknown = log_in(client, "Ann", "not the password"), log_in(client, "Nobody", "not the password")
    assert (wrong.status_code, wrong.json()) == (unknown.status_code, unknown.json()) == (
        401, {"error": "wrong username or password"})
    assert "set-cookie" not in wrong.headers and who(client) is None
    assert log_in(client, "ANN").json() == {"username": "Ann"}


def test_a_session_is_rotated_at_log_in_and_ended_at_log_out(client: TestClient) -> None:
    """Logging in again ends the old session id; logging out ends the new one on the server, so a
    copy of the cookie no longer works either."""
    sign_up(client, "Ann")
    first = session_of(client)
    log_in(client, "Ann")
    second = session_of(client)
    assert second != first
    use_session(client, first)
    assert who(client) is None
    use_session(client, second)
    assert client.delete("/api/session").status_code == 204
    use_session(client, second)
    assert who(client) is None


def test_a_forged_or_oversized_session_is_a_guest(client: TestClient) -> None:
    """A session id nobody was given, or a huge one, is no account's."""
    sign_up(client, "Ann")
    for forged in ("x" * 43, "y" * 5000, ""):
        use_session(client, forged)
        assert who(client) is None


def test_a_session_expires(tmp_path: Path) -> None:
    """After ``session_ttl`` the session is no account's."""
    clock = FakeClock()
    with app_at(test_settings(tmp_path, session_ttl=3600.0), clock) as client:
        sign_up(client, "Ann")
        clock.advance(3599)
        assert who(client) == "Ann"
        clock.advance(2)
        assert who(client) is None


def test_a_foreign_origin_or_a_form_body_changes_nothing(client: TestClient) -> None:
    """Cross-site: a foreign Origin is refused (403) and a non-JSON body too (422); no account is made,
    nobody logged in. A client that sends no Origin (a script) works."""
    body = {"username": "Ann", "password": PASSWORD}
    foreign = client.post("/api/accounts", json=body, headers={"Origin": "https://evil.example"})
    assert foreign.status_code == 403
    form = client.post("/api/accounts", content=f"username=Ann&password={PASSWORD}",
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    plain = client.post("/api/accounts", content='{"username": "Ann", "password": "correct horse battery"}',
                        headers={"Content-Type": "text/plain"})
    assert form.status_code == plain.status_code == 422 and "send the body as JSON" in plain.json()["error"]
    assert accounts_in(client) == []
    assert sign_up(client, "Ann").status_code == 201
    out = client.delete("/api/session", headers={"Origin": "https://evil.example"})
    assert out.status_code == 403 and who(client) == "Ann"


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[TestClient]:
    """A client of an app with small log-in rates: 3 per browser and name, 8 per address per minute."""
    from schotten.web import create_app

    settings: WebSettings = test_settings(tmp_path, login_rate="3/minute", login_address_rate="8/minute")
    with TestClient(create_app(settings)) as client:
        yield client


def test_log_in_is_rate_limited_per_name_and_per_address(strict: TestClient) -> None:
    """A browser that never logged in to a name gets 3 tries of it a minute from its address, known or
    not, with the same words; the address 8 in all (a try refused for its name counts for the address).
    Other addresses and trusted browsers: test_login_tries."""
    sign_up(strict, "Ann")
    strict.cookies.clear()
    answers = {}
    for name in ("Ann", "Nobody"):
        for _ in range(3):
            assert log_in(strict, name, "wrong password").status_code == 401
        refused = log_in(strict, name)
        assert refused.status_code == 429 and refused.headers["retry-after"]
        answers[name] = refused.json()["error"].split(": try again")[0]
    assert answers["Ann"] == answers["Nobody"]
    assert "log-in attempts" in answers["Ann"]
    assert log_in(strict, "Carol").status_code == 429


class WallClock:
    """``time.time`` as the test sets it: half a second before a minute's edge, then moved by hand."""

    def __init__(self) -> None:
        self.now = (time.time() // 60 + 1) * 60 - 0.5

    def __call__(self) -> float:
        return self.now


def test_log_in_tries_on_both_sides_of_a_minute_s_edge_count_in_full(
        strict: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three tries of a name half a second before a minute's edge, a fourth half a second after it: the
    fourth is refused (the three are within the last minute), and so is one a moment before the first
    leaves the window; once it has left, a try is admitted. The address's 8 per minute alike: its
ninth try in a minute is refused until its oldest leaves the window."""
    sign_up(strict, "Ann")
    strict.cookies.clear()
    clock = WallClock()
    monkeypatch.setattr(time, "time", clock)
    for _ in range(3):
        assert log_in(strict, "Ann", "wrong password").status_code == 401
    clock.now += 1.0
    refused = log_in(strict, "Ann")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) == 59
    clock.now += 58.9
    assert log_in(strict, "Ann").status_code == 429
    clock.now += 0.2
    assert log_in(strict, "Ann", "wrong password").status_code == 401
    for name in ("Bea", "Carl", "Dan", "Eve", "Fay"):
        assert log_in(strict, name, "wrong password").status_code == 401
    clock.now += 0.5
    assert log_in(strict, "Gus", "wrong password").status_code == 429
    clock.now += 0.5
    assert log_in(strict, "Gus", "wrong password").status_code == 401


def test_changing_the_password_ends_the_other_sessions(client: TestClient) -> None:
    """The current password is checked; after the change the old password fails, other browsers'
    sessions end, this one goes on in a new session."""
    sign_up(client, "Ann")
    other = session_of(client)
    log_in(client, "Ann")
    mine = session_of(client)
    wrong = client.post("/api/account/password", json={"password": "not it at all", "new_password": "n" * 10})
    assert wrong.status_code == 403 and "nothing was changed" in wrong.json()["error"]
    changed = client.post("/api/account/password", json={"password": PASSWORD, "new_password": "n" * 10})
    assert changed.status_code == 200 and who(client) == "Ann" and session_of(client) != mine
    use_session(client, other)
    assert who(client) is None
    assert log_in(client, "Ann").status_code == 401
    assert log_in(client, "Ann", "n" * 10).status_code == 200


def test_deleting_an_account_keeps_its_games_under_an_anonymous_name(client: TestClient) -> None:
    """Its password is asked; afterwards its table names ``DELETED_NAME`` with no account shown, it
    cannot log in, and its name can be taken again."""
    sign_up(client, "Ann")
    table = client.post("/api/tables", json={"mode": "ai", "level": "easy"}).json()
    assert client.request("DELETE", "/api/account", json={"password": "wrong one!"}).status_code == 403
    assert client.request("DELETE", "/api/account", json={"password": PASSWORD}).status_code == 204
    assert who(client) is None
    summary = client.get(f"/api/games/{table['id']}").json()
    assert summary["players"][table["seat"]] == DELETED_NAME and summary["accounts"] == [None, None]
    assert log_in(client, "Ann").status_code == 401
    assert sign_up(client, "ann").status_code == 201
    assert client.get("/api/players/Ann").json()["username"] == "ann"


def test_a_guest_who_signs_up_keeps_the_games_of_their_seats(client: TestClient) -> None:
    """The seats whose cookies the browser holds become the account's: My games from another browser
    logged in as it lists them."""
    guest = client.post("/api/tables", json={"mode": "friend", "nickname": "Gus", "seat": 1}).json()
    sign_up(client, "Gus")
    with service_of(client).store.use() as session:
        row = session.get(GameRow, guest["id"])
        assert row is not None and row.account1 is not None and row.player1 == "Gus"
    use_session(client, session_of(client))
    assert [(t["id"], t["seat"]) for t in client.get("/api/my-games").json()["tables"]] == [(guest["id"], 1)]


def chat_names(client: TestClient, game_id: str, token: str) -> list[str]:
    """The names of the players' chat history a seat is sent on opening the game."""
    with client.websocket_connect(socket_path(game_id, token)) as ws:
        while True:
            message = ws.receive_json()
            if message["type"] == "chat" and message["full"]:
                return [line["name"] for line in message["messages"]]


def _new_line(message: dict[str, Any]) -> bool:
    """Whether a socket message is a new chat line (not the history sent on opening)."""
    return message["type"] == "chat" and not message["full"]


def test_deleting_an_account_renames_its_chat_lines_stored_and_served(client: TestClient) -> None:
    """Ann's lines in a game's chat read ``DELETED_NAME`` afterwards, in the game being served and once
    it is loaded again from the database; Bob's stay his."""
    sign_up(client, "Ann")
    grant = client.post("/api/tables", json={"mode": "friend", "seat": 0, "clock": {"initial": 180}}).json()
    session = session_of(client)
    client.cookies.clear()
    joined = client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Bob"}).json()
    for token, text in ((grant["token"], "hello"), (joined["token"], "hi Ann")):
        with client.websocket_connect(socket_path(grant["id"], token)) as ws:
            ws.send_json({"type": "chat", "text": text})
            while not _new_line(ws.receive_json()):
                pass
    assert chat_names(client, grant["id"], joined["token"]) == ["Ann", "Bob"]
    use_session(client, session)
    assert client.request("DELETE", "/api/account", json={"password": PASSWORD}).status_code == 204
    assert chat_names(client, grant["id"], joined["token"]) == [DELETED_NAME, "Bob"]
    service_of(client).games.clear()
    assert chat_names(client, grant["id"], joined["token"]) == [DELETED_NAME, "Bob"]


def test_an_account_never_gets_both_seats_of_a_game(client: TestClient) -> None:
    """Ann opens a table logged in, logs out, takes its other seat as a guest and logs in again: that
    guest seat stays a guest's (one account never plays both seats)."""
    sign_up(client, "Ann")
    grant = client.post("/api/tables", json={"mode": "friend", "seat": 0}).json()
    client.delete("/api/session")
    assert client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Also Ann"}).status_code == 200
    assert log_in(client, "Ann").status_code == 200
    with service_of(client).store.use() as session:
        row = session.get(GameRow, grant["id"])
        assert row is not None and row.account0 is not None and row.account1 is None
