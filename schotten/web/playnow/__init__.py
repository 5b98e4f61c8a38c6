"""Play now: the pools of waiting players, pairing them, and handing each their seat.

| module   | job                                                           |
|----------|---------------------------------------------------------------|
| pairing  | the pools in the database, who pairs with whom                |
| entries  | entering a pool: one entry per browser and per account        |
| browsers | whose browser a request is, the ticket derived from it        |
| counts   | how many wait in each pool, the pool offered to who waits alone |
| play     | tickets, rates and answers of the Play now requests           |

May import: ``games`` and below.
"""
