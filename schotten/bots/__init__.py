"""Players that choose actions from a view (R10): the built-in bots, their interface and registry."""

from .registry import BOT_NAMES, LEVELS, Level, make_bot
from .simple import Bot, GreedyBot, RandomBot, decide

__all__ = ["BOT_NAMES", "LEVELS", "Bot", "GreedyBot", "Level", "RandomBot", "decide", "make_bot"]
