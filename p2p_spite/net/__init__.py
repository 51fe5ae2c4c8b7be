"""Playing over a network: two peers, each with its own engine, exchanging moves.

The API the rest of the program uses:

``await host_session(HostSettings(bind=..., port=..., name=..., ...), on_listening=None,
on_warning=...)``
    listen, wait for a peer, do the handshake; returns a :class:`NetSession`
    (a :class:`p2p_spite.contracts.session.Session`).  ``port=0`` takes a free port;
    ``on_listening(host, port)`` gets the real one.

``await join_session(JoinSettings(host=..., port=..., name=..., ...))``
    connect to a host; returns a :class:`NetSession`.  UserError (one line)
    if the host cannot be reached or refuses.

:class:`~.settings.Settings` holds the options both share (the record, the join
code, a match to resume, the private deck, the grace period, heartbeats, how long
a yes to another match waits).  :class:`~.matches.Matches` plays the matches of
one connection, one after another, as one session.

A session is driven by a person (``p2p_spite.ui``) or a computer
(``p2p_spite.bots.driver.run_bot``); nothing here knows which.  Both ends can
run in one process and one event loop (e.g. host on
127.0.0.1 port 0 and a computer joining it).  See docs/protocol.md.

The commands (:mod:`p2p_spite.commands`) take what they need of the protocol from here,
never from ``p2p_spite.core``: its limits (``DEFAULT_PORT``, ``MAX_GAMES``, ``MAX_TARGET``,
``DEFAULT_WATCHERS``, ``MAX_WATCHERS``), a fresh join code (``new_join_code``) and where a
match's seed came from (``SeedOrigin``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.handshake import SeedOrigin
    from ..core.keys import new_join_code
    from ..core.messages import DEFAULT_PORT, MAX_GAMES, MAX_TARGET, MAX_WATCHERS
    from ..core.watch import DEFAULT_WATCHERS
    from .connect import host_session, join_session
    from .matches import Matches
    from .session import NetSession
    from .settings import HostSettings, JoinSettings

# Imported when first used (PEP 562): ``p2p-spite hosts`` needs discovery, not the
# session and the protocol.
_WHERE = {
    "host_session": "connect",
    "join_session": "connect",
    "NetSession": "session",
    "Matches": "matches",
    "HostSettings": "settings",
    "JoinSettings": "settings",
    # the protocol's own, for the commands (".core.x": p2p_spite.core.x)
    "DEFAULT_PORT": ".core.messages",
    "MAX_GAMES": ".core.messages",
    "MAX_TARGET": ".core.messages",
    "MAX_WATCHERS": ".core.messages",
    "DEFAULT_WATCHERS": ".core.watch",
    "SeedOrigin": ".core.handshake",
    "new_join_code": ".core.keys",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{where}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_PORT",
    "DEFAULT_WATCHERS",
    "MAX_GAMES",
    "MAX_TARGET",
    "MAX_WATCHERS",
    "HostSettings",
    "JoinSettings",
    "Matches",
    "NetSession",
    "SeedOrigin",
    "host_session",
    "join_session",
    "new_join_code",
]
