"""What the game page needs from the server (issue 26): why a stone may not be claimed (R5, from the
seat's view only: R10), the AI's seat that has no clock, and how many spectators watch.

The spectators' count reaches every client in ``presence`` messages, as they come and go; the tests
read it from those (never by waiting a time).
"""

from __future__ import annotations

import json
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from helpers_web import (
    SEED,
    WAIT,
    FakeClock,
    Message,
    app_at,
    choose,
    create,
    expected_why_not,
    expected_why_not_answers,
    join,
    next_message,
    receive_state,
    service_of,
    socket_path,
    test_settings,
)
from starlette.testclient import TestClient, WebSocketTestSession

from schotten.engine import GameState, Settings
from schotten.engine.actions import DONE_ID
from schotten.web.core.vocab import Mode, Status
from schotten.web.games.live import LiveGame
from schotten.web.games.outbound import state_text, why_not_text
from schotten.web.storage.rows import GameInfo
from tests.randgame import redeal_hidden

MOMENT = datetime(2026, 1, 1, tzinfo=UTC)


def _positions(settings: Settings, seed: int) -> list[GameState]:
    """Every fifth position of a random game in which nobody claims (so many sides stay open)."""
    rng, state, found = random.Random(seed), GameState.new(settings, seed), []
    while not state.is_over:
        ids = state.legal_action_ids()
        state.apply_id(DONE_ID if DONE_ID in ids else rng.choice(ids))
        if len(state.history) % 5 == 0 and not state.is_over:
            found.append(state.copy())
    return found


def _served(info: GameInfo, state: Any) -> LiveGame:
    return LiveGame(info, state, 0, now=lambda: MOMENT)


def _told(info: GameInfo, state: Any, seat: int | None) -> Message:
    message: Message = json.loads(state_text(_served(info, state), seat))
    return message


def _answers(info: GameInfo, state: Any, seat: int | None, stones: list[int]) -> Message:
    """The answers to a "why not?" on each of ``stones``, as ``seat`` would be sent them."""
    answers = {}
    for stone in stones:
        answer = json.loads(why_not_text(_served(info, state), seat, stone))
        assert answer["type"] == "why_not" and answer["stone"] == stone
        answers[str(stone)] = answer["answer"]
    return answers


# ---------------------------------------------------------------------- why not (item 7)


def test_why_not_is_the_same_whatever_the_opponent_holds() -> None:
    """R10: a seat's state message lists every stone with a complete side of its own that it may not
    claim now (R5), and the answer to a "why not?" on each is word for word the same when the
    opponent's hand and the decks are dealt anew from the same unseen cards; a spectator is listed
    nothing and answered null."""
    info = GameInfo(id="why", variant="tactics", rounds=1, seed=SEED, mode=Mode.FRIEND, level=None,
                    ai_seat=None, players=["Ann", "Bob"], token_hashes=[None, None], status=Status.PLAYING)
    rng, compared = random.Random(26), 0
    for seed in range(4):
        for state in _positions(Settings.of("tactics"), seed):
            assert _told(info, state, None)["why_not"] == []
            assert _answers(info, state, None, list(range(1, 10))) == {str(s): None for s in range(1, 10)}
            for seat in (0, 1):
                other = redeal_hidden(state, seat, rng)
                stones = _told(info, state, seat)["why_not"]
                assert stones == _told(info, other, seat)["why_not"] == expected_why_not(state, seat)
                answers = _answers(info, state, seat, list(range(1, 10)))
                assert answers == _answers(info, other, seat, list(range(1, 10)))
                assert {k: v for k, v in answers.items() if v is not None} == \
                    expected_why_not_answers(state, seat)
                compared += bool(stones) and other.hands[1 - seat] != state.hands[1 - seat]
    assert compared > 30, compared


def _ask(ws: WebSocketTestSession, stone: int) -> Message:
    """Ask "why not?" on ``stone`` over the socket; the answer message."""
    ws.send_json({"type": "why_not", "stone": stone})
    answer = next_message(ws)
    assert answer["type"] == "why_not" and answer["stone"] == stone, answer
    return answer


