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
from collections.abc import Callable
from typing import Generic, TypeVar

from ..core.errors import StoreUnavailable

T = TypeVar("T")


class Held(Generic[T]):
    """The locks this process holds, by key, each with how many apps use it: taken by the first app,
    let go by the last (``dblock`` holds file descriptors, ``pglock`` connections)."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[T, int]] = {}
        self._guard = threading.Lock()

    def take(self, key: str, taken: Callable[[], T]) -> None:
        """Count one more use of ``key``'s lock, taken by ``taken`` if this process does not hold it."""
        with self._guard:
            lock, count = self._held[key] if key in self._held else (taken(), 0)
            self._held[key] = (lock, count + 1)

    def drop(self, key: str, let_go: Callable[[T], None]) -> None:
        """Count one use less of ``key``'s lock; the last lets it go with ``let_go``."""
        with self._guard:
            if key not in self._held:
                return
            lock, count = self._held.pop(key)
            if count > 1:
                self._held[key] = (lock, count - 1)
            else:
                let_go(lock)

    def keep(self, key: str, kept: Callable[[T], T | None]) -> None:
        """Replace ``key``'s lock with what ``kept`` makes of it (None: it is no longer held; an error
        leaves it as it was, to be tried again)."""
        with self._guard:
            if key not in self._held:
                return
            lock, count = self._held[key]
            again = kept(lock)
            if again is None:
                del self._held[key]
            else:
                self._held[key] = (again, count)


_HELD: Held[int] = Held()
"""The lock files this process holds (their file descriptors)."""


def lock_path(database: str) -> str:
    """The lock file of a SQLite database file."""
    return f"{database}.lock"


def acquire(database: str) -> None:
    """Hold the lock of ``database`` for this process; ``StoreUnavailable`` if another process holds it."""
    _HELD.take(lock_path(database), lambda: _locked(database))


def _locked(database: str) -> int:
    """The descriptor of ``database``'s lock file, locked and holding this process's id."""
    fd = os.open(lock_path(database), os.O_RDWR | os.O_CREAT, 0o644)
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
    return fd


def release(database: str) -> None:
    """Let go of this app's use of the lock (the lock itself once no app of this process uses it)."""
    _HELD.drop(lock_path(database), os.close)


def _holder(fd: int) -> str:
    """`` (process N)`` naming the process that wrote its id into the lock file, or ""."""
    try:
        text = os.pread(fd, 32, 0).decode().strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return f" (process {text})" if text.isdigit() else ""
