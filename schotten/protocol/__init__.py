"""The text protocol that lets bots written in any language play (docs/protocol.md), like UCI for chess.

``ExternalBot`` drives an external program as a Bot (``BotFailure`` when it fails a
decision); ``schotten.protocol.program.serve`` runs one of our bots as such a
program; ``messages`` writes and reads the lines, and ``view_from_dict`` reads a
view's JSON back into a ``View``.
"""

from .external import BotFailure, ExternalBot
from .messages import PROTOCOL_VERSION, GameOver, NewGame, ProtocolError, view_from_dict

__all__ = [
    "PROTOCOL_VERSION",
    "BotFailure",
    "ExternalBot",
    "GameOver",
    "NewGame",
    "ProtocolError",
    "view_from_dict",
]