def test_a_seat_is_told_why_not_over_its_socket(client: TestClient) -> None:
    """R5.2 through the socket: each seat's state lists the stones it may ask about; asked, the server
    answers with the proof's kind, formations, the unseen cards a stronger completion needs and its
    English sentence; a stone it may not ask about, a malformed question or a finished game (here by a
    resignation, the board still open) gets no answer."""
    grant = create(client, seed=SEED + 26)
    tokens = [grant["token"], join(client, grant["id"])["token"]]
    rng, seen = random.Random(26), 0
    with client.websocket_connect(socket_path(grant["id"], tokens[0])) as first, \
            client.websocket_connect(socket_path(grant["id"], tokens[1])) as second:
        sockets = (first, second)
        messages = [receive_state(first), receive_state(second)]
        while messages[0]["status"] == "playing" and not (seen >= 3 and messages[0]["why_not"]):
            for ws, message in zip(sockets, messages, strict=True):
                for stone in message["why_not"]:
                    answer = _ask(ws, stone)
                    assert answer["version"] == message["version"]
                    found = answer["answer"]
                    assert str(stone) not in message["claims"]
                    assert found["kind"] in ("can_lose", "loses", "beats", "ties_first", "unbeatable",
                                             "incompletable")
                    assert (found["wait"] is None) == (found["kind"] in ("can_lose", "loses"))
                    if found["kind"] == "can_lose":
                        assert found["text"].endswith("(R5.2)") and found["theirs"]["cards"]
                        seen += 1
            turn = messages[0]["view"]["turn"]
            sockets[turn].send_json({"type": "action", "action": choose(messages[turn], rng)})
            messages = [receive_state(first), receive_state(second)]
        assert seen >= 3 and messages[0]["why_not"], "no stone could be asked about: choose another seed"
        asked = messages[0]["why_not"][0]
        other = next(s for s in range(1, 10) if s not in messages[0]["why_not"])
        assert _ask(first, other)["answer"] is None
        first.send_json({"type": "why_not", "stone": 10})
        refused = next_message(first)
        assert refused["type"] == "error" and refused["code"] == "bad_message", refused
        first.send_json({"type": "resign"})
        over = receive_state(first)
        assert over["status"] == "over" and over["why_not"] == []
        assert _ask(first, asked)["answer"] is None


# ---------------------------------------------------------------------- the AI's clock (item 8)


def test_the_ai_has_no_clock_and_says_so(tmp_path: Path) -> None:
    """At a timed AI table the state names the AI's seat (``ai_seat``): its clock never runs, its time
    stays whole in the stored game, while the human's runs and is charged; a friend table has none."""
    fake = FakeClock()
    with app_at(test_settings(tmp_path), fake) as client:
        grant = create(client, mode="ai", level="easy", seat=0, clock={"initial": 300, "increment": 0})
        rng, moves = random.Random(8), 0
        with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
            state = receive_state(ws)
            while state["status"] == "playing" and moves < 12:
                assert state["ai_seat"] == 1 and state["clock_running"] != 1
                assert state["clocks"][1] == 300_000
                if state["legal"] and state["clock_running"] == 0:
                    fake.advance(2)
                    move = choose(state, rng)
                    ws.send_json({"type": "action", "action": move, "version": state["version"]})
                    moves += 1
                state = receive_state(ws)
        clock = service_of(client).games[grant["id"]].clock
        assert clock is not None and clock.left[1] == 300_000 and clock.left[0] < 300_000 - 2000 * (moves - 1)
        friend = create(client, clock={"initial": 300, "increment": 0})
        join(client, friend["id"])
        with client.websocket_connect(socket_path(friend["id"], friend["token"])) as ws:
            assert receive_state(ws)["ai_seat"] is None


# ---------------------------------------------------------------------- spectators (item 9)


def watchers(ws: WebSocketTestSession, count: int) -> Message:
    """The presence message that tells ``count`` spectators. The socket asks for the state (``sync``)
    and reads up to it, again and again: a presence message the server queued meanwhile comes first,
    and a server that never tells fails the test (after ``WAIT``, a guard against a hang) instead
    of hanging it."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        ws.send_json({"type": "sync"})
        message: Message = ws.receive_json()
        while message["type"] != "state":
            if message["type"] == "presence" and message.get("spectators") == count:
                return message
            message = ws.receive_json()
        time.sleep(0.05)
    raise AssertionError(f"never told {count} spectators")


def test_players_and_spectators_are_told_how_many_watch(client: TestClient) -> None:
    """Spectators coming and going: both seats and every spectator are told their number (a count,
    never who), each time it changes."""
    grant = create(client)
    joined = join(client, grant["id"])
    with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ann, \
            client.websocket_connect(socket_path(grant["id"], joined["token"])) as bob:
        receive_state(ann), receive_state(bob)
        with client.websocket_connect(socket_path(grant["id"])) as first:
            assert receive_state(first)["seat"] is None
            for ws in (ann, bob, first):
                told = watchers(ws, 1)
                assert set(told) == {"type", "away", "can_claim_victory", "spectators"}
            with client.websocket_connect(socket_path(grant["id"])) as second:
                receive_state(second)
                for ws in (ann, bob, first, second):
                    watchers(ws, 2)
            for ws in (ann, bob, first):
                watchers(ws, 1)
        for ws in (ann, bob):
            watchers(ws, 0)


def test_a_player_who_arrives_is_told_who_watches(client: TestClient) -> None:
    """At an AI table a spectator watches first; the player opening the game later is told at once that
    one spectator watches (after its state)."""
    grant = create(client, mode="ai", level="easy", seat=0)
    with client.websocket_connect(socket_path(grant["id"])) as spectator:
        receive_state(spectator)
        watchers(spectator, 1)
        with client.websocket_connect(socket_path(grant["id"], grant["token"])) as player:
            assert receive_state(player)["seat"] == 0
            assert watchers(player, 1)["away"] == [None, None]
