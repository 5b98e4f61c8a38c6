"""Hints at tables against the AI (issue 27): whether a game allows them and how many were used."""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``games.hints`` and ``games.hints_used``."""
    with op.batch_alter_table("games") as games:
        games.add_column(sa.Column("hints", sa.Boolean(), nullable=False, server_default=sa.false()))
        games.add_column(sa.Column("hints_used", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
