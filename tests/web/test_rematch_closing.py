"""Rematch offers withdrawn by the player who asked, or declined by the other (docs/web/games.md, Rematch).

Closing an offer closes its table (never joinable again, left out of the lobby), tells every
socket of both tables at once, and is kept across a restart, also on a database made before
offers could be closed. Either player may then ask again: a new offer at a new table. Bad
answers (spectators, forged tokens, the wrong player, too late, unknown ids) are refused and
change nothing; double and concurrent answers are idempotent.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers_web import (
    Duel,
    Message,
    expected_state,
    receive_error,
    receive_state,
    service_of,
    socket_path,
    test_settings,
)
from sqlalchemy import text
from starlette.testclient import TestClient
from test_rematch import ask, finish, finished_game, granted, seated

from schotten.web import create_app
from schotten.web.core.errors import ServiceError
from schotten.web.core.offer import Offer, OfferState
from schotten.web.core.settings import WebSettings
from schotten.web.rematch.rematcher import MAX_REMATCH_OFFERS

CLOSED_KEYS = {"id", "by", "reason"}


def answer(client: TestClient, game_id: str, what: str, token: str | None = None,
           offer: str | None = None) -> Any:
    """POST a withdrawal or a decline (``what``) with a token and the offer meant, if given; the
    client's cookies are then forgotten, as if each request came from another browser."""
    body = {key: value for key, value in (("token", token), ("rematch", offer)) if value is not None}
    response = client.post(f"/api/games/{game_id}/rematch/{what}", json=body)
    client.cookies.clear()
    return response


def closed(response: Any, offer: str, by: int, reason: str) -> Message:
    """The answer of a successful withdrawal or decline: the offer, who asked, why it was closed."""
    assert response.status_code == 200, response.text
    body: Message = response.json()
    assert body == {"id": offer, "by": by, "reason": reason}
    return body


def refused(response: Any, status: int, words: str) -> None:
    """A refused request: its status and a clear message holding ``words``."""
    assert response.status_code == status, response.text
    assert words in response.json()["error"], response.text


def seen(duel: Duel, seat: int | None, rematch: Message | None, rematch_closed: Message | None,
         told: bool = True) -> Message:
    """The finished game's state message for ``seat`` with this rematch and closed offer: a change
    ``told`` to the sockets there (no new log entries), else the whole state (a socket opened now)."""
    start = len(duel.state.history) if told else 0
    state = expected_state(duel.state, seat, duel.version, duel.players, "over", start)
    return state | {"rematch": rematch, "rematch_closed": rematch_closed}


def table(client: TestClient, game_id: str) -> Message:
    """A game's table as the API gives it."""
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    body: Message = response.json()
    return body


def lobby_ids(client: TestClient) -> set[str]:
    """The ids the lobby lists."""
    return {t["id"] for t in client.get("/api/tables").json()["tables"]}


def game_count(client: TestClient) -> int:
    """How many games the database holds (closed rematch tables included: the lobby leaves them out)."""
    with service_of(client).store.engine.connect() as connection:
        return int(connection.scalar(text("SELECT count(*) FROM games")) or 0)


def offer_made(client: TestClient, seat: int = 0) -> tuple[Duel, Message]:
    """A finished game (sockets closed) whose player ``seat`` asked for a rematch: (duel, grant)."""
    duel = finished_game(client)
    return duel, granted(ask(client, duel.id, duel.tokens[seat]), seat=seat)


# ---------------------------------------------------------------------- withdrawing and declining


