"""The AI seat: one decision at a time, computed off the event loop from the AI seat's view.

``choose_action`` runs in a worker: a search bot in a process (by default, so it never
slows the server; threads for tests), a cheap bot in a thread of the server. It is given
only ``view(state, ai_seat)`` (R10), never the state, and a seed derived from the game's
seed and the log's length, so the same game with the same moves gets the same AI
decisions. A bot that fails or answers with an action that is not legal is replaced, for
that decision, by the first legal action.

Decisions wait their turn in two lanes (``scheduler``): cheap levels never wait behind a
search. Each worker process watches the server process and exits when it is gone, even
after a SIGKILL (no worker outlives a crashed server).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import random
import threading
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ...bots.registry import make_bot
from ...engine.view import View
from .scheduler import CHEAP, SEARCH, Lane, lane_of

logger = logging.getLogger("schotten.web")

def decision_seed(game_seed: int, version: int) -> int:
    """The seed of the AI decision taken when the game's log holds ``version`` entries."""
    return random.Random(f"{game_seed}/ai/{version}").getrandbits(63)


def choose_action(level: str, seed: int, seen: View) -> str:
    """The AI's move (notation) for the decision shown in ``seen``: runs in a worker."""
    bot = make_bot(level, seed=seed)
    try:
        action = str(bot.choose(seen))
    except Exception:
        logger.exception("the %s AI failed; it plays the first legal action", level)
        return seen.legal[0]
    if action not in seen.legal:
        logger.error("the %s AI chose %s, which is not legal; it plays the first legal action", level, action)
        return seen.legal[0]
    return action


def _worker_start(niceness: int) -> None:
    """In each worker process: exit as soon as the server does, and search at a lower priority."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), name="schotten-ai-parent",
                         daemon=True).start()
    if niceness:
        os.nice(niceness)


def _exit_with(sentinel: int) -> None:
    """Wait until the server process is gone (even killed with SIGKILL), then end this worker."""
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


class _Workers:
    """One lane's workers: a pool of ``lane.slots`` processes (or threads), created on first use."""

    def __init__(self, lane: Lane, processes: bool, niceness: int) -> None:
        self.lane = lane
        self.processes = processes
        self.niceness = niceness
        self.executor: Executor | None = None

    def pool(self) -> Executor:
        if self.executor is None:
            if self.processes:
                context = multiprocessing.get_context("spawn")
                self.executor = ProcessPoolExecutor(self.lane.slots, mp_context=context,
                                                    initializer=_worker_start, initargs=(self.niceness,))
            else:
                name = f"schotten-ai-{self.lane.name}"
                self.executor = ThreadPoolExecutor(self.lane.slots, thread_name_prefix=name)
        return self.executor

    def healthy(self) -> bool:
        """Not broken, and every worker process started so far is alive (never started: healthy)."""
        executor: Any = self.executor
        if executor is None:
            return True
        if getattr(executor, "_broken", False):
            return False
        workers = getattr(executor, "_processes", None) or {}
        return all(process.is_alive() for process in list(workers.values()))

    def shutdown(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None


class AiPool:
    """The workers that compute AI decisions, in two lanes (see ``scheduler``): ``cheap`` levels (a few
    milliseconds a decision) have a thread of their own in the server, which search levels never
    occupy, so a cheap reply never waits for a process to start; ``search`` levels share ``workers``
    workers (processes unless ``processes`` is false), which run at a lower CPU priority
    (``SEARCH_NICENESS``) than the server. Created on first use."""

    SEARCH_NICENESS = 10
    """How much less CPU priority a search worker process has than the server (``os.nice``)."""

    def __init__(self, workers: int, processes: bool) -> None:
        self.workers = max(1, workers)
        self.processes = processes
        self.lanes = {CHEAP: Lane(CHEAP, 1), SEARCH: Lane(SEARCH, self.workers)}
        self._workers = {
            CHEAP: _Workers(self.lanes[CHEAP], False, 0),
            SEARCH: _Workers(self.lanes[SEARCH], processes, self.SEARCH_NICENESS),
        }

    async def decide(self, level: str, seed: int, seen: View,
                     watched: Callable[[], bool] = lambda: True) -> str:
        """Compute one decision in its lane's worker, once a slot is free (``watched``: whether its game
        has someone watching, asked when a slot frees); a broken process pool is replaced once."""
        workers = self._workers[lane_of(level)]
        loop = asyncio.get_running_loop()
        async with workers.lane.slot(watched):
            try:
                return await loop.run_in_executor(workers.pool(), choose_action, level, seed, seen)
            except BrokenProcessPool:
                logger.warning("the AI process pool broke; starting a new one")
                workers.executor = None
                return await loop.run_in_executor(workers.pool(), choose_action, level, seed, seen)

    def healthy(self) -> bool:
        """Whether the AI can answer: no pool is broken and every worker started is alive (cheap:
        never waits for an AI job)."""
        return all(workers.healthy() for workers in self._workers.values())

    def waiting(self) -> int:
        """How many AI decisions wait for a worker."""
        return sum(len(lane.waiting) for lane in self.lanes.values())

    def shutdown(self) -> None:
        """Stop the workers (decisions still queued are cancelled)."""
        for workers in self._workers.values():
            workers.shutdown()
