"""No-leak tests for ``view`` (R10): a seat's view depends only on what that seat may know.

The main property re-deals everything a seat may not know (the deck order, the
other hand, the other seat's Recruiter returns and the seed) and checks the view
is unchanged; the converse checks that what it may know does change the view.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schotten.engine import GameState, Phase, Settings
from schotten.engine.actions import ACTIONS, Kind, return_id
from schotten.engine.cards import JOKER, NUM_CLAN, RECRUITER, TACTIC_DECK, card_str
from schotten.engine.view import Under, actors, public_history, reveal, view, views

from .randgame import ALL_SETTINGS, random_states

RUSE_PHASES = frozenset(
    {
        Phase.STRATEGIST_TAKE,
        Phase.STRATEGIST_PLACE,
        Phase.BANSHEE,
        Phase.TRAITOR_TAKE,
        Phase.TRAITOR_PLACE,
        Phase.RECRUIT_DRAW,
        Phase.RECRUIT_RETURN,
    }
)
SEATS = (0, 1, None)


@dataclass
class Played:
    """A random game up to some move, with who made each move and where returned cards lie.

    ``marks[deck]`` lists ``[card, seat, from_bottom]`` for each Recruiter return
    of this round still in that deck, followed move by move (independently of view).
    ``interesting[k]`` tells whether the position after k moves is inside a ruse or
    in a round where a Recruiter return was made.
    """

    state: GameState
    made: list[tuple[int, int]] = field(default_factory=list)
    marks: list[list[list[int]]] = field(default_factory=lambda: [[], []])
    interesting: list[bool] = field(default_factory=list)


def _deck(state: GameState, deck: int) -> list[int]:
    return state.clan_deck if deck == 0 else state.tactic_deck


def _follow_marks(state: GameState, marks: list[list[list[int]]], before: tuple[int, int]) -> None:
    if state.round != before[0]:
        marks[0].clear()
        marks[1].clear()
        return
    last = ACTIONS[state.history[-1]]
    if last.kind == Kind.RETURN:
        deck = 0 if last.card < NUM_CLAN else 1
        for mark in marks[deck]:
            mark[2] += 1
        marks[deck].append([last.card, before[1], 0])
    for deck in (0, 1):
        marks[deck][:] = [m for m in marks[deck] if m[2] < len(_deck(state, deck))]


def play(game: Settings, seed: int, stop_after: int | None = None, claim: bool = True) -> Played:
    """Play the seeded random game of ``randgame`` and follow it (see ``Played``)."""
    played: Played | None = None
    before: tuple[int, int] | None = None
    returned = False
    for state in random_states(game, seed, stop_after, claim):
        if played is None:
            played = Played(state)
        if before is not None:
            played.made.append(before)
            _follow_marks(state, played.marks, before)
            returned = state.round == before[0] and (returned or any(played.marks))
        played.interesting.append(state.phase in RUSE_PHASES or returned)
        before = (state.round, state.turn)
    assert played is not None
    return played


def _same_kind(card: int, rng: random.Random) -> int:
    return rng.randrange(NUM_CLAN) if card < NUM_CLAN else rng.choice(TACTIC_DECK)


def redeal(played: Played, seat: int | None, rng: random.Random) -> GameState:
    """A state that ``seat`` cannot tell from ``played.state``: its hidden information re-dealt.

    The hidden hands' cards and the decks' cards are shuffled together, clan with
    clan and tactic with tactic, keeping each hand's counts and the seat's own
    returned cards at their places in the decks (R10.2, R10.3); the hidden seats'
    Recruiter returns (in the history) and the seed are replaced.
    """
    state = played.state.copy()
    hidden = (0, 1) if seat is None else (1 - seat,)
    for deck in (0, 1):
        fixed = {m[2] for m in played.marks[deck] if m[1] == seat}
        cards = _deck(state, deck)
        slots = [(cards, i) for i in range(len(cards)) if i not in fixed]
        for h in hidden:
            hand = state.hands[h]
            slots += [(hand, i) for i, c in enumerate(hand) if (c < NUM_CLAN) == (deck == 0)]
        pool = [where[i] for where, i in slots]
        rng.shuffle(pool)
        for (where, i), card in zip(slots, pool, strict=True):
            where[i] = card
    state.history = [
        return_id(_same_kind(ACTIONS[a].card, rng))
        if ACTIONS[a].kind == Kind.RETURN and played.made[i][1] != seat
        else a
        for i, a in enumerate(state.history)
    ]
    state.seed = played.state.seed + 1 + rng.randrange(10**9)
    return state


def _card_lists(data: dict[str, Any]) -> Counter[str]:
    """Every card text in the card lists of a view's dict (not the notation strings)."""
    found: Counter[str] = Counter()
    for stone in data["stones"]:
        for side in stone["cards"]:
            found.update(side)
    for pile in data["discards"]:
        found.update(pile)
    for key in ("under_clan", "under_tactic"):
        found.update(u["card"] for u in data[key])
    if data["held"] is not None:
        found[str(data["held"])] += 1
    found.update(data["hand"] or [])
    return found


