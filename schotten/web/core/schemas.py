"""The JSON API's request and response bodies (pydantic models; see docs/web.md)."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .clock import TimeControl
from .offer import CLOSING
from .vocab import DEFAULT_LEVEL, LEVEL_NAMES, VARIANTS, Mode, Status

if TYPE_CHECKING:
    Variant = str
    Level = str
    Reason = str
else:
    Variant = Literal[VARIANTS]
    """One of the engine's variants (a Literal, so the API schema lists them)."""
    Level = Literal[LEVEL_NAMES]
    """One of the registry's AI levels."""
    Reason = Literal[tuple(state.value for state in CLOSING)]
    """How a rematch offer was closed: withdrawn or declined."""
NICKNAME_MAX = 24


_NOT_SHOWN = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
}
"""What each kind of character a nickname may not hold is (Unicode categories; Cs: ``_SURROGATE``)."""
_SURROGATE = "not a valid character (a lone surrogate, half of a UTF-16 pair)"


def clean_nickname(value: object) -> str:
    """A nickname with its outer spaces removed: 1 to 24 characters, none of them a control,
    formatting, private-use or unassigned character, nor a lone surrogate."""
    if not isinstance(value, str):
        raise ValueError("a nickname is text")
    name = " ".join(value.split())
    if not 1 <= len(name) <= NICKNAME_MAX:
        raise ValueError(f"a nickname has 1 to {NICKNAME_MAX} characters")
    for char in name:
        kind = unicodedata.category(char)
        if kind.startswith("C"):
            what = _SURROGATE if kind == "Cs" else _NOT_SHOWN.get(kind, "a character that cannot be shown")
            raise ValueError(f"a nickname may not hold U+{ord(char):04X}: it is {what}")
    return name


