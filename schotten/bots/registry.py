"""Every built-in bot by name, and the levels offered to people (easy .. expert).

``make_bot("mcts", seed=3, seconds=0.2)`` builds a bot; ``BOT_NAMES`` and ``LEVELS``
list what exists, ``DEFAULT_LEVEL`` is the level played when none is named. Search bots take
a budget: ``seconds`` per decision or a number of ``iterations`` (reproducible from the seed);
other bots ignore it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .simple import Bot, GreedyBot, RandomBot


@dataclass(frozen=True, slots=True)
class Level:
    """A level for people: which bot plays and with what budget per decision."""

    bot: str
    seconds: float | None = None
    iterations: int | None = None


LEVELS: dict[str, Level] = {
    "easy": Level("greedy"),
    "medium": Level("heuristic"),
    "hard": Level("mcts", iterations=400),
    "expert": Level("mcts", seconds=1.0),
}
"""The levels offered to people, weakest first."""

DEFAULT_LEVEL = "medium"
"""The level played when none is named (one of ``LEVELS``)."""

BOT_NAMES: tuple[str, ...] = ("random", "greedy", "heuristic", "mcts", "mcts-read", "mcts-value")
"""The built-in bots, weakest first."""


def make_bot(
    name: str, seed: int | None = None, seconds: float | None = None, iterations: int | None = None
) -> Bot:
    """A built-in bot or level by name; ``seconds`` / ``iterations`` set a search bot's budget."""
    if name in LEVELS:
        level = LEVELS[name]
        return make_bot(
            level.bot,
            seed,
            seconds if seconds is not None else level.seconds,
            iterations if iterations is not None else level.iterations,
        )
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(seed)
    if name == "heuristic":
        from .heuristic import HeuristicBot

        return HeuristicBot(seed)
    if name == "mcts":
        from .mcts import MctsBot

        return MctsBot(seed, seconds=seconds, iterations=iterations)
    if name == "mcts-read":
        from .mcts import MctsBot

        return MctsBot(seed, seconds=seconds, iterations=iterations, read=True)
    if name == "mcts-value":
        from .mcts import MctsBot

        return MctsBot(seed, seconds=seconds, iterations=iterations, valued=True)
    choices = ", ".join(BOT_NAMES + tuple(LEVELS))
    raise ValueError(f"unknown bot {name!r}: choose one of {choices}")
