"""A tournament game has no rematch (issue 28): the tournament pairs its players' next games. Asking
for one, or answering one, at a finished arena or Swiss game is refused with 409 and a sentence (the
page's saying too), and nothing is stored or told. SQLite, and PostgreSQL when
``SCHOTTEN_TEST_POSTGRES_URL`` is set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers_web import receive_state, service_of, socket_path
from sqlalchemy import func, select
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)
from test_tournament_games_page import database, paired  # noqa: F401  (fixture)
from test_tournaments import resign, tournament_app

from schotten.web.rematch.rematcher import IN_TOURNAMENT
from schotten.web.storage.db import RematchRow

SHAPES = {"arena": {}, "swiss": {"format": "swiss", "minutes": None, "rounds": 2}}


def rematches(client: TestClient) -> int:
    """How many rematch tables are stored."""
    with service_of(client).store.use() as session:
        return int(session.scalar(select(func.count()).select_from(RematchRow)) or 0)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_finished_tournament_game_refuses_a_rematch(tmp_path: Path, database: dict[str, Any],  # noqa: F811
                                                      shape: str) -> None:
    with tournament_app(tmp_path, **database) as (client, _clock):
        _tid, game, ticket = paired(client, **SHAPES[shape])
        with client.websocket_connect(socket_path(game, ticket)) as bob:
            seat = receive_state(bob)["seat"]
            resign(client, game, 1 - seat)
            over = receive_state(bob)
            while over["status"] != "over":
                over = receive_state(bob)
            assert over["tournament"]["format"] == shape and over["rematch"] is None
            for path in ("rematch", "rematch/decline", "rematch/withdraw"):
                refused = client.post(f"/api/games/{game}/{path}", json={"token": ticket})
                assert refused.status_code == 409, (path, refused.text)
                assert "tournament game has no rematch" in refused.json()["error"]
                assert refused.json()["say"] == {"text": IN_TOURNAMENT, "params": {}}
            bob.send_json({"type": "sync"})
            again = receive_state(bob)
            assert again["rematch"] is None and again.get("rematch_closed") is None
        assert rematches(client) == 0
        assert client.get(f"/api/games/{game}").json()["rematch"] is None
