"""The analysis board (issue 27): any position pasted in its notation, analysed from the view of the
seat to move only (R10), off the event loop, within ``analysis_iterations`` and ``analysis_rate``
(``board``), and edited by hand one card at a time, each result checked by the engine's reading of a
position (``editor``).

May import: ``games`` and below (``storage``, ``edge``, ``core``, ``bots``, ``engine``).
"""
