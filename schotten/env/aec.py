"""A PettingZoo AEC environment over the engine: two agents, one decision at a time.

Agents ``player_0`` and ``player_1`` sit in seats 0 and 1. The agent to act is always the
engine's ``turn``; one agent may act several times in a row (the claim step, each choice
inside a ruse, the draw). Each agent observes ``{"observation": encode(view), "action_mask":
mask}``: the vector of ``observation.encode`` built from that seat's view only (R10) and the
legal action ids of the engine (all zeros when it is not that agent's decision). Actions are
the engine's fixed ids (``Discrete(NUM_ACTIONS)``).

Rewards come at the end: +1 to the match's winner, -1 to the loser, 0 each for a drawn
match (``reward="win"``); or, with ``reward="points"``, at the end of each round each agent
gets its R9.2 points minus the opponent's, divided by 5. An illegal action raises
IllegalActionError in ``raw_env`` (the state is unchanged); ``env()`` wraps it as PettingZoo's
classic games do, so that an illegal action ends the game with -1 for the offender and 0 for
the other agent. See docs/rl.md.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from ..engine import GameState, IllegalActionError, Settings
from ..engine.actions import ACTIONS, NUM_ACTIONS
from ..engine.view import view
from .observation import Mask, Vector, board_text, encode, legal_mask, observation_space

AGENTS: tuple[str, str] = ("player_0", "player_1")
"""The agents' names, by seat."""
REWARDS = ("win", "points")
"""The reward schemes: the match's result (+1/-1/0) or each round's points (R9.2)."""

Observation = dict[str, Vector | Mask]


def observe_state(state: GameState, seat: int, acting: bool = True) -> Observation:
    """What ``seat`` observes: its view encoded and, if it is its decision, the legal ids as a mask.

    The vector depends on ``view(state, seat)`` only; the mask lists the legal ids of the seat
    to move, which that seat may know (its own hand and the table).
    """
    mine = acting and state.turn == seat and not state.is_over
    return {
        "observation": encode(view(state, seat)),
        "action_mask": legal_mask(state.legal_action_ids() if mine else ()),
    }


def round_rewards(state: GameState, since: int) -> tuple[float, float]:
    """Each seat's R9.2 points minus the opponent's, over the rounds ended from ``since`` on, / 5."""
    gained = [0.0, 0.0]
    for outcome in state.round_outcomes[since:]:
        diff = (outcome.points[0] - outcome.points[1]) / 5
        gained[0] += diff
        gained[1] -= diff
    return gained[0], gained[1]


def match_rewards(state: GameState) -> tuple[float, float]:
    """+1 to the match's winner and -1 to the loser; 0 each while playing or for a drawn match."""
    if state.outcome is None or state.outcome.winner is None:
        return 0.0, 0.0
    return (1.0, -1.0) if state.outcome.winner == 0 else (-1.0, 1.0)


def step_rewards(state: GameState, scheme: str, rounds_before: int) -> tuple[float, float]:
    """The rewards a move earned under ``scheme`` (see ``REWARDS``), given the rounds ended before it."""
    if scheme == "points":
        return round_rewards(state, rounds_before)
    return match_rewards(state)


def result_info(state: GameState) -> dict[str, Any]:
    """The match's end as info: winner (agent name or None), scores by agent, forfeit if any."""
    assert state.outcome is not None
    winner = state.outcome.winner
    info: dict[str, Any] = {
        "winner": None if winner is None else AGENTS[winner],
        "scores": {AGENTS[s]: state.outcome.scores[s] for s in (0, 1)},
    }
    if state.forfeited is not None:
        info["forfeit"] = {"agent": AGENTS[state.forfeited[0]], "reason": state.forfeited[1]}
    return info


