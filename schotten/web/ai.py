"""The AI seat: one decision at a time, computed off the event loop from the AI seat's view.

``choose_action`` runs in a worker (a process by default, so a search bot never slows
the server; threads for tests). It is given only ``view(state, ai_seat)`` (R10), never
the state, and a seed derived from the game's seed and the log's length, so the same
game with the same moves gets the same AI decisions. A bot that fails or answers with
an action that is not legal is replaced, for that decision, by the first legal action.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..bots.registry import make_bot
from ..engine.view import View

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


class AiPool:
    """The workers that compute AI decisions (created on first use)."""

    def __init__(self, workers: int, processes: bool) -> None:
        self.workers = max(1, workers)
        self.processes = processes
        self._executor: Executor | None = None

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.processes:
                context = multiprocessing.get_context("spawn")
                self._executor = ProcessPoolExecutor(self.workers, mp_context=context)
            else:
                self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="schotten-ai")
        return self._executor

    async def decide(self, level: str, seed: int, seen: View) -> str:
        """Compute one decision in a worker; a broken process pool is replaced once."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(), choose_action, level, seed, seen)
        except BrokenProcessPool:
            logger.warning("the AI process pool broke; starting a new one")
            self._executor = None
            return await loop.run_in_executor(self._pool(), choose_action, level, seed, seen)

    def shutdown(self) -> None:
        """Stop the workers (decisions still queued are cancelled)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def healthy(self) -> bool:
        """Whether the AI can decide: no pool yet (started on first use), or one whose workers live.

        A minimal version (the watch helper's, for ``/healthz``); the ai helper's replaces it."""
        executor = self._executor
        if not isinstance(executor, ProcessPoolExecutor):
            return True
        if getattr(executor, "_broken", False):
            return False
        processes = getattr(executor, "_processes", None) or {}
        return all(process.is_alive() for process in processes.values())
