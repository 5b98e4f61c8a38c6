"""The database a store works on: its engine and sessions, the checks of its file, its locks.

Every call that cannot be done now raises ``StoreUnavailable`` with a sentence naming the cause (a
locked database after the busy timeout, a full disk, a read-only file, a server down) and counts in
``metrics.STORE_ERRORS``. A SQLite file is checked at each call: deleted or replaced since the store
first saw it (its device and inode), or made read-only, nothing is stored any more. An in-memory
SQLite database is one connection: its calls run one at a time.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import CursorResult, false, func, make_url, select, update
from sqlalchemy.exc import DBAPIError, DisconnectionError, IntegrityError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session, sessionmaker

from ..core import metrics
from ..core.errors import StoreUnavailable
from . import dblock, pglock
from .db import GameRow, HealthWriteRow, is_memory, make_engine, sqlite_path
from .migrate import UnknownRevision, upgrade

logger = logging.getLogger("schotten.web")


class Database:
    """The database at ``url`` (see ``db.make_engine``): sessions, file checks, the serving lock."""

    def __init__(self, url: str, busy_timeout: float = 5.0, shared: bool = False) -> None:
        """``shared``: served by several processes meeting on Redis (``pglock``), else by this one alone."""
        self.engine = make_engine(url, busy_timeout)
        self.shared = shared
        self._session = sessionmaker(self.engine, expire_on_commit=False)
        self._shown = make_url(url).render_as_string(hide_password=True)
        self._path = sqlite_path(url)
        self._serial: contextlib.AbstractContextManager[Any] = (
            threading.RLock() if is_memory(url) else contextlib.nullcontext()
        )
        self._identity: tuple[int, int] | None = None
        self._gone: str | None = None
        self._read_only = False
        self._starting = False
        self._locked = False

    @contextlib.contextmanager
    def _use(self, snapshot: bool = False) -> Iterator[Session]:
        """A session, after the file checks; database errors become ``StoreUnavailable``. With
        ``snapshot`` its reads see one moment of the database (PostgreSQL's REPEATABLE READ: a game's
        row and its log read together agree even while another process appends)."""
        with self._serial:
            self._check_file()
            try:
                with self._session() as session:
                    if snapshot and self.engine.dialect.name == "postgresql":
                        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
                    yield session
            except IntegrityError:
                raise
            except (DBAPIError, DisconnectionError, PoolTimeout) as error:
                raise self._unavailable(error) from None
            self._check_file()

    def use(self) -> contextlib.AbstractContextManager[Session]:
        """A session for the modules that keep their own tables (accounts, ratings, pairing): the same
        file checks, and database errors become ``StoreUnavailable``."""
        return self._use()

    def _unavailable(self, error: SQLAlchemyError) -> StoreUnavailable:
        """The refusal for a failed database call (logged, counted)."""
        metrics.STORE_ERRORS.inc()
        cause = str(getattr(error, "orig", None) or error).splitlines()[0]
        where = self._path or self._shown
        lowered = cause.lower()
        if self._starting:
            return StoreUnavailable(f"the database {where} cannot be used: {cause}")
        if "locked" in lowered or "busy" in lowered:
            text = f"the database {where} is locked by another writer: nothing was stored, try again"
        elif "readonly" in lowered or "read-only" in lowered:
            text = f"the database file {where} is read-only: nothing can be stored"
        elif "full" in lowered:
            text = f"the disk of the database {where} is full: nothing was stored"
        else:
            text = f"the database {where} cannot be used now ({cause}): nothing was stored, try again"
        logger.error("store error: %s", text)
        return StoreUnavailable(text)

    def _check_file(self) -> None:
        """Refuse if the SQLite file was deleted or replaced since it was first seen, or is read-only."""
        if self._path is None:
            return
        if self._gone is not None:
            raise StoreUnavailable(self._gone)
        try:
            found = os.stat(self._path)
        except FileNotFoundError:
            found = None
        except OSError as error:
            metrics.STORE_ERRORS.inc()
            text = f"the database file {self._path} cannot be reached: {error.strerror}"
            raise StoreUnavailable(text) from None
        if self._identity is None:
            if found is not None:
                self._identity = (found.st_dev, found.st_ino)
            return
        if found is None or (found.st_dev, found.st_ino) != self._identity:
            how = "deleted" if found is None else "replaced"
            self._gone = (f"the database file {self._path} was {how} while the server runs: nothing "
                          f"can be stored any more (restore the file and restart the server)")
            metrics.STORE_ERRORS.inc()
            logger.error("store error: %s", self._gone)
            raise StoreUnavailable(self._gone)
        if not os.access(self._path, os.W_OK):
            text = f"the database file {self._path} is read-only: nothing can be stored"
            metrics.STORE_ERRORS.inc()
            if not self._read_only:
                logger.error("store error: %s", text)
            self._read_only = True
            raise StoreUnavailable(text)
        self._read_only = False

    def create_schema(self) -> None:
        """Bring the tables to the newest schema (``migrate.upgrade``: an empty database is created,
        an older one migrated, in one transaction where the database allows)."""
        with self._use() as session, session.begin():
            if self._postgres:
                session.execute(select(func.pg_advisory_xact_lock(pglock.MIGRATING)))
            try:
                upgrade(session.connection())
            except UnknownRevision as error:
                metrics.STORE_ERRORS.inc()
                where = self._path or self._shown
                raise StoreUnavailable(f"the database {where} cannot be used: {error}") from None

    def prove_writable(self) -> None:
        """Write the health check's row (``HealthWriteRow``, one tiny transaction); ``StoreUnavailable``
        if it cannot be stored (a read-only, locked, full or lost database)."""
        now = datetime.now(UTC)
        query = update(HealthWriteRow).where(HealthWriteRow.id == 1).values(written=now)
        with contextlib.suppress(IntegrityError), self._use() as session, session.begin():
            written = session.execute(query)
            if not cast(CursorResult[Any], written).rowcount:
                session.add(HealthWriteRow(id=1, written=now))

    def check(self) -> None:
        """Make sure the database can be used before serving: its folder exists and is writable (a
        SQLite file), the tables exist and a write transaction can begin. ``StoreUnavailable``
        with a sentence naming the path (or the URL, password hidden) if not."""
        if self._path is not None:
            _check_folder(self._path)
            if not self._locked:
                dblock.acquire(self._path)
                self._locked = True
        if self.shared and not self._postgres:
            where = self._path or self._shown
            raise StoreUnavailable(f"the database {where} is SQLite, served by one process: --redis is "
                                   "for several processes on one PostgreSQL database (drop it, or use "
                                   "PostgreSQL)")
        self._starting = True
        try:
            if self._postgres and not self._locked:
                try:
                    pglock.acquire(self.engine, self.shared, self._shown)
                except (DBAPIError, DisconnectionError, PoolTimeout) as error:
                    raise self._unavailable(error) from None
                self._locked = True
            self.create_schema()
            with self._use() as session, session.begin():
                session.execute(update(GameRow).where(false()).values(status=GameRow.status))
        finally:
            self._starting = False

    def close(self) -> None:
        """Close every pooled connection (and let go of the SQLite file's lock, see ``dblock``, or of
        PostgreSQL's serving lock, see ``pglock``)."""
        if self._locked and self._postgres:
            pglock.release(self.engine)
        self.engine.dispose()
        if self._locked and self._path is not None:
            dblock.release(self._path)
        self._locked = False

    @property
    def _postgres(self) -> bool:
        return self.engine.dialect.name == "postgresql"


def _check_folder(path: str) -> None:
    """Refuse a SQLite file whose folder is missing or not writable, or that is read-only."""
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise StoreUnavailable(f"the folder {folder} of the database {path} does not exist: create it "
                               f"or choose another database")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise StoreUnavailable(f"the database file {path} is read-only: the server could store no move")
    if not os.access(folder, os.W_OK):
        raise StoreUnavailable(f"the folder {folder} of the database {path} is not writable: SQLite "
                               f"writes its journal (-wal, -shm) beside the file")
