"""Hints at tables against the AI (issue 27): whether a game allows them and how many were used."""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``games.hints`` and ``games.hints_used``."""
    op.add_column("games", sa.Column("hints", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column("games", sa.Column("hints_used", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
