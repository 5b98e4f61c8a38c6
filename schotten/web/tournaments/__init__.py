"""Tournaments: the rules of arenas and Swiss events (scoring, pairing, standings) and their running.

| module   | job                                                                    |
|----------|------------------------------------------------------------------------|
| scoring  | an arena player's points, streak and fire; the arena's standings        |
| arena    | an arena's pairing wave: who plays whom among the waiting players       |
| swiss    | a Swiss round's pairing: score groups, no rematch, one bye, seats        |
| standings| Swiss scores and tiebreaks (Buchholz, Sonneborn-Berger) and ranks       |
| records  | a tournament's rows as values; join, withdraw, pause, cancel            |
| director | the lease, the start, arena waves, Swiss rounds and the end, once each  |
| results  | results from the games' endings (``Store.on_finished``)                 |
| views    | what the API shows: the list, one tournament, ``you``                   |
| running  | the routes' work and this process's director                            |

The first four are pure functions over small frozen values (no storage, no web, no clock) and
import ``schotten.web.core`` at most. The others may import ``games``, ``players`` and ``storage``.
"""
