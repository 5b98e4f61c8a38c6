"""Schema migrations from the previous release (commit fb55610, issue 14, revision 0002): a database it
made upgrades in place to the head and keeps every game, on SQLite and PostgreSQL.

The old database is ``data/fb55610.db``, written by the real code of that commit on a fake clock
(``data/make_v2_database.py`` says how): clocks running and stopped, games ended off the board (an
``end`` log entry), chat and a mute, an AI game, open tables, rematches. As in ``test_migrations``
(whose readers of the old file are pointed at this one: ``v2_file``), each test reads the old rows
with plain SQL first, replays the logs with the engine, and checks that the migrated app serves
exactly that.

The migrated app runs on a fake clock ``DOWN`` after the old server's last heartbeat (its
``server_beats`` row, kept on purpose): on start-up the app gives that time back to every running
clock, so each running clock shows exactly what it had left when the old server stopped. Without
the time given back, the real-time game would have lost on time at start-up.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import test_migrations
from alembic import command
from helpers_web import (
    FakeClock,
    Message,
    app_at,
    choose,
    expected_state,
    receive_state,
    service_of,
    socket_path,
    steady,
    test_settings,
)
from sqlalchemy import Connection, DateTime, MetaData, insert, select
from starlette.testclient import TestClient, WebSocketTestSession
from test_migrations import (
    DATA,
    OLD_TABLES,
    OldGame,
    check_idempotent_and_equal,
    old_games,
    old_links,
    schema_of,
    told_rematch,
)
from test_postgres import database_url, server_url  # noqa: F401 (fixtures)

from schotten.engine import GameState
from schotten.web.core.settings import WebSettings
from schotten.web.games.gamechat import QUICK_MARK
from schotten.web.storage import migrate
from schotten.web.storage.db import GameRow, ServerBeatRow, make_engine, utc
from schotten.web.storage.store import Store

V2 = DATA / "fb55610.db"
TOKENS: dict[str, list[str | None]] = json.loads((DATA / "fb55610.tokens.json").read_text())
V2_TABLES = (*OLD_TABLES, "chat_messages", "chat_mutes", "server_beats")
"""The tables of revision 0002, parents first."""
DOWN = timedelta(hours=3)
"""How long after the old server's last heartbeat the migrated app starts."""
THINK = 3.0
"""The seconds a seat takes over its move when a game plays on."""
FORFEITS = ("time", "resigned", "left")
NO_ACCOUNTS = {"rated": False, "accounts": [None, None], "ratings": [None, None],
               "provisional": [False, False], "rating_range": [None, None]}


@pytest.fixture(autouse=True)
def v2_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """``test_migrations``' readers of the old file (``old_games``, ``old_links``, ``told_rematch``)
    read ``fb55610.db`` instead, and count its tables."""
    monkeypatch.setattr(test_migrations, "OLD", V2)
    monkeypatch.setattr(test_migrations, "OLD_TABLES", V2_TABLES)


@pytest.fixture
def v2_sqlite(tmp_path: Path) -> str:
    """A copy of the old file: its SQLite URL."""
    copy = tmp_path / "games.db"
    copy.write_bytes(V2.read_bytes())
    return f"sqlite:///{copy}"


def old_rows(query: str, *params: Any) -> list[dict[str, Any]]:
    """Rows of the old file, read with plain SQL."""
    with closing(sqlite3.connect(f"file:{V2}?mode=ro", uri=True)) as old:
        old.row_factory = sqlite3.Row
        return [dict(row) for row in old.execute(query, params)]


def moment(value: str) -> datetime:
    """A time of the old file (SQLite keeps naive UTC) as an aware datetime."""
    return datetime.fromisoformat(value).replace(tzinfo=UTC)


def last_beat() -> datetime:
    """When the old server was last seen running."""
    (row,) = old_rows("SELECT seen FROM server_beats")
    return moment(row["seen"])


def ms(delta: timedelta) -> int:
    """A duration in whole milliseconds."""
    return round(delta.total_seconds() * 1000)


def ending(game: OldGame) -> dict[str, Any] | None:
    """How the game ended off the board, as its ``end`` entry (always the last) says."""
    if game.log and game.log[-1][0] == "end":
        return {"reason": game.log[-1][1], "seat": game.log[-1][2]}
    return None


