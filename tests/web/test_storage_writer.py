"""Group commit (``writer.Writer``), on SQLite and on PostgreSQL.

Entries that arrive together are stored in fewer transactions than entries; each caller is
answered only once its own entry is in the database; each game's entries keep their order;
a bad entry (an index already stored) fails its own caller only, the rest of its batch is
stored; a database that cannot be used fails every caller of the batch with StoreUnavailable.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_postgres import database_url, server_url  # noqa: F401 (fixtures: skip without PostgreSQL)

from schotten.web.core.errors import LogConflict, StoreUnavailable
from schotten.web.core.vocab import Mode, Status
from schotten.web.storage.rows import Entry, GameInfo
from schotten.web.storage.store import Append, Store
from schotten.web.storage.writer import Writer

GAMES = 12
ENTRIES = 4


class CountingStore(Store):
    """A store that counts its transactions of appends and makes each a little slow, so that
    entries pile up while one is written."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.batches: list[int] = []

    def append_many(self, appends: list[Append]) -> None:
        """Count the batch, wait a little, then store it."""
        self.batches.append(len(appends))
        time.sleep(0.02)
        super().append_many(appends)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CountingStore]:
    """A counting store on a fresh database (PostgreSQL: skipped without a server)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'games.db'}"
    else:
        url = request.getfixturevalue("database_url")
    opened = CountingStore(url)
    opened.create_schema()
    yield opened
    opened.close()


def _game(store: Store, game_id: str) -> None:
    store.add_game(GameInfo(id=game_id, variant="base", rounds=1, seed=1, mode=Mode.FRIEND, level=None,
                            ai_seat=None, players=["A", "B"], token_hashes=[None, None],
                            status=Status.PLAYING))


def _stored(store: Store, game_id: str) -> list[str]:
    loaded = store.load(game_id)
    assert loaded is not None
    return [entry.notation for entry in loaded[1]]


def test_entries_that_arrive_together_share_a_transaction_in_order(store: CountingStore) -> None:
    ids = [f"g{n}" for n in range(GAMES)]
    for game_id in ids:
        _game(store, game_id)

    async def play(writer: Writer, game_id: str) -> None:
        for index in range(ENTRIES):
            await writer.append(game_id, Entry(index, "action", f"m{index}", index % 2), Status.PLAYING, None)
            assert _stored(store, game_id)[-1] == f"m{index}", "answered before its entry was stored"

    async def main() -> None:
        writer = Writer(store)
        await asyncio.gather(*(play(writer, game_id) for game_id in ids))
        await writer.stop()

    asyncio.run(main())
    for game_id in ids:
        assert _stored(store, game_id) == [f"m{i}" for i in range(ENTRIES)]
    assert sum(store.batches) == GAMES * ENTRIES
    assert len(store.batches) < GAMES * ENTRIES / 2, store.batches


def _append_together(store: Store, moves: list[tuple[str, str]]) -> list[BaseException | None]:
    """Each (game, notation) appended as entry 0 through one writer at once: each caller's outcome."""

    async def main() -> list[BaseException | None]:
        writer = Writer(store)
        results = await asyncio.gather(
            *(writer.append(g, Entry(0, "action", move, 0), Status.PLAYING, None) for g, move in moves),
            return_exceptions=True,
        )
        await writer.stop()
        return list(results)

    return asyncio.run(main())


def test_a_bad_entry_fails_its_own_caller_only(store: CountingStore) -> None:
    for game_id in ("a", "b", "c"):
        _game(store, game_id)
    store.append("b", Entry(0, "action", "first", 0), Status.PLAYING, None)

    results = _append_together(store, [(g, f"{g}0") for g in "abc"])
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], LogConflict)
    assert [_stored(store, g) for g in "abc"] == [["a0"], ["first"], ["c0"]]


def test_a_database_that_cannot_be_used_fails_the_whole_batch(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'games.db'}")
    store.create_schema()
    for game_id in ("a", "b"):
        _game(store, game_id)
    for name in ("games.db", "games.db-wal", "games.db-shm"):
        (tmp_path / name).unlink(missing_ok=True)

    results = _append_together(store, [("a", "m"), ("b", "m")])
    store.close()
    assert all(isinstance(r, StoreUnavailable) and "deleted" in r.message for r in results), results


def _metric(name: str) -> float:
    from schotten.web.core.metrics import REGISTRY

    value = REGISTRY.get_sample_value(name)
    return 0.0 if value is None else value


def test_stored_and_failed_entries_are_counted(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'games.db'}")
    store.create_schema()
    _game(store, "a")
    before = [_metric(n) for n in ("schotten_log_entries_total", "schotten_commit_seconds_count",
                                   "schotten_store_errors_total")]

    async def main() -> None:
        writer = Writer(store)
        await writer.append("a", Entry(0, "action", "m", 0), Status.PLAYING, None)
        for name in ("games.db", "games.db-wal", "games.db-shm"):
            (tmp_path / name).unlink(missing_ok=True)
        with pytest.raises(StoreUnavailable):
            await writer.append("a", Entry(1, "action", "m", 1), Status.PLAYING, None)
        await writer.stop()

    asyncio.run(main())
    store.close()
    after = [_metric(n) for n in ("schotten_log_entries_total", "schotten_commit_seconds_count",
                                  "schotten_store_errors_total")]
    assert after[0] - before[0] == 1 and after[1] - before[1] == 1 and after[2] - before[2] >= 1
