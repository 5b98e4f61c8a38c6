"""Tournaments (issue 28): ``tournaments``, ``tournament_players`` and ``tournament_games``."""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the three tournament tables and their indexes."""
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("format", sa.String(8), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("clock_initial", sa.Integer(), nullable=True),
        sa.Column("clock_increment", sa.Integer(), nullable=True),
        sa.Column("clock_days", sa.Integer(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("minutes", sa.Integer(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("creator_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("min_rating", sa.Integer(), nullable=True),
        sa.Column("min_games", sa.Integer(), nullable=True),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease", sa.String(32), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_tournaments_starts_at", "tournaments", ["starts_at"])
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("joined", sa.DateTime(timezone=True), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ticket_hash", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("tournament_id", "account_id"),
    )
    op.create_index("ix_tournament_players_account_id", "tournament_players", ["account_id"])
    op.create_table(
        "tournament_games",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("account0", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("account1", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("berserk0", sa.Boolean(), nullable=False),
        sa.Column("berserk1", sa.Boolean(), nullable=False),
        sa.Column("decisions0", sa.Integer(), nullable=False),
        sa.Column("decisions1", sa.Integer(), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("ended", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id"),
    )
    op.create_index("ix_tournament_games_tournament_id", "tournament_games", ["tournament_id"])
    op.create_index("ix_tournament_games_ended", "tournament_games", ["ended"])


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
