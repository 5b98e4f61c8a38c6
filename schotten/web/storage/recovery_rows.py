"""The tables of account recovery (``players.recovery``): one-time e-mailed tokens and recovery codes.

They share ``db.Base`` (so ``migrate`` sees them: it imports this module); revision 0014 creates them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from .db import Base


class AccountTokenRow(Base):
    """A one-time link sent by e-mail (``players.recovery``): ``kind`` ``confirm`` (an address to
    confirm, in ``email``) or ``reset`` (a new password); only the SHA-256 of its token is stored."""

    __tablename__ = "account_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    email: Mapped[str | None] = mapped_column(String(254))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    used: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class RecoveryCodeRow(Base):
    """One of an account's recovery codes (``players.recovery``): the SHA-256 of the account id and the
    code, never the code; ``used`` once it reset the password."""

    __tablename__ = "recovery_codes"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
