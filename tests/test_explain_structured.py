"""The claim proof as data (explain.claim_proof) agrees with prove() and with the engine's own claim test."""

from __future__ import annotations

import json
from collections import Counter

from schotten.engine import GameState, prove
from schotten.engine.cards import NUM_CLAN, NUM_STONES, card_str, parse_card, value_of
from schotten.engine.explain import (
    CLAIM_KINDS,
    RANK_KEYS,
    ClaimProof,
    Shown,
    claim_proof,
    formation_words,
    proof_words,
    side_formation,
)
from schotten.engine.formations import strength_of
from tests.randgame import ALL_SETTINGS, random_states
from tests.scenario import deal

SEEDS = range(10)
"""Games per setting; odd seeds never claim, so rounds run long and sides become uncompletable."""

RULE_WORDS = {
    "beats": (("beats their", "(R5.1)"),),
    "ties_first": (("and you completed first", "(R4.6)"),),
    "unbeatable": (("cannot be beaten: the best their side can still make is", "(R5.2)"),),
    "incompletable": (("their side cannot be completed", "(R5.2)"),),
    "loses": (("beats your", "(R4)"), ("but they completed first", "(R4.6)")),
    "can_lose": (("their side can still make", "(R5.2)"),),
    "closed": (("is already claimed", "(R5.3)"),),
    "incomplete": (("holds", "(R5)"),),
}
"""For each kind, the words prove()'s sentence holds and the rule id it ends with (one pair must fit)."""


def strength(shown: Shown) -> int:
    """The strength number of a shown formation."""
    return strength_of(RANK_KEYS.index(shown.rank), shown.total)


def words(shown: Shown) -> str:
    """The English words prove() uses for the formation."""
    return formation_words(shown)


def check_side(state: GameState, seat: int, stone: int, shown: Shown) -> None:
    """A formation holds the side's clan cards, its troops' roles, and has the side's size."""
    side = state.sides[seat][stone]
    assert len(shown.cards) == state.capacity(stone)
    values = [value_of(parse_card(c)) for c in shown.cards]
    assert values == sorted(values)
    assert {card_str(c) for c in side if c < NUM_CLAN} <= set(shown.cards)
    assert sorted(w for w, _ in shown.troops) == sorted(card_str(c) for c in side if c >= NUM_CLAN)
    assert all(role in shown.cards for _, role in shown.troops)
    assert not shown.bluff or shown.rank == "sum"
    for card in shown.cards:
        if card not in {card_str(c) for c in side}:
            assert state.pool >> parse_card(card) & 1 or card in {r for _, r in shown.troops}, card


def check_kind(state: GameState, seat: int, proof: ClaimProof) -> None:
    """The kind says what the formations and the engine say."""
    stone, other = proof.stone, 1 - seat
    if proof.mine is not None:
        assert strength(proof.mine) == state.strength(seat, stone)
    if proof.kind in ("beats", "ties_first", "loses"):
        assert proof.theirs is not None and strength(proof.theirs) == state.strength(other, stone)
        tie = state.strength(seat, stone) == strength(proof.theirs)
        assert tie == (proof.kind == "ties_first" or "but they completed first" in proof.text)
    elif proof.kind == "unbeatable":
        assert proof.theirs is not None and strength(proof.theirs) <= state.strength(seat, stone)
    elif proof.kind == "can_lose":
        assert proof.theirs is not None and strength(proof.theirs) > state.strength(seat, stone)
    elif proof.kind == "incompletable":
        assert proof.theirs is None and not state.is_complete(other, stone)
    else:
        assert proof.mine is None and proof.theirs is None
    if proof.theirs is not None:
        check_side(state, other, stone, proof.theirs)


