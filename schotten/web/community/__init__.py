"""Among strangers: the players one blocks and the players one follows.

| module    | job                                                                          |
|-----------|------------------------------------------------------------------------------|
| relations | a player's list of others (``blocks`` or ``follows``): add, remove, read      |
| blocks    | blocking: the list, who is kept apart (``either_blocks``), whose chat is hidden |
| follows   | following: the list, the followed players' games in progress                 |

The games and Play now reach the blocks through ``games.ports.Apart``; nothing below imports this
package. May import: ``games`` and below.
"""
