"""Blocks (issue 29, docs/web/community.md): the API and each refusal, Play now never pairing a
blocked pair (either way) while it still pairs others, and a blocked player's chat lines hidden from
the blocker, live and in the history, as a player and as a spectator, but shown to everyone else.
On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from helpers_community import account_game, app_on, names, player, put, url  # noqa: F401  (a fixture)
from helpers_web import receive_state, service_of, socket_path
from sqlalchemy import func, select
from starlette.testclient import TestClient, WebSocketTestSession
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.web.community.blocks import Blocks, either_blocks
from schotten.web.community.relations import FULL
from schotten.web.core.errors import StoreUnavailable
from schotten.web.players.accounts import Accounts
from schotten.web.players.identity import SESSION_COOKIE
from schotten.web.storage.db import BlockRow
from schotten.web.storage.store import Store

FIVE = {"initial": 300, "increment": 5}


@pytest.fixture
def app(tmp_path: Path, url: str) -> Iterator[TestClient]:  # noqa: F811 (the fixture)
    """An app on the test's database (a guest's browser)."""
    with app_on(tmp_path, url) as client:
        yield client


def stored_blocks(app: TestClient) -> int:
    """How many blocks are stored."""
    with service_of(app).store.use() as session:
        return int(session.scalar(select(func.count()).select_from(BlockRow)) or 0)


def error_of(answer: Any, status: int) -> str:
    """The sentence of a refusal that must have ``status``."""
    assert answer.status_code == status, answer.text
    sentence: str = answer.json()["error"]
    return sentence


# ---------------------------------------------------------------------- the API


def test_block_list_and_unblock_are_idempotent(app: TestClient) -> None:
    """A block is stored once however often it is put (204 each time), listed by name (as the account
    spells it, whatever case was sent), and gone after a delete (also 204 when repeated)."""
    ann, _, _ = player(app, "Ann"), player(app, "Bob"), player(app, "Cid")
    for name in ("Bob", "bob", "Cid"):
        assert put(ann, "blocks", name).status_code == 204
    assert names(ann, "blocks") == ["Bob", "Cid"] and stored_blocks(app) == 2
    listed = ann.get("/api/blocks").json()
    assert listed["limit"] == 500 and all(entry["since"] for entry in listed["players"])
    for _ in range(2):
        assert ann.delete("/api/blocks/BOB").status_code == 204
    assert names(ann, "blocks") == ["Cid"] and stored_blocks(app) == 1


def test_a_guest_may_not_block(app: TestClient) -> None:
    """Every block route answers a guest 401 with a sentence, and stores nothing."""
    player(app, "Bob")
    for answer in (app.put("/api/blocks/Bob"), app.delete("/api/blocks/Bob"), app.get("/api/blocks")):
        assert "not logged in" in error_of(answer, 401)
    assert stored_blocks(app) == 0


@pytest.mark.parametrize("name", ["Nobody", "x" * 41, "Bob%00"])
def test_blocking_nobody_is_404(app: TestClient, name: str) -> None:
    """A name no live account has (also one too long, or holding a NUL character) is 404, nothing stored."""
    ann = player(app, "Ann")
    player(app, "Bob")
    assert "there is no player called" in error_of(put(ann, "blocks", name), 404)
    assert "there is no player called" in error_of(ann.delete(f"/api/blocks/{name}"), 404)
    assert stored_blocks(app) == 0


def test_blocking_oneself_is_400(app: TestClient) -> None:
    """Nobody may block (or unblock) themselves."""
    ann = player(app, "Ann")
    assert error_of(put(ann, "blocks", "ann"), 400) == "you cannot block yourself"
    assert error_of(ann.delete("/api/blocks/Ann"), 400) == "you cannot block yourself"
    assert stored_blocks(app) == 0


def test_a_deleted_account_cannot_be_blocked(app: TestClient) -> None:
    """A deleted account is nobody's to block: 404; and it leaves the lists of those who blocked it."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    assert put(ann, "blocks", "Bob").status_code == 204
    deleted = bob.request("DELETE", "/api/account", json={"password": "a long password"})
    assert deleted.status_code == 204, deleted.text
    assert names(ann, "blocks") == []
    assert error_of(put(ann, "blocks", "Bob"), 404)


def test_blocks_are_bounded_per_player(app: TestClient) -> None:
    """One more block than the limit is 400 saying so, and stores nothing; an existing one is still 204."""
    service_of(app).blocks.relations.limit = 2
    ann = player(app, "Ann")
    for name in ("Bob", "Cid", "Dee"):
        player(app, name)
    assert put(ann, "blocks", "Bob").status_code == 204 and put(ann, "blocks", "Cid").status_code == 204
    over = put(ann, "blocks", "Dee")
    assert "the most you may" in error_of(over, 400)
    assert over.json()["say"] == {"text": FULL["block"], "params": {"count": 2}}
    assert put(ann, "blocks", "Cid").status_code == 204
    assert names(ann, "blocks") == ["Bob", "Cid"]


