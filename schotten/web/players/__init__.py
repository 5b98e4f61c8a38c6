"""The players: accounts, passwords and sessions, who is logged in, ratings and profiles.

| module   | job                                                          |
|----------|--------------------------------------------------------------|
| accounts | accounts, argon2 passwords, sessions, log-in tries           |
| identity | who a request is (session cookie) and its seat cookies       |
| ratings  | ratings per pool, rated at a game's end, their changes        |
| rating_rules | which rated games change ratings, why the others do not   |
| glicko2  | the Glicko-2 formulas (pure)                                  |
| people   | names and ratings of the accounts at a table                 |

May import: ``storage``, ``edge``, ``core``.
"""
