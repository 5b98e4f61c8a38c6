"""Rating farming: ``python benchmarks/bench_farm.py [--games 80] [--decisions 1] [--default-limits]``.

Serves the app with uvicorn on 127.0.0.1 (a free port, a temporary SQLite file) and farms as issue 26
reported: Ann at 127.0.0.1 and Bob at 127.0.0.2 sign up, Ann opens a rated 3+2 table, Bob joins;
each game both make ``--decisions`` decisions (the first legal action each time), Bob resigns, Ann
asks for the rematch and Bob accepts; ``--games`` times. It prints how long that took, how many
games were rated and why the others were not, and both ratings as the profiles show them. The
per-address limits are lifted (as a farmer with many addresses would have them) unless
``--default-limits``: then it stops at the first refusal and prints it.
Nothing is asserted: the figures are for docs and closing notes (tests/web/test_farming.py tests it).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn
from websockets.sync.client import ClientConnection, connect

from schotten.web import create_app
from schotten.web.core.settings import WebSettings

ADDRESSES = ("127.0.0.1", "127.0.0.2")
PASSWORD = "a long enough password"
LIFTED = {"address_rate": "100000/second", "tables_rate": "100000/second", "open_tables_per_address": 100_000,
          "signup_rate": "100000/second", "flood_limit": 100_000}
TIMEOUT = 30.0


class Refused(Exception):
    """A request the server refused (the farm stops there)."""


@contextlib.contextmanager
def served(settings: WebSettings) -> Iterator[int]:
    """The app under uvicorn on 127.0.0.1 in a thread: its port."""
    edge = "schotten.web.edge.server"
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=0, log_level="warning",
                            http=f"{edge}:HttpProtocol", ws=f"{edge}:WebSocketProtocol")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield int(server.servers[0].sockets[0].getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)


class Browser:
    """One player's browser: an address and its cookies."""

    def __init__(self, port: int, address: str) -> None:
        self.port, self.address, self.cookies = port, address, {}

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """A JSON request; ``Refused`` unless it succeeds."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT,
                                          source_address=(self.address, 0))
        headers = {"Content-Type": "application/json",
                   "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        answer = conn.getresponse()
        for name, value in answer.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key] = rest.split(";")[0]
        text = answer.read()
        conn.close()
        if answer.status >= 400:
            raise Refused(f"{method} {path} from {self.address}: {answer.status} {text.decode()}")
        return json.loads(text) if text else None

    def socket(self, game: str, token: str) -> ClientConnection:
        """The game's socket for the seat of ``token``."""
        return connect(f"ws://127.0.0.1:{self.port}/ws/games/{game}?token={token}",
                       source_address=(self.address, 0), open_timeout=TIMEOUT)


def _state(ws: ClientConnection, version: int) -> dict[str, Any]:
    while True:
        message = json.loads(ws.recv(timeout=TIMEOUT))
        if message.get("type") == "state" and message["version"] >= version:
            return message


def play(players: tuple[Browser, Browser], game: str, tokens: list[str], decisions: int) -> None:
    """Both seats make ``decisions`` decisions, then seat 1 resigns."""
    with players[0].socket(game, tokens[0]) as one, players[1].socket(game, tokens[1]) as two:
        sockets = (one, two)
        states = [_state(ws, 0) for ws in sockets]
        made = [0, 0]
        while min(made) < decisions:
            turn = 0 if states[0]["legal"] else 1
            sockets[turn].send(json.dumps({"type": "action", "action": states[turn]["legal"][0]["action"]}))
            states = [_state(ws, states[turn]["version"] + 1) for ws in sockets]
            made[turn] += 1
        two.send(json.dumps({"type": "resign"}))
        while _state(two, 0)["status"] != "over":
            pass


def farm(port: int, games: int, decisions: int) -> tuple[int, list[str], str | None]:
    """The farm: games played, their ids, and the refusal that stopped it (None: none)."""
    ann, bob = Browser(port, ADDRESSES[0]), Browser(port, ADDRESSES[1])
    ann.call("POST", "/api/accounts", {"username": "Ann", "password": PASSWORD})
    bob.call("POST", "/api/accounts", {"username": "Bob", "password": PASSWORD})
    opened = ann.call("POST", "/api/tables", {"variant": "base", "rounds": 1, "mode": "friend", "seat": 0,
                                              "clock": {"initial": 180, "increment": 2}, "rated": True})
    joined = bob.call("POST", f"/api/tables/{opened['id']}/join")
    game, tokens = opened["id"], [opened["token"], joined["token"]]
    played: list[str] = []
    try:
        for number in range(games):
            if number:
                grants = [ann.call("POST", f"/api/games/{game}/rematch", {"token": tokens[0]}),
                          bob.call("POST", f"/api/games/{game}/rematch", {"token": tokens[1]})]
                game, tokens = grants[0]["id"], [grant["token"] for grant in grants]
            play((ann, bob), game, tokens, decisions)
            played.append(game)
    except Refused as refusal:
        return len(played), played, str(refusal)
    return len(played), played, None


def _reason(viewer: Browser, game: str) -> str:
    """Why ``game`` changed no rating, or ``rated``."""
    unrated = viewer.call("GET", f"/api/games/{game}")["unrated_reason"]
    return str(unrated["code"]) if unrated else "rated"


def main() -> None:
    """Farm, then print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=80)
    parser.add_argument("--decisions", type=int, default=1)
    parser.add_argument("--default-limits", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        limits = {} if args.default_limits else LIFTED
        settings = WebSettings(database_url=f"sqlite:///{Path(folder) / 'farm.db'}", ai_processes=False,
                               **limits)  # type: ignore[arg-type]
        with served(settings) as port:
            start = time.perf_counter()
            count, played, refusal = farm(port, args.games, args.decisions)
            took = time.perf_counter() - start
            viewer = Browser(port, ADDRESSES[0])
            reasons = Counter(_reason(viewer, game) for game in played)
            shown = {name: viewer.call("GET", f"/api/players/{name}")["ratings"].get("base.realtime")
                     for name in ("Ann", "Bob")}
    print(f"{count} games of {args.decisions} decision(s) each in {took:.1f} s: {dict(reasons)}")
    for name, rating in shown.items():
        print(f"  {name}: " + (f"{rating['rating']} (RD {rating['rd']}, {rating['games']} rated)"
                               if rating else "1500 (no rated game)"))
    if refusal:
        print(f"  stopped: {refusal}")


if __name__ == "__main__":
    main()
