"""How many watch, told by the host to the joiner, with no I/O (docs/protocol.md,
*Watchers*, *How many watch*).

The joiner's hello asks for it (``watchers: true``); the host then sends
``watchers{n, most}`` when the count changes (the shell throttles it).  A peer that
never asked, as one written from the older docs, is never sent one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

from ..session import WatchersChanged
from .handshake import Phase
from .messages import Hello, Message, Role, Watchers
from .wire import Refusal, RemoteProtocolError

# the joiner takes at most this many ``watchers`` a second (bursts of WATCHERS_BURST): an
# honest host sends one a second at most (net/watchcount.py), and one more on a new connection
WATCHERS_RATE: Final = 2.0
WATCHERS_BURST: Final = 5


class Bucket(Protocol):
    def take(self) -> bool: ...


class Greeted(Protocol):
    """What the ledger reads of the handshake: this side's role, the peer's hello, the phase."""

    role: Role
    peer: Hello | None
    phase: Phase


class WatcherCounts:
    """One connection's ``watchers`` messages: the host's to send, the joiner's to check."""

    def __init__(self, send: Callable[[Message], None], hs: Greeted, bucket: Bucket) -> None:
        self._send = send
        self._hs = hs
        self._bucket = bucket
        self._most: int | None = None  # the host's limit, as its first ``watchers`` said

    @property
    def wanted(self) -> bool:
        """The host's side: the joiner asked to be told how many watch."""
        peer = self._hs.peer
        return self._hs.role is Role.HOST and peer is not None and peer.watchers

    def send(self, n: int, most: int) -> bool:
        """The host, in play: tell the joiner ``n`` of ``most`` watch (False: not sent, as it
        did not ask, or the connection is not in play)."""
        if not self.wanted or self._hs.phase is not Phase.PLAY or not 0 <= n <= most:
            return False
        self._send(Watchers(n, most))
        return True

    def take(self, msg: Watchers) -> WatchersChanged:
        """The joiner: the host's count (checked: from the host, not a flood, one limit)."""
        if self._hs.role is not Role.JOIN:
            raise RemoteProtocolError("watchers: only the host counts its watchers", Refusal.UNEXPECTED)
        if not self._bucket.take():
            raise RemoteProtocolError(f"watchers faster than {WATCHERS_RATE:g} a second", Refusal.FLOOD)
        if self._most is not None and msg.most != self._most:
            raise RemoteProtocolError(
                f"watchers: the host let in at most {self._most}, now says {msg.most}", Refusal.MALFORMED
            )
        self._most = msg.most
        return WatchersChanged(msg.n)


__all__ = ["WATCHERS_BURST", "WATCHERS_RATE", "WatcherCounts"]
