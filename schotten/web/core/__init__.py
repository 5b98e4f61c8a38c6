"""What every part of the web app shares: settings, vocabulary, errors, clocks, metrics, messages.

| module     | job                                                             |
|------------|-----------------------------------------------------------------|
| settings   | ``WebSettings``: every setting, read from the environment        |
| vocab      | modes, statuses, endings, rooms, variants, levels                |
| errors     | ``ServiceError``, ``StoreUnavailable``, ``GameDamaged`` and their sentences |
| clock      | time controls and a game's clock (pure values)                   |
| offer      | a rematch offer's states                                         |
| schemas    | the JSON API's bodies (pydantic)                                 |
| messages   | the WebSocket messages a client may send, and error messages     |
| metrics    | the Prometheus counters and histograms                           |

May import: the engine only (the bottom layer of ``schotten.web``).
"""
