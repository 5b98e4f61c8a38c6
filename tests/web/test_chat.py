"""The chat over real WebSockets (docs/web/chat.md): the two rooms and who gets each, the checks on
a message, the rate, mutes, history on connecting and after a restart, and the AI table.

A socket's messages come in order, so "nothing else was sent" is checked by asking for the state
(``Duel.sync``, ``quiet``): the next message must be that state, unchanged.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest
from helpers_web import (
    SEED,
    Duel,
    Message,
    choose,
    create,
    receive_error,
    receive_state,
    service_of,
    socket_path,
)
from starlette.testclient import TestClient, WebSocketTestSession

from schotten.web import create_app
from schotten.web.core.errors import StoreUnavailable
from schotten.web.core.messages import QUICK_MESSAGES
from schotten.web.core.settings import WebSettings

LINE_KEYS = {"index", "seat", "name", "text", "quick", "time"}


def say(ws: WebSocketTestSession, **body: Any) -> None:
    """Send a chat message."""
    ws.send_json({"type": "chat"} | body)


def receive_chat(ws: WebSocketTestSession, room: str = "players", full: bool = False) -> list[Message]:
    """The next message, which must be a chat message of ``room`` (history if ``full``); its lines."""
    message: Message = ws.receive_json()
    while message["type"] == "presence":
        message = ws.receive_json()
    assert message["type"] == "chat", message
    assert message["room"] == room and message["full"] is full, message
    assert set(message) == {"type", "room", "full", "messages"}
    for line in message["messages"]:
        assert set(line) == LINE_KEYS, line
        assert datetime.fromisoformat(line["time"]).utcoffset() is not None
    lines: list[Message] = message["messages"]
    return lines


def texts(lines: list[Message]) -> list[str | None]:
    """What each line says (its text, or its quick key)."""
    return [line["text"] if line["quick"] is None else line["quick"] for line in lines]


def quiet(duel: Duel, *seats: int | None) -> None:
    """Nothing was sent to these seats' sockets but what the test read: the next is the state asked for."""
    for seat in seats:
        duel.sync(seat)


def exchange(duel: Duel, seat: int, text: str) -> Message:
    """``seat`` says ``text``: both seats get it (the spectator does not); the line."""
    say(duel.sockets[seat], text=text)
    got = [receive_chat(duel.sockets[s]) for s in (0, 1)]
    assert got[0] == got[1] and len(got[0]) == 1
    quiet(duel, None)
    return got[0][0]


def test_two_players_exchange_messages(client: TestClient) -> None:
    """Each message reaches both seats (the author's own copy is its acknowledgement), numbered from 0,
    under the seat's nickname; the spectators get none of it while the game is played."""
    with Duel(client) as duel:
        first = exchange(duel, 0, "hello Bob")
        assert first | {"time": None} == {"index": 0, "seat": 0, "name": "Ann", "text": "hello Bob",
                                          "quick": None, "time": None}
        second = exchange(duel, 1, "  hi Ann  ")
        assert (second["index"], second["seat"], second["name"], second["text"]) == (1, 1, "Bob", "hi Ann")
        quiet(duel, 0, 1)


def test_history_on_connecting(client: TestClient) -> None:
    """A socket gets its state, then the history of its room; a spectator does not get the players'."""
    with Duel(client) as duel:
        for i in range(3):
            exchange(duel, i % 2, f"line {i}")
        with client.websocket_connect(socket_path(duel.id, duel.tokens[1])) as ws:
            assert receive_state(ws)["seat"] == 1
            lines = receive_chat(ws, full=True)
            assert texts(lines) == ["line 0", "line 1", "line 2"] and [x["index"] for x in lines] == [0, 1, 2]
        with client.websocket_connect(socket_path(duel.id)) as ws:
            assert receive_state(ws)["seat"] is None
            ws.send_json({"type": "sync"})
            assert receive_state(ws)["seat"] is None


