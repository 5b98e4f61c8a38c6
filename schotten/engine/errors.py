"""The engine's exceptions: malformed text and illegal actions are different errors."""


class SchottenError(Exception):
    """Base class of every error the engine raises on bad input."""


class NotationError(SchottenError, ValueError):
    """Text that is not well-formed notation (an action, a card, a position), or an action
    built from fields that make none."""


class IllegalActionError(SchottenError):
    """A well-formed action that the rules do not allow in this state."""


class RecordError(SchottenError, ValueError):
    """A game record that is corrupt, tampered with or of an unknown version."""


def quoted(value: object, most: int = 60) -> str:
    """``repr(value)`` for an error message, cut after ``most`` characters (input may be huge)."""
    text = repr(value)
    return text if len(text) <= most else text[:most] + "…"