def replayed(game: OldGame) -> GameState:
    """The game replayed with the engine from its old log: its moves (``OldGame.state``), then the
    forfeit its ``end`` entry records, if it is one (an abort leaves the board as it was)."""
    ended = ending(game)
    state = OldGame(game.row, game.log[:-1] if ended else game.log).state()
    if ended is not None and ended["reason"] in FORFEITS:
        state.forfeit(ended["seat"], ended["reason"])
    return state


def rematch_told(game_id: str, games: dict[str, OldGame]) -> dict[str, Any]:
    """The rematch fields of the game's state message (``told_rematch``); a closed rematch table also
    names the game it was offered after and its own closed offer."""
    told = told_rematch(game_id, games)
    link = old_links()[1].get(game_id)
    if link is not None:
        told |= {"rematch_of": link["game_id"],
                 "rematch_closed": {"id": game_id, "by": link["by_seat"], "reason": link["reason"]}}
    return told


def control(row: dict[str, Any]) -> dict[str, int] | None:
    """The game's time control as the API writes it (None: untimed)."""
    if row["clock_days"] is not None:
        return {"days": row["clock_days"]}
    if row["clock_initial"] is not None:
        return {"initial": row["clock_initial"], "increment": row["clock_increment"]}
    return None


def clocks_told(row: dict[str, Any]) -> dict[str, Any]:
    """The clock fields of the game's state message: each seat's milliseconds as the old row has them,
    less, for the running clock, the time it ran before the old server stopped (the downtime after
    that is given back)."""
    if control(row) is None:
        return {"clock": None, "clocks": None, "clock_running": None}
    left = [row["clock_ms0"], row["clock_ms1"]]
    running = row["clock_seat"]
    if running is not None:
        left[running] -= ms(last_beat() - moment(row["clock_since"]))
    return {"clock": control(row), "clocks": left, "clock_running": running}


def chat_told(game_id: str, seat: int | None, finished: bool, muted: bool) -> list[Message]:
    """The chat histories a socket of ``seat`` gets on connecting, from the old rows: each room it gets
    that someone wrote in, without the other player's lines if ``seat`` muted them."""
    rows = old_rows('SELECT * FROM chat_messages WHERE game_id = ? ORDER BY "index"', game_id)
    rooms = ("players", "spectators") if finished else ("spectators",) if seat is None else ("players",)
    told = []
    for room in rooms:
        held = [row for row in rows if row["room"] == room]
        shown = [row for row in held if not (muted and row["seat"] not in (None, seat))]
        if held:
            told.append({"type": "chat", "room": room, "full": True, "messages": [line(r) for r in shown]})
    return told


def line(row: dict[str, Any]) -> Message:
    """A chat line as a chat message tells it (a quick message is its key)."""
    quick = row["text"][len(QUICK_MARK):] if row["text"].startswith(QUICK_MARK) else None
    return {"index": row["index"], "seat": row["seat"], "name": row["name"],
            "text": None if quick else row["text"], "quick": quick, "time": moment(row["time"])}


def next_told(ws: WebSocketTestSession) -> Message:
    """The next message that is not a presence message; chat lines' times as datetimes."""
    while True:
        message: Message = ws.receive_json()
        if message["type"] == "chat":
            for told in message["messages"]:
                told["time"] = datetime.fromisoformat(told["time"])
        if message["type"] != "presence":
            return message


