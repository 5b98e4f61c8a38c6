"""The search bot: legal, reproducible, blind to hidden cards (R10), claims at once, beats random."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from schotten.bots import RandomBot, decide, make_bot
from schotten.bots.mcts import DEFAULT_SECONDS, MctsBot, playout
from schotten.bots.policy import _reach_single
from schotten.bots.simple import Bot
from schotten.engine import GameState, Kind, Phase, Settings
from schotten.engine.cards import NUM_CLAN
from schotten.engine.formations import TRIPLE_STRENGTH
from schotten.engine.view import view
from tests.randgame import random_states, redeal_hidden

VARIANTS = ("base", "tactics", "expert", "expert-base")


def play_out(state: GameState, bots: tuple[Bot, Bot]) -> GameState:
    """Play to the end, checking every choice: legal, and a claim whenever the claim step offers one."""
    while not state.is_over:
        action = decide(bots[state.turn], state)
        assert action.id in state.legal_action_ids(), f"{bots[state.turn].name} chose illegal {action}"
        if state.phase == Phase.CLAIM:
            assert action.kind == Kind.CLAIM, "claims come before done (R5)"
        state.apply(action)
    return state


@pytest.mark.parametrize("variant", VARIANTS)
def test_plays_whole_games_legally(variant: str) -> None:
    """Whole games (two rounds, R9) in every variant, ruses and Recruiter returns included (R7)."""
    for seed in range(2):
        state = GameState.new(Settings.of(variant, rounds=2), seed)
        mcts = MctsBot(seed, iterations=12)
        bots: tuple[Bot, Bot] = (mcts, RandomBot(seed)) if seed % 2 == 0 else (RandomBot(seed), mcts)
        assert play_out(state, bots).outcome is not None


def _ruse_decisions(limit: int) -> list[GameState]:
    """States where the seat to move is inside a ruse or choosing a deck, from random games."""
    wanted = {
        Phase.STRATEGIST_TAKE,
        Phase.STRATEGIST_PLACE,
        Phase.BANSHEE,
        Phase.TRAITOR_TAKE,
        Phase.TRAITOR_PLACE,
        Phase.RECRUIT_DRAW,
        Phase.RECRUIT_RETURN,
        Phase.DRAW,
    }
    found: dict[Phase, list[GameState]] = {}
    for seed in range(60):
        for state in random_states(Settings.of("tactics"), seed):
            if state.phase in wanted and len(state.legal_action_ids()) > 1:
                found.setdefault(state.phase, []).append(state.copy())
    return [s for states in found.values() for s in states[:limit]]


def test_decides_every_ruse_step() -> None:
    """Each sub-decision of a ruse (R7.7-R7.10) and each deck choice gets a legal answer from a search."""
    states = _ruse_decisions(2)
    assert {s.phase for s in states} >= {Phase.STRATEGIST_TAKE, Phase.RECRUIT_RETURN, Phase.DRAW}
    for state in states:
        bot = MctsBot(1, iterations=15)
        action = decide(bot, state)
        assert action.id in state.legal_action_ids()
        assert bot.last_iterations == 15


def test_reproducible_from_the_seed() -> None:
    """Same seed and same view give the same action; so two games with the same seeds are the same."""
    histories = []
    for _ in range(2):
        state = GameState.new(Settings.of("tactics"), 4)
        play_out(state, (MctsBot(7, iterations=10), RandomBot(3)))
        histories.append(state.history)
    assert histories[0] == histories[1]
    state = next(s for i, s in enumerate(random_states(Settings.of("base"), 8)) if i == 10)
    seen = view(state, state.turn)
    bot = MctsBot(5, iterations=30)
    assert bot.choose(seen) == bot.choose(seen) == MctsBot(5, iterations=30).choose(seen)


def test_never_reads_hidden_cards() -> None:
    """R10: the same view from states dealt differently out of sight gives the same action."""
    rng = random.Random(2)
    checked = 0
    for variant in ("base", "tactics"):
        for index, state in enumerate(random_states(Settings.of(variant), 11)):
            if state.is_over or index % 4 or len(state.legal_action_ids()) < 2:
                continue
            seat = state.turn
            other = redeal_hidden(state, seat, rng)
            assert view(other, seat) == view(state, seat)
            assert decide(MctsBot(3, iterations=25), other) == decide(MctsBot(3, iterations=25), state)
            checked += 1
    assert checked >= 10


def test_answers_at_once_with_a_claim_or_a_single_action() -> None:
    """A claim is taken without searching (R5); so is the only legal action."""
    claims = singles = 0
    for state in random_states(Settings.of("base"), 3):
        if state.is_over:
            break
        ids = state.legal_action_ids()
        if state.phase != Phase.CLAIM and len(ids) > 1:
            continue
        bot = MctsBot(1, iterations=50)
        action = decide(bot, state)
        assert bot.last_iterations == 0
        if state.phase == Phase.CLAIM:
            assert action.kind == Kind.CLAIM
            claims += 1
        else:
            assert action.id == ids[0]
            singles += 1
    assert claims > 0


def test_budgets() -> None:
    """Iterations are exact; no budget means DEFAULT_SECONDS per decision; the registry builds it."""
    assert MctsBot().seconds == DEFAULT_SECONDS
    assert MctsBot(iterations=5).seconds is None
    state = next(s for i, s in enumerate(random_states(Settings.of("base"), 2)) if i == 8)
    bot = MctsBot(0, iterations=37)
    bot.choose(view(state, state.turn))
    assert bot.last_iterations == 37
    built = make_bot("mcts", 1, iterations=9)
    assert isinstance(built, MctsBot) and built.iterations == 9


def test_searches_without_the_anchor() -> None:
    """Without the heuristic bot's anchor the search alone decides, legally, in every variant."""
    for variant in VARIANTS:
        state = GameState.new(Settings.of(variant), 21)
        play_out(state, (MctsBot(2, iterations=8, anchor=False), RandomBot(2)))
        assert state.outcome is not None


