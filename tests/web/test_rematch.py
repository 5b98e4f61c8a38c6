"""Rematches of finished friend games (docs/web/games.md, Rematch): the API, the sockets, a restart.

The first player to ask opens the rematch table and sits down; the other player's sockets
are told at once, and asking in turn seats them at that same table with a token of their
own. Asking twice, or both at the same moment, never opens a second table; spectators and
forged tokens are refused and change nothing; the link survives a restart, also on a
database file made before rematches existed.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers_web import (
    SEED,
    Duel,
    Message,
    choose,
    create,
    expected_state,
    join,
    receive_state,
    service_of,
    socket_path,
    test_settings,
)
from starlette.testclient import TestClient

from schotten.web import create_app
from schotten.web.core.errors import ServiceError
from schotten.web.core.offer import OfferState
from schotten.web.core.settings import WebSettings
from schotten.web.storage.rows import GameInfo

GRANT_KEYS = {"id", "seat", "token", "url", "invite"}


def finish(duel: Duel) -> None:
    """Play the duel to its end (every socket checked on the way)."""
    rng = random.Random(duel.seed)
    while not duel.state.is_over:
        duel.play(choose(duel.messages[duel.state.turn][-1], rng))


def finished_game(client: TestClient, seed: int = SEED) -> Duel:
    """A friend game between Ann (seat 0) and Bob (seat 1), played to its end; its sockets closed."""
    with Duel(client, seed=seed) as duel:
        finish(duel)
    return duel


def ask(client: TestClient, game_id: str, token: str | None = None, keep_cookies: bool = False,
        offer: str | None = None) -> Any:
    """POST the rematch request (a token in the body if given, and the offer it accepts); the
    client's cookies are then forgotten, as if each request came from another browser, unless
    ``keep_cookies``."""
    body = {} if token is None else {"token": token}
    if offer is not None:
        body["rematch"] = offer
    response = client.post(f"/api/games/{game_id}/rematch", json=body)
    if not keep_cookies:
        client.cookies.clear()
    return response


def granted(response: Any, game_id: str | None = None, seat: int | None = None) -> Message:
    """The seat grant of a successful rematch request (for ``game_id``, ``seat`` if given)."""
    assert response.status_code == 200, response.text
    grant: Message = response.json()
    assert set(grant) == GRANT_KEYS and grant["invite"] is None
    assert grant["url"] == f"/game/{grant['id']}?token={grant['token']}"
    assert game_id is None or grant["id"] == game_id
    assert seat is None or grant["seat"] == seat
    return grant


def game_count(client: TestClient) -> int:
    """How many games the database holds."""
    return len(service_of(client).store.recent(1000))


def rematch_seen(duel: Duel, seat: int | None, rematch: Message, told: bool = True) -> Message:
    """The finished game's state message for ``seat``, telling of ``rematch``: a change ``told``
    to the sockets there (no new log entries), else the whole state (a socket opened now)."""
    start = len(duel.state.history) if told else 0
    return expected_state(duel.state, seat, duel.version, duel.players, "over", start) | {"rematch": rematch}


def seated(client: TestClient, game_id: str, token: str) -> Message:
    """The state message a seat's token opens at a table."""
    with client.websocket_connect(socket_path(game_id, token)) as ws:
        return receive_state(ws)


@pytest.mark.parametrize("first", [0, 1])
def test_the_first_asks_the_other_is_told_and_accepts(client: TestClient, first: int) -> None:
    """Either player may ask first; the other's sockets are told; both end at one table, each seat
    with its own new token, the same variant and rounds, the other seat beginning."""
    with Duel(client, variant="tactics", rounds=3) as duel:
        finish(duel)
        first_grant = granted(ask(client, duel.id, duel.tokens[first]), seat=first)
        rematch = {"id": first_grant["id"], "by": first, "accepted": False}
        texts = {}
        for seat, ws in duel.sockets.items():
            texts[seat] = json.dumps(message := receive_state(ws))
            assert message == rematch_seen(duel, seat, rematch)
        assert all(first_grant["token"] not in text for text in texts.values())
        new_id = first_grant["id"]
        table = client.get(f"/api/games/{new_id}").json()
        assert table["rematch_of"] == duel.id and table["status"] == "open"
        assert (table["variant"], table["rounds"], table["mode"]) == ("tactics", 3, "friend")
        assert table["players"][first] == duel.players[first] and table["players"][1 - first] is None
        assert client.get(f"/api/games/{duel.id}").json()["rematch"] == new_id
        opening = seated(client, new_id, first_grant["token"])
        assert opening["seat"] == first and opening["rematch_of"] == duel.id
        assert opening["view"]["first_player"] == 1 - duel.state.first

        second_grant = granted(ask(client, duel.id, duel.tokens[1 - first]), new_id, 1 - first)
        assert second_grant["token"] != first_grant["token"]
        for seat, ws in duel.sockets.items():
            message = receive_state(ws)
            assert message == rematch_seen(duel, seat, rematch | {"accepted": True})
            assert second_grant["token"] not in json.dumps(message)
    tokens = {first: first_grant["token"], 1 - first: second_grant["token"]}
    for seat, token in tokens.items():
        message = seated(client, new_id, token)
        assert message["seat"] == seat and message["status"] == "playing"
        assert message["players"] == duel.players
        assert token not in json.dumps(message) and tokens[1 - seat] not in json.dumps(message)
    assert game_count(client) == 2