@pytest.mark.parametrize("asker", [0, 1])
def test_the_asker_withdraws_and_every_socket_is_told(client: TestClient, asker: int) -> None:
    """The asker withdraws (with the finished game's token): the finished game's sockets no longer
    see an offer and read why; the rematch table's socket sees it closed; the table is gone from
    the lobby and cannot be joined; the other player's late Accept changes nothing (410)."""
    with Duel(client) as duel:
        finish(duel)
        grant = granted(ask(client, duel.id, duel.tokens[asker]), seat=asker)
        offer = {"id": grant["id"], "by": asker, "accepted": False}
        for seat, ws in duel.sockets.items():
            assert receive_state(ws) == seen(duel, seat, offer, None)
        with client.websocket_connect(socket_path(grant["id"], grant["token"])) as at_table:
            assert receive_state(at_table)["status"] == "open"
            closed(answer(client, duel.id, "withdraw", duel.tokens[asker]), grant["id"], asker, "withdrawn")
            shut = {"id": grant["id"], "by": asker, "reason": "withdrawn"}
            for seat, ws in duel.sockets.items():
                assert receive_state(ws) == seen(duel, seat, None, shut)
            message = receive_state(at_table)
            assert message["status"] == "closed" and message["seat"] == asker
            assert message["rematch_closed"] == shut and message["rematch_of"] == duel.id
    assert table(client, grant["id"])["status"] == "closed"
    assert table(client, duel.id)["rematch"] is None
    assert grant["id"] not in lobby_ids(client) and duel.id in lobby_ids(client)
    refused(client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Cy"}), 409, "closed")
    refused(ask(client, duel.id, duel.tokens[1 - asker], offer=grant["id"]), 410, "withdrawn")
    assert table(client, grant["id"])["players"][1 - asker] is None and game_count(client) == 2


def test_the_other_declines_and_the_asker_is_told(client: TestClient) -> None:
    """Bob declines Ann's offer (with his seat's cookie): Ann's socket at the rematch table and her
    socket of the finished game both read that it was declined."""
    duel, grant = offer_made(client)
    ann_table = socket_path(grant["id"], grant["token"])
    with client.websocket_connect(ann_table) as at_table, \
            client.websocket_connect(socket_path(duel.id, duel.tokens[0])) as at_game:
        receive_state(at_table), receive_state(at_game)
        client.cookies.set(f"seat_{duel.id}", duel.tokens[1])
        closed(answer(client, duel.id, "decline", offer=grant["id"]), grant["id"], 0, "declined")
        shut = {"id": grant["id"], "by": 0, "reason": "declined"}
        assert receive_state(at_game) == seen(duel, 0, None, shut)
        message = receive_state(at_table)
        assert (message["status"], message["rematch_closed"]) == ("closed", shut)
    assert seated(client, grant["id"], grant["token"])["rematch_closed"] == shut, "and after a reload"
    assert seated(client, duel.id, duel.tokens[1])["rematch_closed"] == shut


@pytest.mark.parametrize(("how", "again"), [("withdraw", 0), ("withdraw", 1), ("decline", 0), ("decline", 1)])
def test_either_player_may_ask_again(client: TestClient, how: str, again: int) -> None:
    """After a withdrawal or a decline, either player's Play again makes a new offer at a new table
    (the closed one stays closed); the other player accepts it and the rematch starts."""
    duel, grant = offer_made(client)
    answer(client, duel.id, how, duel.tokens[0 if how == "withdraw" else 1])
    second = granted(ask(client, duel.id, duel.tokens[again]), seat=again)
    assert second["id"] != grant["id"] and table(client, grant["id"])["status"] == "closed"
    told = seated(client, duel.id, duel.tokens[1 - again])
    assert told["rematch"] == {"id": second["id"], "by": again, "accepted": False}
    assert told["rematch_closed"] is None, "a new offer makes the closed one old news"
    third = granted(ask(client, duel.id, duel.tokens[1 - again], offer=second["id"]), second["id"], 1 - again)
    assert seated(client, second["id"], third["token"])["status"] == "playing"
    assert table(client, duel.id)["rematch"] == second["id"] and game_count(client) == 3


def test_withdrawing_from_the_rematch_table(client: TestClient) -> None:
    """The asker's page at the rematch table withdraws with that table's token (or its cookie)."""
    duel, grant = offer_made(client, seat=1)
    closed(answer(client, duel.id, "withdraw", grant["token"], grant["id"]), grant["id"], 1, "withdrawn")
    again = granted(ask(client, duel.id, duel.tokens[1]), seat=1)
    client.cookies.set(f"seat_{again['id']}", again["token"])
    closed(answer(client, duel.id, "withdraw"), again["id"], 1, "withdrawn")


# ---------------------------------------------------------------------- bad answers


def snapshot(client: TestClient, duel: Duel, offer: str) -> tuple[Any, ...]:
    """What a refused answer must leave as it was."""
    state = seated(client, duel.id, duel.tokens[0])
    return game_count(client), table(client, offer), table(client, duel.id), state["rematch"], \
        state["rematch_closed"]


def test_bad_answers_are_refused_and_change_nothing(client: TestClient) -> None:
    """Spectators, forged and other games' tokens, the wrong player, unknown games and offers, a
    game in play or against the AI: each refused with a clear error; nothing changes."""
    duel, grant = offer_made(client)
    other, in_play = finished_game(client), Duel(client)
    in_play.close()
    ai = client.post("/api/tables", json={"mode": "ai", "nickname": "Ann", "level": "easy"}).json()
    client.cookies.clear()
    cases = [
        (duel.id, "withdraw", None, None, 403, "spectators"),
        (duel.id, "decline", None, None, 403, "spectators"),
        (duel.id, "withdraw", "forged", None, 403, "not valid"),
        (duel.id, "decline", duel.tokens[1] + "x", None, 403, "not valid"),
        (duel.id, "withdraw", other.tokens[0], None, 403, "not valid"),
        (duel.id, "withdraw", duel.tokens[1], None, 409, "only the player who asked"),
        (duel.id, "decline", duel.tokens[0], None, 409, "withdraw the offer instead"),
        (duel.id, "decline", grant["token"], None, 409, "withdraw the offer instead"),
        (duel.id, "withdraw", duel.tokens[0], "nosuchtable", 404, "no rematch 'nosuchtable'"),
        (duel.id, "withdraw", duel.tokens[0], other.id, 404, "no rematch"),
        ("nosuchgame", "withdraw", duel.tokens[0], None, 404, "nosuchgame"),
        ("nosuchgame", "decline", duel.tokens[1], None, 404, "nosuchgame"),
        (in_play.id, "withdraw", in_play.tokens[0], None, 409, "still being played"),
        (ai["id"], "decline", ai["token"], None, 409, "against the AI"),
        (other.id, "decline", other.tokens[1], None, 409, "nobody asked"),
    ]
    before = snapshot(client, duel, grant["id"])
    for game_id, what, token, offer, status, words in cases:
        response = answer(client, game_id, what, token, offer)
        assert response.status_code == status, (game_id, what, token, offer, response.text)
        refused(response, status, words)
    client.cookies.set(f"seat_{duel.id}", "forged")
    refused(answer(client, duel.id, "withdraw"), 403, "not valid")
    bad = client.post(f"/api/games/{duel.id}/rematch/withdraw", json={"token": duel.tokens[0], "rematch": ""})
    assert bad.status_code == 422
    assert snapshot(client, duel, grant["id"]) == before


def test_too_late_once_the_rematch_has_started(client: TestClient) -> None:
    """Once the other player took the seat, neither a withdrawal nor a decline changes anything."""
    duel, grant = offer_made(client)
    granted(ask(client, duel.id, duel.tokens[1]), grant["id"], 1)
    before = snapshot(client, duel, grant["id"])
    refused(answer(client, duel.id, "withdraw", duel.tokens[0]), 409, "too late")
    refused(answer(client, duel.id, "withdraw", grant["token"], grant["id"]), 409, "too late")
    refused(answer(client, duel.id, "decline", duel.tokens[1]), 409, "too late")
    assert snapshot(client, duel, grant["id"]) == before
    assert table(client, grant["id"])["status"] == "playing"


def test_a_closed_table_takes_no_moves(client: TestClient) -> None:
    """At a closed rematch table a move and an undo are refused on the socket; a spectator sees it closed."""
    duel, grant = offer_made(client)
    answer(client, duel.id, "withdraw", duel.tokens[0])
    with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
        message = receive_state(ws)
        for move in message["view"]["legal"][:1] or ["pass"]:
            ws.send_json({"type": "action", "action": move})
            assert "closed" in receive_error(ws, "illegal_action")["message"]
        ws.send_json({"type": "undo"})
        receive_error(ws, "cannot_undo")
    with client.websocket_connect(socket_path(grant["id"])) as ws:
        assert receive_state(ws)["status"] == "closed"
    assert table(client, grant["id"])["players"] == ["Ann", None]


@pytest.mark.parametrize(("what", "seat", "reason"), [("withdraw", 0, "withdrawn"),
                                                      ("decline", 1, "declined")])
def test_a_closed_table_has_no_replay_nor_record(
        client: TestClient, what: str, seat: int, reason: str) -> None:
    """A closed table never had a game: its replay and record are refused (409) saying so, not as
    a game still being played; asking or answering a rematch of it is refused the same way. The
    finished game's own replay and record are still there."""
    duel, grant = offer_made(client)
    closed(answer(client, duel.id, what, duel.tokens[seat]), grant["id"], 0, reason)
    said = f"this table was closed before its game began (the rematch offer was {reason})"
    requests = {
        "nothing to replay": lambda: client.get(f"/api/games/{grant['id']}/replay"),
        "no game record": lambda: client.get(f"/api/games/{grant['id']}/record"),
        "record to download": lambda: client.get(f"/api/games/{grant['id']}/record?download=1"),
        "rematch of": lambda: ask(client, grant["id"], grant["token"]),
        "game before": lambda: answer(client, grant["id"], "withdraw", grant["token"]),
    }
    for words, send in requests.items():
        response = send()
        refused(response, 409, said)
        assert words in response.json()["error"] and "still being played" not in response.text, words
    assert table(client, grant["id"])["status"] == "closed"
    assert client.get(f"/api/games/{duel.id}/replay").status_code == 200
    assert client.get(f"/api/games/{duel.id}/record").status_code == 200


# ---------------------------------------------------------------------- double clicks, races


def test_double_answers_are_idempotent(client: TestClient) -> None:
    """A second withdrawal answers the same closure; a withdrawal after the other declined answers
    the decline; a late repeat naming an old offer leaves the new one alone."""
    duel, grant = offer_made(client)
    first = closed(answer(client, duel.id, "withdraw", duel.tokens[0]), grant["id"], 0, "withdrawn")
    assert answer(client, duel.id, "withdraw", duel.tokens[0]).json() == first
    assert answer(client, duel.id, "decline", duel.tokens[1]).json() == first, "the offer is gone either way"
    refused(answer(client, duel.id, "decline", duel.tokens[0]), 409, "withdraw the offer instead")
    second = granted(ask(client, duel.id, duel.tokens[0]), seat=0)
    assert answer(client, duel.id, "withdraw", duel.tokens[0], grant["id"]).json() == first
    assert table(client, second["id"])["status"] == "open"
    assert seated(client, duel.id, duel.tokens[1])["rematch"]["id"] == second["id"]
    closed(answer(client, duel.id, "decline", duel.tokens[1], second["id"]), second["id"], 0, "declined")
    assert answer(client, duel.id, "withdraw", duel.tokens[0], second["id"]).json()["reason"] == "declined"


def test_concurrent_answers(client: TestClient) -> None:
    """Answers at the same moment: two withdrawals (one closure), a withdrawal and a decline (the
    first one wins, both succeed), a withdrawal and an acceptance (exactly one of them happens)."""
    service = service_of(client)
    twice, both, race = (offer_made(client) for _ in range(3))
    assert client.portal is not None

    async def answers() -> list[Any]:
        return await asyncio.gather(
            service.withdraw_rematch(twice[0].id, twice[0].tokens[0], {}),
            service.withdraw_rematch(twice[0].id, twice[0].tokens[0], {}),
            service.withdraw_rematch(both[0].id, both[0].tokens[0], {}),
            service.decline_rematch(both[0].id, both[0].tokens[1], {}),
            service.withdraw_rematch(race[0].id, race[0].tokens[0], {}, race[1]["id"]),
            service.rematch(race[0].id, race[0].tokens[1], {}, race[1]["id"]),
            return_exceptions=True,
        )

    one, two, withdrawn, declined, gone, accepted = client.portal.call(answers)
    assert one == two and one.reason == "withdrawn"
    assert withdrawn == declined and withdrawn.reason in ("withdrawn", "declined")
    if isinstance(gone, ServiceError):
        assert gone.status == 409 and accepted.id == race[1]["id"]
        assert table(client, race[1]["id"])["status"] == "playing"
    else:
        assert isinstance(accepted, ServiceError) and accepted.status == 410
        assert table(client, race[1]["id"])["status"] == "closed"
    assert game_count(client) == 6


def test_the_store_never_closes_an_accepted_offer(client: TestClient) -> None:
    """The database is the arbiter: closing an offer whose seat was taken, or taking the seat of a
    closed table, changes nothing."""
    store = service_of(client).store
    duel, grant = offer_made(client)
    assert store.take_seat(grant["id"], 1, "Bob", "b" * 64)
    assert store.close_rematch(duel.id, grant["id"], OfferState.WITHDRAWN) is None
    assert store.rematch_of(duel.id) is not None
    other, offer = offer_made(client)
    assert store.close_rematch(other.id, "nosuchtable", OfferState.WITHDRAWN) is None
    assert store.close_rematch(other.id, offer["id"], OfferState.DECLINED) == Offer(
        offer["id"], other.id, 0, OfferState.DECLINED)
    assert not store.take_seat(offer["id"], 1, "Bob", "b" * 64)
    assert store.close_rematch(other.id, offer["id"], OfferState.WITHDRAWN) is None, "closed once"
    loaded = store.load(offer["id"])
    assert loaded is not None and loaded[0].status == "closed" and loaded[0].rematch_of == other.id


# ---------------------------------------------------------------------- restarts, old databases


def restart_and_check(settings: WebSettings, duel: Duel, grant: Message, reason: str) -> None:
    """A new app on the same database: the closed offer is still closed, said so on both tables,
    kept out of the lobby; a new offer can be made."""
    shut = {"id": grant["id"], "by": 0, "reason": reason}
    with TestClient(create_app(settings)) as client:
        assert seated(client, duel.id, duel.tokens[1]) == seen(duel, 1, None, shut, told=False)
        at_table = seated(client, grant["id"], grant["token"])
        assert (at_table["status"], at_table["rematch_of"], at_table["rematch_closed"]) == (
            "closed", duel.id, shut)
        assert grant["id"] not in lobby_ids(client)
        refused(client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Cy"}), 409, "closed")
        refused(ask(client, duel.id, duel.tokens[1], offer=grant["id"]), 410, "withdrawn or declined")
        again = granted(ask(client, duel.id, duel.tokens[1]), seat=1)
        assert again["id"] != grant["id"]


def test_a_restart_keeps_a_declined_offer(tmp_path: Path) -> None:
    """The closure is in the database: after a restart both pages still say so."""
    settings = test_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        duel, grant = offer_made(client)
        answer(client, duel.id, "decline", duel.tokens[1])
    restart_and_check(settings, duel, grant, "declined")


def test_a_database_from_before_closed_offers(tmp_path: Path) -> None:
    """A SQLite file as the code before closing offers made it (no closed_rematches table), with an
    open offer in it: the table is created on start-up and the offer can be withdrawn."""
    settings = test_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        duel, grant = offer_made(client)
    with sqlite3.connect(tmp_path / "games.db") as db:
        db.execute("DROP TABLE closed_rematches")
    with TestClient(create_app(settings)) as client:
        closed(answer(client, duel.id, "withdraw", duel.tokens[0]), grant["id"], 0, "withdrawn")
    restart_and_check(settings, duel, grant, "withdrawn")


def test_offers_stop_after_too_many_were_closed(client: TestClient) -> None:
    """Once ``MAX_REMATCH_OFFERS`` offers of a game were withdrawn or declined, asking again is
    refused (429) by either player and makes no table."""
    duel = finished_game(client)
    for n in range(MAX_REMATCH_OFFERS):
        asker = n % 2
        grant = granted(ask(client, duel.id, duel.tokens[asker]), seat=asker)
        how, by, reason = ("withdraw", asker, "withdrawn") if n % 3 else ("decline", 1 - asker, "declined")
        closed(answer(client, duel.id, how, duel.tokens[by]), grant["id"], asker, reason)
    games = game_count(client)
    for seat in (0, 1):
        refused(ask(client, duel.id, duel.tokens[seat]), 429, f"{MAX_REMATCH_OFFERS} rematch offers")
        client.cookies.clear()
    assert game_count(client) == games and table(client, duel.id)["rematch"] is None
