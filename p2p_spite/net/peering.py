"""The connection of the moment of a :class:`~.session.NetSession`: taking a link
over once its handshake is done, what the peer owes on it (with deadlines), its
catch-up, a resignation asked while it was down, losing it and saying goodbye on it."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from ..core.game import Action, GameCore
from ..core.machine import SeatMachine
from ..core.private import Port, PrivateDeck
from ..core.protocol import Phase
from ..core.wire import Refusal, RemoteProtocolError
from ..news import News, PeerBack, Stalled
from ..news import Owed as OwedKind
from ..session import EndCause
from .acks import Acks
from .link import HANDSHAKE_TIMEOUT, Link, LinkNews

LINGER = 2.0  # seconds to wait for the peer to see our last bytes when closing
CATCH_UP = "catch-up"  # the debt of a peer whose sync claimed actions this side lacks


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

    def make(self, action: Action, *, unseen: bool = False) -> None: ...

    def owe(self, key: str, what: Stalled, code: Refusal) -> None: ...

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
        """Play over ``link`` (its handshake done): what it lacks is sent first."""
        s = self.session
        self.link = link
        link.sink = s.link_news  # (what the link hands on goes to the session)
        hs = link.handshaken.result()
        s.acks.got(hs.peer_position)
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
        if deck is None:  # (a private deck's catch-up interleaves deck work: when the driver acts)
            self.owe_catch_up()
        catching_up = link.endpoint.catching_up
        link.pump()  # play messages that came right behind the handshake
        if not catching_up:  # (else the end of the catch-up asks: link_event)
            self.pending_resignation()

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

    async def caught_up(self) -> None:
        """A catch-up in progress is waited out before a move of the driver's is played.
        (Dropping the move while actions were still on their way, instead of waiting,
        could leave both sides waiting for each other: the catch-up need not bring the
        driver any new event.  The wait is bounded by the catch-up's deadline, which
        stops the session.)"""
        s = self.session
        while not s.closed_for_play:
            link = self.link
            if link is None or not link.endpoint.catching_up:
                break
            self.owe_catch_up()  # (armed at the attach already: its deadline holds)
            self.stirred.clear()  # set again by the next event, link or loss
            await self.stirred.wait()

    def owe_catch_up(self) -> None:
        """The peer's sync claimed actions we lack: each must come within the deadline of
        the one before (its pings do not put it off)."""
        link = self.link
        if link is not None and link.endpoint.catching_up:
            stalled = Stalled(self.session.peer_name, OwedKind.CATCH_UP, HANDSHAKE_TIMEOUT)
            self.session.owe(CATCH_UP, stalled, Refusal.POSITION)

    def caught_action(self, link: Link) -> None:
        """An action the peer's sync claimed came: the next has its deadline afresh."""
        debts = self.session.machine.debts
        if debts.owes(CATCH_UP):
            debts.paid(CATCH_UP)
            if link.endpoint.catching_up:
                self.owe_catch_up()
            else:
                self.ask_again()

    def pending_resignation(self) -> None:
        """A resignation we asked for while the connection was down (or before a crash):
        ours to make if we are on turn now, else asked again."""
        s, link = self.session, self.link
        core = s.core
        g = core.match.game
        if s.closed_for_play or core.finished or g.result is not None or g.game not in core.requests:
            return
        if link is not None and link.endpoint.catching_up:
            return  # the endpoint resigns for us once caught up, if the turn is ours
        if g.turn == core.seat:
            s.make(Action(g.game, core.seat))
        else:
            self.ask_again()

    def ask_again(self) -> None:
        """Off turn in a game we asked to resign: ask the peer (again).  (On turn, once a
        catch-up is over, the endpoint makes the resignation due itself: ActionDue.)"""
        s, link = self.session, self.link
        core = s.core
        g = core.match.game
        if s.closed_for_play or core.finished or g.result is not None or g.game not in core.requests:
            return
        if g.turn != core.seat and link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_resign_request(g.game)
            link.flush()

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


__all__ = ["CATCH_UP", "LINGER", "Peering"]