def test_history_keeps_the_last_messages(settings: WebSettings) -> None:
    """Only the last ``chat_history`` messages of a room are sent on connecting."""
    with TestClient(create_app(replace(settings, chat_history=2, chat_rate="100/second"))) as client, \
            Duel(client) as duel:
        for i in range(4):
            exchange(duel, 0, f"line {i}")
        with client.websocket_connect(socket_path(duel.id, duel.tokens[0])) as ws:
            receive_state(ws)
            assert [x["index"] for x in receive_chat(ws, full=True)] == [2, 3]


def test_a_game_s_chat_holds_at_most_chat_lines_per_game(settings: WebSettings) -> None:
    """Three lines in all (both rooms together): the fourth is refused with ``limit`` saying so, nothing
    stored or sent; after a restart the stored count still holds; the history kept in memory stays
    within ``chat_history``."""
    capped = replace(settings, chat_lines_per_game=3, chat_history=2, chat_rate="100/second")
    with TestClient(create_app(capped)) as client, Duel(client) as duel:
        for i in range(3):
            exchange(duel, i % 2, f"line {i}")
        error = duel.refused(0, {"type": "chat", "text": "one more"}, "limit")
        assert "3 chat messages" in error["message"] and error["say"]["params"] == {"limit": 3}
        quiet(duel, 0, 1, None)
        assert all(len(room) <= 2 for room in service_of(client).games[duel.id].chat.rooms.values())
        game_id, token = duel.id, duel.tokens[1]
    with TestClient(create_app(capped)) as client:
        with client.websocket_connect(socket_path(game_id, token)) as ws:
            receive_state(ws)
            receive_chat(ws, full=True)
            say(ws, text="after the restart")
            assert receive_error(ws, "limit")["say"]["params"] == {"limit": 3}
        assert len(service_of(client).store.chat_lines(game_id, "players", 100)) == 3


def test_at_most_300_characters(client: TestClient) -> None:
    """300 characters are sent (outer spaces not counted); 301, or none, are refused and change nothing."""
    with Duel(client) as duel:
        assert exchange(duel, 0, "é" * 300)["text"] == "é" * 300
        assert exchange(duel, 1, "  " + "x" * 300 + " ")["text"] == "x" * 300
        error = duel.refused(0, {"type": "chat", "text": "x" * 301}, "cannot_chat")
        assert "1 to 300 characters" in error["message"] and "301" in error["message"]
        for empty in ("", "   "):
            duel.refused(1, {"type": "chat", "text": empty}, "cannot_chat")
        quiet(duel, 0, 1, None)


@pytest.mark.parametrize("char", ["\n", "\x07", "\x1b", "\u200b", "\u202e", "\ue000", "\x01"])
def test_control_and_formatting_characters_are_refused(client: TestClient, char: str) -> None:
    """One line of text: control, invisible formatting and private-use characters are refused, named."""
    with Duel(client) as duel:
        error = duel.refused(0, {"type": "chat", "text": f"a{char}b"}, "cannot_chat")
        assert f"U+{ord(char):04X}" in error["message"]
        quiet(duel, 1, None)


def test_a_lone_surrogate_is_refused(client: TestClient) -> None:
    """JSON may spell half a UTF-16 pair; it is no character: the message is refused as it is read."""
    with Duel(client) as duel:
        error = duel.refused(0, '{"type": "chat", "text": "a\\ud800b"}', "bad_message")
        assert "text" in error["message"] and "unicode" in error["message"]
        quiet(duel, 1, None)


def test_html_is_kept_as_text(client: TestClient) -> None:
    """The server neither escapes nor strips markup: it sends back what was written (the page shows
    it as text), live, in the history and in the database."""
    markup = '<script>alert("x")</script><img src=x onerror=alert(1)> &amp; \'quoted\''
    with Duel(client) as duel:
        assert exchange(duel, 0, markup)["text"] == markup
        with client.websocket_connect(socket_path(duel.id, duel.tokens[1])) as ws:
            receive_state(ws)
            assert texts(receive_chat(ws, full=True)) == [markup]
        stored = service_of(client).store.chat_lines(duel.id, "players", 10)
        assert [row[3] for row in stored] == [markup]


