"""A rematch offer and its states: open, then accepted, withdrawn or declined (each final).

| from | to        | when                                                                 |
|------|-----------|----------------------------------------------------------------------|
| -    | open      | a player of a finished friend game asks for a rematch (a new table)  |
| open | accepted  | the other player takes the seat kept for them at the rematch table   |
| open | withdrawn | the player who asked takes the offer back, the other seat still free |
| open | declined  | the other player says no, their seat still free                      |

A withdrawn or declined offer closes its table (nobody plays there); asking again makes a new
offer at a new table. ``Offer`` is the value; the ``Rematcher`` (``rematch``) moves it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .errors import ServiceError

TOO_LATE = "too late: the other player took the seat, the rematch has started"
"""The error of an offer withdrawn or declined after it was accepted."""


class OfferState(StrEnum):
    """Where a rematch offer is (see the module's table)."""

    OPEN = "open"
    ACCEPTED = "accepted"
    WITHDRAWN = "withdrawn"
    DECLINED = "declined"


CLOSING = (OfferState.WITHDRAWN, OfferState.DECLINED)
"""The two ways an offer is closed before the other seat was taken."""


@dataclass(slots=True)
class Offer:
    """A rematch offer: its table ``id``, the finished ``game``, the seat that asked (``by``) and
    its ``state``."""

    id: str
    game: str
    by: int
    state: OfferState = OfferState.OPEN

    @property
    def closed(self) -> bool:
        """Whether the offer was withdrawn or declined."""
        return self.state in CLOSING

    def accept(self) -> bool:
        """The other seat was taken: an open offer becomes accepted (True if it was open)."""
        if self.state != OfferState.OPEN:
            return False
        self.state = OfferState.ACCEPTED
        return True

    def check_closing(self, seat: int, how: OfferState) -> None:
        """Refuse (409) ``seat`` closing the offer ``how`` (withdrawn or declined): only the seat that
        asked withdraws, only the other one declines, and an accepted offer is no longer open."""
        if how == OfferState.WITHDRAWN and seat != self.by:
            raise ServiceError(409, "only the player who asked for the rematch can withdraw it: "
                               "decline it instead")
        if how == OfferState.DECLINED and seat == self.by:
            raise ServiceError(409, "you asked for this rematch: withdraw the offer instead of declining it")
        if self.state == OfferState.ACCEPTED:
            raise ServiceError(409, TOO_LATE)

    def told(self) -> dict[str, Any]:
        """The offer as clients are told it: an open or accepted one as ``{"id", "by", "accepted"}``
        (the state message's ``rematch``), a closed one as ``{"id", "by", "reason"}``."""
        if self.closed:
            return {"id": self.id, "by": self.by, "reason": str(self.state)}
        return {"id": self.id, "by": self.by, "accepted": self.state == OfferState.ACCEPTED}
