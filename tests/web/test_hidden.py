"""No socket ever receives what its seat may not know (rules R10 and R10.4 of docs/rules.md).

Whole games are played over WebSockets, and every message every socket receives is
compared with the message built here from ``view(state, seat)`` for that socket's seat
(the spectator's view for a spectator), and scanned for any card of the other hand or
of the decks, and for the seed: none may appear before the game is over. Errors are
checked too: a move naming a card in the opponent's hand gets exactly the answer the
same move naming a card in the deck gets.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers_web import (
    SEED,
    Duel,
    choose,
    create,
    expected_state,
    join,
    leaked,
    log_of,
    open_stone,
    receive_error,
    receive_state,
    socket_path,
)

import schotten.web.games.ai as ai_module
from schotten.engine import GameState, Phase, Settings, prove
from schotten.engine.cards import NUM_CLAN, card_str
from schotten.engine.explain import CLAIM_KINDS, RANK_KEYS, claim_proof
from schotten.engine.view import View, view


def _same_apart_from(first: str, second: str, card_a: str, card_b: str) -> bool:
    return first.replace(card_a, "X") == second.replace(card_b, "X")


def _probe(duel: Duel) -> None:
    """Moves naming an unseen card in the opponent's hand and one in the deck get the same answers."""
    state, seat = duel.state, duel.state.turn
    theirs = [c for c in state.hands[1 - seat] if c < NUM_CLAN]
    deck = [c for c in state.clan_deck if c not in state.bottom_known[seat]]
    if state.phase != Phase.PLAY or not theirs or not deck:
        return
    a, b = card_str(theirs[0]), card_str(deck[-1])
    stone = open_stone(state, seat)
    for template in ("{}@{}", "return {}", "take {}@{}", "banish {}@{}"):
        for who, code in ((seat, "illegal_action"), (1 - seat, "not_your_turn")):
            answers = [
                duel.refused(who, {"type": "action", "action": template.format(card, stone)}, code)["message"]
                for card in (a, b)
            ]
            assert _same_apart_from(answers[0], answers[1], a, b), answers


@pytest.mark.parametrize(
    ("variant", "rounds", "seed"),
    [("base", 1, SEED), ("tactics", 2, SEED + 1), ("expert", 1, SEED + 2)],
)
def test_friend_game_sockets_get_exactly_their_views(
    client: Any, variant: str, rounds: int, seed: int
) -> None:
    """Two seats and a spectator through a whole game: each message is its seat's view, no more."""
    rng = random.Random(seed)
    with Duel(client, variant, rounds, seed) as duel:
        moves = 0
        while not duel.state.is_over:
            if moves % 15 == 0:
                _probe(duel)
            duel.play(choose(duel.messages[duel.state.turn][-1], rng, ("RE", "draw tactic")))
            moves += 1
        final = duel.messages[None][-1]
        assert final["status"] == "over" and final["reveal"] is not None
        if variant != "base":
            _check_returns_hidden(duel)


def _check_returns_hidden(duel: Duel) -> None:
    """A Recruiter return reads ``return clan/tactic`` for everyone but the seat that made it (R10.2)."""
    seen_returns = 0
    for seat in (0, 1, None):
        for message in duel.messages[seat]:
            last = message["last"]
            if last and last["action"].startswith("return"):
                hidden = last["action"] in ("return clan", "return tactic")
                assert hidden == (last["mover"] != seat), (seat, last)
                seen_returns += 1
    assert seen_returns >= 3, "the Recruiter was never played: choose another seed"


