"""The web app on PostgreSQL: the store, the API, a whole game over WebSockets, a restart, a rematch
(offered, and declined).

The server comes from ``SCHOTTEN_TEST_POSTGRES_URL`` (``scripts/setup-postgres`` sets one up
and prints it, e.g. ``postgresql+psycopg://schotten_test:...@127.0.0.1:5432/schotten_test``).
Each test gets a schema of its own (a random name, put first in the connection's
``search_path``), dropped at its end, so every run starts from empty tables. Without the
variable (or without psycopg) the tests are skipped, unless ``SCHOTTEN_REQUIRE_POSTGRES`` is
set: then they fail.
"""

from __future__ import annotations

import importlib.util
import os
import random
import secrets
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from helpers_ratings import add_game, end
from helpers_web import (
    SEED,
    Duel,
    FakeClock,
    app_at,
    choose,
    create,
    join,
    log_of,
    receive_state,
    service_of,
    socket_path,
    test_settings,
    whole_log,
)
from sqlalchemy import Engine, make_url, text
from starlette.testclient import TestClient
from test_rematch import ask, finished_game, granted, restart_and_accept
from test_rematch_closing import answer, closed, restart_and_check

from schotten.engine.record import load_record
from schotten.web import create_app
from schotten.web.core.settings import WebSettings, normalise_url
from schotten.web.storage import listing
from schotten.web.storage.db import Base, GameRow, make_engine
from schotten.web.storage.rows import ACTION, UNDO, Entry, GameInfo
from schotten.web.storage.store import Store

URL_VARIABLE = "SCHOTTEN_TEST_POSTGRES_URL"
REQUIRE_VARIABLE = "SCHOTTEN_REQUIRE_POSTGRES"
BIGGEST_SEED = 2**63 - 1
"""The largest seed ``secrets.randbits(63)`` can give: it must fit PostgreSQL's BIGINT."""


def _unavailable() -> str | None:
    url = os.environ.get(URL_VARIABLE)
    if not url:
        return f"{URL_VARIABLE} is not set (scripts/setup-postgres sets a database up and prints its URL)"
    if make_url(normalise_url(url)).get_backend_name() != "postgresql":
        return f"{URL_VARIABLE} is not a PostgreSQL URL"
    if importlib.util.find_spec("psycopg") is None:
        return "psycopg is not installed (pip install -e '.[postgres]')"
    return None


@pytest.fixture(scope="module")
def server_url() -> str:
    """The PostgreSQL URL of the environment; skip (or fail, if required) when there is none."""
    reason = _unavailable()
    if reason is not None:
        if os.environ.get(REQUIRE_VARIABLE):
            pytest.fail(f"{REQUIRE_VARIABLE} is set but {reason}")
        pytest.skip(reason)
    return normalise_url(os.environ[URL_VARIABLE])


@pytest.fixture
def database_url(server_url: str) -> Iterator[str]:
    """A URL whose tables live in a fresh schema of this test's own, dropped at the end."""
    schema = f"schotten_test_{secrets.token_hex(6)}"
    admin = make_engine(server_url)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        url = make_url(server_url).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def pg_settings(tmp_path: Path, database_url: str) -> WebSettings:
    """The tests' usual settings, on the test's PostgreSQL schema."""
    return test_settings(tmp_path, database_url=database_url)


