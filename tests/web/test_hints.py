"""Hints at tables against the AI (issue 27; docs/web/games.md, "Hints").

A hint is the move the engine would play for the human's seat, worked out from that seat's view
only (R10), with its reason as data and in words. Only a table against the AI created with
``hints`` allows them; each hint given is counted on the game's row and in its record. Storage is
tested on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_web import SEED, create, next_message, receive_error, receive_state, service_of, socket_path
from helpers_web import test_settings as settings_for
from starlette.testclient import TestClient, WebSocketTestSession
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.engine import GameState, Settings
from schotten.engine.record import RecordError, load_game, record_of
from schotten.web import create_app
from schotten.web.core.errors import StoreUnavailable
from schotten.web.core.messages import ClientError
from schotten.web.core.vocab import Mode, Status
from schotten.web.games.ai import AiPool
from schotten.web.games.context import Context
from schotten.web.games.hints import Hints
from schotten.web.games.live import LiveGame
from schotten.web.storage.db import GameRow
from schotten.web.storage.rows import GameInfo
from tests.randgame import redeal_hidden

Message = dict[str, Any]
AI_TABLE = {"mode": "ai", "level": "easy", "hints": True}


@pytest.fixture(params=["sqlite", "postgres"])
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    """The app on SQLite or on the test's PostgreSQL schema, hints at a small budget."""
    url = f"sqlite:///{tmp_path / 'games.db'}" if request.param == "sqlite" else request.getfixturevalue(
        "database_url")
    settings = settings_for(tmp_path, database_url=url, hint_iterations=40)
    with TestClient(create_app(settings)) as client:
        yield client


def _my_turn(ws: WebSocketTestSession, seat: int) -> Message:
    """The first state message in which ``seat`` is to decide (the AI may move first)."""
    while True:
        state = receive_state(ws)
        if state["view"]["turn"] == seat and state["legal"]:
            return state


def _row(app: TestClient, game_id: str) -> GameRow:
    with service_of(app).store.use() as session:
        row = session.get(GameRow, game_id)
        assert row is not None
        return row


# ---------------------------------------------------------------------- the option


def test_an_ai_table_may_allow_hints_and_the_lobby_says_so(app: TestClient) -> None:
    grant = create(app, **AI_TABLE)
    table = app.get(f"/api/games/{grant['id']}").json()
    assert (table["hints"], table["hints_used"]) == (True, 0)
    assert _row(app, grant["id"]).hints
    plain = create(app, mode="ai", level="easy")
    assert app.get(f"/api/games/{plain['id']}").json()["hints"] is False


@pytest.mark.parametrize("body", [
    {"mode": "friend", "hints": True},
    {"mode": "friend", "hints": True, "rated": True, "clock": {"initial": 300, "increment": 5}},
    {"mode": "ai", "hints": True, "rated": True},
])
def test_hints_are_refused_away_from_the_ai_with_a_sentence(app: TestClient, body: Message) -> None:
    request = {"variant": "base", "rounds": 1, "nickname": "Ann", "seat": 0} | body
    response = app.post("/api/tables", json=request)
    assert response.status_code == 400, response.text
    assert "hints are only for tables against the AI" in response.json()["error"]
    assert app.get("/api/tables").json() == {"tables": []}


# ---------------------------------------------------------------------- the socket message


def test_a_hint_is_a_legal_action_of_the_seat_with_its_reason_and_is_counted(app: TestClient) -> None:
    grant = create(app, **AI_TABLE)
    with app.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
        state = _my_turn(ws, 0)
        ws.send_json({"type": "hint"})
        hint = next_message(ws)
    assert hint["type"] == "hint", hint
    assert set(hint) == {"type", "version", "action", "reason", "say"}
    assert hint["version"] == state["version"]
    assert hint["action"] in {part["action"] for part in state["legal"]}
    assert hint["reason"]["kind"] in ("play", "claim", "move") and 0 <= hint["reason"]["win"] <= 1
    assert hint["say"] and isinstance(hint["say"], str)
    assert _row(app, grant["id"]).hints_used == 1
    assert app.get(f"/api/games/{grant['id']}").json()["hints_used"] == 1


def test_a_hint_is_refused_when_the_table_has_none(app: TestClient) -> None:
    grant = create(app, mode="ai", level="easy")
    with app.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
        _my_turn(ws, 0)
        ws.send_json({"type": "hint"})
        error = receive_error(ws, "cannot_hint")
    assert "no hints" in error["message"]
    assert _row(app, grant["id"]).hints_used == 0


def test_a_spectator_gets_no_hint(app: TestClient) -> None:
    grant = create(app, **AI_TABLE)
    with app.websocket_connect(socket_path(grant["id"])) as ws:
        receive_state(ws)
        ws.send_json({"type": "hint"})
        receive_error(ws, "spectator")
    assert _row(app, grant["id"]).hints_used == 0


