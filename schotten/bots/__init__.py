"""Players that choose actions from a view (R10): the simple built-in bots and their interface."""

from .simple import BOTS, Bot, GreedyBot, RandomBot, decide, make_bot

__all__ = ["BOTS", "Bot", "GreedyBot", "RandomBot", "decide", "make_bot"]