def test_asking_twice_opens_one_table(client: TestClient) -> None:
    """A second click of the same player gives back the same seat to the browser holding its cookie,
    and is refused (changing nothing) anywhere else; the other player's clicks likewise."""
    duel = finished_game(client)
    first = granted(ask(client, duel.id, duel.tokens[0], keep_cookies=True), seat=0)
    assert client.cookies.get(f"seat_{first['id']}") == first["token"]
    again = granted(ask(client, duel.id, duel.tokens[0], keep_cookies=True), first["id"], 0)
    assert again["token"] == first["token"]
    client.cookies.clear()
    elsewhere = ask(client, duel.id, duel.tokens[0])
    assert elsewhere.status_code == 409 and "already took your seat" in elsewhere.json()["error"]
    second = granted(ask(client, duel.id, duel.tokens[1], keep_cookies=True), first["id"], 1)
    assert granted(ask(client, duel.id, duel.tokens[1]), first["id"], 1)["token"] == second["token"]
    client.cookies.set(f"seat_{first['id']}", first["token"])
    stolen = ask(client, duel.id, duel.tokens[1])
    assert stolen.status_code == 409, "seat 0's cookie never opens seat 1"
    assert game_count(client) == 2
    assert seated(client, first["id"], first["token"])["seat"] == 0
    assert seated(client, first["id"], second["token"])["seat"] == 1


def test_concurrent_clicks_meet_at_one_table(client: TestClient) -> None:
    """Both players asking at the same moment (and one player twice at once): one rematch table."""
    service = service_of(client)
    both, twice = finished_game(client), finished_game(client, seed=SEED + 1)
    assert client.portal is not None

    async def clicks() -> list[Any]:
        return await asyncio.gather(
            service.rematch(both.id, both.tokens[0], {}),
            service.rematch(both.id, both.tokens[1], {}),
            service.rematch(twice.id, twice.tokens[1], {}),
            service.rematch(twice.id, twice.tokens[1], {}),
            return_exceptions=True,
        )

    ann, bob, one, other = client.portal.call(clicks)
    assert ann.id == bob.id and (ann.seat, bob.seat) == (0, 1) and ann.token != bob.token
    assert [r.seat for r in (one, other) if not isinstance(r, BaseException)] == [1]
    refused = one if isinstance(one, BaseException) else other
    assert isinstance(refused, ServiceError) and refused.status == 409
    assert game_count(client) == 4
    assert client.get(f"/api/games/{both.id}").json()["rematch"] == ann.id
    assert seated(client, ann.id, bob.token)["status"] == "playing"


def test_the_database_allows_one_rematch_per_game(client: TestClient) -> None:
    """The link's key refuses a second rematch of the same game, and nothing of it is stored."""
    duel = finished_game(client)
    store = service_of(client).store
    info = GameInfo(id="second", variant="base", rounds=1, seed=1, mode="friend", level=None, ai_seat=None,
                    players=["Ann", None], token_hashes=["x" * 64, None], status="open")
    assert store.add_rematch(duel.id, 0, info)
    info.id = "third"
    assert not store.add_rematch(duel.id, 1, info)
    assert store.load("third") is None
    link = store.rematch_of(duel.id)
    assert link is not None
    assert (link.id, link.game, link.by, link.state) == ("second", duel.id, 0, OfferState.OPEN)


