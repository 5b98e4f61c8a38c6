"""Reports and moderators (issue 29): accounts' moderator role, mute and ban; reports; the moderation log."""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the accounts' ``moderator``, ``muted_until`` and ``banned``; create ``reports`` and
    ``moderation_log``."""
    op.add_column("accounts", sa.Column("moderator", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column("accounts", sa.Column("muted_until", sa.DateTime(timezone=True), nullable=True))
    op.add_column("accounts", sa.Column("banned", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("reporter_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("text", sa.String(length=500), nullable=True),
        sa.Column("context", sa.Text(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    for column in ("reporter_id", "player_id", "created", "closed"):
        op.create_index(f"ix_reports_{column}", "reports", [column])
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("moderator_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("hours", sa.Float(), nullable=True),
        sa.Column("note", sa.String(length=500), nullable=False),
        sa.Column("report_id", sa.Integer(), sa.ForeignKey("reports.id"), nullable=True),
        sa.Column("time", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_moderation_log_player_id", "moderation_log", ["player_id"])
    op.create_index("ix_moderation_log_time", "moderation_log", ["time"])


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