def _known_cards(state: GameState, seat: int | None) -> Counter[str]:
    """The cards ``seat`` may see: the board, the discards, the held card, its own hand and returns."""
    known = Counter(card_str(c) for side in state.sides for stone in side for c in stone)
    known.update(card_str(c) for pile in state.discards for c in pile)
    if state.held >= 0:
        known[card_str(state.held)] += 1
    if seat is not None:
        known.update(card_str(c) for c in state.hands[seat])
        known.update(card_str(c) for c in state.bottom_known[seat])
    return known


def check_no_leak(played: Played, seat: int | None, rng: random.Random) -> None:
    """Every no-leak assertion for one position and seat."""
    state = played.state
    mine = view(state, seat)
    assert view(redeal(played, seat, rng), seat) == mine
    data: dict[str, Any] = mine.to_dict()
    assert json.loads(json.dumps(data)) == data
    shown = _card_lists(data)
    assert not shown - _known_cards(state, seat), "a card the seat may not know is shown"
    for deck, key in ((0, "under_clan"), (1, "under_tactic")):
        expected = sorted((m[2], card_str(m[0])) for m in played.marks[deck] if m[1] == seat)
        got = [(u["from_bottom"], u["card"]) for u in data[key]]
        assert got == expected, "R10.2: own returns still in the deck, bottom up"
        assert all(card_str(_deck(state, deck)[p]) == c for p, c in got)


def _position(game: Settings, seed: int, where: float, ruse: bool, claim: bool = True) -> Played:
    full = play(game, seed, claim=claim)
    moves = [k for k, hit in enumerate(full.interesting) if hit or not ruse] or [0]
    return play(game, seed, moves[min(int(where * len(moves)), len(moves) - 1)], claim)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(ALL_SETTINGS),
    seed=st.integers(0, 10**6),
    where=st.floats(0, 1),
    ruse=st.booleans(),
    seat=st.sampled_from(SEATS),
    shuffle=st.integers(0, 2**32),
    claim=st.booleans(),
)
def test_hidden_information_does_not_change_the_view(
    game: Settings, seed: int, where: float, ruse: bool, seat: int | None, shuffle: int, claim: bool
) -> None:
    """R10.2-R10.4: re-dealing what the seat may not know leaves its view unchanged."""
    check_no_leak(_position(game, seed, where, ruse, claim), seat, random.Random(shuffle))


def _recruiter_positions() -> list[tuple[Settings, int, int]]:
    """Positions around a Recruiter (settings, seed, moves): at its first return, just after it,
    and at the end of that round, when returned cards may have been drawn again."""
    found = []
    for game in (ALL_SETTINGS[1], ALL_SETTINGS[2], ALL_SETTINGS[4]):
        for seed in range(40):
            played = play(game, seed)
            history = played.state.history
            k = next((k for k, a in enumerate(history) if ACTIONS[a].kind == Kind.RETURN), -1)
            if k >= 0:
                end = max(i for i, made in enumerate(played.made) if made[0] == played.made[k][0])
                found += [(game, seed, k), (game, seed, k + 1), (game, seed, end)]
    return found


RECRUITER_POSITIONS = _recruiter_positions()


@pytest.mark.parametrize(("game", "seed", "moves"), RECRUITER_POSITIONS)
def test_no_leak_around_recruiter(game: Settings, seed: int, moves: int) -> None:
    """R7.7 with R10.2: during and after a Recruiter, only the recruiting seat knows the returns."""
    played = play(game, seed, moves)
    rng = random.Random(seed)
    for seat in SEATS:
        for _ in range(4):
            check_no_leak(played, seat, rng)
    recruiter = played.made[-1][1] if moves else 0
    if ACTIONS[played.state.history[-1]].kind == Kind.RETURN:
        assert view(played.state, recruiter).history[-1].startswith("return ")
        assert view(played.state, 1 - recruiter).history[-1] in ("return clan", "return tactic")
        assert view(played.state, None).history[-1] in ("return clan", "return tactic")


