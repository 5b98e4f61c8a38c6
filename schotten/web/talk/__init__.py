"""A game's chat: rooms, mutes, rates, stored before it is told.

May import: ``games`` and below. Reached by the games through ``games.ports.Talk``.
"""