def test_ai_game_sockets_and_the_ai_see_only_their_views(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against the AI: the player's and a spectator's messages are their views; the AI is given
    only its own seat's view (never the state) for each of its decisions."""
    given: list[View] = []
    original = ai_module.choose_action

    def spy(level: str, seed: int, seen: View) -> str:
        assert isinstance(seen, View)
        given.append(seen)
        return original(level, seed, seen)

    monkeypatch.setattr(ai_module, "choose_action", spy)
    grant = create(client, seed=SEED + 3, mode="ai", level="easy", variant="tactics", seat=0)
    rng = random.Random(3)
    with client.websocket_connect(socket_path(grant["id"])) as watcher, \
            client.websocket_connect(socket_path(grant["id"], grant["token"])) as player:
        mine = _play_against_ai(player, rng)
        theirs = [receive_state(watcher)]
        while theirs[-1]["version"] < mine[-1]["version"]:
            theirs.append(receive_state(watcher))
    entries = log_of(client, grant["id"])
    states = _states(Settings.of("tactics"), SEED + 3, [e.notation for e in entries])
    players: list[str | None] = ["Ann", "AI (easy)"]
    for seat, messages in ((0, mine), (None, theirs)):
        assert [m["version"] for m in messages] == list(range(messages[0]["version"], len(entries) + 1))
        for i, message in enumerate(messages):
            state = states[message["version"]]
            status = "over" if state.is_over else "playing"
            start = 0 if i == 0 else len(state.history) - 1
            assert message == expected_state(state, seat, message["version"], players, status, start)
            assert not leaked(message, state, seat, SEED + 3)
    decided_at = [e.index for e in entries if e.seat == 1]
    assert given == [view(states[v], 1) for v in decided_at]


def test_claims_are_the_proof_as_data(client: Any) -> None:
    """The ``claims`` field: for each stone the seat may claim, the claim proof as data (its
    kind and both formations, for the page to put in words) with prove()'s English sentence."""
    grant = create(client, seed=SEED + 4, variant="tactics")
    tokens = [grant["token"], join(client, grant["id"])["token"]]
    state, rng, offered = GameState.new(Settings.of("tactics"), SEED + 4), random.Random(4), 0
    with client.websocket_connect(socket_path(grant["id"], tokens[0])) as first, \
            client.websocket_connect(socket_path(grant["id"], tokens[1])) as second:
        messages = [receive_state(first), receive_state(second)]
        while not state.is_over:
            for seat, message in enumerate(messages):
                offered += _check_claims(message, state, seat)
            move = choose(messages[state.turn], rng)
            (first, second)[state.turn].send_json({"type": "action", "action": move})
            state.apply(move)
            messages = [receive_state(first), receive_state(second)]
    assert offered >= 3, "few claims were offered: choose another seed"


def _check_claims(message: dict[str, Any], state: GameState, seat: int) -> int:
    """Check the claims of ``seat``'s state message; return how many there are."""
    stones = view(state, seat).claimable
    assert sorted(message["claims"]) == sorted(str(s + 1) for s in stones)
    for stone in stones:
        claim = message["claims"][str(stone + 1)]
        assert claim == claim_proof(state, seat, stone).to_dict()
        assert claim["text"] == prove(state, seat, stone).reason and claim["kind"] in CLAIM_KINDS
        assert claim["mine"]["rank"] in RANK_KEYS and len(claim["mine"]["cards"]) == state.capacity(stone)
        assert (claim["theirs"] is None) == (claim["kind"] == "incompletable")
    return len(stones)


def _play_against_ai(player: Any, rng: random.Random) -> list[dict[str, Any]]:
    """Play random moves whenever the decision is ours, until the game is over."""
    messages = []
    while True:
        message = receive_state(player)
        messages.append(message)
        if message["status"] == "over":
            return messages
        if message["view"]["legal"]:
            move = choose(message, rng)
            player.send_json({"type": "action", "action": move, "version": message["version"]})


def _states(settings: Settings, seed: int, moves: list[str]) -> list[GameState]:
    state = GameState.new(settings, seed)
    states = [state.copy()]
    for move in moves:
        state.apply(move)
        states.append(state.copy())
    return states


def test_forged_token_learns_nothing(client: Any) -> None:
    """A forged seat token gets an error and a closed socket, never a view of a seat."""
    grant = create(client, mode="ai", level="easy")
    real = grant["token"]
    forged = real[:-1] + ("y" if real.endswith("x") else "x")
    with client.websocket_connect(socket_path(grant["id"], forged)) as ws:
        error = receive_error(ws, "bad_token")
        assert "hand" not in error["message"]
        closed = ws.receive()
        assert closed == {"type": "websocket.close", "code": 4403, "reason": ""}