def test_either_blocks_is_both_ways(app: TestClient) -> None:
    """``either_blocks`` (for challenges and tournaments) holds in both directions, and for nobody else."""
    ann = player(app, "Ann")
    player(app, "Bob")
    player(app, "Cid")
    assert put(ann, "blocks", "Bob").status_code == 204
    service = service_of(app)
    ids = {name: ref.id for name in ("Ann", "Bob", "Cid") if (ref := service.accounts.by_name(name))}
    assert either_blocks(service.store, ids["Ann"], ids["Bob"]) and either_blocks(service.store, ids["Bob"],
                                                                                  ids["Ann"])
    assert not either_blocks(service.store, ids["Ann"], ids["Cid"])
    assert service.blocks.either_blocks(ids["Bob"], ids["Ann"]) and not service.blocks.either_blocks(None,
                                                                                                   ids["Ann"])


# ---------------------------------------------------------------------- Play now


def press(browser: TestClient) -> dict[str, Any]:
    """Open the lobby (the pool cookie), then press Play now (base, 5+5, casual): the answer."""
    assert browser.get("/api/play-now").status_code == 200
    answer = browser.post("/api/play-now", json={"variant": "base", "clock": FIVE, "rated": False})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def poll(browser: TestClient) -> dict[str, Any]:
    """How the browser's waiting goes."""
    found: dict[str, Any] = browser.get("/api/play-now").json()
    return found


@pytest.mark.parametrize("blocker", ["Ann", "Bob"])
def test_play_now_never_pairs_a_blocked_pair(app: TestClient, blocker: str) -> None:
    """Ann and Bob, one blocking the other, wait side by side unpaired; Cid, then Dee, are paired with
    them (the longest waiting first), so Play now still pairs everyone else."""
    ann, bob, cid, dee = (player(app, name) for name in ("Ann", "Bob", "Cid", "Dee"))
    blocking, blocked = (ann, "Bob") if blocker == "Ann" else (bob, "Ann")
    assert put(blocking, "blocks", blocked).status_code == 204
    assert press(ann)["status"] == "waiting"
    assert press(bob)["status"] == "waiting"
    assert poll(ann)["status"] == "waiting" and poll(bob)["status"] == "waiting"
    with_cid = press(cid)
    assert with_cid["status"] == "paired" and poll(ann)["game"] == with_cid["game"]
    assert poll(bob)["status"] == "waiting"
    with_dee = press(dee)
    assert with_dee["status"] == "paired" and poll(bob)["game"] == with_dee["game"]


def test_play_now_pairs_them_once_unblocked(app: TestClient) -> None:
    """An unblock lifts it: the two waiting players are paired on their next poll."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    assert put(ann, "blocks", "Bob").status_code == 204
    press(ann)
    assert press(bob)["status"] == "waiting"
    assert ann.delete("/api/blocks/Bob").status_code == 204
    bobs = poll(bob)
    assert bobs["status"] == "paired" and poll(ann)["game"] == bobs["game"]


# ---------------------------------------------------------------------- chat


def chat_lines(ws: WebSocketTestSession, full: bool) -> list[str]:
    """The next message, which must be chat (history if ``full``), presence aside: its texts."""
    message = ws.receive_json()
    while message["type"] == "presence":
        message = ws.receive_json()
    assert message["type"] == "chat" and message["full"] is full, message
    return [line["text"] for line in message["messages"]]


def nothing_more(ws: WebSocketTestSession) -> None:
    """Nothing but presence was sent to ``ws``: the next message is the state it asks for."""
    ws.send_json({"type": "sync"})
    message = ws.receive_json()
    while message["type"] == "presence":
        message = ws.receive_json()
    assert message["type"] == "state", message


def history(browser: TestClient, game: str, token: str | None = None, rooms: int = 1) -> list[list[str]]:
    """The chat history a page of ``browser`` loads from the game's socket: each room's texts."""
    with browser.websocket_connect(socket_path(game, token)) as ws:
        receive_state(ws)
        found = [chat_lines(ws, full=True) for _ in range(rooms)]
        nothing_more(ws)
        return found


def test_a_blocked_player_s_lines_are_hidden_from_the_blocker_live_and_in_history(app: TestClient) -> None:
    """Ann blocks Bob: his line reaches his own socket (he sees nothing different) but not Ann's; hers
    reach both; the history Ann loads has hers only, Bob's has both."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    assert put(ann, "blocks", "Bob").status_code == 204
    game, tokens = account_game(ann, bob)
    with ann.websocket_connect(socket_path(game, tokens[0])) as ann_ws, \
            bob.websocket_connect(socket_path(game, tokens[1])) as bob_ws:
        receive_state(ann_ws)
        receive_state(bob_ws)
        bob_ws.send_json({"type": "chat", "text": "you are bad"})
        assert chat_lines(bob_ws, full=False) == ["you are bad"]
        nothing_more(ann_ws)
        ann_ws.send_json({"type": "chat", "text": "good luck"})
        assert chat_lines(ann_ws, full=False) == ["good luck"]
        assert chat_lines(bob_ws, full=False) == ["good luck"]
    assert history(ann, game, tokens[0]) == [["good luck"]]
    assert history(bob, game, tokens[1]) == [["you are bad", "good luck"]]


