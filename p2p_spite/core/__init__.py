"""The seat's match core, with no I/O: the match as actions with sequence numbers and a
history hash (:mod:`.game`), the private deck's driver (:mod:`.private`), and the
protocol that two cores speak (:mod:`.wire` frames, :mod:`.messages`, :mod:`.keys`,
:mod:`.protocol`: one connection's state machine, bytes in, events out).

Layers, each importing only from those before it: ``engine``, ``fairdeck``, ``core``,
``storage`` (records and journals), ``net`` (the asyncio shell), ``bots``, ``ui``, ``cli``.
``localsession`` drives a core with no network.
"""
