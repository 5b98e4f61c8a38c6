"""A Gymnasium single-agent environment: the agent plays one seat against one of our bots.

The opponent is a built-in bot (``make_bot``: random, greedy, heuristic, mcts) or any object
with the Bot protocol; it decides from its own view only (``decide``), R10. The agent observes
the same Dict as in the AEC environment, ``{"observation": vector, "action_mask": int8 mask}``
(``action_masks()`` gives the mask too, as sb3-contrib's MaskablePPO expects), and acts with
the engine's action ids (``Discrete(NUM_ACTIONS)``). Rewards come at the end as in
``aec``: +1/-1/0 for the match (``reward="win"``) or each round's points difference / 5
(``reward="points"``). An illegal action forfeits the game (``GameState.forfeit``): the
episode ends as a loss and ``info["illegal_action"]`` is True. See docs/rl.md.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..bots import Bot, decide, make_bot
from ..engine import GameState, IllegalActionError, Settings
from ..engine.actions import NUM_ACTIONS
from ..engine.view import view
from .aec import AGENTS, REWARDS, Observation, checked_id, observe_state, result_info, step_rewards
from .observation import Mask, board_text, observation_space

ENV_ID = "SchottenTotten-v0"
"""The id under which ``gymnasium.make`` builds this environment."""


class SchottenGymEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """Schotten Totten for one agent against a bot (see the module's docstring).

    ``opponent``: a bot name (or level) for ``make_bot``, or a Bot. ``seat``: the agent's seat,
    or None for a random seat each episode. ``seed`` seeds the first reset made without one.
    ``opponent_seconds`` / ``opponent_iterations``: a search bot's budget per decision.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        opponent: str | Bot = "random",
        variant: str = "base",
        seat: int | None = 0,
        seed: int | None = None,
        opponent_seconds: float | None = None,
        opponent_iterations: int | None = None,
        rounds: int = 1,
        reward: str = "win",
        render_mode: str | None = None,
    ) -> None:
        if seat not in (None, 0, 1):
            raise ValueError(f"a seat is 0, 1 or None (random), not {seat!r}")
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}: choose one of {', '.join(REWARDS)}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"unknown render mode {render_mode!r}: choose human or ansi")
        if isinstance(opponent, str):
            make_bot(opponent, 0, opponent_seconds, opponent_iterations)
        self.settings = Settings.of(variant, rounds)
        self.opponent = opponent
        self.fixed_seat = seat
        self.opponent_seconds = opponent_seconds
        self.opponent_iterations = opponent_iterations
        self.reward_scheme = reward
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._first_seed = seed
        self.seat = 0 if seat is None else seat
        self.game = GameState.new(self.settings, 0)
        self.bot: Bot | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game dealt from ``seed`` (else from the env's random generator); the bot moves first
        if it is its turn."""
        if seed is None and self._first_seed is not None:
            seed, self._first_seed = self._first_seed, None
        super().reset(seed=seed)
        deal = seed if seed is not None else int(self.np_random.integers(2**31))
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(2))
        self.bot = self._make_opponent(int(self.np_random.integers(2**31)))
        self.game = GameState.new(self.settings, deal)
        self._opponent_moves()
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action: np.int64 | int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Play the agent's action (an id), then the opponent's moves until the agent's next decision."""
        if self.game.is_over:
            raise RuntimeError("the episode is over: call reset()")
        rounds_before = len(self.game.round_outcomes)
        illegal = False
        try:
            self.game.apply_id(checked_id(self.game, action))
        except IllegalActionError as error:
            self.game.forfeit(self.seat, f"illegal action: {error}")
            illegal = True
        self._opponent_moves()
        reward = step_rewards(self.game, self.reward_scheme, rounds_before)[self.seat]
        info = self._info()
        if illegal:
            info["illegal_action"] = True
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, self.game.is_over, False, info

    def action_masks(self) -> Mask:
        """The current action mask (for sb3-contrib's MaskablePPO and similar)."""
        mask: Mask = self._observe()["action_mask"]  # type: ignore[assignment]
        return mask

    def render(self) -> str | None:
        """The board as the agent sees it (its own hand, no other hidden card): printed or returned."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: pass render_mode='ansi' or 'human'")
            return None
        text = board_text(view(self.game, self.seat), AGENTS)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def _make_opponent(self, seed: int) -> Bot:
        if isinstance(self.opponent, str):
            return make_bot(self.opponent, seed, self.opponent_seconds, self.opponent_iterations)
        return self.opponent

    def _opponent_moves(self) -> None:
        assert self.bot is not None
        while not self.game.is_over and self.game.turn != self.seat:
            try:
                self.game.apply(decide(self.bot, self.game))
            except IllegalActionError as error:
                self.game.forfeit(1 - self.seat, f"the opponent's illegal action: {error}")

    def _observe(self) -> Observation:
        return observe_state(self.game, self.seat)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"seat": self.seat}
        if self.game.is_over:
            info.update(result_info(self.game))
        return info


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="schotten.env.gym:SchottenGymEnv")
