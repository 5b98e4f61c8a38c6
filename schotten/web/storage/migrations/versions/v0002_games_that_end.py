"""Games that end (issue 14): the clock, how a game ended and when it last moved, the time each
decision took, chat messages and mutes, and the server's heartbeat.
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the games' clock and ending columns, ``log_entries.spent_ms`` and the three new tables."""
    with op.batch_alter_table("games") as games:
        games.add_column(sa.Column("clock_initial", sa.Integer(), nullable=True))
        games.add_column(sa.Column("clock_increment", sa.Integer(), nullable=True))
        games.add_column(sa.Column("clock_days", sa.Integer(), nullable=True))
        games.add_column(sa.Column("clock_ms0", sa.BigInteger(), nullable=True))
        games.add_column(sa.Column("clock_ms1", sa.BigInteger(), nullable=True))
        games.add_column(sa.Column("clock_seat", sa.Integer(), nullable=True))
        games.add_column(sa.Column("clock_since", sa.DateTime(timezone=True), nullable=True))
        games.add_column(sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
        games.add_column(sa.Column("ended", sa.String(16), nullable=True))
        games.add_column(sa.Column("moved", sa.DateTime(timezone=True), nullable=True))
        games.create_index("ix_games_deadline", ["deadline"])
        games.create_index("ix_games_moved", ["moved"])
    with op.batch_alter_table("log_entries") as entries:
        entries.add_column(sa.Column("spent_ms", sa.BigInteger(), nullable=True))
    op.create_table(
        "chat_messages",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("index", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("room", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.String(400), nullable=False),
        sa.Column("time", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id", "index"),
    )
    op.create_table(
        "chat_mutes",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_table(
        "server_beats",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
