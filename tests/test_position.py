"""Position notation: round trips over random games, hand-written positions, every malformed field."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.engine import actions as A
from schotten.engine.cards import NUM_CLAN, TACTIC_DECK, card_str, parse_cards
from schotten.engine.errors import NotationError
from schotten.engine.position import FIELDS, format_position, parse_position
from schotten.engine.state import VARIANTS, GameState, Phase, Settings

DOCS = Path(__file__).resolve().parent.parent / "docs" / "notation.md"


def _random_step(state: GameState, rng: random.Random) -> int:
    ids = state.legal_action_ids()
    claims = [i for i in ids if A.CLAIM_BASE <= i < A.DONE_ID]
    if claims and rng.random() < 0.8:
        return rng.choice(claims)
    return rng.choice(ids)


def _check_same(parsed: GameState, state: GameState) -> None:
    assert format_position(parsed) == format_position(state)
    assert parsed.legal_action_ids() == state.legal_action_ids()
    assert parsed.pool == state.pool
    assert parsed.claimable == state.claimable
    assert parsed.outcome == state.outcome
    assert (parsed.scores, parsed.rounds_won, parsed.round_outcomes) == (
        state.scores, state.rounds_won, state.round_outcomes)
    for seat in (0, 1):
        assert parsed.claimable_stones(seat) == state.claimable_stones(seat)


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**31), rounds=st.integers(1, 2))
def test_round_trip_at_every_step_and_one_step_on(variant: str, seed: int, rounds: int) -> None:
    state = GameState.new(Settings.of(variant, rounds), seed)
    rng = random.Random(seed)
    while True:
        parsed = parse_position(format_position(state))
        _check_same(parsed, state)
        assert parsed.history == []
        if state.is_over:
            break
        action = _random_step(state, rng)
        state.apply_id(action)
        parsed.apply(A.ACTIONS[action])
        _check_same(parsed, state)


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**31),
    rounds=st.integers(1, 3),
    cut=st.floats(0, 1),
)
def test_parsed_position_plays_on_identically_to_the_end(variant: str, seed: int, rounds: int,
                                                           cut: float) -> None:
    """Completion order (R4.6), later deals (R2.4) and the match (R9) survive the round trip."""
    state = GameState.new(Settings.of(variant, rounds), seed)
    rng = random.Random(seed)
    for _ in range(int(cut * 120)):
        if state.is_over:
            break
        state.apply_id(_random_step(state, rng))
    parsed = parse_position(format_position(state))
    while not state.is_over:
        action = _random_step(state, rng)
        state.apply_id(action)
        parsed.apply(A.ACTIONS[action])
        _check_same(parsed, state)
    assert parsed.is_over and parsed.outcome == state.outcome


def test_every_slot_of_the_state_is_set() -> None:
    parsed = parse_position(format_position(GameState.new(Settings.of("tactics"), 3)))
    for name in GameState.__slots__:
        assert hasattr(parsed, name), name
    assert parsed._versions == [0] * 9
    assert parsed._refuted == [None] * 18


def test_new_game_fields() -> None:
    state = GameState.new(Settings.of("tactics", rounds=3, first_player=1), 42)
    fields = format_position(state).split(" ")
    assert len(fields) == len(FIELDS) == 15
    named = dict(zip(FIELDS, fields, strict=True))
    assert named["variant"] == "tactics"
    assert named["round"] == "1/3"
    assert named["first"] == named["turn"] == "1"
    assert named["seed"] == "42"
    assert named["results"] == "-"
    assert named["phase"] == "play"
    assert named["board"] == "/".join([":"] * 9)
    assert named["hands"] == ":".join("".join(map(card_str, hand)) for hand in state.hands)
    assert parse_cards(named["clan-deck"]) == state.clan_deck
    assert parse_cards(named["tactic-deck"]) == state.tactic_deck
    assert named["discards"] == named["bottom"] == ":"


# ---------------------------------------------------------------------- hand-written positions


def _cards_in(text: str) -> list[int]:
    cards: list[int] = []
    for part in re.split(r"[:/,]", text):
        part = part.split("#")[0].split("+")[0].replace("*", "")
        cards += parse_cards(part)
    return cards


def table(
    board: list[str] | None = None,
    hands: str = ":",
    variant: str = "base",
    turn: int = 0,
    phase: str = "play",
    tactics: str = "0:0",
    discards: str = ":",
    results: str = "-",
    round_: str = "1/1",
    passes: int = 0,
    bottom: str = ":",
    tactic_deck: str | None = None,
    pad: bool = True,
) -> str:
    """A position with the given table and every other card in the decks (clan deck in card order).

    With ``pad``, hands shorter than the rules allow while the decks hold cards (R3.4, R7.7) get
    the highest clan cards left over, down to what they must hold (``_full_hand``).
    """
    stones = board or [":"] * 9
    others = _cards_in("/".join(stones)) + _cards_in(discards)
    for stone in stones:
        if "+" in stone:
            others += parse_cards(stone.split("+")[1].split("#")[0])
    if "place:" in phase:
        others += parse_cards(phase.split(":")[1].split("@")[0])
    if pad:
        spare = [c for c in range(NUM_CLAN - 1, -1, -1) if c not in others + _cards_in(hands)]
        hands = _padded(hands, spare, variant, turn, phase)
    used = others + _cards_in(hands)
    clan_deck = "".join(card_str(c) for c in range(NUM_CLAN) if c not in used) or "-"
    if tactic_deck is None:
        rest = list(TACTIC_DECK) if variant in ("tactics", "expert") else []
        for card in used:
            if card in rest:
                rest.remove(card)
        tactic_deck = "".join(map(card_str, rest)) or "-"
    return (f"{variant} {round_} 0 7 {results} {turn} {phase} {passes} {tactics} {'/'.join(stones)} {hands} "
            f"{clan_deck} {tactic_deck} {discards} {bottom}")


_AFTER_THE_CARD = ("claim", "draw", "strategist-take", "strategist-place", "banshee", "traitor-take",
                   "traitor-place", "over")


def _full_hand(variant: str, seat: int, turn: int, phase: str) -> int:
    """The cards a hand holds while the decks hold cards: full, one fewer for the mover once the card
    of the turn has left its hand; the Recruiter's draws and returns counted."""
    size = 7 if variant in ("tactics", "expert") else 6
    name, _, counter = phase.partition(":")
    if seat != turn:
        return size
    if name == "recruit-draw":
        return size + 2 - int(counter)
    if name == "recruit-return":
        return size + int(counter)
    return size - (name in _AFTER_THE_CARD)


