"""The database: tables, the store of games and their logs, group commit, locks and migrations.

| module     | job                                                                 |
|------------|---------------------------------------------------------------------|
| db         | the SQLAlchemy tables                                               |
| challenge_rows | the ``challenges`` table (its own module: ``db`` is full)       |
| store      | ``Store``: games, logs, seats, clocks, chat rows, rematch links      |
| listing    | the lobby's lists, when each game's seats were last seen            |
| writer     | group commit: the entries of many games stored in one transaction   |
| dblock     | the SQLite file's lock (one serving process)                        |
| pglock     | PostgreSQL's advisory lock (one serving group)                      |
| migrate    | Alembic, configured in code; ``migrations/`` holds the revisions    |

May import: ``edge``, ``core``. What the other layers keep in the database beside a game (ratings)
reaches the store's transactions through the hooks it offers (``Store.on_finished``).
"""
