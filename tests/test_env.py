"""The reinforcement-learning environments (schotten.env): PettingZoo's and Gymnasium's API checks,
whole games with masked random agents, seeding, and observations that hide what a seat may not
know (R10)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from schotten.engine import GameState, IllegalActionError, Phase, Settings  # noqa: E402
from schotten.engine.actions import NUM_ACTIONS, PASS_ID  # noqa: E402
from schotten.engine.cards import NUM_CLAN, card_str  # noqa: E402
from schotten.engine.view import view  # noqa: E402
from schotten.env import (  # noqa: E402
    ENV_ID,
    LAYOUT,
    OBS_SIZE,
    OFFSETS,
    SchottenEnv,
    SchottenGymEnv,
    block,
    encode,
    env,
    observation_space,
    observe_state,
    raw_env,
    view_mask,
)

from .randgame import ALL_SETTINGS, random_states  # noqa: E402

VARIANTS = ("base", "tactics", "expert", "expert-base")


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    """The API checkers warn about things we chose (a Dict observation, all-zero masks)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def random_game(game: SchottenEnv, rng: random.Random) -> int:
    """Play ``game`` (reset) to its end with masked random actions, checking each mask; the moves."""
    moves = 0
    for agent in game.agent_iter():
        obs, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            game.step(None)
            continue
        legal = sorted(game.game.legal_action_ids())
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal
        assert game.agent_selection == agent == f"player_{game.game.turn}"
        game.step(rng.choice(legal))
        moves += 1
    return moves


# ---------------------------------------------------------------- PettingZoo


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("factory", [env, raw_env], ids=["env", "raw_env"])
def test_pettingzoo_api(variant: str, factory: object) -> None:
    """PettingZoo's api_test passes in every variant, wrapped and raw (whole games at these cycles)."""
    assert callable(factory)
    api_test(factory(variant=variant, seed=1), num_cycles=300, verbose_progress=False)


def test_pettingzoo_api_match_with_points() -> None:
    """A 3-round match with per-round rewards passes too."""
    api_test(raw_env(variant="tactics", rounds=3, reward="points"), num_cycles=1000)


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_agents_play_whole_games(variant: str) -> None:
    """Masked random agents reach the end; the mask is the legal ids at every decision."""
    game = raw_env(variant=variant, seed=7)
    rng = random.Random(7)
    for _ in range(3):
        game.reset()
        moves = random_game(game, rng)
        assert game.game.is_over and game.agents == []
        assert moves == len(game.game.history) > 0


def _final_rewards(game: SchottenEnv, rng: random.Random) -> dict[str, float]:
    totals = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, _ = game.last()
        totals[agent] += reward
        if terminated or truncated:
            game.step(None)
        else:
            game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


@pytest.mark.parametrize("reward", ["win", "points"])
def test_rewards_follow_the_match(reward: str) -> None:
    """win: +1/-1 to the match's winner/loser (0/0 drawn); points: the R9.2 score difference / 5."""
    game = raw_env(variant="tactics", rounds=3, reward=reward, seed=11)
    rng = random.Random(11)
    for _ in range(3):
        game.reset()
        totals = _final_rewards(game, rng)
        outcome = game.game.outcome
        assert outcome is not None
        if reward == "points":
            diff = (outcome.scores[0] - outcome.scores[1]) / 5
            assert totals["player_0"] == pytest.approx(diff)
        elif outcome.winner is None:
            assert totals["player_0"] == 0.0
        else:
            assert totals[f"player_{outcome.winner}"] == 1.0
        assert totals["player_0"] == pytest.approx(-totals["player_1"])


def test_seeded_resets_are_reproducible() -> None:
    """reset(seed) deals GameState.new(settings, seed); the resets after it follow from the seed."""
    one, two = raw_env(variant="tactics"), raw_env(variant="tactics", seed=99)
    one.reset(seed=5)
    two.reset(seed=5)
    assert one.game.hands == two.game.hands == GameState.new(Settings.of("tactics"), 5).hands
    assert one.game.clan_deck == two.game.clan_deck
    for _ in range(3):
        one.reset()
        two.reset()
        assert one.game.seed == two.game.seed and one.game.hands == two.game.hands
    three, four = raw_env(seed=3), raw_env(seed=3)
    deals = set()
    for _ in range(4):
        three.reset()
        four.reset()
        assert three.game.seed == four.game.seed
        deals.add(three.game.seed)
    assert len(deals) == 4