def test_who_may_ask_for_a_rematch(client: TestClient) -> None:
    """Spectators, forged tokens, other games' tokens, games in play and AI games are refused, and
    nothing changes; the rematch table's kept seat cannot be taken by joining."""
    duel = finished_game(client)
    other = create(client)
    join(client, other["id"])
    ai = create(client, mode="ai", level="easy")
    cases = [
        (duel.id, None, 403, "spectators"),
        (duel.id, "forged", 403, "not valid"),
        (duel.id, duel.tokens[0] + "x", 403, "not valid"),
        (duel.id, other["token"], 403, "not valid"),
        (other["id"], other["token"], 409, "still being played"),
        (ai["id"], ai["token"], 409, "against the AI"),
        ("nosuchgame", duel.tokens[0], 404, "nosuchgame"),
    ]
    games = game_count(client)
    for game_id, token, status, words in cases:
        response = ask(client, game_id, token)
        assert response.status_code == status and words in response.json()["error"], (token, response.text)
    client.cookies.set(f"seat_{duel.id}", "forged")
    assert ask(client, duel.id).status_code == 403
    assert client.post(f"/api/games/{duel.id}/rematch", json={"token": 5}).status_code == 422
    assert game_count(client) == games and client.get(f"/api/games/{duel.id}").json()["rematch"] is None

    client.cookies.set(f"seat_{duel.id}", duel.tokens[0])
    grant = granted(ask(client, duel.id), seat=0)
    refused = client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Cy"})
    assert refused.status_code == 409 and "kept for the other player" in refused.json()["error"]
    assert ask(client, duel.id, grant["token"]).status_code == 403, "a rematch token is not the game's"
    lobby = {t["id"]: t for t in client.get("/api/tables").json()["tables"]}
    assert grant["id"] not in lobby, "its seat is kept: no open challenge for strangers"
    assert lobby[duel.id]["rematch"] == grant["id"]
    table = client.get(f"/api/games/{grant['id']}").json()
    assert table["rematch_of"] == duel.id and table["players"] == ["Ann", None]


def test_a_rematch_not_yet_accepted_has_no_replay(client: TestClient) -> None:
    """While its kept seat is free a rematch table's game has not begun: its replay and record are
    refused (409) saying it waits for its second player, not that it is being played; once the
    other player accepts, the game in play is refused as such (R10.4)."""
    duel = finished_game(client)
    grant = granted(ask(client, duel.id, duel.tokens[0]), seat=0)
    paths = [f"/api/games/{grant['id']}/{what}" for what in ("replay", "record", "record?download=1")]
    for path in paths:
        response = client.get(path)
        assert response.status_code == 409, path
        error = response.json()["error"]
        assert error.startswith("the game has not begun yet: this table is waiting for its second player")
        assert "still being played" not in error, path
    granted(ask(client, duel.id, duel.tokens[1]), grant["id"], 1)
    for path in paths:
        response = client.get(path)
        assert response.status_code == 409 and "still being played" in response.json()["error"], path


NOT_BEGUN_REMATCH = ("the game has not begun yet: this table is waiting for its second player, so there is "
                     "no game to have a rematch of yet: a rematch can be asked for once a game here is over")
IN_PLAY_REMATCH = "the game is still being played: a rematch can be asked for once it is over"
REMATCH_REQUESTS = ("rematch", "rematch/withdraw", "rematch/decline")


def rematch_errors(client: TestClient, table: Message) -> dict[str, tuple[int, Any]]:
    """What asking for, withdrawing and declining a rematch of ``table`` with its seat token answer."""
    errors = {}
    for what in REMATCH_REQUESTS:
        response = client.post(f"/api/games/{table['id']}/{what}", json={"token": table["token"]})
        client.cookies.clear()
        errors[what] = (response.status_code, response.json())
    return errors


