"""How many watch, told by the host to the joiner, with no I/O (docs/protocol.md,
*Watchers*, *How many watch*).

The joiner's hello asks for it (``watchers: true``); the host then sends
``watchers{n, most}`` when the count changes, at most one a second
(:class:`CountTold`).  A peer that never asked, as one written from the older docs,
is never sent one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

from ..contracts.session import WatchersChanged
from .effects import Effect, Flush, Show, WakeAt
from .handshake import Phase
from .messages import Hello, Message, Role, Watchers
from .wire import Refusal, RemoteProtocolError

# the joiner takes at most this many ``watchers`` a second (bursts of WATCHERS_BURST): an
# honest host sends one a second at most (CountTold), and one more on a new connection
WATCHERS_RATE: Final = 2.0
WATCHERS_BURST: Final = 5
WATCHERS_EVERY: Final = 1.0  # seconds: the host sends at most one ``watchers`` per this (the last count then)


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


class CountTold:
    """The host's count of watchers, told to the joiner: ``count`` watch now, of the
    ``most`` the host lets in (0: nobody watches, nothing is ever sent).  Sent on change
    only, at most one every ``every`` seconds (the last count then), and again on each
    new connection.  No I/O and no clock: each input brings the connection of the moment
    (its :class:`WatcherCounts`, None while it is lost) and the time ``now``; the effects
    say what to show, when to let the bytes go and when to be woken."""

    def __init__(self, most: int, every: float = WATCHERS_EVERY) -> None:
        self.most = most
        self.every = every
        self.count = 0
        self._last: tuple[WatcherCounts, int] | None = None  # the count last sent, and on which connection
        self._until = 0.0  # no other is sent before this
        self._wake: float | None = None  # a count waits to be sent then

    def set(self, count: int, conn: WatcherCounts | None, now: float) -> list[Effect]:
        """``count`` watch now: the driver is told, and the joiner (throttled)."""
        self.count = count
        return [Show(WatchersChanged(count)), *self.tell(conn, now)]

    def tell(self, conn: WatcherCounts | None, now: float) -> list[Effect]:
        """Send the count if the joiner does not know it (a new connection: it may not),
        unless one went out less than ``every`` seconds ago: then once that time is up."""
        if conn is None or self.most <= 0 or self._wake is not None:
            return []
        last = self._last
        known = 0 if last is None else last[1] if last[0] is conn else None
        if self.count == known:
            return []
        if now < self._until:
            self._wake = self._until
            return [WakeAt(self._until)]
        if not conn.send(self.count, self.most):
            return []
        self._last = (conn, self.count)
        self._until = now + self.every
        return [Flush()]

    def tick(self, conn: WatcherCounts | None, now: float) -> list[Effect]:
        """The time a count waited for has come (or nearly: the clock's grain)."""
        if self._wake is None:
            return []
        self._wake = None
        return self.tell(conn, now)

    def stop(self) -> None:
        """No more counts are sent (the shell drops its wake-up)."""
        self._wake = None


__all__ = ["WATCHERS_BURST", "WATCHERS_EVERY", "WATCHERS_RATE", "CountTold", "WatcherCounts"]
