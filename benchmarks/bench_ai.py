"""The AI under load: ``python benchmarks/bench_ai.py [--experts N] [--watched W] [--seconds S]
[--reviews R] [--short]``.

Starts ``schotten serve`` on 127.0.0.1 (a free port, a temporary SQLite file, the default AI
pool, the per-address limits lifted), creates ``--experts`` expert AI tables at once (the AI
begins each), and connects a random client to ``--watched`` of them, which plays its move as
soon as it is its turn (so those AIs are always thinking); the others are left alone. Then a
player against an easy AI plays random moves for ``--seconds`` and measures the time from each
move that hands the turn to the AI until the AI's reply reaches it (its turn again): count,
median, 99th percentile, worst. A reply still awaited at the end is reported with how long it
had waited. It also prints the expert AI moves seen in the watched games.

With ``--reviews R``, the easy player then plays R games to their end, asks for the review of each
(``POST /api/games/{id}/review``: the server's review workers take them) and is measured again for
``--seconds`` while the reviews are worked on (the watched expert games go on):
``easy_reply_while_reviewing`` beside ``easy_reply``, and how many reviews were done by the end.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websockets
from bench_web import free_port, post, start_server


def ai_table(port: int, level: str, seat: int) -> tuple[str, str]:
    """A new base game against the AI at ``level``, we at ``seat``: its id and our token."""
    table = post(port, "/api/tables", {"variant": "base", "rounds": 1, "mode": "ai", "level": level,
                                       "nickname": "bench", "seat": seat})
    return table["id"], table["token"]


async def next_state(ws: Any) -> dict[str, Any]:
    """The next state message (error messages are skipped)."""
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message["type"] == "state":
            return message


def our_turn(state: dict[str, Any]) -> bool:
    """Whether this state asks us to move."""
    return state["status"] == "playing" and bool(state["view"]["legal"])


async def watcher(url: str, rng: random.Random, seen: list[int]) -> None:
    """Play random moves in an expert game at once whenever it is our turn; count the AI's moves."""
    async with websockets.connect(url, max_size=None) as ws:
        state = await next_state(ws)
        while state["status"] != "over":
            if our_turn(state):
                await ws.send(json.dumps({"type": "action", "action": rng.choice(state["view"]["legal"]),
                                          "version": state["version"]}))
            state = await next_state(ws)
            last = state.get("last") or {}
            if last.get("mover") != state["seat"] and state["version"] > 0:
                seen[0] += 1


async def played_out(port: int, rng: random.Random) -> str:
    """An easy AI game played with random moves to its end: its id."""
    game_id, token = ai_table(port, "easy", 0)
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}?token={token}",
                                  max_size=None) as ws:
        state = await next_state(ws)
        while state["status"] != "over":
            if our_turn(state):
                await ws.send(json.dumps({"type": "action", "action": rng.choice(state["view"]["legal"]),
                                          "version": state["version"]}))
            state = await next_state(ws)
    return game_id


def reviews_done(port: int, games: list[str]) -> int:
    """How many of these games' reviews are done."""
    done = 0
    for game_id in games:
        url = f"http://127.0.0.1:{port}/api/games/{game_id}/review"
        with urllib.request.urlopen(url, timeout=10) as answer:
            done += json.loads(answer.read())["status"] == "done"
    return done


