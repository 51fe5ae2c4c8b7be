"""The connection of the moment of a :class:`~.session.NetSession`: taking a link
over once its handshake is done, losing it, refusing a peer that did not pay what it
owed in time, and saying goodbye on it.  (The catch-up's deadline and a resignation
asked for while it was down are the seat machine's: ``SeatMachine.owe_catch_up``,
``resign_pending``.)"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from ..contracts.news import News, PeerBack, Stalled
from ..contracts.news import Owed as OwedKind
from ..contracts.session import EndCause
from ..core.game import GameCore
from ..core.machine import SeatMachine
from ..core.private import Port, PrivateDeck
from ..core.protocol import Phase
from ..core.wire import Refusal, RemoteProtocolError
from .acks import Acks
from .link import Link, LinkNews

LINGER = 2.0  # seconds to wait for the peer to see our last bytes when closing


class PeeringSession(Protocol):
    """What the link of the moment reads and does of its :class:`~.session.NetSession`."""

    core: GameCore
    machine: SeatMachine
    peer_name: str
    acks: Acks
    deck: Port | None  # a private deck's way out

    @property
    def closed_for_play(self) -> bool: ...

    def link_news(self, link: Link, ev: LinkNews) -> None: ...

    def give_up(self, news: News, cause: EndCause, code: Refusal | None = None, reason: str = "") -> None: ...


class Peering:
    """``session``'s link to the peer (``link``: None while it is lost); the host's
    ``server`` stays open for a joiner coming back until the match stops."""

    def __init__(self, session: PeeringSession, server: asyncio.AbstractServer | None = None) -> None:
        self.session = session
        self.server = server
        self.link: Link | None = None
        # set by every event, link and loss: what a catch-up wait waits on (a catch-up ends
        # with an action, and every action, a move or a resignation, comes out as an event)
        self.stirred = asyncio.Event()
        self.catch_up_end = 0  # the peer's position at the last sync

    def attach(self, link: Link) -> None:
        """Play over ``link`` (its handshake done): what it lacks is sent first.  (The
        session then arms the catch-up's deadline and reads what came behind.)"""
        s = self.session
        self.link = link
        link.sink = s.link_news  # (what the link hands on goes to the session)
        hs = link.handshaken.result()
        s.machine.peer_holds(hs.peer_position)
        s.acks.wake(s.machine.held)
        self.catch_up_end = hs.peer_position
        s.acks.back.set()
        self.stirred.set()
        deck = PrivateDeck.of(s.core)
        if link.endpoint.phase is Phase.PLAY:
            # An action made between the handshake's history check and now went
            # nowhere (the session had no link): send it before anything else.
            if deck is not None:  # with what this side sent of the private deck, in order
                deck.resync(link.endpoint, hs.peer_position)
            else:
                link.endpoint.send_missing()
            link.flush()
        if deck is not None and s.deck is not None:
            deck.attach(s.deck)

    def lost(self, link: Link) -> bool:
        """``link`` closed: False if it was not the link of the moment."""
        if link is not self.link:
            return False
        self.link = None
        self.session.machine.debts.forgive()
        self.stirred.set()
        self.session.acks.lost()
        return True

    def back_news(self, link: Link) -> PeerBack:
        """The news of the peer coming back over ``link``."""
        hs = link.handshaken.result()
        who = self.session.peer_name
        renamed = hs.peer_name if hs.peer_name and hs.peer_name != who else ""
        game, moves = self.session.core.game_at(hs.resumed_at)
        return PeerBack(who, game, moves, renamed)

    def replace(self) -> None:
        """A returning peer's link takes over: the old one (if we had not noticed it was
        dead) is dropped, without telling the session."""
        old = self.link
        if old is not None:
            self.link = None
            self.session.machine.debts.forgive()
            old.sink = None
            if old.transport is not None:
                old.transport.abort()

    def send_chat(self, text: str) -> None:
        link = self.link
        if link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_chat(text)
            link.flush()

    def close_transport(self) -> None:
        """The match stopped: the link and the listener close (what is queued goes first)."""
        self.session.machine.debts.forgive()
        link = self.link
        if link is not None and link.transport is not None:
            link.flush()
            link.transport.close()
        if self.server is not None:
            self.server.close()

    async def stop_listening(self) -> None:
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.server.wait_closed(), LINGER)

    async def say_bye(self, reason: str) -> None:
        """Leave: ``bye``, then wait (LINGER at most) for the peer to close its side."""
        self.session.machine.debts.forgive()
        link = self.link
        if link is not None and link.transport is not None and not link.transport.is_closing():
            link.endpoint.send_bye(reason)
            link.flush()
            with contextlib.suppress(OSError, RuntimeError):
                if link.transport.can_write_eof():
                    link.transport.write_eof()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(link.closed), LINGER)
            link.transport.close()

    def overdue(self, what: Stalled, code: Refusal) -> None:
        """The peer did not pay what it owes in time: refuse it and stop the match."""
        s, link = self.session, self.link
        if link is None or s.closed_for_play:
            return
        deck = PrivateDeck.of(s.core)
        if code is Refusal.STALLED and deck is not None:
            deck.give_up_reveal()  # (if it was the secret it owed, the record says so)
        owed = {OwedKind.DECK: "a private-deck message", OwedKind.UNDO_ACK: "the ack of an undo"}.get(
            what.owed, "the actions claimed"
        )
        e = RemoteProtocolError(f"{owed} did not come within {what.seconds:g} s", code)  # (the wire's msg)
        link.endpoint.refuse(e.code, str(e))
        link.fail(e)
        s.give_up(what, EndCause.PEER_BROKE_PROTOCOL, code)


__all__ = ["LINGER", "Peering"]
