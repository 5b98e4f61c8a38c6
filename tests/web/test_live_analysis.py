"""The analysis of one's own game in play (issue 27; ``analysis.live``, docs/web/analysis.md).

Only the human seat of a table against the AI created with hints on gets it, at its own decision; it
counts as a hint. R10: the opponent's hand and the decks are dealt anew from what the seat cannot
see, so two states the seat cannot tell apart get the same answer, position notation included.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_web import create, join, receive_state, service_of, socket_path
from helpers_web import test_settings as settings_for
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)

from schotten.engine import GameState, Settings
from schotten.engine.position import parse_position
from schotten.engine.view import view
from schotten.web import create_app
from schotten.web.analysis import live
from schotten.web.core.errors import ServiceError
from schotten.web.storage.db import GameRow
from tests.randgame import random_states, redeal_hidden

Message = dict[str, Any]
AI_TABLE = {"mode": "ai", "level": "easy", "hints": True}
ITERATIONS = 24
"""A small budget: the tests check where the figures come from, not how good they are."""


@pytest.fixture(params=["sqlite", "postgres"])
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    """The app on SQLite or on the test's PostgreSQL schema, analyses at a small budget."""
    url = f"sqlite:///{tmp_path / 'games.db'}" if request.param == "sqlite" else request.getfixturevalue(
        "database_url")
    settings = settings_for(tmp_path, database_url=url, analysis_iterations=ITERATIONS, review_workers=0)
    with TestClient(create_app(settings)) as client:
        yield client


@pytest.fixture
def lite(tmp_path: Path) -> Iterator[TestClient]:
    """The app on SQLite only (the refusals store nothing)."""
    settings = settings_for(tmp_path, analysis_iterations=ITERATIONS, review_workers=0)
    with TestClient(create_app(settings)) as client:
        yield client


def analyse(client: TestClient, game_id: str, token: str | None, **headers: str) -> Any:
    """``POST /api/games/{id}/analysis`` with the seat cookie ``token`` (None: no cookie)."""
    client.cookies.clear()
    if token is not None:
        client.cookies.set(f"seat_{game_id}", token)
    try:
        return client.post(f"/api/games/{game_id}/analysis", headers=headers)
    finally:
        client.cookies.clear()


def at_my_decision(client: TestClient, grant: Message, seat: int = 0) -> Message:
    """The state message of the first decision of ``seat`` (the AI may move first)."""
    with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
        while True:
            state = receive_state(ws)
            if state["view"]["turn"] == seat and state["legal"]:
                return state


def hints_used(client: TestClient, game_id: str) -> int:
    with service_of(client).store.use() as session:
        row = session.get(GameRow, game_id)
        assert row is not None
        return row.hints_used


