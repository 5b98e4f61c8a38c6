"""Tables played by accounts: names, rated tables, rating ranges, seats by session, My games."""

from __future__ import annotations

from typing import Any

from helpers_web import receive_state, service_of, socket_path
from starlette.testclient import TestClient

from schotten.web.players.accounts import AccountRef
from schotten.web.players.identity import SESSION_COOKIE
from schotten.web.storage.db import RatingRow

Message = dict[str, Any]
BLITZ = {"initial": 180, "increment": 2}


def log_in(client: TestClient, username: str) -> AccountRef:
    """Sign ``username`` up (behind the API) and give the client its session cookie (no other cookie)."""
    accounts = service_of(client).accounts
    account: AccountRef = accounts.by_name(username) or accounts.sign_up(username, "correct horse battery")
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, accounts.new_session(account.id))
    return account


def open_table(client: TestClient, **body: Any) -> Any:
    """POST a new friend table with ``body``; the response."""
    return client.post("/api/tables", json={"mode": "friend", "seat": 0} | body)


def rate(client: TestClient, account: AccountRef, pool: str, rating: float, rd: float = 60.0) -> None:
    """Give ``account`` a rating in ``pool`` (as rated games would have)."""
    from datetime import UTC, datetime

    with service_of(client).store.use() as session, session.begin():
        session.merge(RatingRow(account_id=account.id, pool=pool, rating=rating, rd=rd, volatility=0.06,
                                games=10, wins=5, losses=5, draws=0, played=datetime.now(UTC)))


def test_an_account_plays_under_its_username(client: TestClient) -> None:
    """Logged in, the nickname sent is not used: the table names the account, and lists its rating."""
    ann = log_in(client, "Ann_77")
    grant = open_table(client, nickname="Someone", clock=BLITZ).json()
    table = client.get(f"/api/games/{grant['id']}").json()
    assert table["players"] == ["Ann_77", None]
    assert table["accounts"] == ["Ann_77", None]
    assert table["ratings"] == [1500, None] and table["provisional"] == [True, False]
    assert service_of(client).games[grant["id"]].info.accounts == [ann.id, None]


def test_a_guest_needs_a_nickname(client: TestClient) -> None:
    """Without a session, a table needs a nickname, said as such."""
    response = open_table(client)
    assert response.status_code == 422
    assert response.json()["error"] == ('the body has no "nickname": a guest (not logged in) plays under '
                                        "a nickname")


def test_a_rated_table_needs_an_account_a_clock_and_a_person(client: TestClient) -> None:
    """Rated: refused for a guest, without a clock, and against the AI; nothing is created."""
    guest = open_table(client, nickname="Gus", rated=True, clock=BLITZ)
    assert guest.status_code == 403 and "log in" in guest.json()["error"]
    log_in(client, "Ann")
    untimed = open_table(client, rated=True)
    assert untimed.status_code == 422 and "needs a clock" in untimed.json()["error"]
    ai = client.post("/api/tables", json={"mode": "ai", "rated": True, "clock": BLITZ})
    assert ai.status_code == 422 and "never rated" in ai.json()["error"]
    assert client.get("/api/tables").json()["tables"] == []


def test_a_rated_table_is_joined_by_an_account_not_its_creator(client: TestClient) -> None:
    """A guest may not take the seat of a rated table; its creator may not either; another account may."""
    log_in(client, "Ann")
    grant = open_table(client, rated=True, clock=BLITZ).json()
    refused_own = client.post(f"/api/tables/{grant['id']}/join", json={})
    assert refused_own.status_code == 409 and "your own table" in refused_own.json()["error"]
    client.cookies.clear()
    guest = client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Gus"})
    assert guest.status_code == 403 and "rated" in guest.json()["error"]
    bob = log_in(client, "Bob")
    joined = client.post(f"/api/tables/{grant['id']}/join", json={})
    assert joined.status_code == 200, joined.text
    table = client.get(f"/api/games/{grant['id']}").json()
    assert table["rated"] is True and table["status"] == "playing"
    assert table["accounts"] == ["Ann", "Bob"] and table["players"] == ["Ann", "Bob"]
    assert service_of(client).games[grant["id"]].info.accounts[1] == bob.id


def test_a_rating_range_lets_in_only_players_rated_within_it(client: TestClient) -> None:
    """An open challenge for 1400-1600 in base.realtime: a 1700 player is told their rating, a 1550
    player sits down; a range whose bounds cross is refused."""
    crossed = open_table(client, nickname="Gus", clock=BLITZ, min_rating=1600, max_rating=1400)
    assert crossed.status_code == 422 and "no player could join" in crossed.json()["error"]
    log_in(client, "Ann")
    grant = open_table(client, clock=BLITZ, min_rating=1400, max_rating=1600).json()
    assert client.get(f"/api/games/{grant['id']}").json()["rating_range"] == [1400, 1600]
    strong = log_in(client, "Strong")
    rate(client, strong, "base.realtime", 1700.0)
    refused = client.post(f"/api/tables/{grant['id']}/join", json={})
    assert refused.status_code == 403 and "your rating there is 1700" in refused.json()["error"]
    assert client.get(f"/api/games/{grant['id']}").json()["status"] == "open"
    fitting = log_in(client, "Fitting")
    rate(client, fitting, "base.realtime", 1550.0)
    assert client.post(f"/api/tables/{grant['id']}/join", json={}).status_code == 200
    table = client.get(f"/api/games/{grant['id']}").json()
    assert table["ratings"] == [1500, 1550] and table["provisional"] == [True, False]


def test_an_account_finds_its_seat_from_another_browser(client: TestClient, settings: Any) -> None:
    """The seat belongs to the account: a browser with no seat cookie, logged in as it, lists the game
    in My games and plays it over the socket; logged out it only watches."""
    log_in(client, "Ann")
    grant = open_table(client, nickname="x", clock=BLITZ).json()
    log_in(client, "Bob")
    client.post(f"/api/tables/{grant['id']}/join", json={})
    ann_session = service_of(client).accounts.new_session(service_of(client).accounts.by_name("Ann").id)
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, ann_session)
    mine = client.get("/api/my-games").json()["tables"]
    assert [(t["id"], t["seat"]) for t in mine] == [(grant["id"], 0)]
    with client.websocket_connect(socket_path(grant["id"])) as ws:
        assert receive_state(ws)["seat"] == 0
    client.cookies.clear()
    assert client.get("/api/my-games").json()["tables"] == []
    with client.websocket_connect(socket_path(grant["id"])) as ws:
        assert receive_state(ws)["seat"] is None


def test_a_forged_session_is_a_guest(client: TestClient) -> None:
    """A session id nobody was given is no account's: no seat, no games, guest rules."""
    log_in(client, "Ann")
    grant = open_table(client, clock=BLITZ).json()
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, "forged-" + "x" * 40)
    assert client.get("/api/my-games").json()["tables"] == []
    with client.websocket_connect(socket_path(grant["id"])) as ws:
        assert receive_state(ws)["seat"] is None
    assert open_table(client, rated=True, clock=BLITZ).status_code == 403