def test_recruiter_positions_cover_the_hard_cases() -> None:
    """The positions above include a pending return and returned cards drawn again."""
    states = [play(g, s, m) for g, s, m in RECRUITER_POSITIONS]
    assert any(p.state.phase == Phase.RECRUIT_RETURN for p in states)
    drawn_again = [
        p
        for p in states
        if sum(len(m) for m in p.marks)
        < sum(1 for a in p.state.history[p.state.round_starts[-1] :] if ACTIONS[a].kind == Kind.RETURN)
    ]
    assert drawn_again


def _hidden_slot(state: GameState, seat: int, clan: bool, avoid: int) -> tuple[list[int], int] | None:
    places = [state.clan_deck if clan else state.tactic_deck, state.hands[1 - seat]]
    for where in places:
        for i, c in enumerate(where):
            if (c < NUM_CLAN) == clan and c != avoid:
                return where, i
    return None


@settings(max_examples=40, deadline=None)
@given(
    game=st.sampled_from(ALL_SETTINGS),
    seed=st.integers(0, 10**6),
    where=st.floats(0, 1),
    seat=st.sampled_from((0, 1)),
)
def test_what_the_seat_may_know_changes_the_view(game: Settings, seed: int, where: float, seat: int) -> None:
    """The converse: a different own hand (R10.2) or board card (R10.1) gives a different view."""
    played = _position(game, seed, where, False)
    state = played.state
    before = view(state, seat)
    hand = state.hands[seat]
    if hand:
        other = state.copy()
        slot = _hidden_slot(other, seat, hand[0] < NUM_CLAN, hand[0])
        if slot is not None:
            where_list, i = slot
            other.hands[seat][0], where_list[i] = where_list[i], other.hands[seat][0]
            assert view(other, seat) != before
    on_board = [(s, st_, i) for s in (0, 1) for st_ in range(9) for i, c in enumerate(state.sides[s][st_])]
    if on_board:
        s, stone, i = on_board[0]
        other = state.copy()
        card = other.sides[s][stone][i]
        slot = _hidden_slot(other, seat, card < NUM_CLAN, card)
        if slot is not None:
            where_list, j = slot
            other.sides[s][stone][i], where_list[j] = where_list[j], card
            assert view(other, seat) != before
            assert view(other, None) != view(state, None)


@settings(max_examples=30, deadline=None)
@given(game=st.sampled_from(ALL_SETTINGS), seed=st.integers(0, 10**6), where=st.floats(0, 1))
def test_spectator_sees_no_hand(game: Settings, seed: int, where: float) -> None:
    """R10.2: the spectator's view holds no hand and no card from either hand that is not public."""
    played = _position(game, seed, where, False)
    state = played.state
    data: dict[str, Any] = view(state, None).to_dict()
    assert data["hand"] is None
    assert data["legal"] == [] and data["claimable"] == []
    assert data["under_clan"] == [] and data["under_tactic"] == []
    public = _known_cards(state, None)
    for seat in (0, 1):
        for card in state.hands[seat]:
            assert _card_lists(data)[card_str(card)] <= public[card_str(card)]
    assert all(not h.startswith("return ") or h in ("return clan", "return tactic") for h in data["history"])


def test_history_redacts_the_other_seats_returns() -> None:
    """R10.4: own returns in full, the other seat's as ``return clan`` / ``return tactic``."""
    checked = 0
    for seed in range(60):
        played = play(ALL_SETTINGS[4], seed)
        state = played.state
        full = [str(ACTIONS[a]) for a in state.history]
        for seat in SEATS:
            shown = public_history(state, seat)
            assert len(shown) == len(full)
            for (_, made_by), text, seen in zip(played.made, full, shown, strict=True):
                if text.startswith("return ") and made_by != seat:
                    deck = "clan" if text[-1].islower() else "tactic"
                    assert seen == f"return {deck}"
                    checked += 1
                else:
                    assert seen == text
    assert checked > 0