def check_proof(state: GameState, seat: int, stone: int) -> str:
    """claim_proof against prove() and can_claim for one seat and stone; the kind found."""
    proof, said = claim_proof(state, seat, stone), prove(state, seat, stone)
    assert proof.text == said.reason
    assert proof.holds == said.holds == state.can_claim(seat, stone), proof
    assert (proof.kind in CLAIM_KINDS) == proof.holds
    fits = [words in proof.text and proof.text.endswith(rule) for words, rule in RULE_WORDS[proof.kind]]
    assert any(fits), proof
    if proof.mine is not None:
        check_side(state, seat, stone, proof.mine)
        assert f"your {words(proof.mine)}" in proof.text
    if proof.theirs is not None:
        assert words(proof.theirs) in proof.text
    check_kind(state, seat, proof)
    data = json.loads(json.dumps(proof.to_dict()))
    assert set(data) == {"text", "kind", "mine", "theirs"} and data["kind"] == proof.kind
    return proof.kind


def test_claim_proof_agrees_with_prove_in_random_games_of_every_variant() -> None:
    """Every seat and stone of every position of seeded random games (all variants, a 3-round match)."""
    kinds: Counter[str] = Counter()
    for settings in ALL_SETTINGS:
        for seed in SEEDS:
            for state in random_states(settings, seed, claim=seed % 2 == 0):
                for seat in (0, 1):
                    kinds.update(check_proof(state, seat, stone) for stone in range(NUM_STONES))
    assert set(kinds) == set(RULE_WORDS), kinds


def test_holding_claims_give_the_page_both_formations() -> None:
    """A claim that holds sends its kind and formations as JSON data, the English sentence with them."""
    state = next(s for s in random_states(ALL_SETTINGS[0], 1, claim=False)
                 if any(claim_proof(s, 0, i).kind == "beats" for i in range(NUM_STONES)))
    stone = next(i for i in range(NUM_STONES) if claim_proof(state, 0, i).kind == "beats")
    data = claim_proof(state, 0, stone).to_dict()
    assert data["text"].endswith("(R5.1)")
    for side in ("mine", "theirs"):
        assert set(data[side]) == {"rank", "total", "cards", "troops", "bluff"}
        assert data[side]["rank"] in RANK_KEYS and len(data[side]["cards"]) == 3
        assert data[side]["troops"] == [] and data[side]["bluff"] is False


def test_the_sentence_is_written_from_the_data() -> None:
    """One computation (claim_proof): prove's reason and the page's text are proof_words of it."""
    for state in random_states(ALL_SETTINGS[1], 3, claim=False):
        for seat in (0, 1):
            for stone in range(NUM_STONES):
                proof = claim_proof(state, seat, stone)
                assert proof_words(proof) == proof.text == prove(state, seat, stone).reason
                assert proof.needed == prove(state, seat, stone).needed


def test_four_equal_cards_under_mud_fight_are_four_of_a_kind() -> None:
    """R7.5, R4.2: four equal cards on a Mud Fight stone are named for what they are."""
    state = deal("tactics", hands=("1k", "2k"), board=({1: "2g 2b 2r 2y"}, {1: "1p 3b 5y 7g"}),
                 modes={1: "MF"}, rest="out")
    proof = claim_proof(state, 0, 0)
    assert proof.kind == "beats" and proof.mine is not None
    assert proof.mine.rank == "three-of-a-kind" and len(proof.mine.cards) == 4
    assert formation_words(proof.mine) == "four of a kind 2-2-2-2"
    assert proof.text == "your four of a kind 2-2-2-2 beats their total 16 (1-3-5-7) (R5.1)"
    three = side_formation([parse_card(c) for c in ("2g", "2b", "2r")], 0)
    assert three is not None and formation_words(three) == "three of a kind 2-2-2"


def test_shown_strength_is_the_engines() -> None:
    state = deal("tactics", hands=("1k", "2k"), board=({1: "JO 8r 9r"}, {}), rest="out")
    shown = side_formation(state.sides[0][0], 0)
    assert shown is not None and shown.strength == state.strength(0, 0)
    assert formation_words(shown) == "colour-run red 7-8-9 (Joker as red 7)"
