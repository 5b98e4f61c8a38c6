"""Memory: idle games leave the cache and come back from the database; the undo limit bounds a log.

Loaded games (``Authority.games``) with no client, no AI at work and no use for
``game_idle_eviction`` seconds are evicted by a periodic sweep, and at most
``game_cache_size`` are kept (the least recently used idle ones go first). An evicted game is
loaded again, exactly where it was, when a page or a socket asks for it. Each seat may undo at
most ``undo_limit`` times per game, so a play/undo loop cannot grow a log without bound.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers_web import (
    SEED,
    Duel,
    Message,
    choose,
    create,
    join,
    log_of,
    receive_state,
    service_of,
    socket_path,
    test_settings,
    until,
)
from starlette.testclient import TestClient, WebSocketTestSession

from schotten.engine import ACTIONS, GameState, Kind
from schotten.web import create_app
from schotten.web.games.eviction import Eviction
from schotten.web.games.gamelog import undo_span
from schotten.web.games.live import LiveGame
from schotten.web.talk.chat import Chat


def test_idle_games_are_evicted_and_come_back_exactly(tmp_path: Path) -> None:
    """A friend game and an AI game left by their clients leave the cache; a game with a client stays.
    Asked for again (HTTP, then sockets), each is where it was and goes on."""
    rng = random.Random(3)
    with TestClient(create_app(test_settings(tmp_path, game_idle_eviction=0.3))) as client:
        games = service_of(client).games
        with Duel(client, seed=SEED) as kept, Duel(client, "tactics", seed=SEED + 1) as left:
            for duel in (kept, left):
                duel.play_until(lambda state: len(state.history) >= 6, rng)
            left.close()
            ai = create(client, seed=SEED + 2, mode="ai", level="easy", seat=0)
            with client.websocket_connect(socket_path(ai["id"], ai["token"])) as ws:
                state = _until_ai_replied(ws, receive_state(ws), rng)
            until(lambda: left.id not in games and ai["id"] not in games, "the idle games to be evicted")
            assert kept.id in games
            summary = client.get(f"/api/games/{left.id}").json()
            assert summary["version"] == left.version
            left.reconnect(client)
            left.play(choose(left.messages[left.state.turn][-1], rng))
            kept.play(choose(kept.messages[kept.state.turn][-1], rng))
        with client.websocket_connect(socket_path(ai["id"], ai["token"])) as ws:
            again = receive_state(ws)
            assert (again["version"], again["view"]) == (state["version"], state["view"])
            _until_ai_replied(ws, again, rng)
        ai_seat = 1 - ai["seat"]
        assert [e.seat for e in log_of(client, ai["id"])[again["version"]:]][-1] == ai_seat


def _until_ai_replied(ws: WebSocketTestSession, state: Message, rng: random.Random) -> Message:
    """Play our moves until the AI has moved after one of them and it is our turn again; that state."""
    moved = False
    while state["status"] != "over":
        if state["view"]["legal"]:
            if moved and state["last"]["mover"] != state["seat"]:
                return state
            ws.send_json({"type": "action", "action": choose(state, rng), "version": state["version"]})
            moved = True
        state = receive_state(ws)
    return state


def test_at_most_game_cache_size_games_stay_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Five open tables and a cache of two: the least recently used idle ones go; one asked for again
    comes back from the database."""
    monkeypatch.setattr(Eviction, "EVICTION_GRACE", 0.0, raising=False)
    settings = test_settings(tmp_path, game_cache_size=2, game_idle_eviction=1000.0)
    with TestClient(create_app(settings)) as client:
        games = service_of(client).games
        ids = [create(client, seed=SEED + n)["id"] for n in range(5)]
        assert client.get(f"/api/games/{ids[0]}").status_code == 200
        until(lambda: len(games) <= 2, "the cache to shrink to two games")
        assert set(games) == {ids[0], ids[4]}
        summary = client.get(f"/api/games/{ids[2]}").json()
        assert (summary["id"], summary["status"], summary["version"]) == (ids[2], "open", 0)


def test_a_game_swept_while_a_socket_joins_it_stays_that_sockets_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The eviction race: a sweep while a socket is being seated (here while its game's chat is read)
    must not leave the socket on a copy the cache no longer holds, where no change would reach it."""
    settings = test_settings(tmp_path, game_idle_eviction=0.05)
    with TestClient(create_app(settings)) as client:
        service = service_of(client)
        table = create(client, seed=SEED)
        reading = Chat.load

        async def slow_read(chat: Chat, game: LiveGame) -> None:
            await asyncio.sleep(0.2)
            service.authority.sweep()
            await reading(chat, game)

        monkeypatch.setattr(Chat, "load", slow_read)
        with client.websocket_connect(socket_path(table["id"], table["token"])) as ws:
            assert receive_state(ws)["status"] == "open"
            served = service.games.get(table["id"])
            assert served is not None and served.connections, "the socket's game left the cache"
            join(client, table["id"])
            assert receive_state(ws)["status"] == "playing"


def _undoable(seat: int) -> Callable[[GameState], bool]:
    """``seat`` has just played a card that it may take back."""
    def done(state: GameState) -> bool:
        return (state.turn == seat and bool(state.history) and state.movers[-1] == seat
                and ACTIONS[state.history[-1]].kind == Kind.PLAY and isinstance(undo_span(state, seat), int))
    return done


def test_each_seat_may_undo_at_most_undo_limit_times(tmp_path: Path) -> None:
    """Play and undo the same card: the third undo of a seat is refused with the limit in words, the
    log stops growing; the other seat keeps its own undos; the count survives a restart."""
    rng = random.Random(4)
    settings = test_settings(tmp_path, undo_limit=2)
    with TestClient(create_app(settings)) as client, Duel(client, "tactics", seed=SEED + 5) as duel:
        duel.play_until(lambda state: state.history != [], rng)
        seat = duel.state.turn
        duel.play_until(_undoable(seat), rng)
        assert not duel.state.is_over, "choose another seed"
        played = str(ACTIONS[duel.state.history[-1]])
        for _ in range(2):
            duel.undo(seat, undo_span(duel.state, seat))  # type: ignore[arg-type]
            duel.play(played)
        length = len(log_of(client, duel.id))
        error = duel.refused(seat, {"type": "undo"}, "cannot_undo")
        assert "at most 2 times" in error["message"], error
        assert len(log_of(client, duel.id)) == length
        duel.play_until(_undoable(1 - seat), rng)
        assert not duel.state.is_over, "choose another seed"
        duel.undo(1 - seat, undo_span(duel.state, 1 - seat))  # type: ignore[arg-type]
        duel.close()
    with TestClient(create_app(settings)) as client:
        duel.reconnect(client)
        duel.play_until(_undoable(seat), rng)
        assert not duel.state.is_over, "choose another seed"
        error = duel.refused(seat, {"type": "undo"}, "cannot_undo")
        assert "2 undos" in error["message"], error
        duel.close()