def test_flooding_is_refused_by_the_rate(client: TestClient) -> None:
    """``chat_rate`` (5 per 10 s) per seat: the sixth message is refused with ``limit`` saying the wait,
    is not stored or sent, and the game's state is unchanged; the other seat may still chat."""
    with Duel(client) as duel:
        for i in range(5):
            exchange(duel, 0, f"spam {i}")
        error = duel.refused(0, {"type": "chat", "text": "spam 5"}, "limit")
        assert "5 per 10 second" in error["message"] and "wait" in error["message"]
        duel.refused(0, {"type": "chat", "quick": "oops"}, "limit")
        quiet(duel, 1, None)
        exchange(duel, 1, "calm down")
        lines = service_of(client).store.chat_lines(duel.id, "players", 100)
        assert [row[3] for row in lines] == [f"spam {i}" for i in range(5)] + ["calm down"]


def test_spectators_are_rated_per_socket_and_per_address(client: TestClient) -> None:
    """A spectator's rate is counted for its socket and its address: a second socket from the same
    address cannot go on where the first was stopped."""
    with Duel(client) as duel:
        watcher = duel.sockets[None]
        for i in range(5):
            say(watcher, text=f"watch {i}")
            receive_chat(watcher, "spectators")
        duel.refused(None, {"type": "chat", "text": "more"}, "limit")
        with client.websocket_connect(socket_path(duel.id)) as other:
            receive_state(other)
            assert len(receive_chat(other, "spectators", full=True)) == 5
            say(other, text="me too")
            assert "your address" in receive_error(other, "limit")["message"]
        quiet(duel, 0, 1)


def test_mute_hides_the_other_players_messages_until_unmuted(client: TestClient) -> None:
    """A seat that mutes gets its state and the players' history without the other's messages, is sent
    none of them live nor on connecting (the mute is stored), and gets them all back on unmuting."""
    with Duel(client) as duel:
        ann, bob = duel.sockets[0], duel.sockets[1]
        exchange(duel, 1, "b1")
        exchange(duel, 0, "a1")
        ann.send_json({"type": "mute", "muted": True})
        duel.muted[0] = True
        assert receive_state(ann)["version"] == duel.version
        assert texts(receive_chat(ann, full=True)) == ["a1"]
        quiet(duel, 1, None)
        authority = service_of(client).authority
        assert authority.chat.muted(authority.games[duel.id], 0)
        assert service_of(client).store.chat_mutes(duel.id) == {0}
        say(bob, text="b2")
        assert texts(receive_chat(bob)) == ["b2"]
        quiet(duel, 0, None)
        say(ann, text="a2")
        assert texts(receive_chat(ann)) == texts(receive_chat(bob)) == ["a2"]
        with client.websocket_connect(socket_path(duel.id, duel.tokens[0])) as again:
            receive_state(again)
            assert texts(receive_chat(again, full=True)) == ["a1", "a2"]
        ann.send_json({"type": "mute", "muted": False})
        duel.muted[0] = False
        assert receive_state(ann)["version"] == duel.version
        assert texts(receive_chat(ann, full=True)) == ["b1", "a1", "b2", "a2"]
        assert service_of(client).store.chat_mutes(duel.id) == set()
        quiet(duel, 0, 1, None)


def test_spectators_cannot_mute(client: TestClient) -> None:
    """Only a seat has another player to mute."""
    with Duel(client) as duel:
        duel.refused(None, {"type": "mute", "muted": True}, "spectator")


