"""Challenges by name: one signed-in player asks another for a game, who accepts or declines.

| module | job                                                                           |
|--------|-------------------------------------------------------------------------------|
| models | the requests and answers of the challenge routes, the decline reasons          |
| book   | the ``challenges`` table: sent within the limit, listed, closed once, accepted  |
| work   | the refusals, the table an accepted challenge makes, the notices on ``/ws/me`` |

The challenged player hears of it on their own socket (``games.channels``); blocks reach this
package as a callable the service gives it. May import: ``games`` and below.
"""
