"""Reconnecting: how long a lost peer is waited for (the grace period), the joiner's
redial with its back-off, and the heartbeat that notices a silent peer."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from ..contracts.news import ConnectionLost, News, PeerStopped, Redialing, WeStopped
from ..contracts.session import EndCause
from ..core.protocol import PeerRefused, Phase
from ..core.wire import ProtocolError, Refusal, RemoteProtocolError

if TYPE_CHECKING:
    from ..core.game import GameCore
    from .link import Link

DEFAULT_GRACE = 60.0  # seconds to wait for a lost peer to come back
HEARTBEAT = 2.0  # seconds between pings
DEAD_AFTER = 10.0  # seconds of silence after which the connection is taken as dead
# refusals after which redialing is pointless
FATAL_REFUSALS = frozenset(
    {
        Refusal.HISTORY,
        Refusal.BEHIND,
        Refusal.OTHER_MATCH,
        Refusal.BAD_CODE,
        Refusal.CODE_NEEDED,
        Refusal.NO_CODE,
        Refusal.VERSION,
        Refusal.DESYNC,
        Refusal.ILLEGAL_MOVE,
        Refusal.SEAT_TAKEN,
        Refusal.NO_MATCH,
        Refusal.NOT_P2P_SPITE,
        Refusal.FLOOD,
        Refusal.BAD_PROOF,
        Refusal.STORAGE,
        Refusal.POSITION,
        Refusal.FORGED,
        Refusal.SEQUENCE,
        Refusal.NOT_PRIVATE,
        Refusal.DECK_FORMAT,
        Refusal.DECK_ORDER,
        Refusal.BAD_SHARE,
        Refusal.BAD_SHUFFLE,
        Refusal.CHEAT,
    }
)

Dial = Callable[["GameCore | None"], Awaitable["Link"]]


class Backoff:
    """Exponential back-off: the first pause is ``first`` seconds, each next one
    twice the last, never more than ``cap``."""

    def __init__(self, first: float = 0.05, cap: float = 1.0) -> None:
        self.delay = first
        self.cap = cap

    async def wait(self) -> None:
        """Sleep for the current pause, then lengthen the next one."""
        await asyncio.sleep(self.delay)
        self.delay = min(self.delay * 2, self.cap)


class ReconnectOwner(Protocol):
    """What a :class:`Reconnector` needs of its session."""

    peer_name: str
    failure: News | None

    @property
    def link(self) -> Link | None: ...

    @property
    def closing(self) -> bool: ...

    def relink(self, link: Link) -> None:
        """A new link to the same peer, its handshake done: play on over it."""

    def give_up(self, news: News, cause: EndCause, code: Refusal | None = None, reason: str = "") -> None:
        """The peer cannot be got back: stop the match."""

    def waited_out(self, news: News) -> None:
        """The grace period ended without a link."""


class Reconnector:
    """Finding a lost peer again, for one session: the grace period (the host keeps
    the seat open, the joiner redials through ``redial``) and the heartbeat (a ping
    every ``heartbeat`` seconds; a link silent for ``dead_after`` seconds is dropped)."""

    def __init__(
        self,
        owner: ReconnectOwner,
        *,
        redial: Callable[[], Awaitable[Link]] | None = None,
        grace: float = DEFAULT_GRACE,
        heartbeat: float = HEARTBEAT,
        dead_after: float = DEAD_AFTER,
    ) -> None:
        self.owner = owner
        self.redial = redial
        self.grace = grace
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self._grace_timer: asyncio.TimerHandle | None = None
        self._dialer: asyncio.Task[None] | None = None
        self._beat: asyncio.Task[None] | None = asyncio.get_running_loop().create_task(self._heartbeat())

    def lost(self) -> Redialing:
        """The link was lost mid-match: wait for the peer (redial it, on the joiner's
        side) for the grace period.  Returns the news that says so."""
        loop = asyncio.get_running_loop()
        if self._grace_timer is None:
            self._grace_timer = loop.call_later(self.grace, self._grace_over)
        if self.redial is not None and (self._dialer is None or self._dialer.done()):
            self._dialer = loop.create_task(self._redial())
        return Redialing(self.owner.peer_name, self.grace, redial=self.redial is not None)

    def back(self) -> None:
        """The peer is back: the grace period ends."""
        self._stop_grace()

    def halt(self) -> None:
        """No more waiting for the peer: the match is over for this side."""
        if self._dialer is not None:
            self._dialer.cancel()
        self._stop_grace()

    def stop(self) -> None:
        """No more heartbeats either: the session is closing."""
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None
        self.halt()

    def _stop_grace(self) -> None:
        if self._grace_timer is not None:
            self._grace_timer.cancel()
            self._grace_timer = None

    def _grace_over(self) -> None:
        self._grace_timer = None
        owner = self.owner
        if owner.link is not None or owner.closing:
            return
        if self._dialer is not None:
            self._dialer.cancel()
        owner.waited_out(ConnectionLost(owner.peer_name, self.grace))

    async def _redial(self) -> None:
        assert self.redial is not None
        owner = self.owner
        backoff = Backoff()
        while owner.link is None and not owner.closing and owner.failure is None:
            try:
                link = await self.redial()
            except PeerRefused as e:
                if e.code in FATAL_REFUSALS:
                    stopped = PeerStopped(owner.peer_name, e.code.value, str(e), resuming=True)
                    owner.give_up(stopped, EndCause.PEER_REFUSED, e.code, str(e))
                    return
            except RemoteProtocolError as e:
                if e.code in FATAL_REFUSALS:
                    refused = WeStopped(owner.peer_name, e.code.value, str(e), resuming=True)
                    owner.give_up(refused, EndCause.PEER_BROKE_PROTOCOL, e.code)
                    return
            except (OSError, ConnectionError, TimeoutError, ProtocolError):
                pass
            else:
                owner.relink(link)
                return
            await backoff.wait()

    async def _heartbeat(self) -> None:
        loop = asyncio.get_running_loop()
        owner = self.owner
        k = 0
        while not owner.closing:
            await asyncio.sleep(self.heartbeat)
            link = owner.link
            if link is None or link.transport is None or link.endpoint.phase is not Phase.PLAY:
                continue
            if loop.time() - link.last_rx > self.dead_after:
                link.fail(ConnectionError(f"{owner.peer_name} went silent"))
                link.transport.abort()
                continue
            k += 1
            link.endpoint.send_ping(k)
            link.flush()
