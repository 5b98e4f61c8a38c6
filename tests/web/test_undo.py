"""Misclick undo, as Board Game Arena offers it.

This is a rule of the web app (docs/web/games.md, "Misclick undo"), not a rule of the game: it
is not in docs/rules.md. A seat may take back its last card play of the turn (a card on a
stone, a combat mode or a ruse, with the claims and choices it made after it) only while
that seat is still the one deciding, and only while nothing hidden was revealed to it
since: no draw, no Recruiter draw, no card taken from a deck. It is read from the engine's
history and movers (``schotten.web.games.gamelog.undo_span``), and stored as an undo entry in
the game's append-only log.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from helpers_web import (
    SEED,
    Duel,
    choose,
    create,
    log_of,
    moves_of,
    receive_state,
    service_of,
    socket_path,
    whole_log,
)

from schotten.bots.registry import make_bot
from schotten.engine import ACTIONS, GameState, Kind, Phase, Settings
from schotten.engine.view import view
from schotten.web.games.gamelog import LogError, fold, rebuilt, replay, undo_span
from schotten.web.storage.rows import Entry

CARD_PLAYS = (Kind.PLAY, Kind.RUSE)


def _random_states(variant: str, seed: int) -> list[GameState]:
    """Every state of a seeded random game that prefers the Recruiter (to reach its draws)."""
    state = GameState.new(Settings.of(variant), seed)
    rng = random.Random(seed)
    states = [state.copy()]
    while not state.is_over:
        actions = state.legal_actions()
        ruses = [a for a in actions if str(a) == "RE"]
        state.apply(ruses[0] if ruses and rng.random() < 0.7 else rng.choice(actions))
        states.append(state.copy())
    return states


@pytest.mark.parametrize(
    ("variant", "least"), [("base", 20), ("tactics", 20), ("expert", 20), ("expert-base", 0)]
)
def test_undo_takes_back_exactly_the_last_card_play_of_the_turn(variant: str, least: int) -> None:
    """Whenever an undo is allowed, it takes back the seat's last card play and the moves after it,
    all of them this seat's in this round, and leaves the decks and the other hand as they are
    (nothing hidden was revealed); the card goes back to the hand. The seat not deciding never may.

    In expert-base a play is followed at once by the automatic draw (claims come first, R8.1),
    so there a play can never be taken back."""
    allowed = 0
    for seed in range(SEED, SEED + 6):
        for state in _random_states(variant, seed):
            seat = state.turn
            assert isinstance(undo_span(state, 1 - seat), str)
            span = undo_span(state, seat)
            if isinstance(span, str):
                continue
            allowed += 1
            start = len(state.history) - span
            taken = [ACTIONS[a] for a in state.history[start:]]
            assert taken[0].kind in CARD_PLAYS
            assert all(a.kind not in CARD_PLAYS for a in taken[1:])
            assert set(state.movers[start:]) == {seat} and start >= state.round_starts[-1]
            before = rebuilt(state, start)
            assert before.turn == seat and before.phase == Phase.PLAY
            assert (before.clan_deck, before.tactic_deck) == (state.clan_deck, state.tactic_deck)
            assert before.hands[1 - seat] == state.hands[1 - seat]
            assert Counter(before.hands[seat]) == Counter(state.hands[seat]) + Counter([taken[0].card])
    assert allowed > least if least else allowed == 0


@pytest.mark.parametrize("variant", ["base", "tactics"])
def test_undo_is_allowed_right_after_a_play_while_the_seat_decides(variant: str) -> None:
    """Just after a card play that leaves the same seat deciding (its claims, its draw), the
    undo is always allowed; once the turn has passed it never is."""
    checked = 0
    for seed in range(SEED, SEED + 4):
        states = _random_states(variant, seed)
        for before, after in itertools.pairwise(states):
            played = ACTIONS[after.history[-1]]
            mover = after.movers[-1]
            if played.kind != Kind.PLAY:
                continue
            if after.turn == mover and not after.is_over:
                assert undo_span(after, mover) == 1
                checked += 1
            else:
                assert isinstance(undo_span(after, mover), str)
            assert before.turn == mover
    assert checked > 5


def test_nothing_revealed_means_no_card_left_a_deck() -> None:
    """After a Recruiter draw (a card taken from a deck) the Recruiter can no longer be taken back."""
    found = 0
    for seed in range(SEED, SEED + 12):
        for state in _random_states("tactics", seed):
            if state.phase == Phase.RECRUIT_DRAW and state.recruit_draws < 3:
                assert "taken from a deck" in str(undo_span(state, state.turn))
                found += 1
            elif state.phase == Phase.RECRUIT_DRAW:
                assert undo_span(state, state.turn) == 1
            if state.phase == Phase.RECRUIT_RETURN:
                assert isinstance(undo_span(state, state.turn), str)
    assert found > 0


def _reach(duel: Duel, done: Callable[[GameState], bool], rng: random.Random,
           prefer: tuple[str, ...] = ()) -> None:
    duel.play_until(done, rng, prefer)
    assert not duel.state.is_over, "the game ended first: choose another seed"


def _after_own_play(phase: Phase) -> Callable[[GameState], bool]:
    def done(state: GameState) -> bool:
        return (state.phase == phase and bool(state.history) and state.movers[-1] == state.turn
                and ACTIONS[state.history[-1]].kind == Kind.PLAY)
    return done


def test_undo_over_the_socket_takes_back_a_play_and_its_claims(client: Any) -> None:
    """Tactics: a play, a claim and the end of the claims, then undo in the draw step: all three go,
    the card is back in hand, the log keeps an undo entry, and the game goes on."""
    rng = random.Random(1)
    with Duel(client, "tactics", seed=SEED + 30) as duel:
        _reach(duel, _after_own_play(Phase.CLAIM), rng)
        seat = duel.state.turn
        assert duel.messages[seat][-1]["can_undo"] and not duel.messages[1 - seat][-1]["can_undo"]
        before_play = [str(ACTIONS[a]) for a in duel.state.history[:-1]]
        played = str(ACTIONS[duel.state.history[-1]])
        taken = [played]
        while duel.state.phase == Phase.CLAIM and duel.state.turn == seat:
            move = choose(duel.messages[seat][-1], rng)
            duel.play(move)
            taken.append(move)
        assert duel.state.turn == seat and duel.state.phase == Phase.DRAW, "choose another seed"
        assert duel.messages[seat][-1]["can_undo"]
        duel.refused(1 - seat, {"type": "undo"}, "cannot_undo")
        duel.refused(None, {"type": "undo"}, "spectator")
        duel.undo(seat, len(taken))
        assert [str(ACTIONS[a]) for a in duel.state.history] == before_play
        now = duel.messages[seat][-1]["view"]
        assert now["phase"] == "PLAY" and played in now["legal"]
        entry = log_of(client, duel.id)[-1]
        assert (entry.kind, entry.notation, entry.seat) == ("undo", "; ".join(taken), seat)
        error = duel.refused(seat, {"type": "undo"}, "cannot_undo")
        assert "no card this turn" in error["message"]
        duel.play(played)
        _reach(duel, lambda state: state.turn != seat, rng)
        error = duel.refused(seat, {"type": "undo"}, "cannot_undo")
        assert "your turn" in error["message"]


def test_no_undo_after_a_card_left_a_deck(client: Any) -> None:
    """The Recruiter: while nothing is drawn it can be taken back; after its first draw it cannot."""
    rng = random.Random(2)
    with Duel(client, "tactics", seed=SEED + 32) as duel:
        recruit = lambda state: state.phase == Phase.RECRUIT_DRAW and state.recruit_draws == 3  # noqa: E731
        _reach(duel, recruit, rng, ("RE", "draw tactic"))
        seat = duel.state.turn
        assert duel.messages[seat][-1]["can_undo"]
        duel.play("draw clan")
        assert duel.state.turn == seat and not duel.messages[seat][-1]["can_undo"]
        error = duel.refused(seat, {"type": "undo"}, "cannot_undo")
        assert "taken from a deck" in error["message"]


def test_expert_undo_keeps_the_claims_made_before_the_play(client: Any) -> None:
    """Expert (R8.1): claims come before the play; an undo takes back the play only."""
    rng = random.Random(3)
    with Duel(client, "expert", seed=SEED + 34) as duel:
        start_claims = lambda state: (  # noqa: E731
            state.phase == Phase.CLAIM and bool(state.history) and state.movers[-1] != state.turn
        )
        _reach(duel, start_claims, rng)
        seat = duel.state.turn
        claimed = choose(duel.messages[seat][-1], rng)
        duel.play(claimed)
        if duel.state.phase == Phase.CLAIM:
            duel.play("done")
        assert duel.state.turn == seat and duel.state.phase == Phase.PLAY, "choose another seed"
        assert not duel.messages[seat][-1]["can_undo"]
        kept = list(duel.state.history)
        plays = [a for a in duel.messages[seat][-1]["view"]["legal"] if "@" in a]
        duel.play(plays[0])
        assert (duel.state.turn, duel.state.phase) == (seat, Phase.DRAW), "choose another seed"
        assert duel.messages[seat][-1]["can_undo"]
        duel.undo(seat, 1)
        assert duel.state.history == kept and claimed in moves_of(duel.messages[seat][-1])


def test_undo_against_the_ai(client: Any) -> None:
    """Against the AI: the player takes back a play in its claim step; the AI does not move meanwhile."""
    tried = 0
    for seed in range(SEED + 33, SEED + 40):
        grant = create(client, seed=seed, mode="ai", level="easy", variant="base", seat=0)
        game = service_of(client).games[grant["id"]]
        with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ws:
            message = _play_to_own_claims(ws, game, random.Random(seed))
            if message is None:
                continue
            tried += 1
            assert message["can_undo"]
            history = moves_of(message)
            ws.send_json({"type": "undo"})
            after = whole_log(message, receive_state(ws))
            assert moves_of(after) == history[:-1] and after["version"] == message["version"] + 1
            assert after["view"]["phase"] == "PLAY" and after["view"]["legal"] and not after["can_undo"]
            ws.send_json({"type": "action", "action": history[-1]})
            assert moves_of(whole_log(after, receive_state(ws))) == history
            break
    assert tried == 1


def _play_to_own_claims(ws: Any, game: Any, rng: random.Random) -> dict[str, Any] | None:
    """Play (towards claims) until the player is in its claim step; None if the game ends first."""
    message: dict[str, Any] | None = None
    while True:
        message = whole_log(message, receive_state(ws))
        if message["status"] == "over":
            return None
        if message["view"]["phase"] == "CLAIM" and message["view"]["legal"]:
            return message
        if message["view"]["legal"]:
            ws.send_json({"type": "action", "action": _towards_claims(game.state, rng)})


def _towards_claims(state: GameState, rng: random.Random) -> str:
    """A play after which the player may claim, if there is one; else the greedy bot's move."""
    for action in state.legal_actions():
        after = state.copy()
        after.apply(action)
        if after.phase == Phase.CLAIM and after.turn == state.turn:
            return str(action)
    return str(make_bot("greedy", seed=rng.randrange(1000)).choose(view(state, state.turn)))