def _tables_in(store: Store) -> set[str]:
    with store.engine.connect() as connection:
        query = text("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        return set(connection.scalars(query))


def test_store_round_trip(database_url: str) -> None:
    """Every field comes back as written: the largest seed, aware times (as UTC), the seats, the log."""
    store = Store(database_url)
    try:
        store.create_schema()
        store.create_schema()
        assert _tables_in(store) == set(Base.metadata.tables) | {"alembic_version"}
        east = timezone(timedelta(hours=5, minutes=30))
        first = datetime(2024, 3, 1, 12, 0, 0, 123456, tzinfo=east)
        info = GameInfo(id="a" * 32, variant="expert-base", rounds=99, seed=BIGGEST_SEED, mode="friend",
                        level=None, ai_seat=None, players=["Ann", None], token_hashes=["f" * 64, None],
                        status="open", created=first)
        store.add_game(info)
        store.add_game(GameInfo(id="ai", variant="tactics", rounds=1, seed=0, mode="ai", level="expert",
                                ai_seat=1, players=["Ann", "AI (expert)"], token_hashes=["0" * 64, None],
                                status="playing", created=first + timedelta(seconds=1)))
        assert store.take_seat(info.id, 1, "Bob", "e" * 64)
        assert not store.take_seat(info.id, 1, "Cy", "d" * 64)
        assert not store.take_seat("ai", 1, "Cy", "d" * 64)
        entries = [Entry(0, ACTION, "7b@3", 0, first), Entry(1, ACTION, "claim 3", 0, first),
                   Entry(2, UNDO, "; ".join(["7b@3", *(f"claim {s}" for s in range(1, 10))]), 0, first)]
        for entry in entries:
            store.append(info.id, entry, "playing", None)
        store.append(info.id, Entry(3, ACTION, "pass", 1, first), "over", 1)
        loaded = store.load(info.id)
        assert loaded is not None
        game, log = loaded
        assert game.seed == BIGGEST_SEED and game.players == ["Ann", "Bob"]
        assert game.token_hashes == ["f" * 64, "e" * 64] and (game.status, game.winner) == ("over", 1)
        assert game.created == first and game.created.tzinfo == UTC
        assert [(e.index, e.kind, e.notation, e.seat) for e in log[:3]] == [
            (e.index, e.kind, e.notation, e.seat) for e in entries]
        assert all(e.time == first and e.time.tzinfo == UTC for e in log) and len(log) == 4
        assert [g.id for g in store.recent(10)] == ["ai", info.id]
        assert store.games_in_play() == ["ai"] and store.games_in_play("friend") == []
        assert store.load("missing") is None
    finally:
        store.close()


def test_api_round_trip(pg_settings: WebSettings) -> None:
    """Tables made, joined and listed over the API; unknown ids (even odd ones) are 404, never 500.

    The URL is written ``postgres://`` with no driver, as some hosts give it: psycopg serves it.
    """
    hosts_form = "postgres://" + pg_settings.database_url.split("://", 1)[1]
    settings = replace(pg_settings, database_url=normalise_url(hosts_form))
    with TestClient(create_app(settings)) as client:
        assert service_of(client).store.engine.dialect.driver == "psycopg"
        friend = create(client, seed=BIGGEST_SEED)
        join(client, friend["id"])
        ai = create(client, mode="ai", level="easy", seat=1)
        tables = client.get("/api/tables").json()["tables"]
        assert [t["id"] for t in tables] == [ai["id"], friend["id"]]
        game = client.get(f"/api/games/{friend['id']}").json()
        assert game["players"] == ["Ann", "Bob"] and game["status"] == "playing" and game["version"] == 0
        assert str(BIGGEST_SEED) not in client.get("/api/tables").text
        for odd in ("nope", "%00", "a%00b", "x" * 40, "%C3%A9"):
            assert client.get(f"/api/games/{odd}").status_code == 404, odd
        assert client.post(f"/api/tables/{friend['id']}/join", json={"nickname": "Cy"}).status_code == 409


def test_a_whole_game_over_websockets(pg_settings: WebSettings) -> None:
    """A whole base game between two sockets, every message exact; then its record and replay."""
    rng = random.Random(11)
    with TestClient(create_app(pg_settings)) as client, Duel(client, "base") as duel:
        duel.play_until(lambda state: False, rng)
        assert duel.status == "over" and len(log_of(client, duel.id)) == duel.version
        record = client.get(f"/api/games/{duel.id}/record")
        assert record.status_code == 200
        assert load_record(record.text).seed == SEED
        steps = client.get(f"/api/games/{duel.id}/replay").json()["steps"]
        assert len(steps) == duel.version + 1


def _ai_turns(client: TestClient, game_id: str, token: str, rng: random.Random,
              moves: int | None) -> dict[str, Any]:
    """Our ``moves`` moves against the AI (None: to the end); the state once it is our turn again."""
    with client.websocket_connect(socket_path(game_id, token)) as ws:
        played = 0
        message = None
        while True:
            message = whole_log(message, receive_state(ws))
            if message["status"] == "over" or (message["view"]["legal"] and played == moves):
                return message
            if message["view"]["legal"]:
                move = choose(message, rng)
                ws.send_json({"type": "action", "action": move, "version": message["version"]})
                played += 1


def test_restart_continues_exactly(pg_settings: WebSettings) -> None:
    """Stop the app mid-game (an undo in the log, an AI game); a new app on the database goes on exactly."""
    rng = random.Random(5)
    with TestClient(create_app(pg_settings)) as client:
        duel = Duel(client, "tactics", seed=SEED + 34)
        duel.play_until(lambda state: len(state.history) >= 20 and state.phase.name == "DRAW", rng)
        seat = duel.state.turn
        assert duel.messages[seat][-1]["can_undo"], "choose another seed"
        duel.undo(seat, 1)
        duel.play(choose(duel.messages[seat][-1], rng))
        duel.close()
        ai = create(client, seed=SEED + 1, mode="ai", level="easy", seat=0)
        before = _ai_turns(client, ai["id"], ai["token"], rng, 5)
    with TestClient(create_app(pg_settings)) as client:
        duel.reconnect(client)
        duel.play_until(lambda state: False, rng)
        duel.close()
        assert duel.status == "over" and [e.kind for e in log_of(client, duel.id)].count(UNDO) == 1
        assert _ai_turns(client, ai["id"], ai["token"], rng, 0) == before
        assert _ai_turns(client, ai["id"], ai["token"], rng, None)["status"] == "over"


def test_a_rematch_survives_a_restart(pg_settings: WebSettings) -> None:
    """A rematch asked for on PostgreSQL: one table per finished game (the link's key), and a
    restarted server seats the other player at it."""
    with TestClient(create_app(pg_settings)) as client:
        duel = finished_game(client)
        grant = granted(ask(client, duel.id, duel.tokens[0]), seat=0)
        info = GameInfo(id="second", variant="base", rounds=1, seed=1, mode="friend", level=None,
                        ai_seat=None, players=["Ann", None], token_hashes=["x" * 64, None], status="open")
        assert not service_of(client).store.add_rematch(duel.id, 1, info)
    restart_and_accept(pg_settings, duel, grant["token"])


def test_a_declined_rematch_survives_a_restart(pg_settings: WebSettings) -> None:
    """On a database made before offers could be closed (no closed_rematches table), an open offer
    is declined once the table was created on start-up; it stays closed after a restart, and a new
    one can be made; a second decline (a double click) changes nothing."""
    with TestClient(create_app(pg_settings)) as client:
        duel = finished_game(client)
        grant = granted(ask(client, duel.id, duel.tokens[0]), seat=0)
        with service_of(client).store.engine.begin() as connection:
            connection.execute(text("DROP TABLE closed_rematches"))
    with TestClient(create_app(pg_settings)) as client:
        closed(answer(client, duel.id, "decline", duel.tokens[1]), grant["id"], 0, "declined")
        closed(answer(client, duel.id, "decline", duel.tokens[1], grant["id"]), grant["id"], 0, "declined")
    restart_and_check(pg_settings, duel, grant, "declined")


def test_clocks_and_endings_on_postgresql(pg_settings: WebSettings) -> None:
    """A real-time game flags at its deadline after a restart, and a resignation is stored (PostgreSQL
    compares and shifts the deadlines as SQLite does)."""
    fake = FakeClock()
    with app_at(pg_settings, fake) as client:
        flagged = create(client, clock={"initial": 30, "increment": 1})
        join(client, flagged["id"])
        resigned = create(client, clock={"days": 3})
        bob = join(client, resigned["id"])
        with client.websocket_connect(socket_path(resigned["id"], bob["token"])) as ws:
            receive_state(ws)
            ws.send_json({"type": "resign"})
            assert receive_state(ws)["ended"] == {"reason": "resigned", "seat": 1}
        fake.advance(10)
    fake.advance(600)
    with app_at(pg_settings, fake) as client:
        keeper = service_of(client).authority.timekeeper
        assert keeper is not None and client.portal is not None
        fake.advance(19.9)
        client.portal.call(keeper.check)
        assert client.get(f"/api/games/{flagged['id']}").json()["status"] == "playing"
        fake.advance(0.1)
        client.portal.call(keeper.check)
        assert client.get(f"/api/games/{flagged['id']}").json()["ended"] == "time"
        table = client.get(f"/api/games/{resigned['id']}").json()
        assert (table["ended"], table["winner"]) == ("resigned", 0)


def _waiting_for_a_lock(engine: Engine) -> bool:
    with engine.connect() as connection:
        query = text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
        return bool(connection.scalar(query))


def test_a_batch_of_game_writes_takes_their_rows_in_the_order_of_their_ids(database_url: str) -> None:
    """``append_many`` updates its games' rows in id order, as the presence beat (``mark_seen``) does:
    while another transaction holds the first game's row, the batch holds no other, so that
    transaction can still write the second game instead of the two waiting for each other
    (PostgreSQL's "deadlock detected", which a 200-player arena on three processes met)."""
    store = Store(database_url)
    holder = make_engine(database_url)
    try:
        store.create_schema()
        first, second = sorted(add_game(store, [None, None], rated=False, control=None, decided=0)
                               for _ in range(2))
        seen = text("UPDATE games SET seen = now() WHERE id = :game")
        with holder.connect() as connection, connection.begin():
            connection.execute(text("SET LOCAL lock_timeout = '10s'"))
            connection.execute(seen, {"game": first})
            with ThreadPoolExecutor(1) as pool:
                batch = pool.submit(store.append_many, [end(second, 0), end(first, 1)])
                deadline = time.monotonic() + 10
                while not _waiting_for_a_lock(holder):
                    assert time.monotonic() < deadline and not batch.done(), "the batch never waited"
                    time.sleep(0.05)
                connection.execute(seen, {"game": second})
                connection.commit()
                batch.result(timeout=10)
        assert [store.load(game)[0].status for game in (first, second)] == ["over", "over"]
    finally:
        holder.dispose()
        store.close()


def test_the_presence_beat_passes_over_a_game_being_written(database_url: str) -> None:
    """``mark_seen`` never waits for a game's row another transaction holds: it marks the others and
    leaves that one to the next beat (so it cannot be one side of a deadlock)."""
    store = Store(database_url)
    holder = make_engine(database_url)
    try:
        store.create_schema()
        busy, free = (add_game(store, [None, None], rated=False, control=None, decided=0) for _ in range(2))
        now = datetime(2026, 12, 4, 22, 0, tzinfo=UTC)
        with holder.connect() as connection, connection.begin():
            connection.execute(text("UPDATE games SET moved = now() WHERE id = :game"), {"game": busy})
            with store.use() as session, session.begin():
                session.execute(text("SET LOCAL lock_timeout = '5s'"))
                listing.mark_seen(session, [busy, free], now)
        with store.use() as session:
            assert session.get(GameRow, free).seen == now
            assert session.get(GameRow, busy).seen is None
    finally:
        holder.dispose()
        store.close()
