"""Make ``fb55610.db`` and ``fb55610.tokens.json`` (its seat tokens): a SQLite file of commit fb55610
(issue 14: clocks, endings, chat; schema revision 0002).

Run with that commit's code first on the path, from its folder (the working directory comes first)::

    git worktree add --detach /tmp/v2 fb55610
    cd /tmp/v2 && PYTHONPATH=/tmp/v2:/tmp/v2/tests/web $REPO/.venv/bin/python \
        $REPO/tests/web/data/make_v2_database.py $REPO/tests/web/data/fb55610.db

It plays through that version's API and WebSockets, on a ``FakeClock`` (every clock time is fixed):
a turn-based game in progress, a real-time game aborted (its clocks stopped), an AI game in progress
(the human to move), a friend game ended by resignation (its rematch offered), a friend game played
to its end on the board with the players' chat (a quick message, a spectator's line), a mute and a
declined rematch, an open table with a clock, and last a real-time friend game in progress whose
clock runs; then 20 seconds more pass before the server stops. The ``server_beats`` row the stopping
server writes is kept: a server started on the file gives the running clocks back the time since
then, which a test with its own fake clock counts exactly. Game ids, tokens and the rows'
``created`` and chat times are not fixed.
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from helpers_web import (
    SEED,
    Duel,
    FakeClock,
    Message,
    app_at,
    choose,
    create,
    join,
    receive_state,
    socket_path,
    test_settings,
)
from starlette.testclient import TestClient, WebSocketTestSession

from schotten.web.storage import db

TOKENS: dict[str, list[str | None]] = {}
"""Each game's seat tokens, as the tests need them to play on."""
REAL_TIME = {"initial": 300, "increment": 3}
TURN_BASED = {"days": 2}


def seats(game_id: str, seat: int, token: str) -> None:
    """Note the token of a seat."""
    TOKENS.setdefault(game_id, [None, None])[seat] = token


def timed(client: TestClient, fake: FakeClock, seed: int, clock: dict[str, int], decisions: int,
          pause: float, end: tuple[int, str] | None = None) -> None:
    """A friend table with ``clock`` (Ann and Bob): ``decisions`` random decisions, ``pause`` seconds
    before each; left in progress, its clock running, unless ``end`` (a seat, ``resign`` or ``abort``)
    ends it."""
    grant = create(client, seed=seed, clock=clock)
    seats(grant["id"], 0, grant["token"])
    seats(grant["id"], 1, join(client, grant["id"])["token"])
    rng = random.Random(seed)
    with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ann, \
            client.websocket_connect(socket_path(grant["id"], TOKENS[grant["id"]][1])) as bob:
        sockets: list[WebSocketTestSession] = [ann, bob]
        states = [receive_state(ann), receive_state(bob)]
        for _ in range(decisions):
            mover = states[0]["view"]["turn"]
            fake.advance(pause)
            sockets[mover].send_json({"type": "action", "action": choose(states[mover], rng),
                                      "version": states[mover]["version"]})
            states = [receive_state(ann), receive_state(bob)]
            assert states[0]["status"] == "playing" and states[0]["clock_running"] is not None
        if end is not None:
            fake.advance(pause)
            sockets[end[0]].send_json({"type": end[1]})
            for ws in sockets:
                message = receive_state(ws)
                assert message["ended"]["seat"] == end[0] and message["clock_running"] is None, message


def ai_game(client: TestClient, human_moves: int) -> None:
    """An AI table (base, easy), the human plays ``human_moves`` moves; left with the human to move."""
    grant = create(client, seed=SEED + 51, mode="ai", level="easy", seat=0)
    rng, played = random.Random(51), 0
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


def ask(client: TestClient, game_id: str, token: str, path: str = "") -> None:
    """A rematch request (or, with ``path``, its decline) by the seat of ``token``; the rematch
    table's seat token noted."""
    response = client.post(f"/api/games/{game_id}/rematch{path}", json={"token": token})
    client.cookies.clear()
    assert response.status_code == 200, response.text
    if not path:
        answer = response.json()
        seats(answer["id"], answer["seat"], answer["token"])