def test_illegal_actions() -> None:
    """raw_env refuses an illegal action and keeps the state; env() ends the game with -1 / 0."""
    raw = raw_env(seed=2)
    raw.reset()
    moves = list(raw.game.history)
    mover = raw.agent_selection
    assert PASS_ID not in raw.game.legal_action_ids()
    for bad in (PASS_ID, NUM_ACTIONS, -1, None, "pass"):
        with pytest.raises(IllegalActionError):
            raw.step(bad)  # type: ignore[arg-type]
    assert raw.game.history == moves and raw.agent_selection == mover
    raw.step(np.array(raw.game.legal_action_ids()[0]))
    assert len(raw.game.history) == len(moves) + 1
    wrapped = env(seed=2)
    wrapped.reset()
    mover = wrapped.agent_selection
    wrapped.step(PASS_ID)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards == {mover: -1.0, ("player_1" if mover == "player_0" else "player_0"): 0.0}


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    """ansi returns the spectator's board (no hand); human prints it."""
    game = raw_env(variant="tactics", render_mode="ansi")
    game.reset(seed=1)
    text = game.render()
    assert isinstance(text, str) and "stone" in text and "to move: player_" in text
    assert "hand:" not in text
    printed = raw_env(render_mode="human")
    printed.reset(seed=1)
    assert printed.render() is None
    assert "to move" in capsys.readouterr().out


# ---------------------------------------------------------------- the observation


def _positions() -> Iterator[GameState]:
    """Copies of positions of seeded random games in every variant, every few moves."""
    for game in ALL_SETTINGS:
        for seed in range(4):
            for state in random_states(game, seed):
                if len(state.history) % 5 == 0 or state.phase not in (Phase.PLAY, Phase.DRAW):
                    yield state.copy()


POSITIONS = list(_positions())


def redeal(state: GameState, seat: int, rng: random.Random) -> GameState:
    """``state`` with the other hand and the decks shuffled together (clan with clan, tactic with
    tactic), ``seat``'s own Recruiter returns kept in place (R10.2), and another seed."""
    other = state.copy()
    fixed = [{i for i, _ in deck} for deck in other.known_under(seat)]
    for index, deck in enumerate((other.clan_deck, other.tactic_deck)):
        slots = [(deck, i) for i in range(len(deck)) if i not in fixed[index]]
        hand = other.hands[1 - seat]
        slots += [(hand, i) for i, c in enumerate(hand) if (c < NUM_CLAN) == (index == 0)]
        cards = [where[i] for where, i in slots]
        rng.shuffle(cards)
        for (where, i), card in zip(slots, cards, strict=True):
            where[i] = card
    other.seed = state.seed + 1
    return other


def _same(one: dict[str, object], two: dict[str, object]) -> bool:
    return all(np.array_equal(one[key], two[key]) for key in ("observation", "action_mask"))


def test_observation_hides_what_the_seat_may_not_know() -> None:
    """R10: re-dealing the other hand and the decks changes neither the vector nor the mask."""
    rng = random.Random(0)
    changed = with_returns = 0
    for state in POSITIONS:
        for seat in (0, 1):
            other = redeal(state, seat, rng)
            changed += other.hands[1 - seat] != state.hands[1 - seat]
            with_returns += any(other.known_under(seat))
            assert _same(observe_state(state, seat), observe_state(other, seat))
    assert changed > len(POSITIONS) and with_returns > 0


