"""Playing over a network: two peers, each with its own engine, exchanging moves.

The API the rest of the program uses:

``await host_session(*, bind, port, name, seed=None, target=DEFAULT_TARGET, games=None,
record_path=None, on_listening=None, code=None, resume=None, on_warning=...)``
    listen, wait for a peer, do the handshake; returns a :class:`NetSession`
    (a :class:`p2p_spite.session.Session`).  ``port=0`` takes a free port;
    ``on_listening(host, port)`` gets the real one.

``await join_session(*, host, port, name, record_path=None, code=None, resume=None)``
    connect to a host; returns a :class:`NetSession`.  UserError (one line)
    if the host cannot be reached or refuses.

A session is driven by a person (``p2p_spite.ui``) or a computer
(``p2p_spite.bots.driver.run_bot``); nothing here knows which.  Both ends can
run in one process and one event loop (e.g. host on
127.0.0.1 port 0 and a computer joining it).  See docs/protocol.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .connect import host_session, join_session
    from .session import NetSession

# Imported when first used (PEP 562): ``p2p-spite hosts`` needs discovery, not the
# session and the protocol.
_WHERE = {
    "host_session": "connect",
    "join_session": "connect",
    "NetSession": "session",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{where}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "NetSession",
    "host_session",
    "join_session",
]
