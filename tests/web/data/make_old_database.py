"""Make ``ebc218a.db`` and ``ebc218a.tokens.json`` (its seat tokens): a SQLite file of commit ebc218a.

Run with that commit's code first on the path, from its folder (the working directory comes first)::

    git worktree add --detach /tmp/old ebc218a
    cd /tmp/old && PYTHONPATH=/tmp/old:/tmp/old/tests/web $REPO/.venv/bin/python \
        $REPO/tests/web/data/make_old_database.py $REPO/tests/web/data/ebc218a.db

It plays through the old app's API and WebSockets: an AI game in progress (the human to move), a
finished friend game whose rematch was accepted and is played, a finished game whose rematch offer
was declined, a friend game in progress with an undo, and an open table.
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from helpers_web import SEED, Duel, choose, create, join, receive_state, socket_path, test_settings
from starlette.testclient import TestClient

from schotten.web import create_app
from schotten.web.storage import db

TOKENS: dict[str, list[str | None]] = {}
"""Each game's seat tokens, as the tests need them to play on."""


def seats(game_id: str, seat: int, token: str) -> None:
    """Note the token of a seat."""
    TOKENS.setdefault(game_id, [None, None])[seat] = token


def finished(client: TestClient, seed: int) -> Duel:
    """A friend game played to its end (Ann and Bob)."""
    with Duel(client, seed=seed) as duel:
        rng = random.Random(seed)
        while not duel.state.is_over:
            duel.play(choose(duel.messages[duel.state.turn][-1], rng))
    for seat in (0, 1):
        seats(duel.id, seat, duel.tokens[seat])
    return duel


def ask(client: TestClient, game_id: str, token: str, path: str = "") -> dict[str, Any]:
    """A rematch request (or, with ``path``, its decline) by the seat of ``token``."""
    response = client.post(f"/api/games/{game_id}/rematch{path}", json={"token": token})
    client.cookies.clear()
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def ai_game(client: TestClient, human_moves: int) -> None:
    """An AI table (tactics, easy), the human plays ``human_moves`` moves; left with the human to move."""
    grant = create(client, seed=SEED + 7, mode="ai", level="easy", variant="tactics", seat=0)
    rng, played = random.Random(7), 0
    seats(grant["id"], 0, grant["token"])
    with client.websocket_connect(socket_path(grant["id"], grant["token"])) as player:
        while True:
            message = receive_state(player)
            if message["view"]["legal"]:
                if played == human_moves:
                    return
                player.send_json({"type": "action", "action": choose(message, rng),
                                  "version": message["version"]})
                played += 1


def friend_with_undo(client: TestClient) -> None:
    """A friend game in progress (tactics): a card played, taken back before the draw, more moves."""
    with Duel(client, "tactics", seed=SEED + 34) as duel:
        rng = random.Random(2)
        duel.play_until(lambda state: len(state.history) >= 20 and state.phase.name == "DRAW", rng)
        seat = duel.state.turn
        assert duel.messages[seat][-1]["can_undo"], "choose another seed"
        duel.undo(seat, 1)
        seats(duel.id, 0, duel.tokens[0])
        seats(duel.id, 1, duel.tokens[1])
        for _ in range(3):
            duel.play(choose(duel.messages[duel.state.turn][-1], rng))


def main(out: Path) -> None:
    """Play the games into a fresh file, then leave it checkpointed, vacuumed, in rollback journaling."""
    assert not hasattr(db.GameRow, "clock_initial"), "run with the code of ebc218a first on PYTHONPATH"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.db"
        with TestClient(create_app(test_settings(Path(folder), database_url=f"sqlite:///{path}"))) as client:
            ai_game(client, 4)
            duel = finished(client, SEED + 3)
            rematch = ask(client, duel.id, duel.tokens[0])
            seats(rematch["id"], rematch["seat"], rematch["token"])
            second = ask(client, duel.id, duel.tokens[1])
            seats(rematch["id"], second["seat"], second["token"])
            with client.websocket_connect(socket_path(rematch["id"], rematch["token"])) as ws:
                receive_state(ws)
            declined = finished(client, SEED + 5)
            ask(client, declined.id, declined.tokens[1])
            ask(client, declined.id, declined.tokens[0], "/decline")
            friend_with_undo(client)
            table = create(client, seed=SEED + 13)
            seats(table["id"], 0, table["token"])
            seats(table["id"], 1, join(client, table["id"], "Cy")["token"])
            table = create(client, seed=SEED + 17, nickname="Dee", seat=1)
            seats(table["id"], 1, table["token"])
        connection = sqlite3.connect(path)
        connection.execute("PRAGMA journal_mode=DELETE")
        connection.execute("VACUUM")
        connection.close()
        out.write_bytes(path.read_bytes())
    out.with_suffix(".tokens.json").write_text(json.dumps(TOKENS, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
