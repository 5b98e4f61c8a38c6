"""Challenges by name (issue 29): one account asks another for a game."""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``challenges``."""
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("challenger_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("variant", sa.String(length=16), nullable=False),
        sa.Column("clock_initial", sa.Integer(), nullable=True),
        sa.Column("clock_increment", sa.Integer(), nullable=True),
        sa.Column("clock_days", sa.Integer(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("hidden", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    for column in ("challenger_id", "player_id", "expires"):
        op.create_index(f"ix_challenges_{column}", "challenges", [column])


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
