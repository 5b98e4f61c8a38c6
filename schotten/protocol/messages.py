"""The lines of the Schotten protocol (docs/protocol.md): writing them and reading them back.

Every message is one line of ASCII text: a keyword, a space, then its arguments.
The host (the program running the game) writes ``schotten``, ``newgame``, ``view``,
``legal``, ``go``, ``gameover`` and ``quit``; the bot answers ``name``, ``ready``,
``move``, and may write ``info`` or ``error`` lines. ``view`` carries the seat's view
(``schotten.engine.view.View``) as one line of JSON; ``view_from_dict`` turns that
JSON back into a ``View``.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Sequence
from dataclasses import fields, is_dataclass
from typing import Any, NamedTuple

from ..engine import VARIANTS, Action
from ..engine.view import View

PROTOCOL_VERSION = 1
"""The version the host announces with ``schotten 1``."""

LEGAL_SEPARATOR = ", "
"""How ``legal`` separates actions (some actions hold a space, like ``claim 3``)."""


class ProtocolError(ValueError):
    """A line that does not follow the protocol; the message says what is wrong."""


class NewGame(NamedTuple):
    """``newgame <variant> <rounds> <seat>``: a new match starts; the bot plays ``seat``."""

    variant: str
    rounds: int
    seat: int


class GameOver(NamedTuple):
    """``gameover <winner> <score0> <score1>``: the match is over (winner None: a draw)."""

    winner: int | None
    scores: tuple[int, int]


# ---------------------------------------------------------------- writing


def hello_line(version: int = PROTOCOL_VERSION) -> str:
    """``schotten 1``: the host's first line."""
    return f"schotten {version}"


def newgame_line(game: NewGame) -> str:
    """``newgame tactics 1 0``."""
    return f"newgame {game.variant} {game.rounds} {game.seat}"


def view_line(seen: View) -> str:
    """``view {...}``: the view as one line of JSON (ASCII, no line break)."""
    return "view " + json.dumps(seen.to_dict(), ensure_ascii=True, separators=(",", ":"))


def legal_line(legal: Sequence[str]) -> str:
    """``legal 7b@1, 7b@2, claim 3``: the legal actions in notation."""
    return "legal " + LEGAL_SEPARATOR.join(legal)


def go_line(milliseconds: int | None) -> str:
    """``go 5000`` (answer within 5 seconds), or ``go`` with no limit."""
    return "go" if milliseconds is None else f"go {milliseconds}"


def gameover_line(result: GameOver) -> str:
    """``gameover 1 2 5`` or ``gameover draw 3 3``."""
    winner = "draw" if result.winner is None else str(result.winner)
    return f"gameover {winner} {result.scores[0]} {result.scores[1]}"


def move_line(action: Action | str) -> str:
    """``move 7b@3``: the bot's answer."""
    return f"move {action}"


def one_line(text: str) -> str:
    """``text`` made safe for one line of ASCII: line breaks become spaces, other bytes ``?``."""
    flat = " ".join(text.split())
    return flat.encode("ascii", "replace").decode("ascii")


# ---------------------------------------------------------------- reading


def split_line(line: str) -> tuple[str, str]:
    """The keyword (lower case) and the rest of a line, both stripped; ``("", "")`` for a blank line."""
    word, _, rest = line.strip().partition(" ")
    return word.lower(), rest.strip()


def parse_legal(rest: str) -> list[str]:
    """The actions of a ``legal`` line (after the keyword)."""
    return [part.strip() for part in rest.split(",") if part.strip()]


MAX_DIGITS = 18
"""The most digits of a number in a line (a time, a count, a score)."""


