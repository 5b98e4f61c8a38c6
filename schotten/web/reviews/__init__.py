"""Game reviews (issue 27): a finished game's every decision judged by ``bots.review``, as jobs in a
queue kept in the database (``queue``), worked on in the background (``worker``), asked for and read
through ``requests``.

May import: ``games`` and below (``storage``, ``edge``, ``core``, ``bots``, ``engine``).
"""