def test_hints_beyond_the_game_s_rate_are_refused(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, hint_iterations=20, hint_rate="2/hour")
    with TestClient(create_app(settings)) as app:
        grant = create(app, **AI_TABLE)
        with app.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
            _my_turn(ws, 0)
            for _ in range(2):
                ws.send_json({"type": "hint"})
                assert next_message(ws)["type"] == "hint"
            ws.send_json({"type": "hint"})
            error = receive_error(ws, "limit")
        assert "too many hints" in error["message"]
        assert _row(app, grant["id"]).hints_used == 2


def test_the_record_of_a_game_with_hints_says_how_many(app: TestClient) -> None:
    grant = create(app, **AI_TABLE)
    with app.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
        _my_turn(ws, 0)
        ws.send_json({"type": "hint"})
        assert next_message(ws)["type"] == "hint"
        ws.send_json({"type": "resign"})
        while receive_state(ws)["status"] != "over":
            pass
    record = app.get(f"/api/games/{grant['id']}/record").json()
    assert record["hints"] == 1
    table = app.get(f"/api/games/{grant['id']}/replay").json()["table"]
    assert (table["hints"], table["hints_used"]) == (True, 1)
    assert load_game(record).hints == 1
    plain = create(app, mode="ai", level="easy")
    with app.websocket_connect(socket_path(plain["id"], plain["token"])) as ws:
        receive_state(ws)
        ws.send_json({"type": "resign"})
        while receive_state(ws)["status"] != "over":
            pass
    assert "hints" not in app.get(f"/api/games/{plain['id']}/record").json()


# ---------------------------------------------------------------------- the hint itself


class _Store:
    """A store that counts nothing (the hint's own logic is under test), or fails to (``broken``)."""

    def __init__(self, broken: bool = False) -> None:
        self.broken = broken

    def count_hint(self, game_id: str) -> None:
        """Nothing to store; a broken store fails as a database that went away does."""
        if self.broken:
            raise OSError("disk I/O error")


def _hints(tmp_path: Path, iterations: int = 30, broken: bool = False) -> Hints:
    settings = settings_for(tmp_path, hint_iterations=iterations, hint_rate="100000/second")
    return Hints(Context(settings, _Store(broken)), AiPool(1, False))  # type: ignore[arg-type]


def _info(status: Status = Status.PLAYING, hints: bool = True) -> GameInfo:
    return GameInfo(id="g", variant="tactics", rounds=1, seed=SEED, mode=Mode.AI, level="easy", ai_seat=1,
                    players=["Ann", "AI (easy)"], token_hashes=["x", None], status=status, hints=hints)


def _positions(seat: int, count: int) -> list[GameState]:
    """States of a random tactics game in which ``seat`` is to decide."""
    state = GameState.new(Settings.of("tactics"), 11)
    rng = random.Random(5)
    found = []
    while not state.is_over and len(found) < count:
        if state.turn == seat and rng.random() < 0.3:
            found.append(state.copy())
        state.apply(rng.choice(state.legal_actions()))
    return found


def test_the_hint_is_the_same_whatever_the_opponent_holds(tmp_path: Path) -> None:
    """R10: the hint reads only the seat's view: hidden cards dealt anew change nothing."""
    hints = _hints(tmp_path)
    rng = random.Random(3)
    for state in _positions(0, 6):
        asked = asyncio.run(hints.hint(LiveGame(_info(), state, 4), 0))
        redealt = redeal_hidden(state, 0, rng)
        assert redealt.hands[1] != state.hands[1] or redealt.clan_deck != state.clan_deck
        assert asyncio.run(hints.hint(LiveGame(_info(), redealt, 4), 0)) == asked


@pytest.mark.parametrize(("info", "seat", "code"), [
    (_info(), 1, "not_your_turn"),
    (_info(), None, "spectator"),
    (_info(hints=False), 0, "cannot_hint"),
    (_info(Status.OVER), 0, "cannot_hint"),
])
def test_a_hint_is_refused_when_it_may_not_be_given(tmp_path: Path, info: GameInfo, seat: int | None,
                                                    code: str) -> None:
    state = _positions(0, 1)[0]
    with pytest.raises(ClientError) as refused:
        asyncio.run(_hints(tmp_path).hint(LiveGame(info, state, 4), seat))
    assert refused.value.code == code and refused.value.message


def test_a_hint_that_cannot_be_counted_is_not_given(tmp_path: Path) -> None:
    game = LiveGame(_info(), _positions(0, 1)[0], 4)
    with pytest.raises(StoreUnavailable):
        asyncio.run(_hints(tmp_path, broken=True).hint(game, 0))
    assert game.info.hints_used == 0


# ---------------------------------------------------------------------- the record's field


def test_a_record_keeps_its_hints_count_and_refuses_a_bad_one() -> None:
    state = _positions(0, 1)[0]
    record = record_of(state, hints=3)
    assert record["hints"] == 3 and load_game(record).hints == 3
    assert load_game(record_of(state)).hints is None
    for bad in (-1, True, "2"):
        with pytest.raises(RecordError, match="'hints'"):
            load_game(record | {"hints": bad})
