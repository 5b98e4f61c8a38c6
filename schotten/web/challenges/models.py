"""What the challenge routes take and answer (docs/web/challenges.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..core.schemas import ClockSpec, Variant

Reason = Literal["generic", "later", "too_fast", "too_slow", "casual", "rated", "variant"]
"""Why a challenge is declined (lichess's list): generic, not now, too fast, too slow, casual only,
rated only, not this variant."""
State = Literal["pending", "accepted", "declined", "cancelled", "expired"]


class NewChallenge(BaseModel):
    """A challenge: whom (``player``, their username), the variant, the clock (as a table's), rated or
    casual, and the challenger's seat (None: drawn when it is accepted)."""

    model_config = ConfigDict(extra="ignore")

    player: str = Field(min_length=1, max_length=40)
    variant: Variant = "base"
    clock: ClockSpec | None = None
    rated: bool = Field(False, strict=True)
    seat: Literal[0, 1] | None = None

    @model_validator(mode="after")
    def _rated_needs_clock(self) -> NewChallenge:
        if self.rated and self.clock is None:
            raise ValueError('a rated game needs a clock: give "clock" (real-time or days per move)')
        return self


class Decline(BaseModel):
    """Declining a challenge, with a reason."""

    model_config = ConfigDict(extra="ignore")

    reason: Reason = "generic"


class ChallengeView(BaseModel):
    """A challenge as its two players see it; ``seat`` is the challenger's (None: drawn at accept)."""

    id: str
    challenger: str
    player: str
    variant: str
    clock: dict[str, int] | None
    rated: bool
    seat: int | None
    state: State
    reason: Reason | None = None
    game: str | None = None
    url: str | None = None
    created: str
    expires: str
    expires_in: int
    """Milliseconds until it expires (0 once it is no longer pending)."""


class ChallengeList(BaseModel):
    """One's challenges of the last minutes: those sent to one and those one sent."""

    incoming: list[ChallengeView]
    outgoing: list[ChallengeView]


class Accepted(BaseModel):
    """An accepted challenge: its table, the accepter's seat (the seat cookie is set) and its page."""

    id: str
    game: str
    seat: int
    url: str