def test_spectators_chat_reaches_players_only_once_the_game_is_over(client: TestClient) -> None:
    """While the game is played no message a seat's socket gets is of the spectators' room (every one
    is read: ``Duel`` insists each is the state); at the end each side gets the other room's history,
    and from then on everyone gets both rooms."""
    with Duel(client) as duel:
        watcher = duel.sockets[None]
        rng = random.Random(5)
        said = 0
        while not duel.state.is_over:
            if len(duel.state.history) % 7 == 0 and said < 4:
                say(watcher, text=f"psst {said}", name="Zoé")
                assert texts(receive_chat(watcher, "spectators")) == [f"psst {said}"]
                exchange(duel, duel.state.turn, f"move {said}")
                said += 1
            duel.play(choose(duel.messages[duel.state.turn][-1], rng))
        assert said >= 2, "choose another seed"
        for seat in (0, 1):
            lines = receive_chat(duel.sockets[seat], "spectators", full=True)
            assert texts(lines) == [f"psst {i}" for i in range(said)]
            assert {(x["seat"], x["name"]) for x in lines} == {(None, "Zoé")}
        assert texts(receive_chat(watcher, "players", full=True)) == [f"move {i}" for i in range(said)]
        say(watcher, text="well played!")
        for ws in duel.sockets.values():
            assert texts(receive_chat(ws, "spectators")) == ["well played!"]
        say(duel.sockets[0], quick="good_game")
        for ws in duel.sockets.values():
            assert texts(receive_chat(ws, "players")) == ["good_game"]
        with client.websocket_connect(socket_path(duel.id, duel.tokens[1])) as late:
            receive_state(late)
            assert len(receive_chat(late, "players", full=True)) == said + 1
            assert len(receive_chat(late, "spectators", full=True)) == said + 1
        quiet(duel, 0, 1, None)


def _wait_for_the_human(ws: WebSocketTestSession) -> Message:
    """Read states until it is the human's decision (the AI has nothing more to do)."""
    message = receive_state(ws)
    while not message["legal"]:
        message = receive_state(ws)
    return message


def test_no_chat_with_the_ai(client: TestClient) -> None:
    """At an AI table the human seat can neither chat nor mute; spectators chat among themselves and
    the human never gets their room while the game is played."""
    grant = create(client, mode="ai", level="easy", seat=0)
    with client.websocket_connect(socket_path(grant["id"], grant["token"])) as human, \
            client.websocket_connect(socket_path(grant["id"])) as watcher:
        state = _wait_for_the_human(human)
        say(human, text="hello AI")
        assert "AI" in receive_error(human, "cannot_chat")["message"]
        say(human, quick="good_luck")
        receive_error(human, "cannot_chat")
        human.send_json({"type": "mute", "muted": True})
        receive_error(human, "cannot_chat")
        message = receive_state(watcher)
        while message["version"] < state["version"]:
            message = receive_state(watcher)
        say(watcher, text="the AI is winning")
        assert texts(receive_chat(watcher, "spectators")) == ["the AI is winning"]
        human.send_json({"type": "sync"})
        assert receive_state(human)["version"] == state["version"]
    assert service_of(client).store.chat_lines(grant["id"], "players", 10) == []


@pytest.mark.parametrize("key", QUICK_MESSAGES)
def test_quick_messages_are_sent_as_keys(client: TestClient, key: str) -> None:
    """A quick message is its key (each page words it in its reader's language), never a text."""
    with Duel(client) as duel:
        say(duel.sockets[1], quick=key)
        lines = [receive_chat(duel.sockets[s]) for s in (0, 1)]
        assert lines[0] == lines[1]
        assert (lines[0][0]["text"], lines[0][0]["quick"], lines[0][0]["name"]) == (None, key, "Bob")


