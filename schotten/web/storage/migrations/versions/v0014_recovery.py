"""Account recovery (issue 29): the accounts' confirmed e-mail address, one-time e-mailed tokens and
recovery codes."""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``accounts.email`` and ``email_confirmed``; create ``account_tokens`` and ``recovery_codes``."""
    op.add_column("accounts", sa.Column("email", sa.String(length=254), nullable=True))
    op.add_column("accounts", sa.Column("email_confirmed", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_accounts_email", "accounts", ["email"])
    op.create_table(
        "account_tokens",
        sa.Column("token_hash", sa.String(length=64), primary_key=True),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_account_tokens_account_id", "account_tokens", ["account_id"])
    op.create_index("ix_account_tokens_expires", "account_tokens", ["expires"])
    op.create_table(
        "recovery_codes",
        sa.Column("code_hash", sa.String(length=64), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_recovery_codes_account_id", "recovery_codes", ["account_id"])


def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
