"""The tables of the version before migrations (commit ebc218a): games, log_entries, rematches,
closed_rematches, as its ``create_all`` made them.

A database made by that version has them already (it has no ``alembic_version`` table): only the
missing ones are created (a database older still, from before rematches, lacks the rematch tables,
which that version created on start-up).
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create whichever of the four tables is missing."""
    present = set(sa.inspect(op.get_bind()).get_table_names())
    for name, create in (("games", _games), ("log_entries", _log_entries), ("rematches", _rematches),
                         ("closed_rematches", _closed_rematches)):
        if name not in present:
            create()


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")


def _games() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("ai_level", sa.String(16), nullable=True),
        sa.Column("ai_seat", sa.Integer(), nullable=True),
        sa.Column("player0", sa.String(64), nullable=True),
        sa.Column("player1", sa.String(64), nullable=True),
        sa.Column("token_hash0", sa.String(64), nullable=True),
        sa.Column("token_hash1", sa.String(64), nullable=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_games_status", "games", ["status"])
    op.create_index("ix_games_created", "games", ["created"])


def _log_entries() -> None:
    op.create_table(
        "log_entries",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("index", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("notation", sa.String(400), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("time", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "index"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
    )


def _rematches() -> None:
    op.create_table(
        "rematches",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("rematch_id", sa.String(32), nullable=False),
        sa.Column("by_seat", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game_id"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.UniqueConstraint("rematch_id"),
        sa.ForeignKeyConstraint(["rematch_id"], ["games.id"]),
    )


def _closed_rematches() -> None:
    op.create_table(
        "closed_rematches",
        sa.Column("rematch_id", sa.String(32), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("by_seat", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("rematch_id"),
        sa.ForeignKeyConstraint(["rematch_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
    )
    op.create_index("ix_closed_rematches_game_id", "closed_rematches", ["game_id"])
