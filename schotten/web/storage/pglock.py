"""Who serves a PostgreSQL database: one process alone, or several that meet on Redis, never both.

A process started without ``--redis`` caches its games and tells nobody of its changes, so it must
serve its database alone: it holds the session advisory lock ``SERVING`` exclusively
(``pg_try_advisory_lock``). Processes started with ``--redis`` hold it shared
(``pg_try_advisory_lock_shared``): any number of them together, but not beside a lone one. The
loser is refused at start with a sentence saying which. Within one process the lock is counted, so
apps built side by side in tests share it. The lock goes with its connection: a killed server
leaves nothing behind.
"""

from __future__ import annotations

import logging

from sqlalchemy import Connection, Engine, func, literal, select
from sqlalchemy.exc import SQLAlchemyError

from ..core.errors import StoreUnavailable
from .dblock import Held

logger = logging.getLogger("schotten.web")

SERVING = 0x5C077E7
"""The advisory lock's key."""
MIGRATING = 0x5C077E8
"""The advisory lock held (for its transaction) while a process brings the schema up to date."""
_HELD: Held[Connection] = Held()
"""The connections holding this process's serving locks, by database."""


def acquire(engine: Engine, shared: bool, shown: str) -> None:
    """Hold the serving lock of ``engine``'s database (``shared``: a process of several); the database
    is named ``shown`` in the refusal."""

    def taken() -> Connection:
        connection = _taken(engine, shared)
        if connection is None:
            raise StoreUnavailable(_refusal(shared, shown))
        return connection

    _HELD.take(_key(engine), taken)


def renew(engine: Engine, shared: bool, shown: str) -> None:
    """Take the lock again if its connection was lost (PostgreSQL restarted: the lock went with it);
    logged if another process took it meanwhile. Database errors propagate."""

    def kept(connection: Connection) -> Connection | None:
        try:
            connection.scalar(select(literal(1)))
            connection.commit()
            return connection
        except SQLAlchemyError:
            connection.close()
        again = _taken(engine, shared)
        if again is None:
            logger.error("lost the serving lock of %s and could not take it again: %s", shown,
                         _refusal(shared, shown))
        return again

    _HELD.keep(_key(engine), kept)


def release(engine: Engine) -> None:
    """Let go of this app's use of the lock (the lock itself once no app of this process uses it)."""
    _HELD.drop(_key(engine), Connection.close)


def _key(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=False)


def _taken(engine: Engine, shared: bool) -> Connection | None:
    """A connection holding the serving lock, or None if another process holds it the other way."""
    connection = engine.connect()
    try:
        take = func.pg_try_advisory_lock_shared if shared else func.pg_try_advisory_lock
        taken = bool(connection.scalar(select(take(SERVING))))
        connection.commit()
    except BaseException:
        connection.close()
        raise
    if not taken:
        connection.close()
        return None
    return connection


def _refusal(shared: bool, shown: str) -> str:
    if shared:
        return (f"the database {shown} is served by a schotten server started without --redis, which "
                "serves it alone: stop it (or start it again with the same --redis) before starting "
                "several servers")
    return (f"the database {shown} is served by another schotten server already: a server without --redis "
            "serves its database alone (its games are cached there); stop the other, or give every "
            "server the same --redis to run several")
