"""Schema migrations (``schotten.web.storage.migrate``): a database made by the version before migrations
upgrades in place and keeps every game, on SQLite and PostgreSQL; the migrated tables are exactly
``db.py``'s; a second run changes nothing; a fresh database starts at the head.

The old database is ``data/ebc218a.db``, written by the real code of commit ebc218a
(``data/make_old_database.py`` says how). Each test reads what its old log says with plain SQL
first, replays it with the engine, and checks the migrated app shows exactly that.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from helpers_web import choose, expected_state, receive_state, service_of, socket_path, steady, test_settings
from sqlalchemy import Connection, DateTime, MetaData, insert, inspect, text
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401 (fixtures)

from schotten.engine import GameState, Settings
from schotten.web import create_app
from schotten.web.core.errors import StoreUnavailable
from schotten.web.core.settings import WebSettings
from schotten.web.storage import migrate
from schotten.web.storage.db import make_engine
from schotten.web.storage.store import Store

DATA = Path(__file__).parent / "data"
OLD = DATA / "ebc218a.db"
TOKENS: dict[str, list[str | None]] = json.loads((DATA / "ebc218a.tokens.json").read_text())
OLD_TABLES = ("games", "log_entries", "rematches", "closed_rematches")
NEW_TABLES = ("account_tokens", "recovery_codes", "challenges", "tournament_games", "tournament_players",
              "tournaments", "moderation_log", "reports", "blocks", "follows", "reviews", "trusted_devices",
              "health_writes", "chat_messages", "chat_mutes", "server_beats", "rating_changes",
              "pool_entries", "ratings", "sessions", "accounts")
REMATCH_KEYS = ("rematch", "rematch_of", "rematch_closed")


@dataclass
class OldGame:
    """A game as the old file stores it: its row and its log."""

    row: dict[str, Any]
    log: list[tuple[str, str, int]]

    def state(self) -> GameState:
        """The game replayed with the engine from the old log: actions, undos taking moves back."""
        moves: list[str] = []
        for kind, notation, _seat in self.log:
            if kind == "action":
                moves.append(notation)
            else:
                assert kind == "undo"
                taken = notation.split("; ")
                assert moves[-len(taken):] == taken
                del moves[-len(taken):]
        state = GameState.new(Settings.of(self.row["variant"], self.row["rounds"]), self.row["seed"])
        for move in moves:
            state.apply(move)
        return state

    def undos(self, seat: int) -> int:
        """How many undos ``seat`` made."""
        return sum(1 for kind, _, by in self.log if kind == "undo" and by == seat)


def old_games() -> dict[str, OldGame]:
    """Every game of the old file, read with plain SQL."""
    with closing(sqlite3.connect(f"file:{OLD}?mode=ro", uri=True)) as old:
        old.row_factory = sqlite3.Row
        games = {row["id"]: OldGame(dict(row), []) for row in old.execute("SELECT * FROM games")}
        query = 'SELECT game_id, kind, notation, seat FROM log_entries ORDER BY game_id, "index"'
        for row in old.execute(query):
            games[row["game_id"]].log.append((row["kind"], row["notation"], row["seat"]))
    return games


def old_links() -> tuple[dict[str, Any], dict[str, Any]]:
    """The old file's rematches (game -> its row) and closed offers (rematch table -> its row)."""
    with closing(sqlite3.connect(f"file:{OLD}?mode=ro", uri=True)) as old:
        old.row_factory = sqlite3.Row
        open_ = {row["game_id"]: dict(row) for row in old.execute("SELECT * FROM rematches")}
        closed = {row["rematch_id"]: dict(row) for row in old.execute("SELECT * FROM closed_rematches")}
    return open_, closed


