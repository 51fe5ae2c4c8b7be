"""A :class:`~.session.NetSession`'s side of taking back (docs/protocol.md, *Taking
back*): our request and its answer, the peer's request and ours, the undo on the wire
and the wait until the peer holds it before an action of ours."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from ..contracts.errors import StorageError
from ..contracts.news import Owed as OwedKind
from ..contracts.news import Stalled
from ..contracts.session import Event, TakebackAsked, TakebackRefused, Takebacks
from ..core.game import Action, GameCore
from ..core.machine import SeatMachine
from ..core.protocol import MAX_TAKEBACKS, Phase, TakebackAnswered, TakebackRequested, TakenBack
from ..core.wire import Refusal
from ..engine import IllegalMoveError, Played
from ..engine.refusals import Illegal, TakebackOffline, TakebackWaiting, TooManyTakebacks
from ..storage.keeper import RecordKeeper
from .acks import Acks
from .link import Link
from .notices import Outbox
from .peering import Peering

AT_ONCE = 3.0  # seconds take_back() waits for the computer's answer
UNDO_ACK = "undo-ack"  # the debt of a peer that has our undo and has not acknowledged it (SeatMachine.debts)
UNDO_ACK_DEADLINE = 15.0  # seconds it may take (its pings do not count)


class TakebackSession(Protocol):
    """What taking back reads and does of its :class:`~.session.NetSession`."""

    core: GameCore
    machine: SeatMachine
    keeper: RecordKeeper | None
    acks: Acks
    outbox: Outbox
    peer_name: str

    @property
    def peer(self) -> Peering: ...

    @property
    def closed_for_play(self) -> bool: ...

    def put(self, ev: Event) -> None: ...

    def owe(self, key: str, what: Stalled, code: Refusal) -> None: ...

    def make(self, action: Action, *, unseen: bool = False) -> None: ...

    def link_storage_failed(self, link: Link | None, e: BaseException) -> None: ...

    def write_pending(self) -> None: ...


class TakebackSide:
    """How this side answers the peer's requests (``takebacks``), the peer's request
    waiting for the driver's answer (its link), our own request waiting for the peer's,
    the link our last undo went out on until the peer acknowledged it (no action of ours
    before then), and an action due meanwhile."""

    def __init__(self, session: TakebackSession) -> None:
        self.session = session
        self.takebacks = Takebacks.ASK
        self.peer_answers_at_once = False  # the peer is the computer: ask() waits for it
        self._peer_request: tuple[Link, int] | None = None
        self._asking: Played | None = None
        self._undo_link: Link | None = None
        self._due_after_undo: Action | None = None

    async def ask(self) -> Played | None:
        """Ask the peer to let us take back our last move of this turn; its answer comes as
        MoveTakenBack or TakebackRefused.  Returns the move asked about (IllegalMoveError,
        nothing sent, if it cannot be taken back now)."""
        s = self.session
        if not await self.settled():
            raise IllegalMoveError([], TakebackOffline())
        core, link = s.core, s.peer.link
        why: Illegal | None = core.takeback_refusal(core.seat)
        if why is None:
            if link is None or link.endpoint.phase is not Phase.PLAY or link.endpoint.catching_up:
                why = TakebackOffline()
            elif link.endpoint.takebacks.asking:
                why = TakebackWaiting()
            elif link.endpoint.takebacks.asked >= MAX_TAKEBACKS:
                why = TooManyTakebacks(MAX_TAKEBACKS)
        if why is not None:
            raise IllegalMoveError([], why)
        assert link is not None
        played = core.match.last_played()
        assert played is not None
        link.endpoint.send_takeback_request()
        link.flush()
        self._asking = played
        if self.peer_answers_at_once:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._answered(played), AT_ONCE)
            if self._asking is not played:
                return None  # answered: its event follows
        return played

    async def _answered(self, played: Played) -> None:
        s = self.session
        while self._asking is played and not s.closed_for_play:
            s.peer.stirred.clear()
            await s.peer.stirred.wait()

    async def answer(self, yes: bool) -> bool:
        """Answer the peer's takeback request (TakebackAsked); False: it is void (the peer
        played on, or the connection it came on is gone)."""
        s = self.session
        req, self._peer_request = self._peer_request, None
        link = s.peer.link
        if req is None or link is not req[0] or s.closed_for_play or link.endpoint.phase is not Phase.PLAY:
            return False
        sent = link.endpoint.answer_takeback(req[1], yes)
        link.flush()
        return sent

    async def settled(self) -> bool:
        """Before an action of ours: wait until the peer has acknowledged our last undo (or a
        new connection's sync settled it), so that both histories go on from the same
        action (False: the session stopped meanwhile)."""
        s = self.session
        while not s.closed_for_play and self._undo_link is not None:
            link = self._undo_link
            if s.peer.link is not None and (
                s.peer.link is not link or not link.endpoint.takebacks.undo_unacked
            ):
                self._undo_link = None
                break
            s.peer.stirred.clear()  # set again by the next event (the ack), link or loss
            await s.peer.stirred.wait()
        return not s.closed_for_play

    # -- what the link tells ------------------------------------------------------------

    def acted(self) -> None:
        """We made an action: it voids our request."""
        self._asking = None

    def peer_acted(self) -> None:
        """The peer made an action: it voids its request."""
        self._peer_request = None

    def due(self, link: Link, action: Action) -> bool:
        """An action is due while our undo is unacknowledged: kept for later (True)."""
        if link.endpoint.takebacks.undo_unacked:
            self._due_after_undo = action  # (made once the peer has the undo)
            return True
        return False

    def acked(self, link: Link) -> None:
        """The peer acknowledged: once it has our undo, its debt is paid, and an action kept
        for after the undo is made now."""
        if not link.endpoint.takebacks.undo_unacked:
            self.session.machine.debts.paid(UNDO_ACK)
        due, self._due_after_undo = self._due_after_undo, None
        if due is not None and not self.session.closed_for_play:
            self.session.make(due, unseen=True)

    def event(self, link: Link, ev: TakebackRequested | TakebackAnswered | TakenBack) -> None:
        s = self.session
        if isinstance(ev, TakebackRequested):
            self._peer_asks(link, ev)
        elif isinstance(ev, TakebackAnswered):
            if ev.ok:
                self._take_back_own(link, ev.n)
            else:
                self._asking = None
                s.put(TakebackRefused(1 - s.core.seat, rule=ev.rule))
        else:
            self._taken_back_by_peer(link, ev)

    def lost(self) -> None:
        """The link is lost: the peer asks again, if it still wants to; our request went."""
        self._peer_request = self._due_after_undo = None
        if self._asking is not None:
            self._asking = None
            self.session.put(TakebackRefused(1 - self.session.core.seat, lost=True))

    # -- inside ---------------------------------------------------------------------

    def _take_back_own(self, link: Link, n: int) -> None:
        """The peer allowed our takeback of action ``n``: take it back, write it down, tell
        the peer, show it."""
        s = self.session
        core = s.core
        self._asking = None
        if core.position - 1 != n or core.takeback_refusal(core.seat) is not None:
            return  # (cannot happen: our action after the request voided it)
        try:
            s.write_pending()  # (a private deck's tape so far: the journal started afresh holds it once)
            played = core.take_back(core.seat)
            if s.keeper is not None:
                s.keeper.withdraw(n)
        except StorageError as e:
            s.link_storage_failed(link, e)
            return
        link.endpoint.send_undo(n)
        link.flush()
        self._undo_link = link
        # our next action waits for the peer's ack of the undo: a debt with a deadline, which
        # its pings do not put off (a link lost forgives it: the next sync settles the undo)
        stalled = Stalled(s.peer_name, OwedKind.UNDO_ACK, UNDO_ACK_DEADLINE)
        s.owe(UNDO_ACK, stalled, Refusal.STALLED)
        self._put_taken_back(core.seat, played)

    def _taken_back_by_peer(self, link: Link, ev: TakenBack) -> None:
        """The peer took back its action (we allowed it): written down, acknowledged, shown."""
        s = self.session
        try:
            s.write_pending()  # (the tape's takeback line goes into the journal started afresh)
            if s.keeper is not None:
                s.keeper.withdraw(ev.n)
        except StorageError as e:
            s.link_storage_failed(link, e)
            return
        link.endpoint.acknowledge()
        link.flush()
        self._put_taken_back(1 - s.core.seat, ev.played)

    def _put_taken_back(self, seat: int, played: Played) -> None:
        s = self.session
        s.acks.count = min(s.acks.count, s.core.position)  # the action taken back is nobody's now
        for ev in s.core.taken_back(seat, played):
            s.put(ev)
        s.outbox.mark()  # a move chosen on the board before it is dropped

    def _peer_asks(self, link: Link, ev: TakebackRequested) -> None:
        """The peer asks to take back its last move: answered as ``takebacks`` says."""
        s = self.session
        if self.takebacks is Takebacks.ASK:
            self._peer_request = (link, ev.n)
            s.put(TakebackAsked(1 - s.core.seat, ev.played))
            return
        link.endpoint.answer_takeback(ev.n, self.takebacks is Takebacks.ALWAYS, rule=True)
        link.flush()


__all__ = ["AT_ONCE", "TakebackSide"]
