"""The lobby (issue 26): when a seat of each game last had a socket open (``games.seen``), so the
lobby lists only games someone is at and games against the AI left alone are closed. The games
being played count as seen at the upgrade (nobody said who was at them): none is closed at once.
"""

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``games.seen``, the games being played seen now."""
    with op.batch_alter_table("games") as games:
        games.add_column(sa.Column("seen", sa.DateTime(timezone=True), nullable=True))
    table = sa.table("games", sa.column("status", sa.String(8)),
                     sa.column("seen", sa.DateTime(timezone=True)))
    op.execute(table.update().where(table.c.status == "playing").values(seen=datetime.now(UTC)))


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
