"""Tournaments (issue 28): a berserk seat plays without the increment (``games.clock_bare``); an
aborted tournament game scores nothing (``tournament_games.aborted``)."""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``games.clock_bare`` (the seats without increment as bits; NULL: none) and
    ``tournament_games.aborted``."""
    op.add_column("games", sa.Column("clock_bare", sa.Integer(), nullable=True))
    op.add_column("tournament_games", sa.Column("aborted", sa.Boolean(), server_default=sa.false(),
                                                nullable=False))


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
