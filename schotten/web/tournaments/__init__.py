"""Tournaments: the pure rules of arenas and Swiss events (scoring, pairing, standings).

| module   | job                                                                    |
|----------|------------------------------------------------------------------------|
| scoring  | an arena player's points, streak and fire; the arena's standings        |
| arena    | an arena's pairing wave: who plays whom among the waiting players       |
| swiss    | a Swiss round's pairing: score groups, no rematch, one bye, seats        |
| standings| Swiss scores and tiebreaks (Buchholz, Sonneborn-Berger) and ranks       |

Pure functions over small frozen values: no storage, no web, no clock (the caller passes the
time). May import: ``schotten.web.core`` only (nothing else of ``schotten.web``).
"""
