"""The HTTP routes: accounts, players, Play now, health and metrics, the pages' languages.

Routes parse a request, call the service or a feature, and shape the answer; no rule lives here.
May import: ``service``, the features, and below. Nothing imports routes but ``app``.
"""
