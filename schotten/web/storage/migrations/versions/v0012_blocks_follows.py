"""Blocks and follows between players (issue 29): the ``blocks`` and ``follows`` tables, and the
author's account of a chat line (``chat_messages.account_id``: a blocked spectator's lines are hidden
too)."""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the ``blocks`` and ``follows`` tables (who, ``player_id``, chose whom, ``other_id``, when)
    and ``chat_messages.account_id`` (empty for the lines written before)."""
    for table in ("blocks", "follows"):
        op.create_table(
            table,
            sa.Column("player_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
            sa.Column("other_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True, index=True),
            sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        )
    op.add_column("chat_messages", sa.Column("account_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