def _padded(hands: str, spare: list[int], variant: str, turn: int, phase: str) -> str:
    parts = hands.split(":")
    for seat in (0, 1):
        missing = _full_hand(variant, seat, turn, phase) - len(parse_cards(parts[seat]))
        parts[seat] += "".join(card_str(spare.pop(0)) for _ in range(max(0, missing)))
    return ":".join(parts)


def test_table_helper_gives_a_valid_position() -> None:
    state = parse_position(table(hands="1g2g:3g4g"))
    assert state.hands == [[0, 1, 53, 52, 51, 50], [2, 3, 49, 48, 47, 46]]
    assert len(state.clan_deck) == 42 and state.clan_deck == sorted(state.clan_deck)


def test_star_decides_a_tie_of_rank_and_total() -> None:
    """R4.6: equal colour runs; the side marked '*' completed first and wins the tie."""
    board = ["1g2g3g*:3b2b1b"] + [":"] * 8
    state = parse_position(table(board, hands="9k:9p"))
    assert state.can_claim(0, 0) and not state.can_claim(1, 0)
    board[0] = "1g2g3g:3b2b1b*"
    state = parse_position(table(board, hands="9k:9p"))
    assert state.can_claim(1, 0) and not state.can_claim(0, 0)
    assert format_position(state).split()[9].startswith("1g2g3g:3b2b1b*/")


