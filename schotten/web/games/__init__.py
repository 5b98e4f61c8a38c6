"""The games being served: each game's state, its changes, its clients, its AI seat and its clock.

``authority.Authority`` puts together small parts, each owning one state (its module has the
table). Where a change goes:

| change to ...                               | module                      |
|---------------------------------------------|-----------------------------|
| a game's cached state, loading, damage      | ``tables``, ``live``        |
| acting, undoing, ending (what is stored)    | ``play``, ``endings``       |
| what clients are sent                       | ``outbound``, ``news``      |
| the AI's moves, its pool and its fairness   | ``aiseat``, ``ai``, ``scheduler`` |
| clocks, time-outs, abandonment              | ``conductor``, ``timekeeper`` |
| seats and spectators coming and going      | ``presence``                |
| opening and joining tables                  | ``opening``                 |
| the socket protocol, its limits             | ``sockets``, ``host``       |
| a player's own socket; closing a ban's or a log-out's sockets | ``channels``, ``closing`` |
| the log format, replay, the undo rule       | ``gamelog``                 |
| the cache's size                            | ``eviction``                |

The parts above this package (the chat, the cluster) are reached through the interfaces of
``ports``: a process alone runs ``ports.Alone`` and no Redis code is on its path.

May import: ``players``, ``storage``, ``edge``, ``core``.
"""