def test_no_rematch_of_a_table_waiting_for_its_second_player(client: TestClient) -> None:
    """A friend table waiting for its second player (a new one, or a rematch not yet accepted) has
    no game to have a rematch of: asking for one, withdrawing or declining is refused (409, as for
    a game in play) saying so, and nothing changes; once the second player sits down, the game in
    play is refused as before, word for word."""
    fresh = create(client)
    duel = finished_game(client)
    offer = granted(ask(client, duel.id, duel.tokens[0]), seat=0)
    games = game_count(client)
    for table in (fresh, offer):
        assert rematch_errors(client, table) == dict.fromkeys(
            REMATCH_REQUESTS, (409, {"error": NOT_BEGUN_REMATCH})), table["id"]
    assert game_count(client) == games
    assert [client.get(f"/api/games/{t['id']}").json()["status"] for t in (fresh, offer)] == ["open", "open"]
    assert client.get(f"/api/games/{duel.id}").json()["rematch"] == offer["id"]
    join(client, fresh["id"])
    granted(ask(client, duel.id, duel.tokens[1]), offer["id"], 1)
    for table in (fresh, offer):
        assert rematch_errors(client, table) == dict.fromkeys(
            REMATCH_REQUESTS, (409, {"error": IN_PLAY_REMATCH})), table["id"]


def restart_and_accept(settings: WebSettings, duel: Duel, first_token: str) -> None:
    """A new app on the same database: the finished game still knows its rematch and the other
    player takes the seat kept for them."""
    with TestClient(create_app(settings)) as client:
        rematch_id = client.get(f"/api/games/{duel.id}").json()["rematch"]
        assert rematch_id is not None
        told = seated(client, duel.id, duel.tokens[1])
        assert told["rematch"] == {"id": rematch_id, "by": 0, "accepted": False}
        assert seated(client, rematch_id, first_token)["rematch_of"] == duel.id
        second = granted(ask(client, duel.id, duel.tokens[1]), rematch_id, 1)
        assert seated(client, rematch_id, second["token"])["status"] == "playing"
        assert game_count(client) == 2


def test_a_restart_keeps_the_rematch(tmp_path: Path) -> None:
    """The link is in the database: a restarted server seats the other player at the same table."""
    settings = test_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        duel = finished_game(client)
        grant = granted(ask(client, duel.id, duel.tokens[0]), seat=0)
    restart_and_accept(settings, duel, grant["token"])


def test_a_database_from_before_rematches_gets_them(tmp_path: Path) -> None:
    """A SQLite file made without the rematches table: the table is created on start-up and
    the finished games in it can have their rematch."""
    settings = test_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        duel = finished_game(client)
    with sqlite3.connect(tmp_path / "games.db") as db:
        db.execute("DROP TABLE rematches")
    with TestClient(create_app(settings)) as client:
        grant = granted(ask(client, duel.id, duel.tokens[0]), seat=0)
    restart_and_accept(settings, duel, grant["token"])


# ---------------------------------------------------------------------- rematch tables count as tables


def _friend_table(client: TestClient) -> Any:
    body = {"variant": "base", "rounds": 1, "mode": "friend", "nickname": "Eve", "seat": 0}
    answer = client.post("/api/tables", json=body)
    client.cookies.clear()
    return answer


def test_a_rematch_table_counts_for_the_tables_rate(tmp_path: Path) -> None:
    """The rematch table is a table opened by the address that asks (issue 26: they escaped the
    limit): over ``tables_rate`` it is refused, and nothing is stored."""
    with TestClient(create_app(test_settings(tmp_path, tables_rate="1/hour"))) as client:
        duel = finished_game(client)
        refused = ask(client, duel.id, duel.tokens[0])
        assert refused.status_code == 429, refused.text
        assert "too many tables opened from your address (at most 1 per 1 hour)" in refused.json()["error"]
        assert client.get(f"/api/games/{duel.id}").json()["rematch"] is None and game_count(client) == 1


def test_an_open_rematch_counts_as_an_open_table_until_it_is_taken_or_closed(tmp_path: Path) -> None:
    """The offer waits for its second player as an open table does: it holds a place of
    ``open_tables_per_address`` until the other player takes the seat, or it is withdrawn."""
    with TestClient(create_app(test_settings(tmp_path, open_tables_per_address=1))) as client:
        duel = finished_game(client)
        offer = granted(ask(client, duel.id, duel.tokens[0]))
        assert _friend_table(client).status_code == 429
        withdrawn = client.post(f"/api/games/{duel.id}/rematch/withdraw", json={"token": duel.tokens[0]})
        assert withdrawn.status_code == 200, withdrawn.text
        first = _friend_table(client)
        assert first.status_code == 200
        join(client, first.json()["id"])
        again = granted(ask(client, duel.id, duel.tokens[0]))
        assert again["id"] != offer["id"] and _friend_table(client).status_code == 429
        granted(ask(client, duel.id, duel.tokens[1]), again["id"])
        assert _friend_table(client).status_code == 200
