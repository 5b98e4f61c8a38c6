"""One server process per SQLite file: each process serving a file holds an exclusive lock on
``{file}.lock`` (``fcntl.flock``) while it serves, and a second process is refused at start.

Games are cached in the process serving them and their locks live there, so two processes on one
SQLite file would drift apart; several processes need PostgreSQL. Within one process the lock is
shared (counted), so apps built one after the other, or side by side in tests, serve the same file.
The lock goes with the process: a killed server leaves nothing to clean up.
"""

from __future__ import annotations

import fcntl
import os
import threading

from .errors import StoreUnavailable

_HELD: dict[str, tuple[int, int]] = {}
"""The lock files this process holds: path -> (file descriptor, how many apps use it)."""
_GUARD = threading.Lock()


def lock_path(database: str) -> str:
    """The lock file of a SQLite database file."""
    return f"{database}.lock"


def acquire(database: str) -> None:
    """Hold the lock of ``database`` for this process; ``StoreUnavailable`` if another process holds it."""
    path = lock_path(database)
    with _GUARD:
        if path in _HELD:
            fd, count = _HELD[path]
            _HELD[path] = (fd, count + 1)
            return
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise StoreUnavailable(
                f"the database {database} is served by another schotten server already{holder}: a SQLite "
                "file is served by one process (its games are cached there); stop that server, choose "
                "another --database, or use PostgreSQL for several processes") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        _HELD[path] = (fd, 1)


def release(database: str) -> None:
    """Let go of this app's use of the lock (the lock itself once no app of this process uses it)."""
    path = lock_path(database)
    with _GUARD:
        if path not in _HELD:
            return
        fd, count = _HELD[path]
        if count > 1:
            _HELD[path] = (fd, count - 1)
            return
        del _HELD[path]
        os.close(fd)


def _holder(fd: int) -> str:
    """`` (process N)`` naming the process that wrote its id into the lock file, or ""."""
    try:
        text = os.pread(fd, 32, 0).decode().strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return f" (process {text})" if text.isdigit() else ""