def test_claim_phase_recomputes_the_claimable_stones() -> None:
    """R5.2: 7-8-9 red is unbeatable, so after playing it seat 0 may claim stone 1."""
    board = ["7r8r9r:1g"] + [":"] * 8
    state = parse_position(table(board, hands="1k:2k", phase="claim"))
    assert state.claimable == [0]
    assert [str(a) for a in state.legal_actions()] == ["claim 1", "done"]
    state.apply("claim 1")
    assert state.owner[0] == 0


def test_mud_fight_stone_holds_four_cards() -> None:
    """R7.5: under Mud Fight a side holds up to 4 cards."""
    board = ["1g2g3g4g:5b6b+MF"] + [":"] * 8
    state = parse_position(table(board, hands="9k:9p", variant="tactics", tactics="1:0"))
    assert state.capacity(0) == 4 and state.is_complete(0, 0) and not state.is_complete(1, 0)


def test_strategist_mid_ruse() -> None:
    """R7.8: the held card and its stone are kept; it may not go back to the same stone."""
    board = ["1g:", "2g:"] + [":"] * 7
    text = table(board, hands="9k:9p", variant="tactics", tactics="1:0", discards="ST:",
                 phase="strategist-place:3g@3")
    state = parse_position(text)
    assert (state.held, state.held_from) == (2, 2)
    assert "to 3" not in [str(a) for a in state.legal_actions()]
    assert format_position(state) == text
    state.apply("to 1")
    assert state.sides[0][0] == [0, 2]


def test_recruiter_mid_ruse() -> None:
    """R7.7: the draws and returns left are kept."""
    text = table(hands="9k1kJO:9p", variant="tactics", tactics="1:0", discards="RE:",
                 phase="recruit-return:2")
    state = parse_position(text)
    assert state.recruit_returns == 2
    state.apply("return JO")
    state.apply("return 9k")
    assert state.tactic_deck[0] == 9 * 6 and state.clan_deck[0] == 8 + 5 * 9
    assert state.bottom_known[0] == [53, 54]
    assert state.returned_by == [[0], [0]]


def test_match_state_from_results() -> None:
    """R9.2: scores and rounds won follow from the results of the finished rounds."""
    text = table(hands="9k:9p", results="0a.000------,=e.01-------", round_="3/3")
    state = parse_position(text)
    assert state.scores == [6, 1]
    assert state.rounds_won == [1, 0]
    assert state.round == 2


def test_over_position_has_the_match_result() -> None:
    board = ["1g2g3g:#0", "1b2b3b:#0", "1r2r3r:#0"] + [":"] * 6
    state = parse_position(table(board, phase="over", results="0a.000------"))
    assert state.is_over and state.outcome is not None
    assert state.outcome.winner == 0 and state.outcome.scores == (5, 0)
    assert state.legal_action_ids() == []


def test_cards_are_read_case_insensitively_and_written_canonically() -> None:
    text = table(hands="1G2g:4B3g")
    assert format_position(parse_position(text)).split()[10] == table(hands="1g2g:4b3g").split()[10]


def test_docs_worked_example_parses_and_round_trips() -> None:
    text = DOCS.read_text(encoding="utf-8")
    example = re.search(r"```position\n(.*?)\n```", text, re.S)
    assert example is not None
    position = example.group(1).strip()
    state = parse_position(position)
    assert format_position(state) == position
    assert state.owner[4] == state.owner[8] == 1 and state.phase == Phase.PLAY


def test_docs_id_table_matches_actions() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert f"`NUM_ACTIONS` = {A.NUM_ACTIONS}" in text
    for start, name in [(A.RUSE_BASE, "ST"), (A.PASS_ID, "pass"), (A.CLAIM_BASE, "claim 1"),
                        (A.DONE_ID, "done"), (A.DRAW_BASE, "draw clan"), (A.TAKE_BASE, "take 1g@1"),
                        (A.PLACE_BASE, "to 1"), (A.DISCARD_ID, "discard"), (A.BANISH_BASE, "banish 1g@1"),
                        (A.RETURN_BASE, "return 1g")]:
        assert str(A.ACTIONS[start]) == name
        assert re.search(rf"^\| {start}\b", text, re.M), name


# ---------------------------------------------------------------------- malformed positions

_GOOD = table(hands="1g2g:3g4g")