async def easy_player(port: int, seconds: float, replies: list[float], waiting: list[float]) -> int:
    """Play easy AI games with random moves for ``seconds``; each AI reply's delay goes to ``replies``,
    a reply still awaited at the end to ``waiting``. The games played (begun)."""
    rng = random.Random(5)
    end = time.perf_counter() + seconds
    games = 0
    while time.perf_counter() < end:
        game_id, token = ai_table(port, "easy", 0)
        games += 1
        url = f"ws://127.0.0.1:{port}/ws/games/{game_id}?token={token}"
        async with websockets.connect(url, max_size=None) as ws:
            state = await next_state(ws)
            sent: float | None = None
            while state["status"] != "over" and time.perf_counter() < end:
                if our_turn(state):
                    if sent is not None:
                        replies.append(time.perf_counter() - sent)
                        sent = None
                    moved = time.perf_counter()
                    await ws.send(json.dumps({"type": "action", "action": rng.choice(state["view"]["legal"]),
                                              "version": state["version"]}))
                    state = await next_state(ws)
                    if not our_turn(state) and state["status"] == "playing":
                        sent = moved
                    continue
                try:
                    state = await asyncio.wait_for(next_state(ws), max(0.01, end - time.perf_counter()))
                except TimeoutError:
                    break
            if sent is not None and state["status"] == "over":
                replies.append(time.perf_counter() - sent)
            elif sent is not None:
                waiting.append(time.perf_counter() - sent)
    return games


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def summary(values: list[float]) -> dict[str, Any]:
    """Count, median, 99th percentile, worst and first, in milliseconds; where the five worst came."""
    if not values:
        return {"count": 0}
    return {"count": len(values), "p50_ms": round(statistics.median(values) * 1000, 1),
            "p99_ms": round(percentile(values, 0.99) * 1000, 1), "max_ms": round(max(values) * 1000, 1),
            "first_ms": round(values[0] * 1000, 1),
            "worst_at": [index for index, _ in sorted(enumerate(values), key=lambda p: -p[1])[:5]]}


async def while_reviewing(port: int, reviews: int, seconds: float) -> dict[str, Any]:
    """Play ``reviews`` games out, ask for their reviews, measure the easy player meanwhile."""
    rng = random.Random(9)
    games = [await played_out(port, rng) for _ in range(reviews)]
    for game_id in games:
        post(port, f"/api/games/{game_id}/review", {})
    replies: list[float] = []
    waiting: list[float] = []
    await easy_player(port, seconds, replies, waiting)
    return {"reviews_asked": reviews, "reviews_done_by_the_end": reviews_done(port, games),
            "easy_reply_while_reviewing": summary(replies),
            "easy_replies_still_awaited_while_reviewing_s": [round(w, 2) for w in waiting]}


async def run(port: int, experts: int, watched: int, seconds: float, reviews: int) -> dict[str, Any]:
    """Create the expert tables, watch some, then measure the easy player; the figures."""
    started = time.perf_counter()
    tables = [ai_table(port, "expert", 1) for _ in range(experts)]
    created = time.perf_counter() - started
    seen = [0]
    rng = random.Random(1)
    watchers = [asyncio.create_task(watcher(f"ws://127.0.0.1:{port}/ws/games/{gid}?token={token}",
                                            random.Random(rng.random()), seen))
                for gid, token in tables[:watched]]
    replies: list[float] = []
    waiting: list[float] = []
    games = await easy_player(port, seconds, replies, waiting)
    reviewing = await while_reviewing(port, reviews, seconds) if reviews else {}
    for task in watchers:
        task.cancel()
    await asyncio.gather(*watchers, return_exceptions=True)
    figures = {"expert_tables": experts, "watched": watched, "created_seconds": round(created, 2),
               "measured_seconds": seconds, "easy_games": games, "easy_reply": summary(replies),
               "easy_replies_still_awaited_s": [round(w, 2) for w in waiting],
               "expert_moves_seen_in_watched_games": seen[0]}
    return figures | reviewing


def main() -> None:
    """Parse the options, run the benchmark on a server of its own, print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experts", type=int, default=60)
    parser.add_argument("--watched", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--reviews", type=int, default=8,
                        help="games reviewed during a second measurement (0: none)")
    parser.add_argument("--short", action="store_true", help="a run of about a minute (CI)")
    args = parser.parse_args()
    if args.short:
        args.seconds, args.reviews = min(args.seconds, 20.0), min(args.reviews, 2)
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        log = Path(folder) / "server.log"
        os.environ.setdefault("SCHOTTEN_REVIEWS_RATE", "100000/minute")
        server = start_server(port, f"sqlite:///{Path(folder) / 'bench.db'}", log)
        try:
            figures = asyncio.run(run(port, args.experts, args.watched, args.seconds, args.reviews))
        finally:
            os.killpg(server.pid, 15)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, 9)
                server.wait(10)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