def test_a_block_made_during_the_game_hides_the_next_lines_at_once(app: TestClient) -> None:
    """Ann's socket is open when she blocks Bob (from another tab): his next line does not reach her;
    once she unblocks him, the one after does."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    game, tokens = account_game(ann, bob)
    with ann.websocket_connect(socket_path(game, tokens[0])) as ann_ws, \
            bob.websocket_connect(socket_path(game, tokens[1])) as bob_ws:
        receive_state(ann_ws)
        receive_state(bob_ws)
        bob_ws.send_json({"type": "chat", "text": "one"})
        assert chat_lines(ann_ws, full=False) == ["one"] == chat_lines(bob_ws, full=False)
        assert put(ann, "blocks", "Bob").status_code == 204
        bob_ws.send_json({"type": "chat", "text": "two"})
        assert chat_lines(bob_ws, full=False) == ["two"]
        nothing_more(ann_ws)
        assert ann.delete("/api/blocks/Bob").status_code == 204
        bob_ws.send_json({"type": "chat", "text": "three"})
        assert chat_lines(ann_ws, full=False) == ["three"] == chat_lines(bob_ws, full=False)


def test_a_spectator_who_blocks_a_player_does_not_see_their_lines(app: TestClient) -> None:
    """Once the game is over its spectators get the players' chat: Dee, who blocks Bob, gets Ann's lines
    only, live and in the history; Cid, signed in, and a guest get both."""
    ann, bob, cid, dee = (player(app, name) for name in ("Ann", "Bob", "Cid", "Dee"))
    assert put(dee, "blocks", "Bob").status_code == 204
    game, tokens = account_game(ann, bob)
    with ann.websocket_connect(socket_path(game, tokens[0])) as ann_ws, \
            bob.websocket_connect(socket_path(game, tokens[1])) as bob_ws, \
            dee.websocket_connect(socket_path(game)) as dee_ws:
        for ws in (ann_ws, bob_ws, dee_ws):
            receive_state(ws)
        bob_ws.send_json({"type": "chat", "text": "from Bob"})
        ann_ws.send_json({"type": "chat", "text": "from Ann"})
        for ws in (ann_ws, bob_ws):
            assert chat_lines(ws, full=False) == ["from Bob"]
            assert chat_lines(ws, full=False) == ["from Ann"]
        ann_ws.send_json({"type": "resign"})
        message = dee_ws.receive_json()
        while message["type"] != "chat":
            message = dee_ws.receive_json()
        assert message["room"] == "players" and [line["text"] for line in message["messages"]] == ["from Ann"]
        bob_ws.send_json({"type": "chat", "text": "gg"})
        ann_ws.send_json({"type": "chat", "text": "thanks"})
        message = dee_ws.receive_json()
        while message["type"] != "chat":
            message = dee_ws.receive_json()
        assert [line["text"] for line in message["messages"]] == ["thanks"]
    assert history(dee, game) == [["from Ann", "thanks"]]
    assert history(cid, game) == [["from Bob", "from Ann", "gg", "thanks"]]
    guest = TestClient(app.app, base_url=str(app.base_url))
    guest.portal = app.portal
    assert history(guest, game) == [["from Bob", "from Ann", "gg", "thanks"]]


def test_a_stale_session_cookie_is_a_guest_spectator(app: TestClient) -> None:
    """A spectator whose session cookie names no session reads as a guest: every line is shown."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    game, tokens = account_game(ann, bob)
    with ann.websocket_connect(socket_path(game, tokens[0])) as ann_ws:
        receive_state(ann_ws)
        ann_ws.send_json({"type": "resign"})
        assert receive_state(ann_ws)["status"] == "over"
        ann_ws.send_json({"type": "chat", "text": "over"})
        assert chat_lines(ann_ws, full=False) == ["over"]
    stranger = TestClient(app.app, base_url=str(app.base_url))
    stranger.portal = app.portal
    stranger.cookies.set(SESSION_COOKIE, "no-such-session")
    assert history(stranger, game) == [["over"]]