def _with(index: int, value: str, text: str = _GOOD) -> str:
    fields = text.split(" ")
    fields[index] = value
    return " ".join(fields)


def _board(*stones: str) -> list[str]:
    return [*stones] + [":"] * (9 - len(stones))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (_GOOD + " extra", r"15 space-separated fields .* not 16"),
        ("base 1/1", r"not 2"),
        (_with(0, "chess"), r"field 1 \(variant\): unknown variant 'chess'"),
        (_with(1, "2/1"), r"field 2 \(round\): round 2 is not one of the 1 rounds"),
        (_with(1, "1"), r"field 2 \(round\).*like 1/3"),
        (_with(1, "1/100"), r"1 to 99 rounds"),
        (_with(2, "2"), r"field 3 \(first\): the first player is seat 0 or 1"),
        (_with(3, "x7"), r"field 4 \(seed\): 'x7' is not a whole number"),
        (_with(4, "0a"), r"field 5 \(results\).*like 0a.000------"),
        (_with(4, "0a.0-0-0-0-0"), r"field 5 \(results\).*holds no three adjacent"),
        (_with(4, "=m.000111---"), r"drawn round"),
        (_with(4, "1f.0111-----"), r"five stones \(f\) but holds 3"),
        (_with(4, "0m.0011-----"), r"more stones \(m\) but holds 2 to 2"),
        (_with(5, "1x"), r"field 6 \(turn\): the turn is seat 0 or 1"),
        (_with(6, "dance"), r"field 7 \(phase\): unknown phase 'dance'"),
        (_with(6, "play:3"), r"phase play takes nothing after ':'"),
        (_with(6, "strategist-place"), r"needs the held card and its stone"),
        (_with(6, "recruit-draw:4"), r"needs the draws left \(1 to 3\)"),
        (_with(6, "strategist-place:7b"), r"write the held card and the stone it came from"),
        (_with(6, "traitor-place:7b@0"), r"'0' is not a stone: stones are numbered 1 to 9"),
        (_with(7, "3"), r"field 8 \(passes\).*0, 1 or 2"),
        (_with(8, "11:10"), r"each seat has played 0 to 10 tactic cards"),
        (_with(9, "/".join(_board(":+BBBB"))), r"stone 1 ':\+BBBB': BB written twice"),
        (_with(8, "0-0"), r"field 9 \(tactics\).*like 1:0"),
        (_with(8, "2:0"), r"at most one tactic card ahead \(R7.2\)"),
        (_with(9, "/".join([":"] * 8)), r"field 10 \(board\): the board has 9 stones .* not 8"),
        (_with(9, "/".join(_board("1z:"))), r"board\): stone 1 '1z:': '1z' is not a card"),
        (_with(9, "/".join(_board("1g2g"))), r"stone 1 '1g2g': write seat 0's side, ':'"),
        (_with(9, "/".join(_board(":#2"))), r"the owner \(after #\) is seat 0 or 1"),
        (_with(9, "/".join(_board(":+SP"))), r"only combat modes \(BB, MF\) go after '\+'"),
        (_with(11, "1z"), r"field 12 \(clan-deck\): '1z' is not a card"),
        (_with(11, "1g2"), r"field 12 \(clan-deck\): '2' is not a card"),
        (_with(10, "1g2g"), r"field 11 \(hands\).*seat 0's cards, ':', seat 1's cards"),
        (_with(11, "JO"), r"field 12 \(clan-deck\): JO is a tactic card: it belongs in the tactic deck"),
        (_with(12, "JO"), r"field 13 \(tactic-deck\): a game without tactic cards has no tactic deck"),
        (_with(13, "BB:"), r"field 14 \(discards\): BB in seat 0's discard pile: combat modes stay"),
        (_with(14, "1g"), r"field 15 \(bottom\)"),
    ],
)
def test_malformed_field(text: str, match: str) -> None:
    with pytest.raises(NotationError, match=match):
        parse_position(text)