def test_the_old_file_is_what_the_previous_version_made() -> None:
    """The fixture holds what the tests need, at revision 0002: real-time and turn-based games in
    progress with their clocks running and each move's time, games resigned and aborted, one finished
    on the board with the players' and spectators' chat and a mute, an AI game, open tables (one with a
    clock), an open and a declined rematch, and the server's last heartbeat."""
    games = old_games()
    kinds = {(g.row["mode"], g.row["status"], g.row["ended"]) for g in games.values()}
    assert {("ai", "playing", None), ("friend", "playing", None), ("friend", "over", "resigned"),
            ("friend", "over", "aborted"), ("friend", "over", None), ("friend", "open", None),
            ("friend", "closed", None)} <= kinds
    running = {(control(g.row) or {}).get("days", 0) > 0 for g in games.values()
               if g.row["status"] == "playing" and g.row["clock_seat"] is not None}
    assert running == {True, False}
    assert any(control(g.row) and g.row["status"] == "open" for g in games.values())
    assert old_rows("SELECT spent_ms FROM log_entries WHERE spent_ms > 0")
    rooms = {row["room"] for row in old_rows("SELECT room FROM chat_messages")}
    assert rooms == {"players", "spectators"} and len(old_rows("SELECT * FROM chat_mutes")) == 1
    assert all(len(links) == 1 for links in old_links())
    assert last_beat() and old_rows("SELECT version_num FROM alembic_version") == [{"version_num": "0002"}]
    names = {row["name"] for row in old_rows("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert names == {*V2_TABLES, "alembic_version"}


def test_revision_0002_is_the_old_schema(tmp_path: Path, v2_sqlite: str) -> None:
    """On an empty file, revisions 0001 and 0002 make the tables the previous version had."""
    engine = make_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
    old = make_engine(v2_sqlite)
    try:
        with engine.begin() as connection:
            command.upgrade(migrate.config(connection), "0002")
            made = schema_of(connection)
        with old.connect() as connection:
            assert schema_of(connection) == made
    finally:
        engine.dispose()
        old.dispose()


def check_migrated(settings: WebSettings) -> None:
    """Start the current app on the old database, ``DOWN`` after its last heartbeat: every game as its
    old log replays, with its clocks, ending, rematches and chat; no accounts, nothing rated; the
    running clocks given the downtime back; then the games in progress play on."""
    games = old_games()
    clock = FakeClock()
    clock.moment = last_beat() + DOWN
    with app_at(settings, clock) as client:
        for game_id, game in games.items():
            check_summary(client, game_id, game)
            check_sockets(client, game_id, game, games)
        check_new_columns(client, games)
        for game_id, game in games.items():
            if game.row["status"] == "playing":
                play_on(client, clock, game_id, game)


def check_summary(client: TestClient, game_id: str, game: OldGame) -> None:
    """``/api/games/{id}``: the old row's fields, its time control and ending, the rematch links, and
    the new fields' defaults."""
    summary = client.get(f"/api/games/{game_id}").json()
    row = game.row
    rematches, closed = old_links()
    same = ("status", "winner", "ended")
    assert [summary[key] for key in same] == [row[key] for key in same]
    assert summary["players"] == [row["player0"], row["player1"]]
    assert (summary["version"], summary["clock"]) == (len(game.log), control(row))
    assert datetime.fromisoformat(summary["created"]) == moment(row["created"])
    assert summary["rematch"] == rematches.get(game_id, {}).get("rematch_id")
    rematch_of = [link["game_id"] for link in (*rematches.values(), *closed.values())
                  if link["rematch_id"] == game_id]
    assert summary["rematch_of"] == (rematch_of[0] if rematch_of else None)
    assert {key: summary[key] for key in NO_ACCOUNTS} == NO_ACCOUNTS


def check_sockets(client: TestClient, game_id: str, game: OldGame, games: dict[str, OldGame]) -> None:
    """Each seat (with its token) and a spectator get the exact state the old log replays to, then the
    chat histories of their rooms as the old rows say, and nothing else."""
    row, state = game.row, replayed(game)
    undo_limit = service_of(client).settings.undo_limit
    mutes = {r["seat"] for r in old_rows("SELECT seat FROM chat_mutes WHERE game_id = ?", game_id)}
    extras = rematch_told(game_id, games) | clocks_told(row) | {"ended": ending(game)}
    players = [row["player0"], row["player1"]]
    for seat in (None, 0, 1):
        token = None if seat is None else TOKENS.get(game_id, [None, None])[seat]
        if seat is not None and token is None:
            continue
        left = 0 if seat is None else undo_limit - game.undos(seat)
        want = expected_state(state, seat, len(game.log), players, row["status"], 0, left,
                              muted=seat in mutes) | extras
        with client.websocket_connect(socket_path(game_id, token)) as ws:
            got = next_told(ws)
            assert steady(got) == want, (game_id, seat)
            finished = state.is_over or row["status"] == "over"
            for told in chat_told(game_id, seat, finished, seat in mutes):
                assert next_told(ws) == told, (game_id, seat)
            ws.send_json({"type": "sync"})
            assert next_told(ws)["type"] == "state"


def check_new_columns(client: TestClient, games: dict[str, OldGame]) -> None:
    """The games' new columns hold their defaults; the running clocks were moved on by ``DOWN`` (their
    milliseconds unchanged); the heartbeat is the new server's."""
    store = service_of(client).store
    columns = (GameRow.id, GameRow.account0, GameRow.account1, GameRow.rated, GameRow.min_rating,
               GameRow.max_rating, GameRow.clock_ms0, GameRow.clock_ms1, GameRow.clock_since,
               GameRow.deadline)
    with store.engine.connect() as connection:
        rows = {r.id: r for r in connection.execute(select(*columns))}
        seen = connection.execute(select(ServerBeatRow.seen)).scalar_one()
    assert utc(seen) == last_beat() + DOWN
    assert rows.keys() == games.keys()
    for game_id, game in games.items():
        got, old = rows[game_id], game.row
        assert (got.account0, got.account1, got.rated, got.min_rating, got.max_rating) == \
            (None, None, False, None, None)
        assert (got.clock_ms0, got.clock_ms1) == (old["clock_ms0"], old["clock_ms1"])
        for key in ("clock_since", "deadline"):
            value = getattr(got, key)
            moved = moment(old[key]) + DOWN if old[key] is not None else None
            assert (utc(value) if value is not None else None) == moved, (game_id, key)


def play_on(client: TestClient, clock: FakeClock, game_id: str, game: OldGame) -> None:
    """The seat to move (its token from the tokens file) moves after ``THINK`` seconds: the new entry
    is stored after the old ones (kept with their times), its time counted from when its clock started
    running, less the downtime given back; a real-time clock takes the time off the mover (and adds
    the increment if the turn passed); an AI answers."""
    row, seat = game.row, replayed(game).turn
    token = TOKENS[game_id][seat]
    assert token is not None, "the AI is to move in the old file"
    with client.websocket_connect(socket_path(game_id, token)) as ws:
        before = receive_state(ws)
        clock.advance(THINK)
        ws.send_json({"type": "action", "action": choose(before, random.Random(1)),
                      "version": before["version"]})
        after = message = receive_state(ws)
        while row["mode"] == "ai" and not message["view"]["legal"] and message["status"] == "playing":
            message = receive_state(ws)
    assert after["version"] == len(game.log) + 1
    loaded = service_of(client).store.load(game_id)
    assert loaded is not None
    entries = loaded[1]
    old = old_rows('SELECT kind, notation, seat, spent_ms FROM log_entries WHERE game_id = ? '
                   'ORDER BY "index"', game_id)
    assert [(e.kind, e.notation, e.seat, e.spent_ms) for e in entries[:len(old)]] == \
        [(o["kind"], o["notation"], o["seat"], o["spent_ms"]) for o in old]
    spent = entries[len(old)].spent_ms
    if control(row) is None:
        assert spent is None
        return
    assert spent == ms(clock.moment - (moment(row["clock_since"]) + DOWN))
    if row["clock_initial"] is not None:
        bonus = row["clock_increment"] * 1000 if after["clock_running"] != seat else 0
        assert after["clocks"][seat] == before["clocks"][seat] - ms(timedelta(seconds=THINK)) + bonus


# SQLite


def test_a_v2_sqlite_file_upgrades_and_keeps_every_game(tmp_path: Path, v2_sqlite: str) -> None:
    """The file made by the previous release: upgraded 0002 -> head, every game as its log says, then
    equal to ``db.py``'s tables, and a second start changes nothing."""
    check_migrated(test_settings(tmp_path, database_url=v2_sqlite))
    store = Store(v2_sqlite)
    try:
        check_idempotent_and_equal(store)
    finally:
        store.close()


# PostgreSQL


def copy_v2_rows(connection: Connection) -> None:
    """The old file's rows into revision 0002's tables of ``connection`` (times as aware UTC; unlike
    ``test_migrations.copy_old_rows``, a time may be NULL: an untimed game's clock)."""
    tables = MetaData()
    tables.reflect(connection, only=V2_TABLES)
    for name in V2_TABLES:
        table = tables.tables[name]
        times = {c.name for c in table.columns if isinstance(c.type, DateTime)}
        rows = [{k: moment(v) if k in times and v is not None else v for k, v in row.items()}
                for row in old_rows(f'SELECT * FROM "{name}"')]
        connection.execute(insert(table), rows)


@pytest.fixture
def v2_postgres(database_url: str) -> Iterator[str]:  # noqa: F811 (the fixture)
    """A PostgreSQL schema as the previous release left it: at revision 0002, holding the old file's rows."""
    engine = make_engine(database_url)
    with engine.begin() as connection:
        command.upgrade(migrate.config(connection), "0002")
        copy_v2_rows(connection)
    engine.dispose()
    yield database_url


def test_a_v2_postgres_database_upgrades_and_keeps_every_game(tmp_path: Path, v2_postgres: str) -> None:
    """The same on PostgreSQL: every game as its log says, then equal to ``db.py``, idempotent."""
    check_migrated(test_settings(tmp_path, database_url=v2_postgres))
    store = Store(v2_postgres)
    try:
        check_idempotent_and_equal(store)
    finally:
        store.close()