def refused(response: Any, status: int, sentence: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"] == sentence


# ---------------------------------------------------------------------- the answer


def test_the_player_gets_its_position_analysed_from_its_view_and_it_counts_as_a_hint(app: TestClient) -> None:
    """200 with the board's figures for the seat to decide, the version, and a position notation whose
    board and own hand are the real ones; the game's hint count goes up, as for a hint."""
    grant = create(app, **AI_TABLE)
    state = at_my_decision(app, grant)
    answer = analyse(app, grant["id"], grant["token"])
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["version"] == state["version"] and data["to_move"] == 1
    legal = {part["action"] for part in state["legal"]}
    assert len(data["best"]) >= 1 and {move["action"] for move in data["best"]} <= legal
    assert len(data["stones"]) == 9 and 0 <= data["win"][0] <= 1
    real = service_of(app).games[grant["id"]].state
    copy = parse_position(data["position"])
    assert sorted(copy.hands[0]) == sorted(real.hands[0]) and copy.sides == real.sides
    assert len(copy.hands[1]) == len(real.hands[1]) and len(copy.clan_deck) == len(real.clan_deck)
    assert data["board"]["hand"] == state["view"]["hand"]
    assert hints_used(app, grant["id"]) == 1
    assert app.get(f"/api/games/{grant['id']}").json()["hints_used"] == 1


def test_the_answer_is_the_same_whatever_the_hidden_cards_are(lite: TestClient) -> None:
    """R10: the served game's state replaced by copies whose opponent hand and decks are dealt anew
    (the seat cannot tell them apart) gets the very same answer, position notation included."""
    grant = create(lite, **AI_TABLE)
    at_my_decision(lite, grant)
    game = service_of(lite).games[grant["id"]]
    real = game.state
    first = analyse(lite, grant["id"], grant["token"]).json()
    rng = random.Random(3)
    differed = 0
    for _ in range(4):
        game.state = redeal_hidden(real, 0, rng)
        assert view(game.state, 0) == view(real, 0)
        differed += game.state.hands[1] != real.hands[1] or game.state.clan_deck != real.clan_deck
        assert analyse(lite, grant["id"], grant["token"]).json() == first
    assert differed >= 3


@pytest.mark.parametrize("variant", ["base", "tactics"])
def test_hidden_cards_never_change_the_live_figures(variant: str) -> None:
    """The same property over random positions of both seats: a redealt state gives the same figures
    and the same position notation, and the notation's hidden cards are a fresh deal."""
    rng = random.Random(11)
    checked = 0
    for number, state in enumerate(random_states(Settings.of(variant), 21)):
        if number % 11 != 4 or state.is_over:
            continue
        seat = state.turn
        other = redeal_hidden(state, seat, rng)
        seed = live.redeal_seed("g", number)
        assert live.live_figures(state, seat, seed, 16) == live.live_figures(other, seat, seed, 16)
        checked += 1
    assert checked >= 4


def test_the_redealt_position_keeps_the_seat_s_view() -> None:
    """The position given keeps everything the seat sees: its view of it is the real one (apart from the
    history, which a position does not hold)."""
    for number, state in enumerate(random_states(Settings.of("tactics"), 5)):
        if number % 7 != 2 or state.is_over:
            continue
        seat = state.turn
        copy = live.redealt(state, seat, live.redeal_seed("g", number))
        mine, real = view(copy, seat).to_dict(), view(state, seat).to_dict()
        for seen in (mine, real):
            seen.pop("history", None)
            seen.pop("movers", None)
        assert mine == real


# ---------------------------------------------------------------------- the refusals


def test_a_spectator_or_another_seat_s_cookie_is_refused(lite: TestClient) -> None:
    """403 with a sentence for no seat cookie and for the token of another game; nothing is counted."""
    grant = create(lite, **AI_TABLE)
    other = create(lite, **AI_TABLE)
    at_my_decision(lite, grant)
    refused(analyse(lite, grant["id"], None), 403, live.NO_SEAT)
    refused(analyse(lite, grant["id"], other["token"]), 403, live.NO_SEAT)
    assert hints_used(lite, grant["id"]) == 0


def test_a_table_without_hints_and_a_friend_game_are_refused(lite: TestClient) -> None:
    """An AI table created without hints, and either seat of a friend game: 403 with a sentence."""
    plain = create(lite, mode="ai", level="easy")
    at_my_decision(lite, plain)
    refused(analyse(lite, plain["id"], plain["token"]), 403, live.NO_HINTS)
    friend = create(lite)
    second = join(lite, friend["id"])
    for token in (friend["token"], second["token"]):
        refused(analyse(lite, friend["id"], token), 403, live.NO_HINTS)
    assert hints_used(lite, plain["id"]) == hints_used(lite, friend["id"]) == 0


def test_a_finished_game_a_waiting_table_and_an_unknown_one_are_refused(lite: TestClient) -> None:
    """409 once the game is over (its replay analyses it) and at a table not begun; 404 for no game."""
    grant = create(lite, **AI_TABLE)
    with lite.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
        receive_state(ws)
        ws.send_json({"type": "resign"})
        while receive_state(ws)["status"] != "over":
            pass
    refused(analyse(lite, grant["id"], grant["token"]), 409, live.OVER)
    waiting = create(lite)
    refused(analyse(lite, waiting["id"], waiting["token"]), 409, live.NOT_BEGUN)
    assert analyse(lite, "nosuchgame", None).status_code == 404
    assert hints_used(lite, grant["id"]) == 0


def test_the_ai_s_turn_is_refused(lite: TestClient) -> None:
    """At a decision that is not the seat's (the AI's), 409 with a sentence."""
    grant = create(lite, **AI_TABLE)
    at_my_decision(lite, grant)
    game = service_of(lite).games[grant["id"]]
    with pytest.raises(ServiceError) as error:
        live.check(game, 1)
    assert (error.value.status, error.value.message) == (409, live.AI_TURN)
    live.check(game, 0)


def test_analyses_share_the_hint_rate_and_another_site_cannot_ask(tmp_path: Path) -> None:
    """Beyond ``hint_rate`` an analysis is refused (429, nothing counted), and a POST from another
    site's page is refused by the origin check (a page elsewhere cannot spend a player's hints)."""
    settings = settings_for(tmp_path, analysis_iterations=ITERATIONS, hint_rate="1/hour", review_workers=0)
    with TestClient(create_app(settings)) as client:
        grant = create(client, **AI_TABLE)
        at_my_decision(client, grant)
        foreign = analyse(client, grant["id"], grant["token"], origin="https://elsewhere.example")
        assert foreign.status_code == 403
        assert analyse(client, grant["id"], grant["token"]).status_code == 200
        over = analyse(client, grant["id"], grant["token"])
        assert over.status_code == 429 and "too many hints" in over.json()["error"]
        assert hints_used(client, grant["id"]) == 1


def test_a_game_whose_state_cannot_be_dealt_does_not_count(lite: TestClient, monkeypatch: Any) -> None:
    """An analysis that fails is answered 500 (the server's sentence, not the error's), and counts no
    hint."""
    grant = create(lite, **AI_TABLE)
    at_my_decision(lite, grant)

    def broken(state: GameState, seat: int, seed: int, iterations: int) -> Message:
        raise ValueError("the view's card counts do not add up")

    monkeypatch.setattr(live, "live_figures", broken)
    failed = analyse(lite, grant["id"], grant["token"])
    assert failed.status_code == 500 and "card counts" not in failed.text
    assert hints_used(lite, grant["id"]) == 0
