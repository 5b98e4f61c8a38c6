"""The engine's data for pages: action parts, the public move log, formations on every stone,
the board each round ended with, and the record of the last draw (for the web app's undo)."""

from __future__ import annotations

import random

import pytest

from schotten.engine import ACTIONS, GameState, Kind, Phase, Settings, parse_action
from schotten.engine.actions import DONE_ID, action_parts
from schotten.engine.cards import card_str, parse_card
from schotten.engine.explain import formations, side_formation
from schotten.engine.view import public_history, public_log, round_board
from tests.randgame import ALL_SETTINGS, random_game, random_states


def test_every_action_has_parts_that_name_it() -> None:
    for action in ACTIONS:
        parts = action_parts(action.id)
        assert parts["action"] == str(action)
        assert parse_action(str(parts["action"])) is action
        assert parts["kind"] == action.kind.name.lower()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7b@3", {"kind": "play", "card": "7b", "stone": 2, "deck": None}),
        ("MF@9", {"kind": "play", "card": "MF", "stone": 8, "deck": None}),
        ("ST", {"kind": "ruse", "card": "ST", "stone": None, "deck": None}),
        ("draw tactic", {"kind": "draw", "card": None, "stone": None, "deck": "tactic"}),
        ("return 7b", {"kind": "return", "card": "7b", "stone": None, "deck": "clan"}),
        ("return JO", {"kind": "return", "card": "JO", "stone": None, "deck": "tactic"}),
        ("take JO@4", {"kind": "take", "card": "JO", "stone": 3, "deck": None}),
        ("to 5", {"kind": "place", "card": None, "stone": 4, "deck": None}),
        ("claim 1", {"kind": "claim", "card": None, "stone": 0, "deck": None}),
        ("done", {"kind": "done", "card": None, "stone": None, "deck": None}),
    ],
)
def test_action_parts(text: str, expected: dict[str, object]) -> None:
    assert action_parts(parse_action(text).id) == {"action": text, **expected}


@pytest.mark.parametrize("seat", [0, 1, None])
def test_the_log_is_the_public_history_with_rounds_and_movers(seat: int | None) -> None:
    state = random_game(Settings.of("tactics", rounds=3), seed=11)
    log = public_log(state, seat)
    assert [e["action"] for e in log] == list(public_history(state, seat))  # R10.2
    assert [e["mover"] for e in log] == state.movers
    assert [e["index"] for e in log] == list(range(len(state.history)))
    starts = [e["index"] for e in log if e["index"] == 0 or e["round"] != log[e["index"] - 1]["round"]]
    assert starts == state.round_starts


def test_the_log_hides_the_other_seats_returns_and_names_a_placed_card() -> None:
    hidden = placed = 0
    for seed in range(60):
        state = random_game(Settings.of("tactics"), seed=seed)
        for seat in (0, 1):
            for entry, action_id in zip(public_log(state, seat), state.history, strict=True):
                action = ACTIONS[action_id]
                if action.kind == Kind.RETURN and entry["mover"] != seat:
                    assert entry["card"] is None and entry["action"].startswith("return ")  # R10.2
                    hidden += 1
                if action.kind == Kind.PLACE:
                    taken = ACTIONS[state.history[entry["index"] - 1]]
                    assert taken.kind == Kind.TAKE and entry["card"] == str(taken).split()[1][:2]
                    placed += 1
    assert hidden and placed


def test_formations_are_given_for_complete_sides_only() -> None:
    for state in random_states(Settings.of("tactics"), seed=5):
        for stone, pair in enumerate(formations(state)):
            for seat in (0, 1):
                assert (pair[seat] is not None) == state.is_complete(seat, stone)  # R4
    shown = side_formation([parse_card(c) for c in ("JO", "8b", "9b")], 0)
    assert shown is not None and shown.rank == "colour-run" and shown.total == 24  # R7.3
    assert shown.troops == (("JO", "7b"),)


def test_each_round_keeps_the_board_it_ended_with() -> None:
    """The board a round ended with (R6.1: a breakthrough claim, or R6.2 when play ran out) is kept
    after the next round is dealt (R9), with each stone's owner."""
    settings = Settings.of("tactics", rounds=3)
    state = GameState.new(settings, 8)
    rng = random.Random(8)
    while not state.is_over:
        before = state.copy()
        state.apply_id(rng.choice(state.legal_action_ids()))
        if len(state.round_outcomes) > len(before.round_outcomes):
            board = round_board(state, len(state.round_outcomes) - 1)
            assert board is not None
            owners = state.round_outcomes[-1].stones
            for stone in range(9):
                sides = [[card_str(c) for c in before.sides[seat][stone]] for seat in (0, 1)]
                assert board["stones"][stone]["cards"] == sides
                assert board["stones"][stone]["owner"] == (-1 if owners[stone] is None else owners[stone])
    assert len(state.round_boards) == 3 and round_board(state, 3) is None


@pytest.mark.parametrize("settings", ALL_SETTINGS, ids=lambda s: f"{s.variant}-{s.rounds}")
def test_last_draw_marks_every_card_that_left_a_deck(settings: Settings) -> None:
    for seed in range(6):
        previous = None
        for state in random_states(settings, seed):
            if previous is not None and state.round == previous.round:
                decks = len(state.clan_deck) + len(state.tactic_deck)
                shrank = decks < len(previous.clan_deck) + len(previous.tactic_deck)
                if shrank:
                    assert state.last_draw == len(state.history) - 1
                elif state.last_draw != len(state.history) - 1:
                    assert state.last_draw == previous.last_draw
            previous = state.copy()


@pytest.mark.parametrize("variant", ["base", "tactics"])
def test_draw_is_forced_when_a_play_draws_with_no_choice(variant: str) -> None:
    forced = free = 0
    for state in random_states(Settings.of(variant), seed=3):
        if state.phase != Phase.PLAY:
            continue
        play = next((i for i in state.legal_action_ids() if ACTIONS[i].kind == Kind.PLAY), None)
        if play is None:
            continue
        after = state.copy()
        after.apply_id(play)
        if after.phase == Phase.CLAIM:
            after.apply_id(DONE_ID)  # claims reveal nothing (R3.3); the draw comes after them
        drew = after.last_draw >= len(state.history)
        if state.draw_is_forced:
            assert drew  # R3.4: one deck only, no choice
            forced += 1
        elif drew:
            raise AssertionError("a draw came with no choice although draw_is_forced said no")
        else:
            free += 1
    assert forced and free


@pytest.mark.parametrize("seat", [0, 1, None])
def test_the_log_from_a_move_on_is_the_tail_of_the_whole_log(seat: int | None) -> None:
    for seed in range(8):
        state = random_game(Settings.of("tactics", rounds=3), seed=seed)
        whole = public_log(state, seat)
        for start in (0, 1, *state.round_starts, len(whole) // 2, len(whole) - 1, len(whole), len(whole) + 3):
            assert public_log(state, seat, start) == whole[start:]
        places = [e["index"] for e in whole if e["kind"] == "place"]
        for index in places:
            assert public_log(state, seat, index) == whole[index:]  # the card of the take before it