def test_observation_shows_what_the_seat_may_know() -> None:
    """The converse: a different own hand or an opponent's different card on the board shows."""
    checked = 0
    for state in POSITIONS[::7]:
        seat = state.turn
        hand, deck = state.hands[seat], state.clan_deck
        clan = [i for i, c in enumerate(hand) if c < NUM_CLAN]
        if clan and deck and not state.is_over:
            other = state.copy()
            other.hands[seat][clan[0]], other.clan_deck[0] = other.clan_deck[0], other.hands[seat][clan[0]]
            assert not np.array_equal(encode(view(state, seat)), encode(view(other, seat)))
            checked += 1
    assert checked > 10


def test_observation_blocks() -> None:
    """The layout adds up; values lie in [0, 1]; the blocks read as documented, seat-relative."""
    assert sum(int(np.prod(shape)) for shape in LAYOUT.values()) == OBS_SIZE
    space = observation_space()
    for state in POSITIONS[::3]:
        vectors = [encode(view(state, seat)) for seat in (0, 1)]
        for seat, vector in enumerate(vectors):
            assert vector.dtype == np.float32 and vector.shape == (OBS_SIZE,)
            assert space["observation"].contains(vector)
            hand = block(vector, "hand")
            for card in set(state.hands[seat]):
                assert hand[card] == state.hands[seat].count(card) / (2 if card == 54 else 1)
            assert hand.sum() > 0 or not state.hands[seat]
            visible = {c for side in state.sides for stone in side for c in stone}
            visible |= {c for pile in state.discards for c in pile} | set(state.hands[seat])
            visible |= {state.held} | set(state.bottom_known[seat])
            unseen = {c for c in range(NUM_CLAN) if c not in visible}
            assert set(np.flatnonzero(block(vector, "unseen_clan")).tolist()) == unseen
            copies = np.array([2, 1, 1, 1, 1, 1, 1, 1, 1])
            their_tactics = sum(1 for c in state.hands[1 - seat] if c >= NUM_CLAN)
            mine_under = len(state.known_under(seat)[1])
            expected = len(state.tactic_deck) - mine_under + their_tactics
            assert round(float((block(vector, "unseen_tactic") * copies).sum())) == expected
            assert block(vector, "phase")[int(state.phase)] == 1
            assert block(vector, "to_move")[0] == (state.turn == seat and not state.is_over)
        assert np.array_equal(block(vectors[0], "my_side"), block(vectors[1], "their_side"))
        assert np.array_equal(block(vectors[0], "my_stone"), block(vectors[1], "their_stone"))


def test_spectator_view_is_refused() -> None:
    """An observation belongs to a seat."""
    with pytest.raises(ValueError):
        encode(view(GameState.new(Settings(), 1), None))


def test_masks_equal_the_legal_ids() -> None:
    """The mask of the seat to move is its legal ids (also when built from the view); the other's is empty."""
    for state in POSITIONS[::2]:
        if state.is_over:
            continue
        mover = state.turn
        mask = observe_state(state, mover)["action_mask"]
        assert mask.dtype == np.int8
        assert np.flatnonzero(mask).tolist() == sorted(state.legal_action_ids())
        assert np.array_equal(view_mask(view(state, mover)), mask)
        assert not observe_state(state, 1 - mover)["action_mask"].any()


# ---------------------------------------------------------------- Gymnasium


@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize("variant", ["base", "tactics"])
def test_gymnasium_check_env(opponent: str, variant: str) -> None:
    """Gymnasium's env checker passes."""
    check_env(SchottenGymEnv(opponent=opponent, variant=variant, seat=None), skip_render_check=True)


def test_gymnasium_make_and_render() -> None:
    """The env is registered; ansi shows the agent's own hand and nothing hidden."""
    made = gymnasium.make(ENV_ID, opponent="greedy", variant="tactics", render_mode="ansi")
    made.reset(seed=4)
    text = made.render()
    game = made.unwrapped.game
    assert isinstance(text, str)
    assert " ".join(card_str(c) for c in sorted(game.hands[made.unwrapped.seat])) in text
    made.close()


