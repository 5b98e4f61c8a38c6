"""The Alembic migrations of the web app's tables: ``env.py`` and one module per revision in ``versions/``
(run by ``schotten.web.storage.migrate``; docs/web/storage.md, "Schema migrations", says how to add one)."""
