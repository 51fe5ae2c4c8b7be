"""Playing again on the same connection: the asyncio side of one match's offer of the
next (docs/protocol.md, *Playing again*; the answers and how they settle are the seat
machine's: :meth:`~p2p_spite.core.machine.SeatMachine.rematch_answer`,
:class:`~p2p_spite.core.rematch.SeatRematch`).

Each side answers once (``rematch{match, yes}``).  When both said yes, this side
sends the next match's ``hello`` at once on a new :class:`~.link.Link` over the same
transport; the old link goes on reading what the peer sent before it read our yes
(pings, chat) until the peer's ``hello`` comes, and hands the transport over from
that frame on (:class:`~.protocol.Handover`).  The next match's handshake is the
usual one; its session comes from the :class:`Successor` that started this one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from ..contracts.news import AgainRefused
from ..contracts.session import Rematch
from ..core.protocol import Endpoint, PeerLeft, PeerRefused
from ..core.rematch import SeatRematch
from ..core.wire import ProtocolError
from .link import Link

REMATCH_WAIT = 300.0  # seconds a side that said yes waits for the other's answer (pings do not count)


S = TypeVar("S")  # the session type of the next match (a NetSession)
S_co = TypeVar("S_co", covariant=True)


class Successor(Protocol[S_co]):
    """How the next match on a connection is made (:mod:`p2p_spite.net.connect`)."""

    def endpoint(self) -> Endpoint:
        """The next match's endpoint: a new handshake, nothing agreed yet."""
        ...

    async def session(self, link: Link) -> S_co:
        """The next match's session, once ``link``'s handshake is done (its own deadline)."""
        ...


class Again(Generic[S]):
    """Waiting for the peer's answer and handing the connection over to the next match
    (``successor`` None: no other match on this connection; ``state``: the machine's
    answers; ``wait``: seconds a yes waits for the peer's answer; ``peer``: the peer's
    name, to say who refused the next match or was refused)."""

    def __init__(
        self,
        successor: Successor[S] | None,
        state: SeatRematch,
        wait: float = REMATCH_WAIT,
        peer: str = "",
    ) -> None:
        self.successor = successor
        self.state = state
        self.peer = peer  # the peer's name in this match (the one agreed for the next)
        self.wait = wait
        self.next_link: Link | None = None  # the next match's link (both said yes)
        self.handed = False  # the transport is the next link's
        self.next: S | None = None  # the next match, once its handshake is done
        self._news = asyncio.Event()  # the peer answered, or is gone
        self._then: list[Callable[[S | None], None]] = []  # told what follows (then())

    @property
    def refused(self) -> AgainRefused | None:
        """The next match was refused before any deal (REFUSED): why."""
        return self.state.refused

    def then(self, fn: Callable[[S | None], None]) -> None:
        """Call ``fn`` once it is known what follows this match on its connection: the next
        match (both said yes, its handshake done), or None: no other (a no, no answer, the
        peer gone, the connection lost, this side leaving).  The watchers follow it."""
        self._then.append(fn)

    def settled(self, nxt: S | None) -> None:
        told, self._then = self._then, []
        for fn in told:
            fn(nxt)

    def heard(self) -> None:
        """The peer's answer came (the machine took it)."""
        self._news.set()

    def lost(self, exc: Exception | None = None) -> None:
        """The peer left, broke the protocol, or the connection closed: no next match
        (a next link still in its handshake fails with it)."""
        self.state.gone = True
        self._news.set()
        if not self.handed:  # (handed over: the next match's handshake tells, by follow())
            self.settled(None)
        link = self.next_link
        if link is not None and not self.handed and not link.handshaken.done():
            link.connection_lost(exc or ConnectionError("the connection closed before the next match"))

    def start(self, old: Link) -> None:
        """Both said yes (StartNext): the next match's hello goes out on ``old``'s transport."""
        assert self.successor is not None and old.transport is not None
        link = Link(self.successor.endpoint(), old.peer_label)
        self.next_link = link
        link.connection_made(old.transport)

    def hand_over(self, old: Link, data: bytes) -> None:
        """The peer's hello came (``data``: that frame and what follows): from here on the
        bytes are the next match's."""
        link, transport = self.next_link, old.transport
        if link is None or transport is None:
            return
        self.handed = True
        old.sink = None
        transport.set_protocol(link)
        if data:
            link.data_received(data)

    async def follow(self) -> Rematch:
        """Our yes went out: wait for the peer's answer (at most :attr:`wait` seconds),
        then for the next match's handshake."""
        st = self.state
        try:
            async with asyncio.timeout(self.wait):
                while st.theirs is None and not st.gone:
                    self._news.clear()
                    await self._news.wait()
        except TimeoutError:
            return Rematch.SILENT
        if (settled := st.waited()) is not None:
            return settled
        assert self.successor is not None and self.next_link is not None
        try:
            self.next = await self.successor.session(self.next_link)
        except PeerLeft:  # (its bye in the next handshake: it left, nothing was refused)
            st.gone = True
            return Rematch.GONE
        except ProtocolError as e:  # refused, by us or the peer, before any deal
            st.gone = True
            self.broken(e)
            return Rematch.REFUSED
        except Exception:  # (the connection closed, or the handshake's deadline passed)
            st.gone = True
            return Rematch.GONE if st.refused is None else Rematch.REFUSED
        return Rematch.STARTED

    def broken(self, e: ProtocolError) -> None:
        """Refused, by us or the peer (``PeerRefused``), after both said yes and before the
        next match's deal: on this match's connection before the peer's next hello (a
        setup there...), or in the next handshake: the next match is refused.  (A bye is
        no refusal; once the next match began, a refusal is that match's.)"""
        if not isinstance(e, PeerLeft):
            self.state.broken(e, self.peer, ours=not isinstance(e, PeerRefused), begun=self.next is not None)
