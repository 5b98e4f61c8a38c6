"""The analysis board's API (issue 27): ``POST /api/analysis`` and the replay's position notation.

The analysis reads the view of the seat to move only (R10); the replay gives each step's position
once the game is over (R10.4), and no route gives a live game's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_web import Duel, test_settings
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)
from test_reviews import played

from schotten.engine import GameState, Settings
from schotten.engine.position import format_position, parse_position
from schotten.web.app import create_app
from schotten.web.core.settings import WebSettings

ITERATIONS = 24


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of the test: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    found: str = request.getfixturevalue("database_url")
    return found


def board_client(tmp_path: Path, url: str, **changes: Any) -> TestClient:
    """An app with a small analysis budget on ``url``."""
    values: dict[str, Any] = {"database_url": url, "review_workers": 0, "analysis_iterations": ITERATIONS}
    return TestClient(create_app(test_settings(tmp_path, **(values | changes))))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """An app on a SQLite file (the analysis stores nothing)."""
    with board_client(tmp_path, f"sqlite:///{tmp_path / 'games.db'}") as client:
        yield client


def position(seed: int = 5) -> GameState:
    """A tactics game a few moves in."""
    state = GameState.new(Settings.of("tactics", 1), seed)
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    return state


def test_a_position_gets_its_figures(client: TestClient) -> None:
    state = position()
    answer = client.post("/api/analysis", json={"position": format_position(state), "iterations": 10})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["to_move"] == state.turn + 1 and data["iterations"] == 10
    assert len(data["win"]) == 2 and abs(sum(data["win"]) - 1) < 0.01
    assert data["best"] and all(set(b) == {"action", "win", "parts"} for b in data["best"])
    assert {b["action"] for b in data["best"]} <= {str(a) for a in state.legal_actions()}
    assert len(data["stones"]) == 9
    stone = data["stones"][0]
    assert len(stone["chance"]) == 2 and len(stone["sides"]) == 2 and len(stone["claims"]) == 2
    assert all(isinstance(c["reason"], str) and c["reason"] for c in stone["claims"])


def test_iterations_are_capped_by_the_setting(client: TestClient) -> None:
    answer = client.post("/api/analysis", json={"position": format_position(position()), "iterations": 10**6})
    assert answer.json()["iterations"] == ITERATIONS
    assert client.post("/api/analysis", json={"position": format_position(position())}).json()[
        "iterations"] == ITERATIONS


@pytest.mark.parametrize("body", [{}, {"position": 3}, {"position": ""}, [1, 2], {"position": "x" * 5000},
                                  {"position": "ok", "iterations": 0}, {"position": "ok", "iterations": "9"}])
def test_a_body_that_is_not_a_request_is_400(client: TestClient, body: Any) -> None:
    if isinstance(body, dict) and body.get("position") == "ok":
        body = body | {"position": format_position(position())}
    answer = client.post("/api/analysis", json=body)
    assert answer.status_code == 400
    assert answer.json()["error"]


def test_a_malformed_or_impossible_position_is_400_with_the_engines_sentence(client: TestClient) -> None:
    fields = format_position(position()).split(" ")
    fields[0] = "chess"
    answer = client.post("/api/analysis", json={"position": " ".join(fields)})
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("not a valid position: ") and "chess" in answer.json()["error"]
    state = position()
    state.hands[0].append(state.hands[1][0])  # one card in two places: impossible (R1)
    answer = client.post("/api/analysis", json={"position": format_position(state)})
    assert answer.status_code == 400
    with pytest.raises(ValueError) as engine:
        parse_position(format_position(state))
    assert str(engine.value) in answer.json()["error"]


def test_the_opponents_hidden_cards_do_not_change_the_answer(client: TestClient) -> None:
    """R10: the analysis reads the mover's view, so swapping the opponent's hand with the deck's
    cards gives the same figures."""
    state = position()
    other = 1 - state.turn
    swapped = state.copy()
    swapped.hands[other], swapped.clan_deck[: len(state.hands[other])] = (
        swapped.clan_deck[: len(state.hands[other])], swapped.hands[other])
    assert format_position(swapped) != format_position(state)
    parse_position(format_position(swapped))
    answers = [client.post("/api/analysis", json={"position": format_position(s)}).json()
               for s in (state, swapped)]
    assert answers[0] == answers[1]


def test_the_rate_per_address_is_429(tmp_path: Path) -> None:
    with board_client(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", analysis_rate="2/minute") as client:
        body = {"position": format_position(position()), "iterations": 4}
        assert [client.post("/api/analysis", json=body).status_code for _ in range(3)] == [200, 200, 429]
        assert "analyses" in client.post("/api/analysis", json=body).json()["error"]


def test_a_finished_games_replay_gives_each_steps_position(tmp_path: Path, url: str) -> None:
    with board_client(tmp_path, url) as client:
        game_id = played(client, moves=4)
        steps = client.get(f"/api/games/{game_id}/replay").json()["steps"]
        assert len(steps) == 5
        for step in steps:
            parse_position(step["position"])
        assert client.post("/api/analysis", json={"position": steps[2]["position"]}).status_code == 200


def test_no_route_gives_a_live_games_position(client: TestClient) -> None:
    """R10.4: a game in play has no replay or record; its summary holds no position notation."""
    with Duel(client) as duel:
        duel.play(str(duel.state.legal_actions()[0]))
        secret = format_position(duel.state)
        assert client.get(f"/api/games/{duel.id}/replay").status_code == 409
        assert client.get(f"/api/games/{duel.id}/record").status_code == 409
        text = client.get(f"/api/games/{duel.id}").text
        assert secret not in text and '"position"' not in text


def test_the_page_is_served_and_a_missing_one_is_404_not_500(tmp_path: Path, client: TestClient) -> None:
    assert client.get("/analysis?position=x").status_code == 404
    static = WebSettings().static_dir
    with board_client(tmp_path, f"sqlite:///{tmp_path / 'p.db'}", static_dir=static) as real:
        page = real.get("/analysis?position=x")
        assert page.status_code == 200 and 'id="position"' in page.text