def test_not_text() -> None:
    with pytest.raises(NotationError, match="a position is text, not int"):
        parse_position(7)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (table(hands="1g2g:1g4g"), r"1g appears twice \(seat 0's hand, seat 1's hand\)"),
        (_with(10, _GOOD.split()[10].replace("2g", ""), _GOOD),
         r"missing cards: 2g \(every card must be somewhere"),
        (table(hands="JO:JO", variant="tactics", tactic_deck="JOSPSHBBMFSTBATRRE"),
         r"JO appears 3 times .*there are two Jokers"),
        (table(hands="JO:", variant="base"),
         r"JO \(seat 0's hand\) is a tactic card, not part of a base game"),
        (table(_board("1g:+BB"), hands="BB:", variant="tactics", tactics="1:0"),
         r"BB appears twice \(seat 0's hand, stone 1 \(combat mode\)\)"),
        (table(_board("1g:", "2g:"), hands=":", phase="strategist-place:2g@2", variant="tactics"),
         r"2g appears twice"),
        (table(_board("1g2g3g4g:"), hands="9k:9p"),
         r"stone 1: seat 0's side holds 4 cards, more than 3 \(R3.1\)"),
        (table(_board("1g2g3g4g5g:+MF"), hands="9k:9p", variant="tactics", tactics="1:0"),
         r"holds 5 cards, more than 4 \(R3.1, R7.5\)"),
        (table(_board("1g2g3g:1b2b3b"), hands="9k:9p"), r"both sides are complete: mark the one .* '\*'"),
        (table(_board("1g2g3g*:1b2b3b*"), hands="9k:9p"), r"both sides are complete: mark"),
        (table(_board("1g2g3g*:1b2b"), hands="9k:9p"), r"'\*' marks the side completed first"),
        (table(_board("1g2g:#0"), hands="9k:9p"), r"stone 1: claimed by seat 0 whose side is not complete"),
        (table(_board("BB:"), variant="tactics", tactics="1:0"),
         r"BB on seat 0's side: a combat mode lies on the stone"),
        (table(_board("ST:"), variant="tactics", tactics="1:0"),
         r"ST on seat 0's side: a ruse goes to its discard"),
        (table(_board("JO:", "JO:"), variant="tactics", tactics="2:1"),
         r"seat 0 has two Jokers on their side of the border \(R7.3\)"),
        (table(_board("JO:"), phase="strategist-place:JO@2", variant="tactics", tactics="2:1",
               discards="ST:"),
         r"seat 0 has two Jokers"),
        (table(_board("1g2g3g:#0", "1b2b3b:#0", "1r2r3r:#0")),
         r"seat 0 holds enough stones to have won the round \(R6.1\)"),
        (table(_board("JO:"), variant="tactics", tactics="0:0"),
         r"seat 0 has played 0 tactic cards, but 1 of theirs"),
        (table(_board("1g:+BB"), variant="tactics", tactics="0:0"), r"0:0 tactic cards played, but 1 are on"),
        (table(results="0a.000------"), r"round 1 follows 0 finished rounds, but 1 results"),
        (table(phase="over"), r"phase over: the game ends after the last round"),
        (table(_board("1g2g3g:#0", "1b2b3b:#0", "1r2r3r:#0"), phase="over", results="0a.0000-----"),
         r"last round's result must match the stones' owners"),
        (table(hands="1g2g3g4g5g6g7g:"), r"hands: seat 0 holds 7 cards, more than 6"),
        (table(hands="1k:JOJOSPSH", phase="draw", variant="tactics", tactic_deck="-",
               discards="ST:BATRRE", board=_board(":+BBMF"), tactics="3:3"),
         r"phase draw: a choice of deck needs both decks to hold cards"),
        (table(hands="1k2k3k4k5k6k7k:", phase="draw", variant="tactics"),
         r"phase draw: seat 0's hand is full"),
        (table(phase="banshee", variant="tactics"), r"phase banshee: BA is not in seat 0's discard pile"),
        (table(phase="claim", hands="1g:"), r"phase claim: seat 0 has no stone to claim"),
        (table(phase="strategist-take", variant="tactics", discards="ST:", tactics="1:0"),
         r"phase strategist-take: seat 0 has no legal action"),
        (table(_board(":+BB"), phase="traitor-place:JO@1", variant="tactics", discards="TR:", tactics="2:1"),
         r"the Traitor takes only clan cards"),
        (table(_board("1g2g3g:#1"), hands="9k:9p"), r"claimed by seat 1 whose side is not complete"),
        (table(_board("1g2g3g:1b2b3b*#1"), phase="strategist-place:4g@1", variant="tactics",
               discards="ST:", tactics="1:0"), r"the held card came from stone 1, which is claimed"),
        (table(variant="tactics", bottom=":0"), r"bottom: seat 0 put cards under the decks without"),
        (table(variant="tactics", bottom="000:", discards="RE:", tactics="1:0"),
         r"bottom: the Recruiter puts back two cards, not 3"),
        (table(variant="tactics", hands="1k:", phase="recruit-return:2", discards="RE:", tactics="1:0",
               pad=False), r"hands: seat 0 holds 1 cards, fewer than 9"),
        (table(variant="tactics", hands="ST:", phase="strategist-place:BB@1", discards="ST:"),
         r"the held card BB is not a clan card or an elite troop"),
    ],
)
def test_inconsistent_position(text: str, match: str) -> None:
    with pytest.raises(NotationError, match=match):
        parse_position(text)