BAD_CHATS: list[tuple[Any, str, str]] = [
    ({"type": "chat", "quick": "good_bye"}, "bad_message", "quick"),
    ({"type": "chat", "quick": "Hello"}, "bad_message", "quick"),
    ({"type": "chat", "text": "hi", "quick": "hello"}, "cannot_chat", "not both"),
    ({"type": "chat"}, "cannot_chat", "good_luck"),
    ({"type": "chat", "text": None}, "cannot_chat", '"text" or a "quick"'),
    ({"type": "chat", "text": 3}, "bad_message", "text"),
    ({"type": "chat", "text": ["hi"]}, "bad_message", "text"),
    ({"type": "chat", "text": "x" * 2001}, "bad_message", "text"),
    ({"type": "mute"}, "bad_message", "muted"),
    ({"type": "mute", "muted": "yes"}, "bad_message", "muted"),
    ({"type": "mute", "muted": 1}, "bad_message", "muted"),
]


@pytest.mark.parametrize(("payload", "code", "says"), BAD_CHATS, ids=lambda p: json.dumps(p)[:40])
def test_bad_chat_messages_get_clear_errors(client: TestClient, payload: Any, code: str, says: str) -> None:
    """A chat or mute message that is not one gets an error naming what is wrong; nothing is sent."""
    with Duel(client) as duel:
        error = duel.refused(0, payload, code)
        assert says in error["message"]
        quiet(duel, 1, None)
        assert service_of(client).store.chat_lines(duel.id, "players", 10) == []


def test_a_spectators_name(client: TestClient) -> None:
    """A spectator writes as "spectator" or under the name it gives, cleaned like a nickname (a bad
    one refused, named); a seat always writes under its nickname."""
    with Duel(client) as duel:
        watcher = duel.sockets[None]
        say(watcher, text="one")
        say(watcher, text="two", name="  Zoé   Li ")
        assert [receive_chat(watcher, "spectators")[0]["name"] for _ in range(2)] == ["spectator", "Zoé Li"]
        error = duel.refused(None, {"type": "chat", "text": "three", "name": "Z\u202eoé"}, "cannot_chat")
        assert "U+202E" in error["message"]
        duel.refused(None, {"type": "chat", "text": "four", "name": "x" * 25}, "cannot_chat")
        say(duel.sockets[0], text="me", name="Mallory")
        assert receive_chat(duel.sockets[0])[0]["name"] == "Ann"
        receive_chat(duel.sockets[1])


def test_nothing_is_sent_before_it_is_stored(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A message the database cannot store now is refused with ``unavailable`` and reaches nobody."""
    store = service_of(client).store

    def broken(*_args: Any) -> int:
        raise StoreUnavailable("the database is locked")

    with Duel(client) as duel:
        monkeypatch.setattr(store, "add_chat", broken)
        duel.refused(0, {"type": "chat", "text": "lost"}, "unavailable")
        quiet(duel, 1, None)
        monkeypatch.undo()
        assert exchange(duel, 0, "kept")["index"] == 0


def test_chat_survives_a_restart(settings: WebSettings) -> None:
    """A new app on the same database sends the same history (quick messages as keys), keeps the
    mutes, and numbers new messages on from the stored ones."""
    with TestClient(create_app(settings)) as client, Duel(client, seed=SEED + 1) as duel:
        exchange(duel, 0, "before")
        say(duel.sockets[1], quick="thanks")
        receive_chat(duel.sockets[0])
        receive_chat(duel.sockets[1])
        say(duel.sockets[None], text="watching")
        receive_chat(duel.sockets[None], "spectators")
        duel.sockets[1].send_json({"type": "mute", "muted": True})
        duel.muted[1] = True
        receive_state(duel.sockets[1])
        receive_chat(duel.sockets[1], full=True)
    with TestClient(create_app(settings)) as client:
        duel.reconnect(client)
        with duel:
            assert texts(receive_chat(duel.sockets[0], full=True)) == ["before", "thanks"]
            assert texts(receive_chat(duel.sockets[1], full=True)) == ["thanks"]
            assert texts(receive_chat(duel.sockets[None], "spectators", full=True)) == ["watching"]
            say(duel.sockets[0], text="after")
            assert receive_chat(duel.sockets[0])[0]["index"] == 3
            quiet(duel, 1, None)
