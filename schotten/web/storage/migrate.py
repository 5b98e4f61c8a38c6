"""Bring a database to the newest schema with the Alembic migrations of ``migrations/``.

``upgrade(connection)`` runs on start-up (``Store.create_schema``), inside the caller's transaction:

| the database | what happens |
| --- | --- |
| empty (no ``games`` table) | ``db.Base``'s ``create_all``, stamped at the head (no migration runs) |
| tables, no ``alembic_version``, the head's schema | stamped at the head |
| tables, no ``alembic_version`` (the version before) | 0001 (creates missing tables only), then on |
| at an older revision | its later revisions, in order |
| at the head revision | nothing (a table missing, say dropped by hand, is created empty, as before) |
| at a revision this version does not know | ``UnknownRevision`` (a newer version made it) |

There is no alembic.ini: ``config`` builds Alembic's configuration in code and ``env.py`` migrates the
connection it is handed. ``python -m schotten.web.storage.migrations "what changes"`` writes the next
revision, compared with ``db.py`` (docs/web/storage.md, "Schema migrations").
"""

from __future__ import annotations

import functools
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect

from . import (
    challenge_rows,  # noqa: F401  (its table joins Base's metadata)
    recovery_rows,  # noqa: F401  (its tables are in Base.metadata)
)
from .db import Base, make_engine

MIGRATIONS = Path(__file__).with_name("migrations")
"""The Alembic script folder: ``env.py`` and ``versions/``."""


class UnknownRevision(Exception):
    """The database is at a revision these migrations do not have."""


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for ``connection`` (the one ``env.py`` migrates)."""
    settings = Config()
    settings.set_main_option("script_location", str(MIGRATIONS))
    settings.set_main_option("file_template", "v%%(rev)s_%%(slug)s")
    settings.attributes["connection"] = connection
    return settings


@functools.cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(config())


def head() -> str:
    """The newest revision."""
    newest = _scripts().get_current_head()
    assert newest is not None, "no revision in migrations/versions"
    return newest


def current(connection: Connection) -> str | None:
    """The revision the database is at (None: no ``alembic_version`` table, or an empty one)."""
    return MigrationContext.configure(connection).get_current_revision()


def differences(connection: Connection) -> list[object]:
    """How the database's tables differ from ``db.Base``'s (empty: they are the same)."""
    found: list[object] = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    return found


def upgrade(connection: Connection) -> None:
    """Bring the database of ``connection`` to the head revision (see the module's table)."""
    context = MigrationContext.configure(connection)
    revision = context.get_current_revision()
    if revision == head():
        Base.metadata.create_all(connection)
        return
    if revision is None and not inspect(connection).has_table("games"):
        Base.metadata.create_all(connection)
        context.stamp(_scripts(), "head")
        return
    if revision is None and not differences(connection):
        context.stamp(_scripts(), "head")
        return
    if revision is not None and revision not in {script.revision for script in _scripts().walk_revisions()}:
        raise UnknownRevision(f"its schema is at revision {revision}, which this version of the server "
                              f"does not know (made by a newer version?)")
    command.upgrade(config(connection), "head")


def new_revision(message: str) -> None:
    """Write the next revision into ``migrations/versions``: what ``db.py`` has that the head lacks."""
    engine = make_engine("sqlite://")
    with engine.begin() as connection:
        command.upgrade(config(connection), "head")
        number = f"{int(head()) + 1:04d}"
        command.revision(config(connection), message, autogenerate=True, rev_id=number)
    engine.dispose()