def test_policy_reach_is_the_best_completion() -> None:
    """The policy's reach of a one-card side is the strongest triple the pool can complete (R4)."""
    rng = random.Random(8)
    for _ in range(300):
        pool = sum(1 << c for c in rng.sample(range(NUM_CLAN), rng.randrange(NUM_CLAN)))
        card = rng.randrange(NUM_CLAN)
        others = [c for c in range(NUM_CLAN) if c != card and pool >> c & 1]
        best = max(
            (TRIPLE_STRENGTH[tuple(sorted((card, a, b)))] for a, b in combinations(others, 2)),  # type: ignore[index]
            default=-1,
        )
        assert _reach_single(card, pool) == best


@pytest.mark.parametrize(("variant", "rounds"), [("base", 1), ("tactics", 1), ("base", 3)])
def test_a_playout_ends_the_round_and_rewards_it(variant: str, rounds: int) -> None:
    """A playout plays the round in progress to its end (R6.1) and rewards it as the search does:
    the match result in the last round, 0.5 plus a tenth of the points margin before (R9.2);
    the same random numbers give the same playout."""
    for index, state in enumerate(random_states(Settings.of(variant, rounds), 5, stop_after=30)):
        if state.is_over or index % 6:
            continue
        mover, before = state.turn, len(state.round_outcomes)
        ended = state.copy()
        reward = playout(ended, random.Random(index), mover)
        assert len(ended.round_outcomes) == before + 1, "the round in progress is over, no more"
        if before + 1 == rounds:
            winner = ended.outcome.winner if ended.outcome else -1
            assert reward == (0.5 if winner is None else float(winner == mover))
        else:
            points = ended.round_outcomes[before].points
            assert reward == pytest.approx(0.5 + (points[mover] - points[1 - mover]) / 10)
        assert playout(state.copy(), random.Random(index), mover) == reward


def test_no_playout_of_a_finished_game() -> None:
    """A finished game has no round left to play out: a clear error."""
    state = play_out(GameState.new(Settings(), 3), (RandomBot(1), RandomBot(2)))
    with pytest.raises(ValueError, match="over"):
        playout(state, random.Random(0), 0)


def test_beats_random_clearly() -> None:
    """Ten seeded base games, seats alternating, with a small budget: at least eight wins."""
    wins = 0
    for seed in range(10):
        mine = seed % 2
        bots: list[Bot] = [RandomBot(seed), RandomBot(seed)]
        bots[mine] = MctsBot(seed, iterations=20)
        state = play_out(GameState.new(Settings.of("base"), 100 + seed), (bots[0], bots[1]))
        assert state.outcome is not None
        wins += state.outcome.winner == mine
    assert wins >= 8
