"""The games being served: each game's state, its changes, its clients, its AI seat and its clock.

The ``Authority`` puts together small objects, each owning one state (see its module). The parts
above this package (chat, the cluster, rematches) are reached through the interfaces of ``ports``:
a process alone runs with ``Alone`` and no Redis code on its path.

May import: ``players``, ``storage``, ``edge``, ``core``.
"""
