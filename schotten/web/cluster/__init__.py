"""Several server processes: the fan-out over Redis, presence, the conductor's lease, catching up.

| module  | job                                                                   |
|---------|-----------------------------------------------------------------------|
| peers   | ``Peers``: this process's side of the cluster (``games.ports.Cluster``) |
| fanout  | the event bus over Redis pub/sub                                      |
| lease   | the conductor's lease in Redis                                        |

May import: ``games`` and below. Only built when ``redis_url`` is set.
"""
