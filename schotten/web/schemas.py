"""The JSON API's request and response bodies (pydantic models; see docs/web.md)."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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


def clean_nickname(value: object) -> str:
    """A nickname with its outer spaces removed: 1 to 24 characters, no control characters."""
    if not isinstance(value, str):
        raise ValueError("a nickname is text")
    name = " ".join(value.split())
    if not 1 <= len(name) <= NICKNAME_MAX:
        raise ValueError(f"a nickname has 1 to {NICKNAME_MAX} characters")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ValueError("a nickname may not hold control characters")
    return name


class CreateTable(BaseModel):
    """A new table: the variant, the rounds, against the AI (at a level) or a friend; your seat."""

    model_config = ConfigDict(extra="ignore")

    variant: Variant = "base"
    rounds: int = Field(1, ge=1, le=99)
    mode: Mode
    level: Level | None = None
    nickname: str
    seat: Literal[0, 1] | None = None

    @field_validator("nickname", mode="before")
    @classmethod
    def _nickname(cls, value: object) -> str:
        return clean_nickname(value)

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

    nickname: str

    @field_validator("nickname", mode="before")
    @classmethod
    def _nickname(cls, value: object) -> str:
        return clean_nickname(value)


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
    seat: int | None = None
    """The seat this browser holds at the table (in ``/api/my-games`` only; None elsewhere)."""


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


class ErrorBody(BaseModel):
    """Every API error."""

    error: str