@pytest.mark.parametrize("game", ALL_SETTINGS, ids=lambda g: f"{g.variant}-{g.rounds}")
def test_actors_follow_the_engine(game: Settings) -> None:
    """``actors`` (public information only) names the round and seat of every move as the engine does,
    in games that end by claims and in games settled when play runs out (R6.2)."""
    for seed in range(25):
        for claim in (True, False):
            played = play(game, seed, claim=claim)
            assert list(actors(played.state)) == played.made


def test_view_fields_for_the_seat_to_move() -> None:
    """The decision's data is shown only to the seat whose decision it is; sizes count clan and tactic."""
    state = GameState.new(Settings.of("tactics"), seed=3)
    mover, waiting = state.turn, 1 - state.turn
    seen = view(state, mover)
    assert seen.hand == tuple(card_str(c) for c in sorted(state.hands[mover]))
    assert seen.legal == tuple(str(a) for a in state.legal_actions())
    assert view(state, waiting).legal == ()
    assert seen.hand_sizes == ((7, 0), (7, 0))
    assert seen.clan_deck == 54 - 14 and seen.tactic_deck == 10
    with pytest.raises(ValueError):
        view(state, 2)


def test_reveal_only_when_over() -> None:
    """R10.4: everything is revealed only once the game is over."""
    played = play(ALL_SETTINGS[1], 5)
    state = played.state
    assert state.is_over
    shown = reveal(state)
    assert shown["hands"] == [[card_str(c) for c in h] for h in state.hands]
    assert shown["history"] == [str(ACTIONS[a]) for a in state.history]
    with pytest.raises(ValueError):
        reveal(GameState.new(Settings.of("base"), 1))


def test_reveal_a_replay_step_of_a_finished_game() -> None:
    """R10.4: an earlier position of a finished game (a replay step) shows its hands and decks."""
    deal = GameState.new(Settings.of("base"), 1)
    shown = reveal(deal, finished=True)
    assert shown["hands"] == [[card_str(c) for c in h] for h in deal.hands]
    assert shown["decks"] == [[card_str(c) for c in deal.clan_deck], []]
    assert shown["history"] == []


def test_first_complete_side() -> None:
    """R4.6: the view says which side completed first (the order of play is public)."""
    seen_both = 0
    for state_now in random_states(Settings.of("base"), 11):
        for s in range(9):
            complete = [state_now.is_complete(seat, s) for seat in (0, 1)]
            first = view(state_now, None).stones[s].first
            assert view(state_now, None).stones[s].complete == tuple(complete)
            if all(complete):
                stamps = state_now.stamps
                assert first == (0 if stamps[0][s] < stamps[1][s] else 1)
                seen_both += 1
            elif any(complete):
                assert first == complete.index(True)
            else:
                assert first == -1
    assert seen_both > 0


def test_returned_joker_is_told_apart_from_the_other_joker() -> None:
    """R10.2: the seat knows where its returned Joker lies, not where the other Joker is."""
    state = GameState.new(Settings.of("tactics", first_player=0), seed=1)
    hand = state.hands[0]
    for i, card in enumerate((RECRUITER, JOKER)):
        state.tactic_deck.remove(card)
        state.clan_deck.append(hand[i])
        hand[i] = card
    kept = min(c for c in hand if c < NUM_CLAN)
    state.play("RE", "draw clan", "draw clan", "draw clan", "return JO", f"return {card_str(kept)}")
    assert state.tactic_deck.count(JOKER) == 2
    mine = view(state, 0)
    assert mine.under_tactic == (Under("JO", 0),)
    assert mine.under_clan == (Under(card_str(kept), 0),)
    assert mine.history[-2:] == ("return JO", f"return {card_str(kept)}")
    theirs = view(state, 1)
    assert theirs.under_tactic == () and theirs.under_clan == ()
    assert theirs.history[-2:] == ("return tactic", "return clan")


@pytest.mark.parametrize("game", ALL_SETTINGS, ids=str)
def test_views_built_together_are_each_seats_view(game: Settings) -> None:
    """``views`` (what a server builds for one broadcast) gives every seat exactly ``view`` (R10),
    Recruiter returns redacted for all but their mover (R10.2) included."""
    for seed in range(6):
        for state in random_states(game, seed):
            together = views(state, [0, 1, None])
            assert together == {seat: view(state, seat) for seat in (0, 1, None)}
    with pytest.raises(ValueError):
        views(state, [2])
