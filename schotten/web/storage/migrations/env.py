"""Alembic's environment: migrate the connection that ``schotten.web.storage.migrate`` hands over.

There is no alembic.ini and no URL here: the caller opens the connection (the store's engine, so an
in-memory SQLite database is the store's own) and puts it in ``config.attributes["connection"]``.
SQLite gets batch mode (a table is copied where ``ALTER TABLE`` cannot do the change).
"""

from alembic import context

from schotten.web.storage.db import Base

context.configure(
    connection=context.config.attributes["connection"],
    target_metadata=Base.metadata,
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()