def _episode(gym_env: SchottenGymEnv, seed: int, rng: random.Random) -> tuple[float, int, dict[str, object]]:
    obs, info = gym_env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        mask = obs["action_mask"]
        assert np.array_equal(mask, gym_env.action_masks())
        assert np.flatnonzero(mask).tolist() == sorted(gym_env.game.legal_action_ids())
        assert gym_env.game.turn == info["seat"] == gym_env.seat
        obs, reward, terminated, truncated, info = gym_env.step(rng.choice(np.flatnonzero(mask).tolist()))
        total += reward
        steps += 1
        assert not truncated
        if terminated:
            return total, steps, info


@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize("variant", ["base", "expert"])
def test_gymnasium_whole_episodes(opponent: str, variant: str) -> None:
    """Masked random play against a bot ends with +1/-1/0 for the match; the seat varies."""
    gym_env = SchottenGymEnv(opponent=opponent, variant=variant, seat=None)
    rng = random.Random(3)
    seats = set()
    for seed in range(4):
        total, steps, info = _episode(gym_env, seed, rng)
        outcome = gym_env.game.outcome
        assert outcome is not None and steps > 0
        winner = outcome.winner
        expected = 0.0 if winner is None else (1.0 if winner == gym_env.seat else -1.0)
        assert total == expected
        assert info["winner"] == (None if winner is None else f"player_{winner}")
        seats.add(gym_env.seat)
    assert seats == {0, 1}


def test_gymnasium_reproducible_and_illegal_forfeits() -> None:
    """The same seed and actions give the same episode; an illegal action forfeits: -1, episode over."""
    runs = [_episode(SchottenGymEnv(opponent="greedy", seat=None), 8, random.Random(1)) for _ in range(2)]
    assert runs[0] == runs[1]
    gym_env = SchottenGymEnv(opponent="random", seed=8)
    gym_env.reset()
    _, reward, terminated, _, info = gym_env.step(PASS_ID)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    assert gym_env.game.forfeited is not None and gym_env.game.forfeited[0] == gym_env.seat
    with pytest.raises(RuntimeError):
        gym_env.step(PASS_ID)


def test_bad_arguments() -> None:
    """Unknown variants, bots, seats, rewards and render modes are refused at once."""
    for kwargs in ({"variant": "chess"}, {"opponent": "nobody"}, {"seat": 2}, {"reward": "gold"}):
        with pytest.raises(ValueError):
            SchottenGymEnv(**kwargs)  # type: ignore[arg-type]
    for kwargs in ({"variant": "chess"}, {"reward": "gold"}, {"render_mode": "rgb_array"}):
        with pytest.raises(ValueError):
            raw_env(**kwargs)


def test_engine_works_without_the_rl_extra() -> None:
    """Without numpy, gymnasium and pettingzoo the engine, the bots and the CLI import; schotten.env
    says what to install."""
    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "gymnasium", "pettingzoo"):
            raise ImportError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
import schotten, schotten.engine, schotten.bots, schotten.cli
try:
    import schotten.env
except ImportError as error:
    assert "schotten[rl]" in str(error), error
else:
    raise AssertionError("schotten.env imported without its extra")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


DOCS = Path(__file__).resolve().parent.parent / "docs" / "rl.md"


def test_docs_layout_table_matches_the_code() -> None:
    """docs/rl.md lists every block of the observation with its indices and shape, in order."""
    rows = re.findall(r"^\| `(\w+)` \| (\d+)\.\.(\d+) \| (\([\d, ]+\)) \|", DOCS.read_text(), re.MULTILINE)
    documented = [(name, (int(start), int(end) + 1), shape) for name, start, end, shape in rows]
    expected = [(name, OFFSETS[name], str(LAYOUT[name])) for name in LAYOUT]
    assert documented == expected
    assert f"({OBS_SIZE},)" in DOCS.read_text()


def test_docs_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The example loops of docs/rl.md play whole games."""
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.DOTALL)
    assert len(blocks) == 2
    for code in blocks:
        exec(compile(code, str(DOCS), "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(("player_0 {", "player_1 {", "None {"))
    assert lines[1].split()[0] in ("1.0", "-1.0", "0.0")
