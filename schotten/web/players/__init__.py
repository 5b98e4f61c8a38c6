"""The players: accounts, passwords and sessions, who is logged in, ratings and profiles.

| module   | job                                                          |
|----------|--------------------------------------------------------------|
| accounts | accounts, argon2 passwords, sessions                         |
| devices  | trusted devices: the browsers that logged in to an account   |
| tries    | log-in tries: rates per address, per browser, per name       |
| identity | who a request is (session cookie) and its seat cookies       |
| recovery | e-mail addresses, one-time reset links, recovery codes       |
| mail     | sending e-mail through the SMTP server (smtplib, blocking)   |
| ratings  | ratings per pool, rated at a game's end, their changes        |
| rating_rules | which rated games change ratings, why the others do not   |
| glicko2  | the Glicko-2 formulas (pure)                                  |
| people   | names and ratings of the accounts at a table                 |
| ranking  | how far a rating is from the leaderboard (games to ranked)    |

May import: ``storage``, ``edge``, ``core``.
"""
