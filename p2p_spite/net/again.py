"""Playing again on the same connection: one match's offer of the next
(docs/protocol.md, *Playing again*).

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

from ..core.protocol import Endpoint, PeerLeft, PeerRefused, Phase
from ..core.wire import ProtocolError
from ..news import AgainRefused
from ..session import Rematch
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
    """This side's answer, the peer's, and the handover to the next match (``successor``
    None: no other match on this connection; ``retire``: called once both said yes, when
    this match's session stops sending; ``wait``: seconds a yes waits for the peer's answer;
    ``peer``: the peer's name, to say who refused the next match or was refused)."""

    def __init__(
        self,
        successor: Successor[S] | None,
        retire: Callable[[], None],
        wait: float = REMATCH_WAIT,
        peer: str = "",
    ) -> None:
        self.successor = successor
        self.peer = peer  # the peer's name in this match (the one agreed for the next)
        self.retire = retire
        self.wait = wait
        self.ours: bool | None = None  # our answer, once given
        self.theirs: bool | None = None  # the peer's, once it came
        self.gone = False  # the peer left, or the connection was lost, before the next match
        self.next_link: Link | None = None  # the next match's link (both said yes)
        self.handed = False  # the transport is the next link's
        self.next: S | None = None  # the next match, once its handshake is done
        self.refused: AgainRefused | None = None  # its handshake was refused (REFUSED): why
        self._news = asyncio.Event()  # the peer answered, or is gone
        self._then: list[Callable[[S | None], None]] = []  # told what follows (then())

    def then(self, fn: Callable[[S | None], None]) -> None:
        """Call ``fn`` once it is known what follows this match on its connection: the next
        match (both said yes, its handshake done), or None: no other (a no, no answer, the
        peer gone, the connection lost, this side leaving).  The watchers follow it."""
        self._then.append(fn)

    def _settled(self, nxt: S | None) -> None:
        told, self._then = self._then, []
        for fn in told:
            fn(nxt)

    @property
    def agreed(self) -> bool:
        return bool(self.ours and self.theirs)

    def answered(self, yes: bool, link: Link) -> None:
        """The peer's ``rematch`` on ``link`` (the endpoint checked it: once, after the
        end, for this match); a yes to our yes starts the next match's handshake."""
        self.theirs = yes
        if self.agreed and self.next_link is None:
            self.start(link)
        self._news.set()

    def lost(self, exc: Exception | None = None) -> None:
        """The peer left, broke the protocol, or the connection closed: no next match
        (a next link still in its handshake fails with it)."""
        self.gone = True
        self._news.set()
        if not self.handed:  # (handed over: the next match's handshake tells, by answer())
            self._settled(None)
        link = self.next_link
        if link is not None and not self.handed and not link.handshaken.done():
            link.connection_lost(exc or ConnectionError("the connection closed before the next match"))

    def start(self, old: Link) -> None:
        """Both said yes: the next match's hello goes out on ``old``'s transport."""
        assert self.successor is not None and old.transport is not None
        self.retire()
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

    async def answer(self, yes: bool, link: Link | None, ended: bool) -> Rematch:
        """Give our answer on ``link`` (None: lost) once the match has ``ended``; a yes
        waits for the peer's (at most :attr:`wait` seconds), then for the next match."""
        first = self.ours is None and ended
        settled = await self._answer(yes, link, ended)
        if first:
            self._settled(self.next if settled is Rematch.STARTED else None)
        return settled

    async def _answer(self, yes: bool, link: Link | None, ended: bool) -> Rematch:
        if self.ours is not None or not ended:
            return Rematch.NOT_OFFERED
        self.ours = yes
        playing = link is not None and link.endpoint.phase is Phase.PLAY
        live = playing and not self.gone and self.successor is not None
        if not yes or not live or self.theirs is False:
            if live and link is not None and self.theirs is not False:
                link.endpoint.send_rematch(False)
                link.flush()
            if self.theirs is False:
                return Rematch.DECLINED
            return Rematch.NOT_OFFERED if not yes else Rematch.GONE
        assert link is not None
        link.endpoint.send_rematch(True)
        link.flush()  # (our yes before the next match's hello)
        if self.theirs and self.next_link is None:
            self.start(link)
        try:
            async with asyncio.timeout(self.wait):
                while self.theirs is None and not self.gone:
                    self._news.clear()
                    await self._news.wait()
        except TimeoutError:
            return Rematch.SILENT
        theirs: bool | None = self.theirs  # (set meanwhile)
        if theirs is False:
            return Rematch.DECLINED
        if self.gone or self.next_link is None:
            return Rematch.GONE if self.refused is None else Rematch.REFUSED
        assert self.successor is not None
        link = self.next_link
        try:
            self.next = await self.successor.session(link)
        except PeerLeft:  # (its bye in the next handshake: it left, nothing was refused)
            self.gone = True
            return Rematch.GONE
        except ProtocolError as e:  # refused, by us or the peer, before any deal
            self.gone = True
            self.broken(e)
            return Rematch.REFUSED
        except Exception:  # (the connection closed, or the handshake's deadline passed)
            self.gone = True
            return Rematch.GONE if self.refused is None else Rematch.REFUSED
        return Rematch.STARTED

    def broken(self, e: ProtocolError) -> None:
        """Refused, by us or the peer (``PeerRefused``), after both said yes and before the
        next match's deal: on this match's connection before the peer's next hello (a
        setup there...), or in the next handshake: the next match is refused.  (A bye is
        no refusal; once the next match began, a refusal is that match's.)"""
        if self.refused is None and self.next is None and not isinstance(e, PeerLeft):
            ours = not isinstance(e, PeerRefused)
            self.refused = AgainRefused(self.peer, e.code.value, str(e), ours=ours)
