"""Trusted devices (issue 26): the browsers that logged in to an account, whose log-in tries are
counted apart from strangers', and the health check's own row, written to prove the database stores.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``trusted_devices`` and ``health_writes``."""
    op.create_table(
        "trusted_devices",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"]),
        sa.PrimaryKeyConstraint("token_hash", "account_id"),
    )
    with op.batch_alter_table("trusted_devices") as devices:
        devices.create_index(devices.f("ix_trusted_devices_account_id"), ["account_id"], unique=False)
        devices.create_index(devices.f("ix_trusted_devices_expires"), ["expires"], unique=False)
    op.create_table(
        "health_writes",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("written", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