def body_fields(model: type[BaseModel] | None) -> str:
    """The body ``model`` asks for, in words: 'a JSON object with "mode" and "nickname" (optional: ...)'."""
    if model is None:
        return "a JSON object"
    fields = model.model_fields
    required = [f'"{name}"' for name, field in fields.items() if field.is_required()]
    optional = [f'"{name}"' for name, field in fields.items() if not field.is_required()]
    text = "a JSON object"
    if required:
        text += f" with {_and(required)}"
    if optional:
        text += f" (optionally also {_and(optional)})" if required else f" with {_or(optional)}, or empty"
    return text


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _or(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def explain(errors: Sequence[Mapping[str, Any]], body: Any, model: type[BaseModel] | None,
            json_sent: bool) -> str:
    """What is wrong with a request, from pydantic's (FastAPI's) validation ``errors``: invalid JSON
    with its line and column, a missing body or one that is no object, missing fields by name, then
    each other field's problem. ``body`` is what was received (the text, for invalid JSON), ``model``
    the body the route asks for, ``json_sent`` whether the request said its body is JSON."""
    problems: list[str] = []
    missing: list[str] = []
    for item in errors:
        where = [str(part) for part in item.get("loc", ()) if part != "body"]
        kind = item.get("type")
        if kind == "json_invalid":
            problems.append(_bad_json(item, body))
        elif not where and kind == "missing":
            problems.append(f"the request has no body: send {body_fields(model)}")
        elif not where and kind in _NOT_AN_OBJECT and not json_sent:
            problems.append(f"send the body as JSON (Content-Type: application/json): {body_fields(model)}")
        elif not where and kind in _NOT_AN_OBJECT:
            problems.append(f"the body must be {body_fields(model)}, not {_kind_of(body)}")
        elif kind == "missing":
            missing.append(f'"{".".join(where)}"')
        else:
            message = str(item.get("msg", "invalid value")).removeprefix("Value error, ")
            problems.append(f"{'.'.join(where)}: {message}" if where else message)
    if missing:
        problems.insert(0, f"the body has no {_and(missing)}: it must be {body_fields(model)}")
    return "; ".join(dict.fromkeys(problems)) or "invalid request"


_NOT_AN_OBJECT = {"model_attributes_type", "model_type", "dict_type"}


def _bad_json(item: Mapping[str, Any], body: Any) -> str:
    """Where and why the body is not JSON."""
    reason = str(item.get("ctx", {}).get("error", "")).strip() or "it cannot be read"
    loc = item.get("loc", ())
    pos = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else None
    where = ""
    if pos is not None and isinstance(body, str):
        line = body.count("\n", 0, pos) + 1
        column = pos - (body.rfind("\n", 0, pos) + 1) + 1
        where = f" at line {line}, column {column}"
    elif pos is not None:
        where = f" at character {pos + 1}"
    return f"the body is not valid JSON: {reason[:1].lower() + reason[1:]}{where}"


_KINDS = {list: "a list", str: "a string", bool: "true or false", int: "a number", float: "a number"}


def _kind_of(body: Any) -> str:
    """What a JSON body that is not an object is, in words."""
    return "null" if body is None else _KINDS.get(type(body), "something else")


MAX_CLOCK_SECONDS = 3 * 3600
"""The longest real-time bank (seconds) a table may be created with; increments up to 600 s."""
MAX_DAYS = 14


class ClockSpec(BaseModel):
    """A time control: ``{"initial": S, "increment": S}`` (real-time, whole seconds) or
    ``{"days": N}`` (turn-based, days per move)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    initial: int | None = Field(None, ge=1, le=MAX_CLOCK_SECONDS)
    increment: int | None = Field(None, ge=0, le=600)
    days: int | None = Field(None, ge=1, le=MAX_DAYS)

    @model_validator(mode="after")
    def _one_kind(self) -> ClockSpec:
        if self.days is not None and (self.initial is not None or self.increment is not None):
            raise ValueError('a clock is either {"initial", "increment"} (real-time) or {"days"} '
                             "(turn-based), not both")
        if self.days is None and self.initial is None:
            raise ValueError('a clock needs "initial" seconds (real-time, with an optional "increment") '
                             'or "days" per move (turn-based)')
        return self

    def control(self) -> TimeControl:
        """The time control asked for."""
        return TimeControl(self.initial, self.increment or 0, self.days)


class CreateTable(BaseModel):
    """A new table: the variant, the rounds, against the AI (at a level) or a friend; your seat."""

    model_config = ConfigDict(extra="ignore")

    variant: Variant = "base"
    rounds: int = Field(1, ge=1, le=99)
    mode: Mode
    level: Level | None = None
    nickname: str | None = None
    """A guest's name at the table (a logged-in player plays under their username)."""
    seat: Literal[0, 1] | None = None
    clock: ClockSpec | None = None
    rated: bool = False
    """Rated: only for a friend table with a clock, created and joined by accounts."""
    min_rating: int | None = Field(None, ge=0, le=4000)
    max_rating: int | None = Field(None, ge=0, le=4000)
    """An open challenge's range: only players rated within it (in the table's pool) may join."""
    hints: bool = False
    """Whether the human may ask for hints (``{"type": "hint"}``): only at a table against the AI."""

    @field_validator("nickname", mode="before")
    @classmethod
    def _nickname(cls, value: object) -> str | None:
        return None if value is None else clean_nickname(value)

    @model_validator(mode="after")
    def _level(self) -> CreateTable:
        if self.mode == Mode.AI and self.level is None:
            self.level = DEFAULT_LEVEL
        if self.mode == Mode.FRIEND:
            self.level = None
        return self


class JoinTable(BaseModel):
    """Taking the free seat of a table."""

    model_config = ConfigDict(extra="ignore")

    nickname: str | None = None
    """A guest's name at the table (a logged-in player plays under their username)."""

    @field_validator("nickname", mode="before")
    @classmethod
    def _nickname(cls, value: object) -> str | None:
        return None if value is None else clean_nickname(value)


class RematchRequest(BaseModel):
    """Asking for a finished game's rematch, or answering its offer: your seat's token (else the
    seat's cookie is used) and, optionally, the rematch table the request is about (``rematch``:
    a request about an offer that is no longer the game's current one changes nothing)."""

    model_config = ConfigDict(extra="ignore")

    token: str | None = Field(None, max_length=200)
    rematch: str | None = Field(None, min_length=1, max_length=32)


class ClosedOffer(BaseModel):
    """A rematch offer that was closed: its table, the seat that asked, and why."""

    id: str
    by: int
    reason: Reason


class SeatGrant(BaseModel):
    """A seat given to a player: the secret token is the seat's credential."""

    id: str
    seat: int
    token: str
    url: str
    invite: str | None


class UnratedReason(BaseModel):
    """Why a finished rated game changed no rating (``players.rating_rules``): its ``code``, an English
    ``message`` and what the page ``say``s (``{"text", "params"}``, in its reader's language)."""

    code: str
    message: str
    say: dict[str, Any]


class TournamentRef(BaseModel):
    """The tournament a game is played in: its page is ``/tournaments/{id}``; ``format`` arena or
    swiss; ``ends_at`` an arena's end (ISO 8601, UTC; None: a Swiss)."""

    id: int
    name: str
    format: str
    ends_at: str | None = None


class Table(BaseModel):
    """A table as the lobby lists it (never the seed or a token).

    ``rematch`` is the id of this finished game's rematch, ``rematch_of`` the id of the
    game this table is the rematch of (its free seat is kept for that game's other player).
    A rematch table whose offer was withdrawn or declined is ``closed``: nobody plays there.
    """

    id: str
    variant: str
    rounds: int
    mode: Mode
    level: str | None
    players: list[str | None]
    status: Status
    created: str
    winner: int | None
    rematch: str | None = None
    rematch_of: str | None = None
    clock: dict[str, int] | None = None
    """The time control: ``{"initial", "increment"}`` or ``{"days"}``; None: untimed."""
    ended: str | None = None
    """How the game ended off the board (time, resigned, aborted, left, abandoned), if it did."""
    turn: int | None = None
    """The seat to move while the game is played (None when not known without loading it)."""
    seat: int | None = None
    """The seat this browser holds at the table (in ``/api/my-games`` only; None elsewhere)."""
    your_turn: bool = False
    """Whether it is this browser's seat to move (in ``/api/my-games`` only)."""
    rated: bool = False
    accounts: list[str | None] = [None, None]
    """Each seat's username if an account plays it (its profile is ``/player/{name}``), else None."""
    ratings: list[int | None] = [None, None]
    """Each account seat's rating in the table's pool, rounded (None: a guest, or no clock)."""
    provisional: list[bool] = [False, False]
    """Whether each rating is provisional (RD of 110 or more): the page shows it with a "?"."""
    rating_range: list[int | None] = [None, None]
    """An open challenge's bounds on the joining player's rating."""
    unrated_reason: UnratedReason | None = None
    """Why this game, created rated, changed no rating when it ended (None: it did, or it is not over)."""
    hints: bool = False
    """Whether the human may ask for hints (a table against the AI; never rated)."""
    hints_used: int = 0
    """How many hints the human was given."""
    tournament: TournamentRef | None = None
    """The tournament the game is played in (None: none)."""


class GameSummary(Table):
    """A table and the number of entries in its log."""

    version: int


class Tables(BaseModel):
    """The lobby's list."""

    tables: list[Table]


class Step(BaseModel):
    """One step of a replay: the action (None for the deal) and its parts, its mover and
    everything after it."""

    action: str | None
    parts: dict[str, Any] | None
    mover: int | None
    state: dict[str, Any]


class Replay(BaseModel):
    """A finished game, step by step, every card shown."""

    table: Table
    steps: list[Step]


class Messages(BaseModel):
    """One language's catalogue."""

    lang: str
    messages: dict[str, str]


class Languages(BaseModel):
    """The languages offered and the one this browser prefers."""

    languages: list[str]
    preferred: str


class Saying(BaseModel):
    """What a page says of a refusal in its reader's language: a catalogue's msgid and its params."""

    text: str
    params: dict[str, str | int]


class ErrorBody(BaseModel):
    """Every API error: the English sentence, and for some what the page says in its reader's language."""

    error: str
    say: Saying | None = None
