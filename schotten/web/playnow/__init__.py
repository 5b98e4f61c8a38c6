"""Play now: the pools of waiting players, pairing them, and handing each their seat.

| module  | job                                                         |
|---------|-------------------------------------------------------------|
| pairing | the pools in the database, who pairs with whom              |
| play    | tickets, rates and answers of the Play now requests          |

May import: ``games`` and below.
"""
