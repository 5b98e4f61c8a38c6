"""Challenges by name (issue 29, docs/web/challenges.md): the API and each refusal, blocks kept silent,
expiry on an injected clock, the table an acceptance makes, decline and cancel, and the player's own
socket (``/ws/me``) that hears them, refused to a guest and to a foreign page. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers_community import app_on, player, put, url  # noqa: F401  (a fixture)
from helpers_web import receive_error, receive_state, service_of, socket_path
from starlette.testclient import TestClient, WebSocketTestSession
from starlette.websockets import WebSocketDisconnect
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.web.edge.security import FORBIDDEN_ORIGIN_CLOSE
from schotten.web.games.channels import GUEST_CLOSE
from schotten.web.storage.db import GameRow

FIVE = {"initial": 300, "increment": 5}
START = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


class Clock:
    """The server's time, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def app(tmp_path: Path, url: str) -> Iterator[TestClient]:  # noqa: F811 (the fixture)
    """An app on the test's database (a guest's browser), its time ``Clock``'s."""
    with app_on(tmp_path, url) as client:
        service_of(client).authority.now = Clock()
        yield client


def clock_of(app: TestClient) -> Clock:
    """The app's injected clock."""
    found = service_of(app).authority.now
    assert isinstance(found, Clock)
    return found


def challenge(browser: TestClient, status: int = 201, **body: Any) -> dict[str, Any]:
    """``POST /api/challenges`` with ``body``, which must answer ``status``: its body."""
    answer = browser.post("/api/challenges", json=body)
    assert answer.status_code == status, answer.text
    found: dict[str, Any] = answer.json()
    return found


def refused(answer: Any, status: int) -> str:
    """The sentence of a refusal that must have ``status``."""
    assert answer.status_code == status, answer.text
    sentence: str = answer.json()["error"]
    assert sentence
    return sentence


def listed(browser: TestClient) -> dict[str, list[dict[str, Any]]]:
    """``GET /api/challenges``."""
    answer = browser.get("/api/challenges")
    assert answer.status_code == 200, answer.text
    found: dict[str, list[dict[str, Any]]] = answer.json()
    return found


def notice(ws: WebSocketTestSession, kind: str) -> dict[str, Any]:
    """The next message of a player socket, which must be of ``kind``: its challenge."""
    message = ws.receive_json()
    assert message["type"] == kind, message
    found: dict[str, Any] = message["challenge"]
    return found


def me_socket(browser: TestClient, **headers: str) -> Any:
    """The browser's player socket, its ``hello`` read."""
    return browser.websocket_connect("/ws/me", headers=headers)


def hello(ws: WebSocketTestSession, name: str) -> None:
    """The socket's first message greets ``name``."""
    assert ws.receive_json() == {"type": "hello", "player": name}


# ---------------------------------------------------------------------- sending and refusals


def test_a_guest_gets_401_on_every_route_and_nothing_is_stored(app: TestClient) -> None:
    """A guest may not challenge, list, accept, decline or cancel."""
    player(app, "Bob")
    assert "log in" in refused(app.post("/api/challenges", json={"player": "Bob", "clock": FIVE}), 401)
    assert refused(app.get("/api/challenges"), 401)
    for what in ("accept", "decline", "cancel"):
        assert refused(app.post(f"/api/challenges/abc/{what}"), 401)