def _positions() -> list[str]:
    found = []
    for variant in VARIANTS:
        for seed in range(3):
            state = GameState.new(Settings.of(variant, 2), seed)
            rng = random.Random(seed)
            while not state.is_over:
                found.append(format_position(state))
                state.apply_id(_random_step(state, rng))
            found.append(format_position(state))
    return found


_POSITIONS = _positions()
_ALPHABET = "0123456789gbrypkJOSPHBMFTAER:/*+#-., "


@settings(max_examples=300, deadline=None)
@given(index=st.integers(0, len(_POSITIONS) - 1), edits=st.lists(
    st.tuples(st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(_ALPHABET),
              st.sampled_from(["set", "del", "ins", "swap"])),
    min_size=1, max_size=3))
def test_a_damaged_position_is_refused_or_playable(
    index: int, edits: list[tuple[int, int, str, str]]
) -> None:
    """Parsing never fails with anything but NotationError; what it accepts round-trips and plays."""
    chars = list(_POSITIONS[index])
    for where, other, char, how in edits:
        at, to = where % (len(chars) - 1), other % (len(chars) - 1)
        if how == "swap":
            chars[at:at + 2], chars[to:to + 2] = chars[to:to + 2], chars[at:at + 2]
        elif how == "set":
            chars[at] = char
        elif how == "del":
            del chars[at]
        else:
            chars.insert(at, char)
    try:
        state = parse_position("".join(chars))
    except NotationError:
        return
    text = format_position(state)
    assert format_position(parse_position(text)) == text
    rng = random.Random(index)
    for _ in range(300):
        if state.is_over:
            break
        state.apply(A.ACTIONS[_random_step(state, rng)])


# ---------------------------------------------------------------------- what hands and discard piles hold