def checked_id(state: GameState, action: object) -> int:
    """The action id ``action`` (an int, a numpy integer or a 0-d integer array) names, if it is
    legal now; else IllegalActionError naming why."""
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        action = action.item()
    if action is None or not isinstance(action, int | np.integer):
        raise IllegalActionError(f"an action is an integer id 0..{NUM_ACTIONS - 1}, not {action!r}")
    action_id = int(action)
    if not 0 <= action_id < NUM_ACTIONS:
        raise IllegalActionError(f"{action_id} is not an action id (0..{NUM_ACTIONS - 1})")
    if action_id not in state.legal_action_ids():
        found = ACTIONS[action_id]
        raise IllegalActionError(f"{found} (id {action_id}) is not legal now: {state.why_illegal(found)}")
    return action_id


class SchottenEnv(AECEnv):  # type: ignore[misc]
    """Schotten Totten as a PettingZoo AEC environment (see the module's docstring).

    ``variant`` and ``rounds`` as in ``Settings.of``; ``seed`` seeds the deals of resets made
    without a seed; ``reward`` is "win" or "points"; ``render_mode`` "human" (print) or "ansi"
    (return the text). ``game`` is the engine's state (for inspection; agents observe views).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": ["human", "ansi"],
        "name": "schotten_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str = "base",
        rounds: int = 1,
        seed: int | None = None,
        render_mode: str | None = None,
        reward: str = "win",
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}: choose one of {', '.join(REWARDS)}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"unknown render mode {render_mode!r}: choose human or ansi")
        self.settings = Settings.of(variant, rounds)
        self.reward = reward
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self.observation_spaces = {a: observation_space() for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._deals = random.Random(seed)
        self.game = GameState.new(self.settings, 0)

    def observation_space(self, agent: str) -> spaces.Dict:
        """The Dict space of ``agent``'s observations (the same object every call)."""
        space: spaces.Dict = self.observation_spaces[agent]
        return space

    def action_space(self, agent: str) -> spaces.Discrete:
        """``Discrete(NUM_ACTIONS)``: the engine's action ids (the same object every call)."""
        space: spaces.Discrete = self.action_spaces[agent]
        return space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: dealt from ``seed`` (``GameState.new(settings, seed)``), else from the env's seeds.

        A seed also restarts the sequence of deals that later resets without a seed follow.
        """
        if seed is not None:
            self._deals = random.Random(seed)
            deal = seed
        else:
            deal = self._deals.randrange(2**31)
        self.game = GameState.new(self.settings, deal)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self.game.turn]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation: its view encoded and its action mask (zeros unless it acts)."""
        return observe_state(self.game, AGENTS.index(agent), agent == self.agent_selection)

    def step(self, action: int | None) -> None:
        """Play ``action`` (an id) for ``agent_selection``; None for an agent that is done."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action_id = checked_id(self.game, action)
        self._cumulative_rewards[agent] = 0.0
        rounds_before = len(self.game.round_outcomes)
        self.game.apply_id(action_id)
        self._clear_rewards()
        for seat, gained in enumerate(step_rewards(self.game, self.reward, rounds_before)):
            self.rewards[AGENTS[seat]] = gained
        if self.game.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos = {a: result_info(self.game) for a in self.agents}
        self._accumulate_rewards()
        self.agent_selection = AGENTS[self.game.turn]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The spectator's board as text: printed ("human") or returned ("ansi")."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: pass render_mode='ansi' or 'human'")
            return None
        text = board_text(view(self.game, None), AGENTS)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release."""


def raw_env(**kwargs: Any) -> SchottenEnv:
    """The environment without wrappers: illegal actions raise IllegalActionError."""
    return SchottenEnv(**kwargs)


def env(**kwargs: Any) -> Any:
    """The environment wrapped as PettingZoo's classic games are.

    An illegal action ends the game (-1 for the offender, 0 for the other agent), an action
    outside the space fails an assertion, and calls out of order (before ``reset``) are refused.
    """
    wrapped = wrappers.TerminateIllegalWrapper(SchottenEnv(**kwargs), illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
