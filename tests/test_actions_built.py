"""Actions built from their fields are the interned actions of the same text (DESIGN 1, 2)."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.engine import ACTIONS, NUM_ACTIONS, Action, GameState, IllegalActionError, Kind, Settings
from schotten.engine.actions import id_of, parse_action
from schotten.engine.errors import NotationError


@pytest.mark.parametrize("interned", ACTIONS, ids=str)
def test_every_action_built_from_its_fields_is_the_interned_one(interned: Action) -> None:
    built = Action(interned.kind, interned.card, interned.stone)
    assert built == interned and hash(built) == hash(interned)
    assert built.id == interned.id == id_of(interned.kind, interned.card, interned.stone)
    assert str(built) == str(interned) and repr(built) == repr(interned)
    assert parse_action(str(built)) == built
    assert Action.from_id(built.id) == built
    assert pickle.loads(pickle.dumps(built)) == built


def test_the_outside_review_case_is_the_purple_one_on_stone_one() -> None:
    """``Action(Kind.PLAY, 36, 0)`` once printed as ``return RE`` with id -1; card 36 is 1p."""
    built = Action(Kind.PLAY, 36, 0)
    assert str(built) == "1p@1" and built == parse_action("1p@1")


def test_a_built_action_is_applied_and_refused_like_the_parsed_one() -> None:
    """R3.1: a card not in the hand is refused for that reason, not for a full side."""
    state = GameState.new(Settings.of("base", first_player=0), seed=3)
    card = next(c for c in range(54) if c not in state.hands[0])
    with pytest.raises(IllegalActionError, match=r"you have no \w+ in your hand"):
        state.apply(Action(Kind.PLAY, card, 0))
    mine = state.hands[0][0]
    state.apply(Action(Kind.PLAY, mine, 0))
    assert state.sides[0][0] == [mine] and state.history == [mine * 9]


def test_an_int_kind_is_read_as_the_kind() -> None:
    assert Action(5, 1) == parse_action("draw tactic")  # type: ignore[arg-type]
    assert Action(5, 1).kind is Kind.DRAW  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kind", "card", "stone", "match"),
    [
        (Kind.PLAY, 62, 0, "play takes a card 0-58"),
        (Kind.PLAY, 15, 9, "play takes a card 0-58"),
        (Kind.PLAY, 15, -1, "play takes a card 0-58"),
        (Kind.TAKE, 57, 0, "take takes a card 0-56"),
        (Kind.BANISH, -1, 0, "banish takes a card 0-56"),
        (Kind.CLAIM, 3, 3, r"claim takes a stone 0-8 and no card \(-1\)"),
        (Kind.PLACE, -1, 9, "place takes a stone 0-8"),
        (Kind.RUSE, 54, -1, r"ruse takes a ruse's card \(59-62\)"),
        (Kind.RUSE, 59, 0, "ruse takes"),
        (Kind.DRAW, 2, -1, r"draw takes a deck as its card \(0 clan, 1 tactic\)"),
        (Kind.RETURN, 63, -1, "return takes a card 0-62"),
        (Kind.PASS, 0, -1, "pass takes no card and no stone"),
        (Kind.DONE, -1, 0, "done takes no card and no stone"),
        (Kind.PLAY, True, 0, "is not an action"),
        (Kind.PLAY, 1.0, 0, "is not an action"),
        (99, 0, 0, "99 is not a kind of action"),
        ("play", 0, 0, "'play' is not a kind of action"),
    ],
)
def test_fields_that_make_no_action_are_refused(
    kind: object, card: object, stone: object, match: str
) -> None:
    with pytest.raises(NotationError, match=match):
        Action(kind, card, stone)  # type: ignore[arg-type]


@settings(max_examples=400, deadline=None)
@given(kind=st.sampled_from(list(Kind)), card=st.integers(-3, 66), stone=st.integers(-3, 11))
def test_any_fields_make_the_interned_action_or_a_notation_error(kind: Kind, card: int, stone: int) -> None:
    try:
        built = Action(kind, card, stone)
    except NotationError:
        assert all((a.kind, a.card, a.stone) != (kind, card, stone) for a in ACTIONS)
        return
    assert 0 <= built.id < NUM_ACTIONS
    interned = ACTIONS[built.id]
    assert (interned.kind, interned.card, interned.stone) == (kind, card, stone)
    assert built == interned and parse_action(str(built)) == built
