"""Group commit: log entries that arrive together are stored in one transaction (one fsync).

``Writer.append`` queues one entry and waits until it is stored (or raises why it was not).
One batch at a time is written, in a thread of its own: whatever arrived while a batch was
being written is the next batch. A batch refused by a database that cannot be used now
(``StoreUnavailable``) fails every one of its callers; a batch that fails otherwise is written
again entry by entry, so a bad entry fails its own caller only. Each game's entries keep their
order, as a game's lock is held until its entry is stored (one entry per game waits at a time).
Every stored entry counts in ``metrics.ENTRIES`` and its wait, from its arrival to its commit, in
``metrics.COMMIT_SECONDS``.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..core import metrics
from ..core.clock import Clock
from ..core.errors import StoreUnavailable
from ..core.vocab import Ending, Status
from .rows import Entry
from .store import Append, Store


@dataclass(slots=True)
class _Waiting:
    append: Append
    done: asyncio.Future[None]
    arrived: float = field(default_factory=time.perf_counter)


class Writer:
    """Stores log entries for ``store`` in batches (see the module's docstring)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._queue: list[_Waiting] = []
        self._flushing: asyncio.Task[None] | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="schotten-writer")

    async def append(self, game_id: str, entry: Entry, status: Status, winner: int | None,
                     clock: Clock | None = None, ended: Ending | None = None) -> None:
        """Store ``entry`` with its game's status, winner, clock and ending; return once it is stored
        (raise the store's error, ``StoreUnavailable`` for a database that cannot be used, if it was not)."""
        append = Append(game_id, entry, status, winner, clock, ended)
        waiting = _Waiting(append, asyncio.get_running_loop().create_future())
        waiting.done.add_done_callback(_retrieved)
        self._queue.append(waiting)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self._flush())
        await asyncio.shield(waiting.done)

    async def _flush(self) -> None:
        """Write batches until nothing waits."""
        loop = asyncio.get_running_loop()
        while self._queue:
            batch, self._queue = self._queue, []
            errors = await loop.run_in_executor(self._thread, self._write, [w.append for w in batch])
            now = time.perf_counter()
            for waiting, error in zip(batch, errors, strict=True):
                if error is None:
                    metrics.ENTRIES.inc()
                    metrics.COMMIT_SECONDS.observe(now - waiting.arrived)
                    waiting.done.set_result(None)
                else:
                    waiting.done.set_exception(error)

    def _write(self, batch: list[Append]) -> list[BaseException | None]:
        """Store the batch in one transaction; if that fails, each entry alone: each entry's error."""
        try:
            self.store.append_many(batch)
            return [None] * len(batch)
        except StoreUnavailable as error:
            return [error] * len(batch)
        except Exception as error:
            if len(batch) == 1:
                return [error]
        return [self._write_one(item) for item in batch]

    def _write_one(self, item: Append) -> BaseException | None:
        try:
            self.store.append_many([item])
        except Exception as error:
            return error
        return None

    async def stop(self) -> None:
        """Wait for the entries queued to be written, then end the writer's thread."""
        if self._flushing is not None:
            await asyncio.gather(self._flushing, return_exceptions=True)
        self._thread.shutdown(wait=True)


def _retrieved(done: asyncio.Future[None]) -> None:
    """Mark the outcome seen (its caller may have been cancelled while it waited)."""
    if not done.cancelled():
        done.exception()
