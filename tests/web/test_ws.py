"""The game WebSocket (docs/web.md): state messages, every bad input, one action at a time, the AI,
and slow or vanished clients that never hold anyone up.

Every refused message must get its error on that socket and change nothing: ``Duel.refused``
sends it, reads the error, then asks for the state and checks that it is exactly the state
before (the same version, the same view).
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers_web import (
    SEED,
    STATE_KEYS,
    Duel,
    choose,
    create,
    join,
    log_of,
    moves_of,
    next_message,
    receive_error,
    receive_state,
    service_of,
    socket_path,
    test_settings,
)
from starlette.testclient import TestClient

from schotten.web import create_app
from schotten.web.games.sockets import OVERFLOW_CLOSE, Connection, RateLimit

DEEP = "[" * 2000 + "]" * 2000

BAD_JSON = ["nope", "{", "", "{'type': 'sync'}", DEEP]
BAD_MESSAGES: list[Any] = [
    [],
    3,
    "sync",
    None,
    {},
    {"type": "fly"},
    {"type": 3},
    {"type": "action"},
    {"type": "action", "action": 3},
    {"type": "action", "action": ["7b@3"]},
    {"type": "action", "action": "pass", "version": "0"},
    {"type": "action", "action": "pass", "version": True},
    {"type": "action", "action": "pass", "version": 1.5},
    {"type": "action", "action": "x" * 201},
]
UNKNOWN_ACTIONS = [
    "7z@3", "", "   ", "fly", "claim 10", "7b@0", "draw", "take 7b", "return", "XX@3", "7b@3@4",
]


@pytest.mark.parametrize("text", BAD_JSON)
def test_malformed_json_is_refused(client: TestClient, text: str) -> None:
    """Text that is not JSON: error bad_json, nothing changes."""
    with Duel(client) as duel:
        duel.refused(duel.state.turn, text, "bad_json")


@pytest.mark.parametrize("payload", BAD_MESSAGES, ids=lambda p: json.dumps(p)[:30])
def test_malformed_messages_are_refused(client: TestClient, payload: Any) -> None:
    """JSON that is not a message of the protocol: error bad_message, nothing changes."""
    with Duel(client) as duel:
        error = duel.refused(duel.state.turn, json.dumps(payload), "bad_message")
        assert len(error["message"]) < 300


def test_binary_frames_are_refused(client: TestClient) -> None:
    """Messages are JSON text frames: a binary frame is refused."""
    with Duel(client) as duel:
        duel.refused(duel.state.turn, b'{"type": "sync"}', "bad_message")


@pytest.mark.parametrize("action", UNKNOWN_ACTIONS)
def test_unknown_actions_are_refused(client: TestClient, action: str) -> None:
    """Text that is not an action in the notation: error unknown_action, nothing changes."""
    with Duel(client) as duel:
        duel.refused(duel.state.turn, {"type": "action", "action": action}, "unknown_action")


def test_illegal_actions_are_refused_with_the_engines_reason(client: TestClient) -> None:
    """A well-formed action the rules forbid now: error illegal_action naming why (the engine's reason)."""
    with Duel(client) as duel:
        seat = duel.state.turn
        error = duel.refused(seat, {"type": "action", "action": "claim 3"}, "illegal_action")
        assert error["message"] == "claim after playing a card: play (or pass) first (R3.3)"
        error = duel.refused(seat, {"type": "action", "action": "pass"}, "illegal_action")
        assert "(R3.2)" in error["message"]
        error = duel.refused(seat, {"type": "action", "action": "draw clan"}, "illegal_action")
        assert "you must play a card" in error["message"]
        hand = duel.messages[seat][-1]["view"]["hand"]
        missing = next(c for c in ("1g", "2g", "3g", "4g", "5g") if c not in hand)
        error = duel.refused(seat, {"type": "action", "action": f"{missing}@1"}, "illegal_action")
        assert error["message"] == f"you have no {missing} in your hand"


def test_checks_come_in_order_seat_version_turn_then_the_move(client: TestClient) -> None:
    """A message failing several checks gets the first one's error: a spectator before a stale
    version, a stale version before the turn, the turn before the move itself (whose notation and
    legality the engine's checked apply judges)."""
    with Duel(client) as duel:
        waiting, old = 1 - duel.state.turn, duel.version - 1
        duel.refused(None, {"type": "action", "action": "nonsense", "version": old}, "spectator")
        duel.refused(waiting, {"type": "action", "action": "nonsense", "version": old}, "stale")
        duel.refused(waiting, {"type": "action", "action": "nonsense"}, "not_your_turn")
        duel.refused(waiting, {"type": "action", "action": "claim 3"}, "not_your_turn")
        duel.refused(duel.state.turn, {"type": "action", "action": "nonsense"}, "unknown_action")


def test_out_of_turn_and_spectator_actions_are_refused(client: TestClient) -> None:
    """The seat not to move, and a spectator, may not act (nor a spectator undo)."""
    with Duel(client) as duel:
        waiting = 1 - duel.state.turn
        legal = duel.messages[duel.state.turn][-1]["view"]["legal"][0]
        duel.refused(waiting, {"type": "action", "action": legal}, "not_your_turn")
        duel.refused(None, {"type": "action", "action": legal}, "spectator")
        duel.refused(None, {"type": "undo"}, "spectator")
        duel.refused(duel.state.turn, {"type": "undo"}, "cannot_undo")
        duel.refused(waiting, {"type": "undo"}, "cannot_undo")


def test_stale_versions_are_refused_with_a_fresh_state(client: TestClient) -> None:
    """An action for another version than the current one: error stale, then the current state."""
    with Duel(client) as duel:
        rng = random.Random(1)
        duel.play(choose(duel.messages[duel.state.turn][-1], rng))
        seat = duel.state.turn
        legal = duel.messages[seat][-1]["view"]["legal"][0]
        for version in (0, 2, 99, -1):
            duel.refused(seat, {"type": "action", "action": legal, "version": version}, "stale")
        duel.play(legal, with_version=False)


def test_message_size_limit(client: TestClient, settings: Any) -> None:
    """Messages over 4 KB (counted in bytes) are refused; a message of exactly 4 KB is read."""
    limit = settings.max_message_bytes
    assert limit == 4096
    with Duel(client) as duel:
        seat = duel.state.turn

        def sized(size: int, fill: str = "x") -> str:
            head = '{"type": "sync", "pad": "'
            room = size - len(head.encode()) - 2
            return head + fill * (room // len(fill.encode())) + '"}'

        assert len(sized(limit).encode()) == limit
        duel.refused(seat, sized(limit + 1), "too_large")
        duel.refused(seat, sized(limit + 300, "é"), "too_large")
        duel.refused(seat, "x" * 100_000, "too_large")
        duel.refused(seat, b"\0" * 5000, "too_large")
        duel.sockets[seat].send_text(sized(limit))
        receive_state(duel.sockets[seat])


def test_flooding_messages_are_dropped(tmp_path: Path) -> None:
    """More than 20 messages a second from one socket: error flood, the message is dropped.

    The window is stretched to an hour so that the test does not depend on the clock.
    """
    settings = test_settings(tmp_path, flood_limit=20, flood_window=3600.0)
    with TestClient(create_app(settings)) as client, Duel(client) as duel:
        seat = duel.state.turn
        ws = duel.sockets[seat]
        for _ in range(20):
            ws.send_json({"type": "sync"})
        legal = duel.messages[seat][-1]["view"]["legal"][0]
        for _ in range(5):
            ws.send_json({"type": "action", "action": legal})
        for _ in range(20):
            assert receive_state(ws)["version"] == 0
        for _ in range(5):
            receive_error(ws, "flood")
        assert log_of(client, duel.id) == []
        other = duel.sockets[1 - seat]
        other.send_json({"type": "sync"})
        assert receive_state(other)["version"] == 0


def test_unknown_game_and_forged_tokens_close_the_socket(client: TestClient) -> None:
    """Unknown game: error not_found, close 4404. Forged token (query or cookie): bad_token, close 4403."""
    with client.websocket_connect(socket_path("nosuchgame")) as ws:
        receive_error(ws, "not_found")
        assert ws.receive() == {"type": "websocket.close", "code": 4404, "reason": ""}
    grant = create(client)
    for token in ("forged", grant["token"].upper(), grant["token"] + "x"):
        with client.websocket_connect(socket_path(grant["id"], token)) as ws:
            receive_error(ws, "bad_token")
            assert ws.receive()["code"] == 4403
    client.cookies.set(f"seat_{grant['id']}", "forged")
    with client.websocket_connect(socket_path(grant["id"])) as ws:
        receive_error(ws, "bad_token")
        assert ws.receive()["code"] == 4403
    client.cookies.clear()


def test_a_seat_is_known_by_its_link_or_its_cookie(client: TestClient) -> None:
    """The token comes from the query string, else from the cookie ``seat_{id}``; none: a spectator."""
    grant = create(client, seat=1)
    with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
        message = receive_state(ws)
        assert set(message) == STATE_KEYS
        assert message["seat"] == 1 and message["view"]["hand"]
    client.cookies.set(f"seat_{grant['id']}", grant["token"])
    with client.websocket_connect(socket_path(grant["id"])) as ws:
        assert receive_state(ws)["seat"] == 1
    client.cookies.clear()
    with client.websocket_connect(socket_path(grant["id"])) as ws:
        message = receive_state(ws)
        assert message["seat"] is None and message["view"]["hand"] is None


def test_an_open_table_waits_for_the_second_player(client: TestClient) -> None:
    """Nobody plays until both seats are taken; the first player is told when the friend joins."""
    grant = create(client, seat=0)
    with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
        first = receive_state(ws)
        assert first["status"] == "open" and first["players"] == ["Ann", None]
        for payload, code in (({"type": "action", "action": "pass"}, "not_your_turn"),
                              ({"type": "undo"}, "cannot_undo")):
            ws.send_json(payload)
            receive_error(ws, code)
        join(client, grant["id"], "Bob")
        joined = receive_state(ws)
        assert joined["status"] == "playing" and joined["players"] == ["Ann", "Bob"]
        assert joined["version"] == 0 and joined["view"] == first["view"]


def test_one_action_at_a_time(client: TestClient) -> None:
    """Two clients of one seat send different moves for the same version at once: exactly one is
    played, the other is refused as stale; both clients then agree on the state."""
    with Duel(client) as duel:
        seat = duel.state.turn
        legal = duel.messages[seat][-1]["view"]["legal"]
        with client.websocket_connect(socket_path(duel.id, duel.tokens[seat])) as twin:
            receive_state(twin)
            clients = [duel.sockets[seat], twin]
            for ws, move in zip(clients, (legal[0], legal[-1]), strict=True):
                ws.send_json({"type": "action", "action": move, "version": 0})
            firsts = [receive_state(ws) for ws in clients]
            assert [m["version"] for m in firsts] == [1, 1]
            for ws in clients:
                ws.send_json({"type": "sync"})
            seconds = [next_message(ws) for ws in clients]
            assert sorted(m["type"] for m in seconds) == ["error", "state"]
            loser = clients[[m["type"] for m in seconds].index("error")]
            assert seconds[[m["type"] for m in seconds].index("error")]["code"] == "stale"
            assert receive_state(loser)["version"] == 1
            assert receive_state(loser)["version"] == 1
            others = [receive_state(duel.sockets[1 - seat]), receive_state(duel.sockets[None])]
            assert [m["version"] for m in others] == [1, 1]
            played = [firsts[0]["last"]["action"]]
            assert moves_of(others[0]) == moves_of(others[1]) == played
        assert len(log_of(client, duel.id)) == 1


class StalledSocket:
    """A client whose network never takes a message (as a frozen browser behaves)."""

    def __init__(self) -> None:
        self.started = 0
        self.closed_with: int | None = None

    async def send_text(self, data: str) -> None:
        self.started += 1
        await asyncio.Event().wait()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed_with = code


def test_a_stalled_client_is_dropped_and_blocks_nobody(tmp_path: Path) -> None:
    """A client that takes no messages is dropped once its queue is full; the game and the other
    clients go on without waiting for it."""
    settings = test_settings(tmp_path, send_queue=4)
    with TestClient(create_app(settings)) as client, Duel(client) as duel:
        service = service_of(client)
        game = service.games[duel.id]
        stalled = StalledSocket()

        async def attach() -> Connection:
            conn = Connection(stalled, None, settings.send_queue, RateLimit(20, 1.0))
            conn.start()
            game.connections.add(conn)
            return conn

        assert client.portal is not None
        conn = client.portal.call(attach)
        rng = random.Random(5)
        for _ in range(8):
            duel.play(choose(duel.messages[duel.state.turn][-1], rng))
        assert conn.closed.is_set() and conn.close_code == OVERFLOW_CLOSE
        assert conn not in game.connections and stalled.started == 1
        client.portal.call(conn.stop, True)
        assert stalled.closed_with == OVERFLOW_CLOSE


def test_vanished_clients_leave_the_game_going(client: TestClient) -> None:
    """Clients that go away (one mid-game, without reading) change nothing for the others."""
    with Duel(client) as duel:
        rng = random.Random(6)
        with client.websocket_connect(socket_path(duel.id)) as gone:
            gone.send_json({"type": "sync"})
        for _ in range(3):
            duel.play(choose(duel.messages[duel.state.turn][-1], rng))
        with client.websocket_connect(socket_path(duel.id, duel.tokens[0])):
            pass
        duel.play(choose(duel.messages[duel.state.turn][-1], rng))
        assert len(service_of(client).games[duel.id].connections) == 3


def test_versions_count_the_log_and_every_client_hears_every_change(client: TestClient) -> None:
    """Each action adds one log entry; the version is the number of entries."""
    with Duel(client, "tactics", seed=SEED + 11) as duel:
        rng = random.Random(7)
        duel.play_until(lambda state: len(state.history) >= 12, rng)
        assert [m["version"] for m in duel.messages[None]] == list(range(13))
        assert [e.notation for e in log_of(client, duel.id)] == moves_of(duel.messages[0][-1])


def _play_ai_game(client: TestClient, seed: int, level: str, variant: str, moves: int) -> list[str]:
    grant = create(client, seed=seed, mode="ai", level=level, variant=variant, seat=1)
    rng = random.Random(seed)
    with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
        played = 0
        while True:
            message = receive_state(ws)
            assert message["status"] != "over"
            if message["view"]["legal"]:
                if played == moves:
                    break
                move = choose(message, rng)
                ws.send_json({"type": "action", "action": move, "version": message["version"]})
                played += 1
    return [f"{e.seat}:{e.notation}" for e in log_of(client, grant["id"])]


def test_the_ai_plays_its_turns_reproducibly(client: TestClient) -> None:
    """The AI answers at once; with the same seed and the same moves it makes the same decisions
    (each decision is seeded from the game's seed and the log's length)."""
    first = _play_ai_game(client, SEED + 20, "medium", "tactics", 6)
    second = _play_ai_game(client, SEED + 20, "medium", "tactics", 6)
    assert first == second
    assert any(e.startswith("0:") for e in first) and any(e.startswith("1:") for e in first)


def test_the_ai_runs_in_worker_processes(tmp_path: Path) -> None:
    """With the default process pool the AI still plays (from its view, which is sent to the worker)."""
    settings = test_settings(tmp_path, ai_processes=True)
    with TestClient(create_app(settings)) as client:
        log = _play_ai_game(client, SEED + 21, "easy", "base", 3)
    assert sum(e.startswith("0:") for e in log) >= 3


def test_the_ai_moves_first_when_it_is_first_to_play(client: TestClient) -> None:
    """Whoever the seed makes first player (R2.3), the AI takes its turn without being asked."""
    ai_first = 0
    for seed in range(SEED, SEED + 6):
        grant = create(client, seed=seed, mode="ai", level="easy", seat=0)
        with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
            message = receive_state(ws)
            while not message["view"]["legal"]:
                message = receive_state(ws)
            assert message["view"]["turn"] == 0
            if message["view"]["first_player"] == 1:
                assert message["version"] > 0 and message["last"]["mover"] == 1
                ai_first += 1
    assert ai_first > 0
