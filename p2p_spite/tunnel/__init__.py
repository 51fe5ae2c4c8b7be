"""Playing over the internet: a short code, a sealed channel, a relay when no direct path.

The pieces, each a sans-I/O core with a thin asyncio shell (docs/protocol.md,
"Rendezvous and relay" and "The sealed channel"):

* :mod:`.websocket`: a WebSocket client (RFC 6455), ``ws://`` and ``wss://``.
* :mod:`.mailbox`: a client of magic-wormhole's mailbox server (the rendezvous),
  and the codes (``7-crossover-clockwork``) with :mod:`.wordlist`.
* :mod:`.relay`: a client of magic-wormhole's transit relay.
* :mod:`.hints`: where the other side may be reached, and the race between them.
* :mod:`.failures`: what can go wrong on the way, each a typed error.

The key agreement and the channel are :mod:`.spake2`, :mod:`.hkdf`, :mod:`.aead` and
:mod:`.channel`.
"""
