"""A crowd pressing Play now at once against real servers, and what the database says of it.

Each browser is an HTTP client with its own cookie jar. It loads the lobby (``GET /api/play-now``,
as the page does), logs in first if it is an account, sends ``presses`` entries into one pool at the
same moment (to the servers in turn, so one browser's entries reach several processes), then polls
until it is paired or told it waits no more. The figures count the answers and, from the games
table, self-pairings (one browser on both seats) and double seats (one browser in two games).
Every wait is bounded (``deadline``): a guard, not a measurement.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx2 as httpx
from sqlalchemy import select

from schotten.web.storage.db import GameRow, make_engine

POLL = 0.5
"""Seconds between two polls of a waiting browser."""


@dataclass
class Crowd:
    """What a crowd's presses came to (its browsers are named ``{prefix}{number}``)."""

    browsers: int
    presses: int
    prefix: str = "crowd"
    answers: Counter[str] = field(default_factory=Counter)
    """``"200 waiting"``, ``"200 paired"``, ``"500 text/plain"``...: every answer to a press."""
    games: int = 0
    self_paired: int = 0
    double_seated: int = 0
    unpaired: int = 0
    seconds: float = 0.0

    @property
    def failures(self) -> int:
        """Answers that are no JSON or a server error."""
        return sum(count for answer, count in self.answers.items()
                   if answer.startswith("5") or ("json" not in answer and not answer.startswith("200")))

    def figures(self) -> dict[str, Any]:
        """The figures as plain values."""
        return {"browsers": self.browsers, "presses": self.presses, "entries": self.browsers * self.presses,
                "games": self.games, "self_paired": self.self_paired, "double_seated": self.double_seated,
                "unpaired": self.unpaired, "failures": self.failures, "answers": dict(self.answers),
                "seconds": round(self.seconds, 2)}


def _said(response: httpx.Response) -> str:
    kind = response.headers.get("content-type", "").split(";")[0]
    if response.status_code == 200:
        return f"200 {response.json().get('status')}"
    return f"{response.status_code} {kind}"


async def _browser(number: int, urls: list[str], presses: int, rated: bool, account: bool,
                   deadline: float, crowd: Crowd) -> bool:
    """One browser's whole visit: whether it ended paired."""
    name = f"{crowd.prefix}{number}"
    body: dict[str, Any] = {"variant": "base", "preset": "5+5", "rated": rated}
    if not account:
        body["nickname"] = name
    limits = httpx.Limits(max_connections=presses + 1)
    async with httpx.AsyncClient(timeout=max(1.0, deadline - time.monotonic()), limits=limits) as client:
        if account:
            made = await client.post(f"{urls[0]}/api/accounts",
                                     json={"username": name, "password": "a long password"})
            assert made.status_code == 201, made.text
        await client.get(f"{urls[number % len(urls)]}/api/play-now")
        answers = await asyncio.gather(*(client.post(f"{urls[(number + k) % len(urls)]}/api/play-now",
                                                     json=body) for k in range(presses)))
        crowd.answers.update(_said(answer) for answer in answers)
        status = {_said(answer) for answer in answers}
        while "200 paired" not in status and "200 waiting" in status and time.monotonic() < deadline:
            await asyncio.sleep(POLL)
            polled = await client.get(f"{urls[number % len(urls)]}/api/play-now")
            status = {_said(polled)}
        return "200 paired" in status


async def _press(urls: list[str], crowd: Crowd, rated: bool, account: bool, deadline: float) -> int:
    paired = await asyncio.gather(*(_browser(number, urls, crowd.presses, rated, account, deadline, crowd)
                                    for number in range(crowd.browsers)))
    return sum(1 for done in paired if not done)


def _count_games(database_url: str, crowd: Crowd) -> None:
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            rows = list(connection.execute(select(GameRow.player0, GameRow.player1)
                                           .where(GameRow.mode == "friend")))
    finally:
        engine.dispose()
    rows = [(first, second) for first, second in rows if f"{first}{second}".startswith(crowd.prefix)]
    seats: Counter[str] = Counter()
    for first, second in rows:
        crowd.self_paired += first == second
        seats.update({first, second})
    crowd.games = len(rows)
    crowd.double_seated = sum(1 for count in seats.values() if count > 1)


def press_at_once(urls: list[str], database_url: str, browsers: int, presses: int = 2, *,
                  rated: bool = False, account: bool = False, deadline: float = 120.0,
                  prefix: str = "crowd") -> Crowd:
    """``browsers`` browsers (accounts if ``account``) each sending ``presses`` entries into 5+5 at once
    through ``urls``; the games of its browsers (named ``{prefix}{number}``) counted in ``database_url``.
    ``deadline``: seconds at most."""
    crowd = Crowd(browsers, presses, prefix)
    started = time.monotonic()
    crowd.unpaired = asyncio.run(_press(urls, crowd, rated, account, started + deadline))
    crowd.seconds = time.monotonic() - started
    _count_games(database_url, crowd)
    return crowd