def test_a_challenge_is_listed_for_both_and_heard_at_once_by_the_challenged(app: TestClient) -> None:
    """A 201 with the challenge; the challenged player's socket gets it; both lists show it pending."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    with me_socket(bob) as ws:
        hello(ws, "Bob")
        sent = challenge(ann, player="bob", variant="base", clock=FIVE, rated=True, seat=1)
        assert sent["challenger"] == "Ann" and sent["player"] == "Bob" and sent["state"] == "pending"
        assert sent["clock"] == FIVE and sent["rated"] is True and sent["seat"] == 1
        assert sent["expires_in"] == 300_000
        heard = notice(ws, "challenge")
    assert heard == sent
    assert [c["id"] for c in listed(bob)["incoming"]] == [sent["id"]] and listed(bob)["outgoing"] == []
    assert [c["id"] for c in listed(ann)["outgoing"]] == [sent["id"]] and listed(ann)["incoming"] == []


def test_each_refusal_has_its_status_and_sentence(app: TestClient) -> None:
    """Unknown player 404, oneself 400, a fourth pending 429, a bad variant, clock or rated game 422."""
    ann = player(app, "Ann")
    player(app, "Bob")
    assert "no player called 'Nobody'" in refused(ann.post("/api/challenges", json={"player": "Nobody"}), 404)
    assert "yourself" in refused(ann.post("/api/challenges", json={"player": "ann"}), 400)
    for body in ({"player": "Bob", "variant": "chess"}, {"player": "Bob", "clock": {"initial": 0}},
                 {"player": "Bob", "clock": {"days": 1, "initial": 60}}, {"player": "Bob", "rated": True},
                 {"player": "Bob", "rated": "yes", "clock": FIVE}, {"variant": "base"}):
        assert refused(ann.post("/api/challenges", json=body), 422)
    for _ in range(3):
        challenge(ann, player="Bob", clock=FIVE)
    assert "3 challenges waiting" in refused(ann.post("/api/challenges", json={"player": "Bob"}), 429)
    assert len(listed(ann)["outgoing"]) == 3


# ---------------------------------------------------------------------- blocks are silent


@pytest.mark.parametrize("blocker", ["challenger", "challenged"])
def test_a_block_either_way_answers_as_if_sent_but_the_other_never_sees_it(app: TestClient,
                                                                          blocker: str) -> None:
    """201 as for anyone (a pending challenge in the challenger's list), yet the challenged player's
    socket, list and answers never know of it; a challenge from someone else still reaches them."""
    ann, bob, cid = player(app, "Ann"), player(app, "Bob"), player(app, "Cid")
    put(ann if blocker == "challenger" else bob, "blocks", "Bob" if blocker == "challenger" else "Ann")
    with me_socket(bob) as ws:
        hello(ws, "Bob")
        hidden = challenge(ann, player="Bob", clock=FIVE)
        assert hidden["state"] == "pending"
        seen = challenge(cid, player="Bob", clock=FIVE)
        assert notice(ws, "challenge")["id"] == seen["id"]
    assert [c["id"] for c in listed(bob)["incoming"]] == [seen["id"]]
    assert [c["state"] for c in listed(ann)["outgoing"]] == ["pending"]
    for what in ("accept", "decline"):
        assert "no challenge" in refused(bob.post(f"/api/challenges/{hidden['id']}/{what}"), 404)
    assert listed(ann)["outgoing"][0]["state"] == "pending"


# ---------------------------------------------------------------------- expiry


def test_a_challenge_expires_after_five_minutes(app: TestClient) -> None:
    """Past 300 s a challenge is expired: listed so, 410 to an acceptance, no longer counted in the limit."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    sent = [challenge(ann, player="Bob", clock=FIVE) for _ in range(3)]
    clock_of(app).now = START + timedelta(seconds=299)
    assert {c["state"] for c in listed(bob)["incoming"]} == {"pending"}
    assert listed(bob)["incoming"][0]["expires_in"] == 1000
    clock_of(app).now = START + timedelta(seconds=300)
    assert {c["state"] for c in listed(bob)["incoming"]} == {"expired"}
    assert "expired" in refused(bob.post(f"/api/challenges/{sent[0]['id']}/accept"), 410)
    assert "expired" in refused(ann.post(f"/api/challenges/{sent[1]['id']}/cancel"), 410)
    challenge(ann, player="Bob")


# ---------------------------------------------------------------------- accept, decline, cancel


@pytest.mark.parametrize("rated", [True, False])
def test_accepting_makes_the_table_with_both_accounts_seated(app: TestClient, rated: bool) -> None:
    """The table is a friend game being played, rated as asked, the challenger at the seat asked for;
    the accepter gets the seat cookie, the challenger hears the game's URL and is seated by session."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    service = service_of(app)
    with me_socket(ann) as ws:
        hello(ws, "Ann")
        sent = challenge(ann, player="Bob", clock=FIVE, rated=rated, seat=1)
        answer = bob.post(f"/api/challenges/{sent['id']}/accept")
        assert answer.status_code == 200, answer.text
        accepted = answer.json()
        told = notice(ws, "challenge_accepted")
    game = accepted["game"]
    assert accepted == {"id": sent["id"], "game": game, "seat": 0, "url": f"/game/{game}"}
    assert told["state"] == "accepted" and told["url"] == f"/game/{game}"
    assert f"seat_{game}" in answer.headers["set-cookie"]
    with service.store.use() as session:
        row = session.get(GameRow, game)
        assert row is not None
        ids = {service.accounts.by_name(n).id for n in ("Ann", "Bob")}  # type: ignore[union-attr]
        assert (row.player0, row.player1, row.status, bool(row.rated)) == ("Bob", "Ann", "playing", rated)
        assert {row.account0, row.account1} == ids and row.mode == "friend"
        assert row.clock_initial == 300 and row.clock_increment == 5
    with ann.websocket_connect(socket_path(game)) as ws:
        assert receive_state(ws)["seat"] == 1
    bob.cookies.set(f"seat_{game}", answer.cookies[f"seat_{game}"])
    with bob.websocket_connect(socket_path(game)) as ws:
        assert receive_state(ws)["seat"] == 0
    assert "already accepted" in refused(bob.post(f"/api/challenges/{sent['id']}/accept"), 409)
    assert listed(ann)["outgoing"][0]["game"] == game


def test_declining_tells_the_challenger_why(app: TestClient) -> None:
    """A decline with a reason closes the challenge and is heard by the challenger; a bad reason is 422,
    someone else's decline 404, a second one 409."""
    ann, bob, cid = player(app, "Ann"), player(app, "Bob"), player(app, "Cid")
    sent = challenge(ann, player="Bob", clock=FIVE)
    assert refused(bob.post(f"/api/challenges/{sent['id']}/decline", json={"reason": "boring"}), 422)
    assert refused(cid.post(f"/api/challenges/{sent['id']}/decline", json={"reason": "later"}), 404)
    assert refused(ann.post(f"/api/challenges/{sent['id']}/decline", json={"reason": "later"}), 404)
    with me_socket(ann) as ws:
        hello(ws, "Ann")
        answer = bob.post(f"/api/challenges/{sent['id']}/decline", json={"reason": "too_fast"})
        assert answer.status_code == 200, answer.text
        told = notice(ws, "challenge_declined")
    assert (told["state"], told["reason"]) == ("declined", "too_fast")
    assert listed(ann)["outgoing"][0]["reason"] == "too_fast"
    assert "already declined" in refused(bob.post(f"/api/challenges/{sent['id']}/decline"), 409)


def test_the_challenger_cancels_and_the_challenged_hears_it(app: TestClient) -> None:
    """Only the challenger may cancel; the challenged player's socket hears it; it can no longer be
    accepted, and it frees its place in the limit."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    sent = [challenge(ann, player="Bob") for _ in range(3)]
    assert refused(bob.post(f"/api/challenges/{sent[0]['id']}/cancel"), 404)
    with me_socket(bob) as ws:
        hello(ws, "Bob")
        assert ann.post(f"/api/challenges/{sent[0]['id']}/cancel").status_code == 200
        assert notice(ws, "challenge_cancelled")["state"] == "cancelled"
    assert "cancelled" in refused(bob.post(f"/api/challenges/{sent[0]['id']}/accept"), 409)
    assert refused(bob.post("/api/challenges/" + "x" * 40 + "/accept"), 404)
    challenge(ann, player="Bob")


# ---------------------------------------------------------------------- the player socket


def test_the_player_socket_refuses_a_guest_and_a_foreign_page(app: TestClient) -> None:
    """A guest is told ``not_logged_in`` and closed; a page of another origin ``forbidden_origin``."""
    with app.websocket_connect("/ws/me") as ws:
        receive_error(ws, "not_logged_in")
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == GUEST_CLOSE
    bob = player(app, "Bob")
    with me_socket(bob, origin="http://evil.example") as ws:
        receive_error(ws, "forbidden_origin")
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == FORBIDDEN_ORIGIN_CLOSE


def test_every_tab_of_the_player_hears_and_others_do_not(app: TestClient) -> None:
    """Two sockets of the challenged player both hear the challenge; a third player's hears nothing."""
    ann, bob, cid = player(app, "Ann"), player(app, "Bob"), player(app, "Cid")
    with me_socket(bob) as one, me_socket(bob) as two, me_socket(cid) as other:
        hello(one, "Bob")
        hello(two, "Bob")
        hello(other, "Cid")
        sent = challenge(ann, player="Bob")
        assert notice(one, "challenge")["id"] == notice(two, "challenge")["id"] == sent["id"]
        mine = challenge(bob, player="Cid")
        assert notice(other, "challenge")["id"] == mine["id"]


def test_sending_and_cancelling_again_and_again_is_limited(app: TestClient) -> None:
    """Cancelled challenges count in the sending rate: the eleventh in a minute is refused (429, with
    Retry-After), and nothing is stored."""
    ann = player(app, "Ann")
    player(app, "Bob")
    for _ in range(10):
        sent = challenge(ann, player="Bob")
        assert ann.post(f"/api/challenges/{sent['id']}/cancel").status_code == 200
    answer = ann.post("/api/challenges", json={"player": "Bob"})
    assert "too many challenges" in refused(answer, 429) and int(answer.headers["retry-after"]) > 0
    assert len(listed(ann)["outgoing"]) == 10