def _mid_ruse(hand: str, phase: str, ruse: str, board: list[str] | None = None) -> str:
    """Seat 0 in the middle of playing ``ruse`` with ``hand``; seat 1's hand is full."""
    return table(board, hands=f"{hand}:1b2b3b4b5b6b7b", variant="tactics", phase=phase, discards=f"{ruse}:",
                 tactics="1:0", pad=False)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (table(discards="5g:"), r"discards: seat 0's pile holds 5g, 1 cards besides ruses, but only its "
                                r"Strategist \(R7.8\) and the other seat's Banshee \(R7.9\) put cards"),
        (table(variant="tactics", discards="5g5b:BA", tactics="0:1"), r"seat 0's pile holds 5g5b, 2 cards"),
        (table(variant="tactics", discards="JO:", tactics="1:0"), r"seat 0's pile holds JO, 1 cards"),
        (table(variant="tactics", discards="ST5g:", tactics="1:0", phase="strategist-take"),
         r"seat 0's pile holds 5g, 1 cards besides ruses.*\(0 here\)"),
        (table(hands="1g2g:3g4g", pad=False), r"hands: seat 0 holds 2 cards, fewer than 6: with 50 cards"),
        (table(hands="1g2g3g4g5g6g:1b2b3b4b5b", pad=False), r"seat 1 holds 5 cards, fewer than 6"),
        (table(variant="tactics", hands="1g2g3g4g5g6g:1b2b3b4b5b6b7b", pad=False),
         r"seat 0 holds 6 cards, fewer than 7"),
        (table(hands="1g2g3g4g:1b2b3b4b5b6b", phase="claim", pad=False),
         r"seat 0 holds 4 cards, fewer than 5"),
        (_mid_ruse("1g2g3g4g5g6g7g", "strategist-take", "ST", board=_board("8g:")),
         r"seat 0 holds 7 cards, more than 6"),
        (_mid_ruse("1g2g3g4g5g6g7g", "recruit-draw:1", "RE"), r"seat 0 holds 7 cards, fewer than 8"),
        (_mid_ruse("1g2g3g4g5g6g7g8g9g", "recruit-draw:1", "RE"), r"seat 0 holds 9 cards, more than 8"),
        (_mid_ruse("1g2g3g4g5g6g7g8g", "recruit-return:2", "RE"), r"seat 0 holds 8 cards, fewer than 9"),
    ],
)
def test_unreachable_hands_and_discard_piles_are_refused(text: str, match: str) -> None:
    """R3.4, R7.6-R7.9: see docs/notation.md (Hands, Discard piles)."""
    with pytest.raises(NotationError, match=match):
        parse_position(text)


@pytest.mark.parametrize(
    "text",
    [
        table(variant="tactics", discards="5g:BA", tactics="0:1"),
        table(variant="tactics", discards="ST5g4b:BA", tactics="1:1"),
        table(variant="tactics", hands="1g2g3g4g5g6g:1b2b3b4b5b6b7b", discards="RE:", tactics="1:0",
              pad=False),
        table(hands="1g2g3g4g5g:1b2b3b4b5b6b", phase="claim", board=_board("7r8r9r:"), pad=False),
        table(board=_board("1g2g3g:#0", "1b2b3b:#0", "1r2r3r:#0"), phase="over", results="0a.000------",
              hands="4g5g6g7g8g:4b5b6b7b8b9b", pad=False),
    ],
)
def test_reachable_hands_and_discard_piles_are_read(text: str) -> None:
    """R7.7: a seat whose Recruiter drew the decks' last card may be one short; R7.8, R7.9: what a
    Strategist discarded or a Banshee banished; R3.3: the mover's hand after its card, before its draw."""
    assert format_position(parse_position(text)) == text


def test_a_recruiter_that_draws_the_last_card_leaves_a_hand_one_short() -> None:
    """R7.7, R3.4: with one card left, the Recruiter draws it, returns two and the turn draws one back:
    seat 0 ends its turn one card short with a card in the deck, and the position says so."""
    stones = ["8g9g1b*:2b3b4b", "5b6b7b*:8b9b1r", "2r3r4r*:5r6r7r", "8r9r1y*:2y3y4y", "5y6y7y*:8y9y1p",
              "2p3p4p*:5p6p7p", "8p9p1k*:2k3k4k", "5k6k:7k8k9k", ":"]
    text = (f"tactics 1/1 0 5 - 0 play 0 1:1 {'/'.join(stones)} RE1g2g3g4g5g6g:JOJOSPSHBBMFST 7g - TR:BA :")
    state = parse_position(text)
    state.play("RE", "return 1g", "return 2g")
    if state.phase == Phase.CLAIM:
        state.apply("done")
    assert state.turn == 1 and len(state.hands[0]) == 6 and len(state.clan_deck) == 1
    after = format_position(state)
    assert format_position(parse_position(after)) == after
    fields = after.split(" ")
    hand, rest = fields[10].split(":")
    fields[10], fields[11] = f"{hand[2:]}:{rest}", hand[:2] + fields[11]
    with pytest.raises(NotationError, match=r"seat 0 holds 5 cards, fewer than 6"):
        parse_position(" ".join(fields))
