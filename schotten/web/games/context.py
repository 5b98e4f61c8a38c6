"""What every part of the authority reads: the settings, the store, the time, the process's role."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from ..core.settings import WebSettings
from ..storage.store import Store
from .live import Now, utc_now

T = TypeVar("T")


class Context:
    """The settings, the store and the time the parts share, and two facts about this process:
    whether it is closing, and whether it conducts (plays the AI and keeps the clocks)."""

    def __init__(self, settings: WebSettings, store: Store, now: Now = utc_now) -> None:
        self.settings = settings
        self.store = store
        self.now = now
        self.closing = False
        self.conducting = False
        """Whether this process plays the AI and keeps the clocks (alone: always; see ``cluster``)."""

    async def db(self, call: Callable[..., T], *args: Any) -> T:
        """Run a blocking store call in a worker thread."""
        return await asyncio.to_thread(call, *args)