def end_off_the_board(duel: Duel, seat: int, kind: str) -> None:
    """``seat`` resigns (``kind``); every socket is told the game is over."""
    duel.sockets[seat].send_json({"type": kind})
    for ws in duel.sockets.values():
        message = receive_state(ws)
        assert message["status"] == "over" and message["ended"]["seat"] == seat, message


def resigned(client: TestClient) -> None:
    """A friend game (tactics) Bob resigns after a dozen decisions; Ann offers a rematch (left open)."""
    with Duel(client, "tactics", seed=SEED + 45) as duel:
        duel.play_until(lambda state: len(state.history) >= 12, random.Random(45))
        end_off_the_board(duel, 1, "resign")
        seats(duel.id, 0, duel.tokens[0])
        seats(duel.id, 1, duel.tokens[1])
    ask(client, duel.id, duel.tokens[0])


def say(duel: Duel, seat: int | None, **body: Any) -> None:
    """A chat message from ``seat`` (None: the spectator, as Zoé)."""
    if seat is None:
        body["name"] = "Zoé"
    duel.sockets[seat].send_json({"type": "chat"} | body)


def chatted(client: TestClient) -> None:
    """A friend game played to its end on the board; the players chat, Ann mutes Bob halfway (and
    does not unmute), the spectator says a line, Bob says one more after the end; Bob offers a rematch,
    Ann declines it."""
    with Duel(client, seed=SEED + 53) as duel:
        rng = random.Random(53)
        say(duel, 1, text="hi Ann, good luck")
        say(duel, 0, quick="good_luck")
        duel.play_until(lambda state: len(state.history) >= 10, rng)
        say(duel, 0, text="hello Bob")
        say(duel, None, text="psst")
        say(duel, 1, text="you will lose <b>badly</b>")
        duel.sockets[0].send_json({"type": "mute", "muted": True})
        duel.muted[0] = True
        message: Message = receive_state(duel.sockets[0])
        assert message["chat_muted"], message
        duel.sync(0)
        while not duel.state.is_over:
            duel.play(choose(duel.messages[duel.state.turn][-1], rng))
        say(duel, 1, text="gg")
        say(duel, 0, quick="good_game")
        duel.sync(0)
        duel.sync(1)
        seats(duel.id, 0, duel.tokens[0])
        seats(duel.id, 1, duel.tokens[1])
    ask(client, duel.id, duel.tokens[1])
    ask(client, duel.id, duel.tokens[0], "/decline")


def main(out: Path) -> None:
    """Play the games into a fresh file, then leave it checkpointed, vacuumed, in rollback journaling."""
    assert hasattr(db, "ServerBeatRow") and not hasattr(db.GameRow, "rated"), \
        "run with the code of fb55610 first on PYTHONPATH"
    fake = FakeClock()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.db"
        settings = test_settings(Path(folder), database_url=f"sqlite:///{path}", chat_rate="100000/second")
        with app_at(settings, fake) as client:
            timed(client, fake, SEED + 43, TURN_BASED, 5, 3600)
            ai_game(client, 3)
            timed(client, fake, SEED + 49, {"initial": 120, "increment": 0}, 1, 5, (1, "abort"))
            resigned(client)
            chatted(client)
            table = create(client, seed=SEED + 47, nickname="Dee", clock={"initial": 180, "increment": 2})
            seats(table["id"], 0, table["token"])
            timed(client, fake, SEED + 41, REAL_TIME, 9, 4)
            fake.advance(20)
        connection = sqlite3.connect(path)
        connection.execute("PRAGMA journal_mode=DELETE")
        connection.execute("VACUUM")
        connection.close()
        out.write_bytes(path.read_bytes())
    out.with_suffix(".tokens.json").write_text(json.dumps(TOKENS, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
