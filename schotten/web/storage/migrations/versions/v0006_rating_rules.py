"""Rating rules (issue 26): why a game created rated changed no rating, kept on its row."""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``games.unrated`` and its index."""
    with op.batch_alter_table("games") as games:
        games.add_column(sa.Column("unrated", sa.String(16), nullable=True))
        games.create_index("ix_games_unrated", ["unrated"])


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
