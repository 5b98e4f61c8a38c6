"""One waiting entry per browser (issue 26): ``pool_entries`` learns whose browser an entry is (the
hash of its browser key, unique) and the salt its ticket is derived with.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``pool_entries.browser_hash`` (unique) and ``pool_entries.salt``."""
    with op.batch_alter_table("pool_entries") as entries:
        entries.add_column(sa.Column("browser_hash", sa.String(64), nullable=True))
        entries.add_column(sa.Column("salt", sa.String(32), nullable=True))
        entries.create_unique_constraint("uq_pool_entries_browser", ["browser_hash"])


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
