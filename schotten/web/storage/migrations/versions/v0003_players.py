"""Players (issue 15): accounts, sessions, ratings and their changes, the "Play now" waiting
entries, and the games' accounts, rated flag and rating range.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the five new tables and add the games' new columns."""
    op.create_table('accounts',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('username', sa.String(length=20), nullable=False),
    sa.Column('name_key', sa.String(length=20), nullable=False),
    sa.Column('password_hash', sa.String(length=200), nullable=True),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.Column('deleted', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name_key')
    )
    op.create_table('ratings',
    sa.Column('account_id', sa.Integer(), nullable=False),
    sa.Column('pool', sa.String(length=32), nullable=False),
    sa.Column('rating', sa.Float(), nullable=False),
    sa.Column('rd', sa.Float(), nullable=False),
    sa.Column('volatility', sa.Float(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('wins', sa.Integer(), nullable=False),
    sa.Column('losses', sa.Integer(), nullable=False),
    sa.Column('draws', sa.Integer(), nullable=False),
    sa.Column('played', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], ),
    sa.PrimaryKeyConstraint('account_id', 'pool')
    )
    with op.batch_alter_table('ratings', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_ratings_played'), ['played'], unique=False)
        batch_op.create_index(batch_op.f('ix_ratings_pool'), ['pool'], unique=False)

    op.create_table('sessions',
    sa.Column('id_hash', sa.String(length=64), nullable=False),
    sa.Column('account_id', sa.Integer(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], ),
    sa.PrimaryKeyConstraint('id_hash')
    )
    with op.batch_alter_table('sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sessions_account_id'), ['account_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_sessions_expires'), ['expires'], unique=False)

    op.create_table('pool_entries',
    sa.Column('ticket_hash', sa.String(length=64), nullable=False),
    sa.Column('variant', sa.String(length=16), nullable=False),
    sa.Column('clock_initial', sa.Integer(), nullable=True),
    sa.Column('clock_increment', sa.Integer(), nullable=True),
    sa.Column('clock_days', sa.Integer(), nullable=True),
    sa.Column('rated', sa.Boolean(), nullable=False),
    sa.Column('account_id', sa.Integer(), nullable=True),
    sa.Column('nickname', sa.String(length=64), nullable=False),
    sa.Column('rating', sa.Float(), nullable=True),
    sa.Column('since', sa.DateTime(timezone=True), nullable=False),
    sa.Column('seen', sa.DateTime(timezone=True), nullable=False),
    sa.Column('game_id', sa.String(length=32), nullable=True),
    sa.Column('seat', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], ),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.PrimaryKeyConstraint('ticket_hash'),
    sa.UniqueConstraint('account_id', name='uq_pool_entries_account')
    )
    with op.batch_alter_table('pool_entries', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_pool_entries_since'), ['since'], unique=False)
        batch_op.create_index(batch_op.f('ix_pool_entries_variant'), ['variant'], unique=False)

    op.create_table('rating_changes',
    sa.Column('game_id', sa.String(length=32), nullable=False),
    sa.Column('seat', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('account_id', sa.Integer(), nullable=False),
    sa.Column('pool', sa.String(length=32), nullable=False),
    sa.Column('rating_before', sa.Float(), nullable=False),
    sa.Column('rd_before', sa.Float(), nullable=False),
    sa.Column('rating_after', sa.Float(), nullable=False),
    sa.Column('rd_after', sa.Float(), nullable=False),
    sa.Column('time', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], ),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.PrimaryKeyConstraint('game_id', 'seat')
    )
    with op.batch_alter_table('rating_changes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rating_changes_account_id'), ['account_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_rating_changes_time'), ['time'], unique=False)

    op.add_column("games", sa.Column("account0", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("account1", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("rated", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column("games", sa.Column("min_rating", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("max_rating", sa.Integer(), nullable=True))
    op.create_index("ix_games_account0", "games", ["account0"])
    op.create_index("ix_games_account1", "games", ["account1"])

def downgrade() -> None:
    """Not supported: restore a backup made before the upgrade."""
    raise NotImplementedError("migrations run forward only")
