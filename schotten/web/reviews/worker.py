"""The review worker: threads that take jobs of the queue and review them, off the event loop.

Each of ``review_workers`` threads takes a job (``ReviewQueue.take``), reviews its decisions one at a
time and, after each, stores its progress and renews its lease; a job whose lease was lost (another
worker took it after this one stalled) is dropped. With ``ai_processes`` the analysis runs in a
process pool of its own at ``REVIEW_NICENESS`` (a lower CPU priority than the AI's search workers,
so live games' AI moves come first); without it, in the thread (tests).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from ...bots.review import Decision, decisions_of, review
from ...engine.record import parse_record, states_of
from ..core.settings import WebSettings
from .queue import Job, ReviewQueue

logger = logging.getLogger("schotten.web")

REVIEW_NICENESS = 15
"""How much less CPU priority a review process has than the server (the AI's search workers: 10)."""
IDLE_WAIT = 2.0
"""How long (seconds) a worker with nothing to do waits before it looks at the queue again (another
process may have queued a job); a job queued by this process wakes it at once."""


def _start_process() -> None:
    """A review process starts at a lower priority."""
    os.nice(REVIEW_NICENESS)


def moves_to_review(record: dict[str, Any]) -> list[int]:
    """The move numbers of a record's unforced decisions (``bots.review.decisions_of``)."""
    checked = parse_record(record)
    return [number for number, _, _ in decisions_of(states_of(checked), list(checked["actions"]))]


def review_one(record: dict[str, Any], iterations: int, move: int) -> list[Decision]:
    """The review of the decision at ``move`` (run in a review process)."""
    return review(record, iterations, seed=0, only={move})


class ReviewWorker:
    """The threads of this process that work on the queue's jobs (none with ``review_workers`` 0)."""

    def __init__(self, queue: ReviewQueue, settings: WebSettings) -> None:
        self.queue = queue
        self.iterations = settings.review_iterations
        self.count = max(0, settings.review_workers)
        self.processes = settings.ai_processes
        self._pool: Executor | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Start the worker threads."""
        if self.count and self.processes:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(self.count, mp_context=context, initializer=_start_process)
        for number in range(self.count):
            thread = threading.Thread(target=self._loop, name=f"review-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        """Stop the threads after the decision each is on (their jobs are taken again once their
        leases expire)."""
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join()
        self._threads.clear()
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)

    def poke(self) -> None:
        """A job was queued: a waiting thread looks at once."""
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                worked = self.run_once()
            except Exception:
                logger.exception("the review worker could not reach the queue")
                worked = False
            if not worked:
                self._wake.wait(IDLE_WAIT)
                self._wake.clear()

    def run_once(self) -> bool:
        """Take one job and work on it to its end; False when there was none to take."""
        job = self.queue.take()
        if job is None:
            return False
        try:
            self.work(job)
        except Exception:
            logger.exception("the review of game %s failed", job.game_id)
            self.queue.fail(job)
        return True

    def work(self, job: Job) -> None:
        """Review the job's decisions one by one, renewing the lease after each, then store them."""
        moves = moves_to_review(job.record)
        if not self.queue.renew(job, 0, len(moves)):
            return
        found: list[Decision] = []
        for move in moves:
            if self._stop.is_set():
                return
            found.extend(self._review(job.record, move))
            if not self.queue.renew(job, len(found), len(moves)):
                return
        self.queue.finish(job, [decision.as_dict() for decision in found])

    def _review(self, record: dict[str, Any], move: int) -> list[Decision]:
        if self._pool is None:
            return review_one(record, self.iterations, move)
        return self._pool.submit(review_one, record, self.iterations, move).result()
