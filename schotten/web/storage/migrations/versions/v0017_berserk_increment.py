"""A berserk seat plays without the increment (issue 28): ``games.clock_bare``."""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``games.clock_bare`` (the seats without increment as bits; NULL: none)."""
    op.add_column("games", sa.Column("clock_bare", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