def test_a_blocked_spectator_s_lines_are_hidden_from_a_spectator_who_blocks_them(app: TestClient) -> None:
    """Eve, signed in, watches and chats in the spectators' room: Dee, who blocks her, does not get her
    lines (live, in the history, or after a restart reads them back from the database); a guest
    spectator gets them all."""
    ann, bob, dee, eve = (player(app, name) for name in ("Ann", "Bob", "Dee", "Eve"))
    assert put(dee, "blocks", "Eve").status_code == 204
    game, _ = account_game(ann, bob)
    with dee.websocket_connect(socket_path(game)) as dee_ws, \
            eve.websocket_connect(socket_path(game)) as eve_ws:
        receive_state(dee_ws)
        receive_state(eve_ws)
        eve_ws.send_json({"type": "chat", "text": "I am Eve", "name": "Eve"})
        assert chat_lines(eve_ws, full=False) == ["I am Eve"]
        nothing_more(dee_ws)
        dee_ws.send_json({"type": "chat", "text": "I am Dee", "name": "Dee"})
        assert chat_lines(dee_ws, full=False) == ["I am Dee"] == chat_lines(eve_ws, full=False)
    assert history(dee, game) == [["I am Dee"]]
    service = service_of(app)
    service.games.pop(game)
    assert history(dee, game) == [["I am Dee"]]
    guest = TestClient(app.app, base_url=str(app.base_url))
    guest.portal = app.portal
    assert history(guest, game) == [["I am Eve", "I am Dee"]]


# ---------------------------------------------------------------------- what a process knows


def test_a_block_made_through_another_process_is_known_within_the_refresh(tmp_path: Path) -> None:
    """Two processes' ``Blocks`` on one database: Ann's socket is here, her block is made there; here
    answers from what it read until ``refresh`` has passed, then reads her blocks again (in the
    background) and hides Bob's lines; a reader forgotten (``cached``) is read again the same way."""
    store = Store(f"sqlite:///{tmp_path / 'games.db'}")
    store.create_schema()
    accounts = Accounts(store, 3600.0)
    ann, bob, cid = (accounts.sign_up(name, "a long password") for name in ("Ann", "Bob", "Cid"))
    here, there = Blocks(store, cached=1, refresh=0.05), Blocks(store)

    async def until_hidden(reader: int, author: int) -> None:
        for _ in range(200):
            if here.hides(reader, author):
                return
            await asyncio.sleep(0.01)
        raise AssertionError("never read again")

    async def scenario() -> None:
        await here.know(ann.id)
        assert not here.hides(ann.id, bob.id)
        await there.block(ann, "Bob", datetime.now(UTC))
        assert there.either_blocks(ann.id, bob.id) and not here.hides(ann.id, bob.id)
        await until_hidden(ann.id, bob.id)
        await here.know(cid.id)
        assert not here.hides(ann.id, bob.id)
        await until_hidden(ann.id, bob.id)

    try:
        asyncio.run(scenario())
    finally:
        store.close()


def test_a_block_from_another_site_is_refused(app: TestClient) -> None:
    """A PUT or DELETE sent by a page of another origin is 403 (the edge's origin check): nothing changes."""
    ann = player(app, "Ann")
    player(app, "Bob")
    assert ann.put("/api/blocks/Bob", headers={"origin": "https://evil.example"}).status_code == 403
    assert stored_blocks(app) == 0
    assert put(ann, "blocks", "Bob").status_code == 204
    assert ann.delete("/api/blocks/Bob", headers={"origin": "https://evil.example"}).status_code == 403
    assert stored_blocks(app) == 1


def test_a_spectator_is_refused_while_the_database_cannot_say_whom_they_block(
        app: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """When a signed-in spectator's blocks cannot be read, their socket is refused ``unavailable`` (close
    1013, try again) rather than served lines they may have blocked."""
    ann, bob, dee = (player(app, name) for name in ("Ann", "Bob", "Dee"))
    game, _ = account_game(ann, bob)

    def broken(_reader: int) -> frozenset[int]:
        raise StoreUnavailable("the database is down")

    monkeypatch.setattr(service_of(app).blocks.relations, "ids", broken)
    with dee.websocket_connect(socket_path(game)) as ws:
        message = ws.receive_json()
        assert message["type"] == "error" and message["code"] == "unavailable", message
        closed = ws.receive()
        assert closed["type"] == "websocket.close" and closed["code"] == 1013
