"""Reinforcement-learning environments over the engine (needs the ``rl`` extra: numpy, gymnasium,
pettingzoo; ``pip install 'schotten[rl]'``).

``SchottenEnv`` / ``env()`` / ``raw_env()``: a PettingZoo AEC environment for two agents.
``SchottenGymEnv``: a Gymnasium environment for one agent against a built-in bot (also
``gymnasium.make("SchottenTotten-v0")`` once this package is imported). ``encode`` turns a
seat's view into the observation vector. See docs/rl.md.
"""

try:
    import gymnasium as _gymnasium  # noqa: F401
    import numpy as _numpy  # noqa: F401
    import pettingzoo as _pettingzoo  # type: ignore[import-untyped]  # noqa: F401
except ImportError as missing:  # pragma: no cover - only without the extra
    raise ImportError(
        f"schotten.env needs numpy, gymnasium and pettingzoo ({missing.name} is missing): "
        "pip install 'schotten[rl]'"
    ) from missing

from .aec import AGENTS, SchottenEnv, env, observe_state, raw_env
from .gym import ENV_ID, SchottenGymEnv
from .observation import (
    LAYOUT,
    OBS_SIZE,
    OFFSETS,
    block,
    board_text,
    encode,
    legal_mask,
    observation_space,
    view_mask,
)

__all__ = [
    "AGENTS",
    "ENV_ID",
    "LAYOUT",
    "OBS_SIZE",
    "OFFSETS",
    "SchottenEnv",
    "SchottenGymEnv",
    "block",
    "board_text",
    "encode",
    "env",
    "legal_mask",
    "observation_space",
    "observe_state",
    "raw_env",
    "view_mask",
]
