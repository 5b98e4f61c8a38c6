"""Whether an account may chat and play now: a moderator's mute (for some hours) or ban, and the
sentence that tells the player why (the note of the moderator's last such action)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from ..storage.db import AccountRow, ModerationRow, utc
from ..storage.store import Store


@dataclass(frozen=True, slots=True)
class Standing:
    """An account's standing: muted until when (None: not muted), banned, and the last warning's note."""

    muted_until: datetime | None
    banned: bool
    warning: str | None
    note: str | None
    """The note of the last mute or ban in force (what the player is told)."""

    def muted_sentence(self) -> str:
        """Why a muted account's chat line is refused."""
        until = self.muted_until.strftime("%Y-%m-%d %H:%M UTC") if self.muted_until else "further notice"
        return f"a moderator muted you site-wide until {until}: {self.note or 'no reason given'}"

    def banned_sentence(self) -> str:
        """Why a banned account's log-in is refused."""
        return f"this account is banned by a moderator: {self.note or 'no reason given'}"

    def as_dict(self) -> dict[str, object]:
        """What the player is shown of their own standing."""
        return {"muted_until": self.muted_until.isoformat() if self.muted_until else None,
                "banned": self.banned, "warning": self.warning, "note": self.note}


def standing_of(store: Store, account_id: int, now: datetime) -> Standing:
    """The account's standing at ``now``."""
    with store.use() as session:
        row = session.get(AccountRow, account_id)
        if row is None:
            return Standing(None, False, None, None)
        muted = utc(row.muted_until) if row.muted_until is not None else None
        if muted is not None and muted <= utc(now):
            muted = None
        actions = session.execute(select(ModerationRow.action, ModerationRow.note)
                                  .where(ModerationRow.player_id == account_id)
                                  .order_by(ModerationRow.id.desc()).limit(50)).all()
    banned = row.banned is not None
    in_force = "ban" if banned else "mute" if muted is not None else None
    note = next((n for action, n in actions if action == in_force), None) if in_force else None
    warning = next((n for action, n in actions if action == "warn"), None)
    return Standing(muted, banned, warning, note)


def is_muted(store: Store, account_id: int | None, now: datetime) -> Standing | None:
    """The standing of a muted account (None: no account, or not muted)."""
    if account_id is None:
        return None
    found = standing_of(store, account_id, now)
    return found if found.muted_until is not None or found.banned else None