def test_folding_the_log() -> None:
    """An undo entry must name exactly the last moves, by its seat; anything else is a corrupt log."""
    moves = [Entry(0, "action", "1g@1", 0), Entry(1, "action", "claim 1", 0)]
    assert fold([*moves, Entry(2, "undo", "1g@1; claim 1", 0)]) == []
    assert fold([*moves, Entry(2, "undo", "claim 1", 0)]) == [("1g@1", 0)]
    for bad in (Entry(2, "undo", "1g@1", 0), Entry(2, "undo", "1g@1; claim 1", 1),
                Entry(2, "undo", "2g@1; 1g@1; claim 1", 0), Entry(2, "resign", "", 0)):
        with pytest.raises(LogError):
            fold([*moves, bad])


def test_replay_refuses_a_log_that_does_not_replay() -> None:
    """A move out of turn or an illegal move in a stored log is reported, not played."""
    state = GameState.new(Settings.of("base"), SEED)
    legal = str(state.legal_actions()[0])
    with pytest.raises(LogError):
        replay("base", 1, SEED, [Entry(0, "action", legal, 1 - state.turn)])
    with pytest.raises(LogError):
        replay("base", 1, SEED, [Entry(0, "action", "claim 3", state.turn)])
    assert replay("base", 1, SEED, [Entry(0, "action", legal, state.turn)]).history == [
        state.legal_actions()[0].id
    ]