def _number(text: str) -> bool:
    """Whether ``text`` is a whole number written in ASCII digits, at most MAX_DIGITS of them."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS


def parse_go(rest: str) -> int | None:
    """The milliseconds of a ``go`` line (after the keyword), or None when it gives none."""
    if not rest:
        return None
    if not _number(rest):
        raise ProtocolError(f"'go {_clip(rest)}': the time is a whole number of milliseconds")
    return int(rest)


def parse_newgame(rest: str) -> NewGame:
    """The arguments of a ``newgame`` line (after the keyword)."""
    parts = rest.split()
    if len(parts) != 3 or parts[0] not in VARIANTS or not _number(parts[1]) or parts[2] not in ("0", "1"):
        raise ProtocolError(f"'newgame {_clip(rest)}': expected 'newgame <variant> <rounds> <seat>'")
    return NewGame(parts[0], int(parts[1]), int(parts[2]))


def parse_gameover(rest: str) -> GameOver:
    """The arguments of a ``gameover`` line (after the keyword)."""
    parts = rest.split()
    if len(parts) != 3 or parts[0] not in ("0", "1", "draw") or not all(_number(p) for p in parts[1:]):
        raise ProtocolError(f"'gameover {_clip(rest)}': expected 'gameover <0|1|draw> <score0> <score1>'")
    return GameOver(None if parts[0] == "draw" else int(parts[0]), (int(parts[1]), int(parts[2])))


def parse_view(rest: str) -> View:
    """The View of a ``view`` line (after the keyword)."""
    try:
        data = json.loads(rest)
    except ValueError as error:
        raise ProtocolError(f"the view is not valid JSON: {error}") from None
    except RecursionError:
        raise ProtocolError("the view is JSON nested too deeply to be a view") from None
    return view_from_dict(data)


def _clip(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[:most] + "..."


# ---------------------------------------------------------------- JSON back into a View


def view_from_dict(data: object) -> View:
    """The View that ``View.to_dict()`` gave ``data`` (the JSON of a ``view`` line).

    Checks every field's type and raises ProtocolError naming the first field that is
    missing, unknown or of the wrong type.
    """
    value = _convert(data, View, "view")
    assert isinstance(value, View)
    return value


def _convert(data: object, kind: Any, where: str) -> object:
    if is_dataclass(kind) and isinstance(kind, type):
        return _dataclass(data, kind, where)
    origin = typing.get_origin(kind)
    if origin in (types.UnionType, typing.Union):
        return _union(data, typing.get_args(kind), where)
    if origin is tuple:
        return _tuple(data, typing.get_args(kind), where)
    if kind is type(None):
        if data is not None:
            raise ProtocolError(f"{where} should be null")
        return None
    if type(data) is not kind:
        raise ProtocolError(f"{where} should be of type {kind.__name__}, not {type(data).__name__}")
    return data


def _dataclass(data: object, kind: type[Any], where: str) -> object:
    if not isinstance(data, dict):
        raise ProtocolError(f"{where} should be an object")
    hints = _hints(kind)
    names = list(hints)
    missing = [n for n in names if n not in data]
    unknown = [str(k) for k in data if k not in names]
    if missing or unknown:
        problem = f"misses {', '.join(missing)}" if missing else f"has unknown fields {', '.join(unknown)}"
        raise ProtocolError(f"{where} {problem}")
    return kind(**{n: _convert(data[n], hints[n], f"{where}.{n}") for n in names})


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(kind: type[Any]) -> dict[str, Any]:
    if kind not in _HINTS:
        hints = typing.get_type_hints(kind)
        _HINTS[kind] = {f.name: hints[f.name] for f in fields(kind)}
    return _HINTS[kind]


def _union(data: object, options: tuple[Any, ...], where: str) -> object:
    if data is None and type(None) in options:
        return None
    others = [o for o in options if o is not type(None)]
    assert len(others) == 1, "the view only uses X | None"
    return _convert(data, others[0], where)


def _tuple(data: object, items: tuple[Any, ...], where: str) -> tuple[object, ...]:
    if not isinstance(data, list):
        raise ProtocolError(f"{where} should be a list")
    if len(items) == 2 and items[1] is Ellipsis:
        return tuple(_convert(v, items[0], f"{where}[{i}]") for i, v in enumerate(data))
    if len(data) != len(items):
        raise ProtocolError(f"{where} should have {len(items)} items, not {len(data)}")
    return tuple(_convert(v, k, f"{where}[{i}]") for i, (v, k) in enumerate(zip(data, items, strict=True)))
