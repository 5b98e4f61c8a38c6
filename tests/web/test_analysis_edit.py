"""The analysis board's hand editor (issue 27): ``POST /api/analysis/edit`` moves one card or switches
the seat to move, and the engine checks the result as it checks any position: an impossible one is
refused with the engine's own sentence, and a bad or forged edit changes nothing."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_web import test_settings
from starlette.testclient import TestClient

from schotten.engine import GameState, Settings
from schotten.engine.cards import JOKER, card_str
from schotten.engine.errors import NotationError
from schotten.engine.position import format_position, parse_position
from schotten.web.analysis.editor import EDITS, edit_position
from schotten.web.app import create_app
from schotten.web.edge.quotas import TOO_MANY


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """An app on a SQLite file (the editor stores nothing)."""
    settings = test_settings(tmp_path, database_url=f"sqlite:///{tmp_path / 'games.db'}", review_workers=0,
                             analysis_iterations=16)
    with TestClient(create_app(settings)) as client:
        yield client


LATE = ("base 1/1 0 3 - 0 play 0 0:0 1y8g2r*:7p6y6b#1/9g:8b1b8y/1g3g3p:2b/4k7y:8k8p5r#1/4g9r4y:8r/"
        "7r4p:5p9k3r/3k3y6k:5g5k/1r6p2k:6g5y/2g:2y5b9p 6r9b7g2p3b4b:9y4r1p1k7k7b - - : :")
"""A base game whose clan deck is empty, seat 0 to move."""


def dealt(variant: str = "tactics", seed: int = 3) -> str:
    """The position of a fresh deal."""
    return format_position(GameState.new(Settings.of(variant, 1), seed))


def deck_dry(seed: int = 3) -> GameState:
    """A base game played at random until its clan deck is empty (hands may then shrink, R3.4)."""
    state = GameState.new(Settings.of("base", 1), seed)
    rng = random.Random(seed)
    while state.clan_deck and not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    assert not state.is_over
    return state


def edit(client: TestClient, position: str, change: Any) -> Any:
    """The answer to one edit of ``position``."""
    return client.post("/api/analysis/edit", json={"position": position, "edit": change})


def engine_sentence(position: str) -> str:
    """What the engine says of ``position``."""
    with pytest.raises(NotationError) as refused:
        parse_position(position)
    return str(refused.value)


def test_without_an_edit_the_places_of_the_position(client: TestClient) -> None:
    position = dealt()
    answer = client.post("/api/analysis/edit", json={"position": position})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    state = parse_position(position)
    assert data["position"] == position
    cards = data["places"]["cards"]
    assert cards["hand:1"] == [card_str(c) for c in state.hands[0]]
    assert cards["hand:1"] == ["4g", "2g", "3k", "7y", "6p", "1r", "7r"]
    assert len(cards["deck:clan"]) == len(state.clan_deck) and len(cards["deck:tactic"]) == 10
    assert cards["stone:5:2"] == [] and cards["stone:5"] == []
    assert data["places"]["to_move"] == 1 and data["places"]["tactics"] is True


def test_a_card_from_a_hand_to_a_stone(client: TestClient) -> None:
    state = deck_dry()
    seat = state.turn
    card = state.hands[seat][0]
    stone = next(s for s in range(9) if state.owner[s] < 0 and len(state.sides[seat][s]) < 3)
    answer = edit(client, format_position(state), {"card": _name(card), "from": f"hand:{seat + 1}",
                                                   "to": f"stone:{stone + 1}:{seat + 1}"})
    assert answer.status_code == 200, answer.text
    edited = parse_position(answer.json()["position"])
    assert card not in edited.hands[seat] and edited.sides[seat][stone][-1] == card
    assert answer.json()["places"]["cards"][f"stone:{stone + 1}:{seat + 1}"][-1] == _name(card)


def test_a_side_completed_by_an_edit_is_completed_last() -> None:
    """Two complete sides keep R4.6's order: the side the edit completed is the later one ('*' marks
    the first), and a side made incomplete forgets when it was completed."""
    position = LATE
    once = edit_position(position, {"card": "6r", "from": "hand:1", "to": "stone:2:1"})["position"]
    twice = edit_position(once, {"card": "9b", "from": "hand:1", "to": "stone:2:1"})["position"]
    assert twice.split()[9].split("/")[1] == "9g6r9b:8b1b8y*"
    off = edit_position(twice, {"card": "8y", "from": "stone:2:2", "to": "stone:5:2"})["position"]
    back = edit_position(off, {"card": "8y", "from": "stone:5:2", "to": "stone:2:2"})["position"]
    assert back.split()[9].split("/")[1] == "9g6r9b*:8b1b8y"


def test_a_tactic_card_on_a_side_counts_as_played_by_that_seat(client: TestClient) -> None:
    answer = edit(client, dealt(), {"card": "JO", "from": "deck:tactic", "to": "stone:1:1"})
    assert answer.status_code == 200, answer.text
    edited = parse_position(answer.json()["position"])
    assert edited.sides[0][0] == [JOKER] and edited.tactic_deck.count(JOKER) == 1
    assert edited.tactics_played == [1, 0]


def test_a_combat_mode_on_a_stone(client: TestClient) -> None:
    answer = edit(client, dealt(), {"card": "MF", "from": "deck:tactic", "to": "stone:2"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["places"]["cards"]["stone:2"] == ["MF"]
    assert parse_position(answer.json()["position"]).capacity(1) == 4


def test_the_seat_to_move_is_switched(client: TestClient) -> None:
    answer = edit(client, dealt(), {"to_move": 2})
    assert answer.status_code == 200, answer.text
    assert parse_position(answer.json()["position"]).turn == 1
    assert answer.json()["places"]["to_move"] == 2


@pytest.mark.parametrize("change", [
    {"card": "4g", "from": "hand:1", "to": "stone:1:1"},   # a hand no longer full while the decks hold cards
    {"card": "JO", "from": "deck:tactic", "to": "hand:2"},  # a hand of 8
    {"card": "ST", "from": "deck:tactic", "to": "stone:3:2"},  # a ruse on a side
])
def test_an_impossible_position_is_refused_with_the_engines_sentence(client: TestClient, change: Any) -> None:
    position = dealt()
    answer = edit(client, position, change)
    assert answer.status_code == 400
    sentence = answer.json()["error"]
    assert sentence.startswith("the edited position is impossible: ")
    engine_says = engine_sentence(_apply_by_hand(position, change))
    assert sentence.removeprefix("the edited position is impossible: ") == engine_says


def _apply_by_hand(position: str, change: dict[str, str]) -> str:
    """The notation ``change`` gives, written directly in the fields (to ask the engine itself)."""
    fields = position.split()
    hands = fields[10].split(":")
    card = change["card"]
    if change["from"] == "hand:1":
        hands[0] = _without(hands[0], card)
    if change["from"] == "deck:tactic":
        fields[12] = _without(fields[12], card)
    if change["to"] == "hand:2":
        hands[1] += card
    fields[10] = ":".join(hands)
    if change["to"].startswith("stone:"):
        stone, seat = (int(n) for n in change["to"].split(":")[1:])
        stones = fields[9].split("/")
        sides = stones[stone - 1].split(":")
        sides[seat - 1] += card
        stones[stone - 1] = ":".join(sides)
        fields[9] = "/".join(stones)
        if not card[0].isdigit():
            fields[8] = "1:0" if seat == 1 else "0:1"
    return " ".join(fields)


def _without(cards: str, card: str) -> str:
    index = next(i for i in range(0, len(cards), 2) if cards[i:i + 2] == card)
    return cards[:index] + cards[index + 2:]


def _name(card: int) -> str:
    return card_str(card)


@pytest.mark.parametrize(("change", "says"), [
    ({"card": "4g", "from": "hand:2", "to": "stone:1:2"}, "4g is not in hand:2"),
    ({"card": "zz", "from": "hand:1", "to": "stone:1:1"}, "card: 'zz' is not a card"),
    ({"card": 7, "from": "hand:1", "to": "stone:1:1"}, "card must be a card"),
    ({"card": "4g", "from": "hand:3", "to": "stone:1:1"}, "from must be a place"),
    ({"card": "4g", "from": "hand:1", "to": "stone:10:1"}, "to must be a place"),
    ({"card": "4g", "from": "hand:1", "to": "hand:1"}, "from and to are the same place"),
    ({"card": "4g", "from": "hand:1", "to": "stone:1"}, "4g is not a combat mode"),
    ({"card": "MF", "from": "stone:2", "to": "deck:tactic"}, "MF is not on stone:2"),
    ({"card": "4g", "from": "hand:1"}, "edit must have exactly card, from and to"),
    ({"to_move": 3}, "to_move must be the seat to move, 1 or 2"),
    ({"to_move": True}, "to_move must be the seat to move, 1 or 2"),
    ({"to_move": 2.0}, "to_move must be the seat to move, 1 or 2"),
    ({"to_move": 2, "card": "4g"}, "to_move must be the seat to move"),
    ("4g hand:1 stone:1:1", "edit must be an object"),
])
def test_a_bad_edit_is_refused_with_a_sentence(client: TestClient, change: Any, says: str) -> None:
    answer = edit(client, dealt(), change)
    assert answer.status_code == 400
    assert says in answer.json()["error"]


@pytest.mark.parametrize(("body", "says"), [
    ({"edit": {"to_move": 2}}, "position must be a non-empty string"),
    ({"position": "x" * 4001, "edit": {"to_move": 2}}, "position is too long"),
    ({"position": "chess 1/1 0 7 - 0 play 0 0:0", "edit": {"to_move": 2}}, "not a valid position: "),
    ([1, 2], "position must be a non-empty string"),
])
def test_a_bad_position_is_refused(client: TestClient, body: Any, says: str) -> None:
    answer = client.post("/api/analysis/edit", json=body)
    assert answer.status_code == 400
    assert says in answer.json()["error"]


def test_an_oversized_body_is_refused_before_it_is_read(client: TestClient) -> None:
    answer = client.post("/api/analysis/edit", content=b'{"position": "' + b"x" * 2_000_000 + b'"}',
                         headers={"content-type": "application/json"})
    assert answer.status_code == 413


def test_a_forged_edit_changes_nothing(client: TestClient) -> None:
    """A card taken from where it is not (the other seat's hand) is refused; the position the client
    holds is all there is, and the next edit of it starts from it unchanged."""
    position = dealt()
    state = parse_position(position)
    theirs = _name(state.hands[1][0])
    refused = edit(client, position, {"card": theirs, "from": "hand:1", "to": "stone:1:1"})
    assert refused.status_code == 400 and f"{theirs} is not in hand:1" in refused.json()["error"]
    again = client.post("/api/analysis/edit", json={"position": position})
    assert again.json()["position"] == position
    cards = again.json()["places"]["cards"]
    assert cards["hand:2"][0] == theirs and cards["stone:1:1"] == []


def test_the_best_moves_come_with_their_parts(client: TestClient) -> None:
    answer = client.post("/api/analysis", json={"position": dealt(), "iterations": 8})
    assert answer.status_code == 200, answer.text
    best = answer.json()["best"]
    assert best and all(b["parts"]["action"] == b["action"] for b in best)
    assert {b["parts"]["kind"] for b in best} <= {"play", "pass"}


def test_edits_have_a_rate_of_their_own_per_address(tmp_path: Path) -> None:
    """Over ``analysis_edit_rate`` an edit is 429 with its sentence, what the page says and Retry-After;
    analyses, counted apart, are still answered."""
    settings = test_settings(tmp_path, database_url=f"sqlite:///{tmp_path / 'games.db'}", review_workers=0,
                             analysis_iterations=4, analysis_edit_rate="2/minute", analysis_rate="5/minute")
    position = dealt()
    with TestClient(create_app(settings)) as client:
        answers = [edit(client, position, None) for _ in range(3)]
        assert [answer.status_code for answer in answers] == [200, 200, 429]
        refused = answers[-1]
        wait = refused.headers["retry-after"]
        assert 55 <= int(wait) <= 60, wait
        assert refused.json() == {
            "error": f"too many edits of a position from your address (at most 2 per 1 minute): try again in "
                     f"{wait} s",
            "say": {"text": TOO_MANY[EDITS], "params": {"wait": f"{wait} s"}}}
        assert client.post("/api/analysis", json={"position": position}).status_code == 200