def told_rematch(game_id: str, games: dict[str, OldGame]) -> dict[str, Any]:
    """The rematch fields of a game's state message, from the old file's links."""
    rematches, closed = old_links()
    told: dict[str, Any] = dict.fromkeys(REMATCH_KEYS)
    if game_id in rematches:
        link = rematches[game_id]
        accepted = games[link["rematch_id"]].row["status"] != "open"
        told["rematch"] = {"id": link["rematch_id"], "by": link["by_seat"], "accepted": accepted}
    for link in rematches.values():
        if link["rematch_id"] == game_id:
            told["rematch_of"] = link["game_id"]
    for link in closed.values():
        if link["game_id"] == game_id and told["rematch"] is None:
            told["rematch_closed"] = {"id": link["rematch_id"], "by": link["by_seat"],
                                      "reason": link["reason"]}
    return told


@pytest.fixture
def old_file(tmp_path: Path) -> str:
    """A copy of the old file: its SQLite URL."""
    copy = tmp_path / "games.db"
    shutil.copyfile(OLD, copy)
    return f"sqlite:///{copy}"


def test_the_old_file_is_what_the_old_version_made() -> None:
    """The fixture holds what the tests need: an AI game in progress, finished friend games (one
    rematch accepted and played, one offer declined), an undo, an open table; and no migration."""
    games = old_games()
    kinds = {(g.row["mode"], g.row["status"]) for g in games.values()}
    assert {("ai", "playing"), ("friend", "over"), ("friend", "playing"), ("friend", "open"),
            ("friend", "closed")} <= kinds
    assert any(kind == "undo" for g in games.values() for kind, _, _ in g.log)
    assert all(len(links) == 1 for links in old_links())
    assert sum(1 for game_id in games if any(told_rematch(game_id, games).values())) == 3
    with closing(sqlite3.connect(f"file:{OLD}?mode=ro", uri=True)) as old:
        names = {name for (name,) in old.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert names == set(OLD_TABLES)


def check_migrated(settings: WebSettings) -> None:
    """Start the current app on the old database: every game there, as its old log replays, and the
    games in progress play on, storing their new entries with the new columns."""
    games = old_games()
    rematches, closed = old_links()
    with TestClient(create_app(settings)) as client:
        undo_limit = service_of(client).settings.undo_limit
        for game_id, game in games.items():
            summary = client.get(f"/api/games/{game_id}").json()
            row = game.row
            assert (summary["status"], summary["winner"]) == (row["status"], row["winner"])
            assert summary["players"] == [row["player0"], row["player1"]]
            assert summary["version"] == len(game.log)
            assert summary["rematch"] == rematches.get(game_id, {}).get("rematch_id")
            rematch_of = [link["game_id"] for link in (*rematches.values(), *closed.values())
                          if link["rematch_id"] == game_id]
            assert summary["rematch_of"] == (rematch_of[0] if rematch_of else None)
            if row["status"] in ("open", "closed"):
                continue
            state = game.state()
            for seat in (None, 0, 1):
                token = None if seat is None else TOKENS[game_id][seat]
                if seat is not None and token is None:
                    continue
                with client.websocket_connect(socket_path(game_id, token)) as ws:
                    got = receive_state(ws)
                left = 0 if seat is None else undo_limit - game.undos(seat)
                want = expected_state(state, seat, len(game.log), summary["players"], row["status"], 0, left)
                assert steady(got) == want | told_rematch(game_id, games), (game_id, seat)
        for game_id, game in games.items():
            if game.row["status"] == "playing":
                play_on(client, game_id, game)


def play_on(client: TestClient, game_id: str, game: OldGame) -> None:
    """The seat to move plays a move (in an AI game, the AI answers); the new entries are stored,
    each with the new ``spent_ms`` column, and the game row reads with its new columns."""
    seat = game.state().turn
    token = TOKENS[game_id][seat]
    assert token is not None, "the AI is to move in the old file"
    with client.websocket_connect(socket_path(game_id, token)) as ws:
        message = receive_state(ws)
        ws.send_json({"type": "action", "action": choose(message, random.Random(1)),
                      "version": message["version"]})
        message = receive_state(ws)
        while game.row["mode"] == "ai" and not message["view"]["legal"] and message["status"] == "playing":
            message = receive_state(ws)
    store = service_of(client).store
    loaded = store.load(game_id)
    assert loaded is not None
    entries = loaded[1]
    assert len(entries) > len(game.log)
    assert [(e.kind, e.notation, e.seat) for e in entries[:len(game.log)]] == game.log
    with store.engine.connect() as connection:
        query = text('SELECT spent_ms FROM log_entries WHERE game_id = :id AND "index" >= :start')
        assert len(connection.execute(query, {"id": game_id, "start": len(game.log)}).all()) == \
            len(entries) - len(game.log)
        columns = "clock_initial, clock_days, clock_seat, deadline, ended, moved"
        assert connection.execute(text(f"SELECT {columns} FROM games WHERE id = :id"), {"id": game_id}).one()


def schema_of(connection: Connection) -> dict[str, Any]:
    """Every table's columns, keys, indexes and constraints, and the revision, as the database says."""
    seen = inspect(connection)
    tables: dict[str, Any] = {"revision": migrate.current(connection)}
    for name in sorted(seen.get_table_names()):
        tables[name] = (
            [(c["name"], str(c["type"]), c["nullable"]) for c in seen.get_columns(name)],
            seen.get_pk_constraint(name)["constrained_columns"],
            sorted((fk["constrained_columns"], fk["referred_table"]) for fk in seen.get_foreign_keys(name)),
            sorted((i["name"], i["column_names"], bool(i["unique"])) for i in seen.get_indexes(name)),
            sorted(u["column_names"] for u in seen.get_unique_constraints(name)),
        )
    return tables


def counts(connection: Connection) -> dict[str, int]:
    """How many rows each table has."""
    return {name: connection.execute(text(f'SELECT COUNT(*) FROM "{name}"')).scalar_one()
            for name in OLD_TABLES + NEW_TABLES}


def started(url: str) -> Store:
    """A store on ``url``, checked as the server does on start-up."""
    store = Store(url)
    store.check()
    return store


def check_idempotent_and_equal(store: Store) -> None:
    """The database is at the head, equal to ``db.py``'s tables; another start changes nothing."""
    with store.engine.connect() as connection:
        assert migrate.current(connection) == migrate.head()
        assert migrate.differences(connection) == []
        before, rows = schema_of(connection), counts(connection)
    store.check()
    with store.engine.connect() as connection:
        assert (schema_of(connection), counts(connection)) == (before, rows)


# SQLite


def test_an_old_sqlite_file_upgrades_and_keeps_every_game(tmp_path: Path, old_file: str) -> None:
    """The file made by the previous version: stamped, upgraded, every game as its log says."""
    check_migrated(test_settings(tmp_path, database_url=old_file))
    store = Store(old_file)
    try:
        check_idempotent_and_equal(store)
    finally:
        store.close()


def test_revision_0001_is_the_old_schema_exactly(tmp_path: Path) -> None:
    """On an empty file, revision 0001 makes the very tables the previous version's ``create_all`` made."""
    engine = make_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
    with engine.begin() as connection:
        command.upgrade(migrate.config(connection), "0001")
    query = ("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name != 'alembic_version' "
             "ORDER BY name")
    with engine.connect() as connection:
        made = [tuple(row) for row in connection.execute(text(query))]
    engine.dispose()
    with closing(sqlite3.connect(f"file:{OLD}?mode=ro", uri=True)) as old:
        assert made == old.execute(query).fetchall()


@pytest.mark.parametrize("kind", ["file", "memory"])
def test_a_fresh_database_starts_at_the_head(tmp_path: Path, kind: str) -> None:
    """An empty database (a file, or the one in-memory connection) is created at the head; the
    same tables as running every revision from the start."""
    url = f"sqlite:///{tmp_path / 'fresh.db'}" if kind == "file" else "sqlite://"
    store = started(url)
    try:
        check_idempotent_and_equal(store)
        with store.engine.connect() as connection:
            created = schema_of(connection)
    finally:
        store.close()
    engine = make_engine("sqlite://")
    with engine.begin() as connection:
        command.upgrade(migrate.config(connection), "head")
        assert migrate.differences(connection) == []
        assert schema_of(connection) == created
    engine.dispose()


def test_a_database_from_before_rematches_gets_their_tables(tmp_path: Path, old_file: str) -> None:
    """A database older still (no rematch tables, which the previous version added on start-up)."""
    path = old_file.removeprefix("sqlite:///")
    with closing(sqlite3.connect(path)) as old:
        old.executescript("DELETE FROM closed_rematches; DELETE FROM rematches; "
                          "DROP TABLE closed_rematches; DROP TABLE rematches;")
    store = started(old_file)
    try:
        check_idempotent_and_equal(store)
        with store.engine.connect() as connection:
            assert counts(connection)["games"] == len(old_games())
    finally:
        store.close()


def test_a_head_schema_without_a_revision_is_stamped(tmp_path: Path) -> None:
    """Tables made by ``create_all`` of these very tables (no ``alembic_version``): stamped at the head."""
    url = f"sqlite:///{tmp_path / 'games.db'}"
    store = started(url)
    with store.engine.begin() as connection:
        connection.execute(text("DROP TABLE alembic_version"))
    store.close()
    store = started(url)
    try:
        check_idempotent_and_equal(store)
    finally:
        store.close()


def test_a_revision_this_version_does_not_know_is_refused(tmp_path: Path) -> None:
    """A database a newer version migrated: the server does not start, saying why."""
    url = f"sqlite:///{tmp_path / 'games.db'}"
    started(url).close()
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    store = Store(url)
    with pytest.raises(StoreUnavailable, match=r"cannot be used: .*revision 9999.*does not know"):
        store.check()
    store.close()


# PostgreSQL


def copy_old_rows(connection: Connection) -> None:
    """The old file's rows into the old tables of ``connection`` (times as aware UTC)."""
    tables = MetaData()
    tables.reflect(connection, only=OLD_TABLES)
    with closing(sqlite3.connect(f"file:{OLD}?mode=ro", uri=True)) as old:
        old.row_factory = sqlite3.Row
        for name in OLD_TABLES:
            table = tables.tables[name]
            times = {c.name for c in table.columns if isinstance(c.type, DateTime)}
            rows = [{k: datetime.fromisoformat(v).replace(tzinfo=UTC) if k in times else v
                     for k, v in dict(row).items()} for row in old.execute(f'SELECT * FROM "{name}"')]
            connection.execute(insert(table), rows)


@pytest.fixture
def old_postgres(database_url: str) -> Iterator[str]:  # noqa: F811 (the fixture)
    """A PostgreSQL schema as the previous version left it: revision 0001's tables (no
    ``alembic_version``) holding the old file's rows."""
    engine = make_engine(database_url)
    with engine.begin() as connection:
        command.upgrade(migrate.config(connection), "0001")
        connection.execute(text("DROP TABLE alembic_version"))
        copy_old_rows(connection)
    engine.dispose()
    yield database_url


def test_an_old_postgres_database_upgrades_and_keeps_every_game(tmp_path: Path, old_postgres: str) -> None:
    """The same on PostgreSQL: every game as its log says, then equal to ``db.py``, idempotent."""
    check_migrated(test_settings(tmp_path, database_url=old_postgres))
    store = Store(old_postgres)
    try:
        check_idempotent_and_equal(store)
    finally:
        store.close()


def test_a_fresh_postgres_database_starts_at_the_head(database_url: str) -> None:  # noqa: F811
    """An empty PostgreSQL schema: created at the head, the same as running every revision."""
    store = started(database_url)
    try:
        check_idempotent_and_equal(store)
        with store.engine.begin() as connection:
            created = schema_of(connection)
            for name in (*NEW_TABLES, *reversed(OLD_TABLES), "alembic_version"):
                connection.execute(text(f'DROP TABLE "{name}"'))
            command.upgrade(migrate.config(connection), "head")
            assert migrate.differences(connection) == []
            assert schema_of(connection) == created
    finally:
        store.close()
