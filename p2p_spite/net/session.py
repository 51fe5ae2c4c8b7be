"""The asyncio side: a :class:`NetSession` per seat, over a :class:`~p2p_spite.net.link.Link`.

The session takes over a link after its handshake: the endpoint's events come out
here as the seat's events; lost links are waited for (grace) or redialled, and
pinged (heartbeat).  Starting one: :mod:`p2p_spite.net.connect`.  Both ends of a
match can live in one process and one event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from enum import Enum

from ..contracts.errors import SessionClosed, StorageError, storage_problem
from ..contracts.news import (
    CannotKeepRecord,
    ConnectionLost,
    News,
    PeerLeft,
    PeerStopped,
    RecordNotAmended,
    Stalled,
    WeStopped,
)
from ..contracts.session import (
    ChatReceived,
    ConnectionChanged,
    EndCause,
    Ending,
    Event,
    LinkState,
    Notice,
    Rematch,
    SessionFailed,
)
from ..core.deckside import DeckSide
from ..core.effects import (
    Amend,
    DropLink,
    Effect,
    Flush,
    GiveUp,
    MakeDue,
    MakeDurable,
    PeerHolds,
    PeerOverdue,
    Redial,
    Show,
    StartNext,
    Unseen,
    WaitedOut,
    WakeAt,
    Withdraw,
    WorkAhead,
    WriteEntry,
    WriteTape,
)
from ..core.game import Action, Committed, GameCore
from ..core.liveness import Liveness
from ..core.machine import SeatMachine
from ..core.messages import DeckBody
from ..core.private import Port, PrivateDeck
from ..core.protocol import (
    Acked,
    ActionDue,
    ActionReceived,
    Endpoint,
    Handover,
    PeerBye,
    PeerRefused,
    RematchReceived,
    SeedOrigin,
    TakebackAnswered,
    TakebackRequested,
    TakenBack,
)
from ..core.seat import CoreSeat
from ..core.wire import ProtocolError, Refusal
from ..engine import IllegalMoveError, Move, Played
from ..engine.refusals import TakebackOffline
from ..storage.keeper import RecordKeeper
from .acks import Acks
from .again import Again, Successor
from .link import HANDSHAKE_TIMEOUT, Link, LinkBroken, LinkLost, LinkNews, OwnerEvent
from .notices import Outbox
from .peering import Peering
from .reconnect import Backoff, Dial
from .settings import HostSettings, Settings

AT_ONCE = 3.0  # seconds take_back() waits for the computer's answer


class Life(Enum):
    """Where a session is in its life: its one state."""

    PLAYING = "playing"  # moves may be made
    OVER = "over"  # the match is over (MatchEnded told)
    FAILED = "failed"  # it could not go on (SessionFailed told: ``failure``, ``ending`` say why)
    CLOSED = "closed"  # this side left before the end (or after a failure)
    CLOSED_OVER = "closed-over"  # this side left after the end
    HANDED = "handed"  # its connection went on to the next match (play again)


_ENDED = frozenset({Life.OVER, Life.CLOSED_OVER, Life.HANDED})
_CLOSING = frozenset({Life.CLOSED, Life.CLOSED_OVER, Life.HANDED})
_LIVE = frozenset({Life.PLAYING, Life.OVER})  # the link matters: losing it is news


class NetSession(CoreSeat):
    """One seat's side of a network match: the :class:`~p2p_spite.contracts.session.Session` contract.

    If the connection drops mid-match, the joiner redials and the host keeps
    the seat open for ``grace`` seconds (ConnectionChanged events say so); the
    two sides then compare histories and go on from the exact action where
    they stopped.  Heartbeats (a ping every ``heartbeat`` seconds) notice a
    silent peer after ``dead_after`` seconds.
    """

    def __init__(
        self,
        core: GameCore,
        link: Link,
        keeper: RecordKeeper | None,
        peer_name: str,
        settings: Settings,
        *,
        server: asyncio.AbstractServer | None = None,
        dial: Dial | None = None,
        seed_by: SeedOrigin | None = SeedOrigin.BOTH,
        successor: Successor[NetSession] | None = None,
        watched: Callable[[NetSession], None] | None = None,
    ) -> None:
        hs = link.handshaken.result()
        self.core = core
        self.peer_name = peer_name or ("host" if core.seat == 1 else "joiner")
        most = settings.watchers if isinstance(settings, HostSettings) else 0
        held = max(hs.resumed_at, hs.peer_position)  # what the peer holds of our actions
        g, dead = settings.grace, settings.dead_after  # (the grace period, the heartbeat's verdict)
        live = Liveness(self.peer_name, grace=g, dead_after=dead, redials=dial is not None)
        # what to do, in order: the effects
        self.machine = SeatMachine(core, watchers=most, peer_name=self.peer_name, held=held, live=live)
        self.takeback = self.machine.takeback  # (how this side answers takeback requests)
        self._waker: asyncio.TimerHandle | None = None  # the machine's WakeAt
        self.keeper = keeper
        self.resumed_at = hs.resumed_at
        self.seed_by = seed_by  # who chose the seed (None: a record from before it was kept)
        self.acks = Acks()  # who waits for the peer to hold our actions
        self.life = Life.PLAYING
        self.record_dropped = False  # left before its first move: no record kept (_nothing_to_keep)
        self.failure: News | None = None  # why the session failed, for the user ...
        self.ending: Ending | None = None  # ... and why, as data
        self.peer = Peering(self, server)  # the connection of the moment (and the host's listener)
        self.outbox = Outbox(self.peer.stirred.set)  # what the driver is told
        self._observers: list[Callable[[Event], None]] = []  # see observe()
        # the joiner's redial of a lost host (Redial), and the heartbeat
        self._redial_host = (lambda: dial(core)) if dial is not None else None
        self._dialer: asyncio.Task[None] | None = None
        self._beat: asyncio.Task[None] | None = asyncio.get_running_loop().create_task(
            self._heartbeat(settings.heartbeat)
        )
        # another match on this connection
        self.again = Again(successor, self.machine.rematch, settings.rematch_wait, self.peer_name)
        # a private deck's way out (through the machine) and what its waits wait on
        self.deck: Port | None = None
        self.deck_moved = asyncio.Event()  # the private deck moved on (or the session stopped)
        if (d := PrivateDeck.of(core)) is not None:
            self.deck = DeckPort(self._deck_sent, self.put)
            d.on_change = self.deck_moved.set
            d.on_outcome = self._deck_outcome
        for ev in core.start_events():
            self.put(ev)
        if core.finished:
            self._finish()
        if watched is not None:  # the host's watchers: the table now, then every event
            watched(self)  # (before the link brings the peer's first move)
        self._attach(link)

    # -- the Session contract ------------------------------------------------------

    @property
    def life(self) -> Life:
        """Where the session is in its life (the machine is told each change)."""
        return self._life

    @life.setter
    def life(self, life: Life) -> None:
        self._life = life
        self.machine.stage(playing=life is Life.PLAYING, ended=life in _ENDED)

    @property
    def record_path(self) -> str | None:
        """The record's file (None: no record, or none kept: :attr:`record_dropped`)."""
        return str(self.keeper.path) if self.keeper is not None and not self.record_dropped else None

    def _nothing_to_keep(self) -> bool:
        """The match was left before its first move, with no game resigned (resuming it
        would only deal the same cards again) and no cheat caught at the deal: its record
        is not kept.  While the session runs the file exists (a killed process leaves it,
        resumable); :meth:`close` removes it, and no event names it meanwhile."""
        m = self.core.match
        deck = PrivateDeck.of(self.core)
        evidence = deck is not None and any(isinstance(o, dict) for o in deck.outcomes)
        return not m.total_moves and all(r is None for r in m.results) and not evidence

    @property
    def link(self) -> Link | None:
        """The connection to the peer (None while it is lost)."""
        return self.peer.link

    @property
    def closing(self) -> bool:
        return self.life in _CLOSING

    @property
    def ended(self) -> bool:
        """The match is over (MatchEnded told)."""
        return self.life in _ENDED

    @property
    def acked(self) -> int:
        """The peer holds the first ``acked`` actions."""
        return self.machine.held

    async def wait_acked(
        self, n: int, timeout: float | None = None, *, through_reconnects: bool = False
    ) -> bool:
        """Wait until the peer has acknowledged the first ``n`` actions (False on timeout,
        or on a lost connection unless ``through_reconnects``)."""
        stopped, linked = (lambda: self.life not in _LIVE), (lambda: self.peer.link is not None)
        held = lambda: self.machine.held  # noqa: E731
        return await self.acks.wait(
            n, timeout, held=held, through_reconnects=through_reconnects, stopped=stopped, linked=linked
        )

    async def play(self, move: Move) -> None:
        """Play ``move`` (IllegalMoveError if it is not legal).  A move chosen on a board
        that has changed since (the peer is catching us up with actions our journal lost,
        whose events the driver has not seen yet) is dropped: the events that follow
        show the board as it is now."""
        self._check_open()
        if not await self._fresh() or not await self._undo_settled():
            return
        core = self.core
        core.check_move(move, core.seat)
        action = Action(core.match.game_number, core.seat, move)
        if (deck := PrivateDeck.of(core)) is not None:
            # an action we announced before a restart is binding: it is the one we make
            action = deck.own_pending() or action
            if not await self._announced(action):
                return
        self.make(action)

    async def resign(self) -> None:
        """Resign the current game, at any time.  On turn, the resignation is our next
        action; off turn, it is a request that the peer (on turn) makes its next action
        (or that we make ours, if the turn comes to us first): docs/protocol.md."""
        self._check_open()
        if not await self._fresh():
            return
        core = self.core
        if core.match.game.turn == core.seat:
            if not await self._undo_settled():
                return
            action = core.check_resign(core.seat)
            if not await self._announced(action):
                return
            self.make(action)
            return
        asked = core.match.game.game in core.requests
        game = core.request_resign()  # (off turn: the peer is asked to make it)
        if not asked and self.keeper is not None:
            try:
                self.keeper.request(game)  # written down (fsynced) before it is sent
            except StorageError as e:
                self.link_storage_failed(self.peer.link, e)
                return
        link = self.peer.link  # (asked now, if the link is up)
        self._perform(link, self.machine.resign_again(_endpoint(link), closed=self.closed_for_play))

    async def chat(self, text: str) -> None:
        self._check_open()
        self.peer.send_chat(text)

    async def take_back(self) -> Played | None:
        """Ask to take back our last move of this turn: the move asked about (its answer
        comes as MoveTakenBack or TakebackRefused; None: the computer answered at once, its
        event follows); IllegalMoveError, nothing sent, if it cannot be taken back now."""
        self._check_open()
        await self._fresh()
        if not await self._undo_settled():
            raise IllegalMoveError([], TakebackOffline())
        link = self.peer.link
        played, fx = self.machine.ask_takeback(_endpoint(link))
        self._perform(link, fx)
        tb = self.machine.takeback
        if tb.peer_answers_at_once:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._until(lambda: tb.asking is not played), AT_ONCE)
            if tb.asking is not played:
                return None  # answered: its event follows
        return played

    async def answer_takeback(self, yes: bool) -> bool:
        """Answer the peer's takeback request (False: it is void)."""
        link = self.peer.link
        sent, fx = self.machine.answer_takeback(yes, None if self.closed_for_play else _endpoint(link))
        self._perform(link, fx)
        return sent

    async def _undo_settled(self) -> bool:
        """Before an action of ours: wait until the peer holds our last undo
        (SeatMachine.undo_waits); False: the session stopped meanwhile."""
        await self._until(lambda: not self.machine.undo_waits(_endpoint(self.peer.link)))
        return not self.closed_for_play

    async def _until(self, done: Callable[[], bool]) -> None:
        """Wait until ``done()`` or the session stops (asked again after every event, link
        or loss)."""
        while not done() and not self.closed_for_play:
            self.peer.stirred.clear()
            await self.peer.stirred.wait()

    async def close(self, reason: str = "quit") -> None:
        """Leave: once the match is over, first make sure the peer has every action
        (reconnecting if need be, up to the grace period)."""
        if self.closing:
            return
        self.again.lost()  # (a yes to another match waiting for the peer's answer: no more)
        if self.life is Life.OVER and self.acked < self.core.position:
            await self.wait_acked(self.core.position, self.machine.live.grace, through_reconnects=True)
        if self.life is Life.OVER:
            await self._wait_reveal()
        await self._leave()
        if self.closing:
            return  # (closed meanwhile)
        was, self.life = self.life, Life.CLOSED_OVER if self.life is Life.OVER else Life.CLOSED
        self.deck_moved.set()
        if was is Life.PLAYING:
            self.put(ConnectionChanged(LinkState.CLOSED))
        await self._shutdown(reason)

    def hang_up(self) -> None:
        """This side goes away without a word (its terminal closed): to the peer a lost
        connection, as after ``kill -9``.  No bye: the peer keeps the seat for its grace
        period (or redials); the record and its journal stay as they are, so that both
        can go on with ``--resume``.  A match over or stopped is closed as usual."""
        if self.life is not Life.PLAYING:
            return
        self.life = Life.CLOSED
        self._quiet()
        self.peer.close_transport()

    async def next_event(self) -> Event:
        return await self.outbox.get()

    def event_nowait(self) -> Event | None:
        """The next event if one is waiting, else None."""
        return self.outbox.get_nowait()

    async def rematch(self, yes: bool) -> Rematch:
        """The match is over: this side's answer to another match on this connection
        (:class:`~.again.Again`; STARTED: :attr:`again` ``.next`` is its session)."""
        ended, again = self.life is Life.OVER, self.again
        first = self.machine.rematch.ours is None and ended
        link = self.peer.link
        ep = _endpoint(link) if again.successor is not None else None
        settled, fx = self.machine.rematch_answer(yes, ep, ended)
        self._perform(link, fx)
        if settled is None:
            settled = await again.follow()
        if first:
            again.settled(again.next if settled is Rematch.STARTED else None)
        return settled

    def _retire(self) -> None:
        """Both said yes: this match's connection goes on to the next one (its server too).
        Nothing more is sent for this match (no pings, no bye); its link reads on up to
        the peer's next hello (:meth:`link_event`, Handover)."""
        self.life = Life.HANDED
        self.peer.server = None  # (the next match's now)
        self.machine.debts.forgive()
        self._quiet()

    def _quiet(self) -> None:
        """No more notices, heartbeats or private-deck deadlines."""
        self.outbox.notices.stop()
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None
        self._halt()
        self.machine.quiet()
        if self._waker is not None:
            self._waker.cancel()
            self._waker = None
        self.deck_moved.set()

    @property
    def closed_for_play(self) -> bool:
        """No more moves: the match ended, failed or was closed."""
        return self.life is not Life.PLAYING

    def _check_open(self) -> None:
        if self.closed_for_play:
            raise SessionClosed(self.failure or "the session is closed")

    def put(self, ev: Event) -> None:
        """Queue ``ev`` for the driver, then show it to the observers (observe())."""
        self.outbox.put(ev)
        for fn in self._observers:  # (after: what an observer puts comes after ``ev``)
            fn(ev)

    def observe(self, fn: Callable[[Event], None]) -> None:
        """Call ``fn`` with every event from now on, as it is queued for the driver (the
        watchers' hub, net/watch.py: it must return at once, whatever its watchers do)."""
        self._observers.append(fn)

    async def _fresh(self) -> bool:
        """May a move the driver chose now be played?  Not if the driver has not yet seen
        the peer's latest actions (a catch-up in progress is waited out first: Peering):
        it was chosen on an old board, and the events still to read show the board as it is."""
        while not self.closed_for_play and (link := self.peer.link) is not None and link.endpoint.catching_up:
            self._owe_catch_up(link)  # (armed at the attach already: its deadline holds)
            self.peer.stirred.clear()  # set again by the next event, link or loss
            await self.peer.stirred.wait()
        self._check_open()
        return self.outbox.seen

    def _attach(self, link: Link) -> None:
        """Play over ``link``: a private deck's tape noted so far written before what was
        sent goes again (a restarted seat's next secret, before its KEY); then the link
        taken over (Peering.attach), the peer's catch-up owed, what came right behind the
        handshake read, then a resignation asked for while it was down."""
        if not self._perform(link, self.machine.tape()):
            return  # (the session has stopped)
        self.peer.attach(link)
        if PrivateDeck.of(self.core) is None:  # (a private deck's catch-up interleaves deck work)
            self._owe_catch_up(link)
        catching_up = link.endpoint.catching_up
        link.pump()  # (play messages that came right behind the handshake)
        if not catching_up:  # (else the end of the catch-up asks: caught_action)
            self._perform(link, self.machine.resign_pending(link.endpoint, closed=self.closed_for_play))
        self._linked(link)  # (the peer may have missed the last count of watchers)

    def _owe_catch_up(self, link: Link) -> None:
        now = asyncio.get_running_loop().time()
        self._perform(link, self.machine.owe_catch_up(link.endpoint, HANDSHAKE_TIMEOUT, now))

    def notice(self, news: News, *, merged: bool = False) -> None:
        """Tell the driver something that changes nothing in the match (throttled:
        :class:`~p2p_spite.net.notices.Notices`; ``merged``: ``news`` already sums up
        many, told at once)."""
        self.outbox.notices.tell(news, merged=merged)

    def make(self, action: Action, *, unseen: bool = False) -> None:
        """Make an action of this seat's (checked legal).  ``unseen``: the protocol made it,
        not the driver (a resignation due: ActionDue).  It voids our takeback request."""
        self.machine.acting()
        self._settle(self.peer.link, self.core.commit(action), None, unseen=unseen)

    def _settle(
        self, link: Link | None, done: Committed, received: ActionReceived | None, *, unseen: bool
    ) -> None:
        """The action just applied to the core (ours, or ``received`` from the peer): the
        machine's effects carried out in their order (written down, told to the peer, the
        record's checkpoint, shown), then the next game dealt.  ``unseen``: the driver did
        not make it (a move it chose before seeing this one was chosen on an old board)."""
        core = self.core
        ep = link.endpoint if link is not None else None
        if not self._perform(link, self.machine.settle(done, ep, received)):
            return  # a write failed: the session has stopped
        self._perform(link, self.machine.deal())
        if unseen:
            self.outbox.mark()
        if core.finished:
            self._finish()
        elif received is None and (deck := PrivateDeck.of(core)) is not None:
            due = deck.due_request()
            if due is not None:
                self.make(due, unseen=True)

    def _perform(self, link: Link | None, effects: list[Effect]) -> bool:
        """Carry out the machine's ``effects`` in their order; False if a write failed
        (the session has stopped: nothing after it is done)."""
        keeper = self.keeper
        for fx in effects:
            try:
                if isinstance(fx, Show):
                    self.put(fx.event)
                elif isinstance(fx, Flush):
                    if link is not None:
                        link.flush()
                elif isinstance(fx, WakeAt):
                    self._wake_at(fx.when)
                elif isinstance(fx, PeerOverdue):
                    self.peer.overdue(fx.what, fx.code)
                elif isinstance(fx, PeerHolds):
                    self.acks.wake(fx.n)
                elif isinstance(fx, Unseen):
                    self.outbox.mark()  # a move chosen on the board before it is dropped
                elif isinstance(fx, Redial):
                    if self._redial_host is not None and (self._dialer is None or self._dialer.done()):
                        self._dialer = asyncio.get_running_loop().create_task(self._redial(self._redial_host))
                elif isinstance(fx, WaitedOut):
                    if not self.closing:
                        self._halt()
                        self._waited_out(fx.news)
                elif isinstance(fx, DropLink):
                    if link is not None and link.transport is not None:
                        link.fail(ConnectionError(fx.why))
                        link.transport.abort()
                elif isinstance(fx, GiveUp):
                    self.give_up(fx.news, fx.cause, fx.code, fx.reason)
                elif isinstance(fx, StartNext):
                    if link is not None:
                        self._retire()
                        self.again.start(link)
                elif isinstance(fx, MakeDue):
                    if not self.closed_for_play:
                        self.make(fx.action, unseen=fx.unseen)
                elif isinstance(fx, WorkAhead):
                    asyncio.get_running_loop().call_soon(self._work_ahead)
                elif keeper is None:
                    continue
                elif isinstance(fx, Amend):
                    try:
                        keeper.amend()
                    except StorageError as e:  # (the match is over: only told)
                        self.put(Notice(RecordNotAmended(storage_problem(e))))
                elif isinstance(fx, WriteEntry):
                    keeper.append(fx.n, fx.action, fx.tag)
                elif isinstance(fx, WriteTape):
                    keeper.deck_tape(fx.entry)
                elif isinstance(fx, MakeDurable):
                    keeper.game_over(fx.match)  # the record's checkpoint, when due
                elif isinstance(fx, Withdraw):
                    keeper.withdraw(fx.n)
            except StorageError as e:
                self.link_storage_failed(link, e)
                return False
        return True

    def watchers_changed(self, count: int) -> None:
        """The host's watchers hub: ``count`` watch now."""
        link = self.peer.link
        now = asyncio.get_running_loop().time()
        self._perform(link, self.machine.watchers(count, link.endpoint if link else None, now))

    def _linked(self, link: Link) -> None:
        self._perform(link, self.machine.linked(link.endpoint, asyncio.get_running_loop().time()))

    def owe(self, key: str, what: Stalled, code: Refusal) -> None:
        """The peer owes ``key`` on this connection within ``what.seconds`` (only paying,
        ``machine.debts.paid``, meets the deadline; not in time: it is refused, ``code``)."""
        self._perform(self.peer.link, self.machine.owe(key, what, code, asyncio.get_running_loop().time()))

    def _wake_at(self, when: float) -> None:
        """One wake-up at a time, the earliest (each tick asks for the next again)."""
        if self._waker is not None:
            if self._waker.when() <= when:
                return
            self._waker.cancel()
        self._waker = asyncio.get_running_loop().call_at(when, self._woken, when)

    def _woken(self, when: float) -> None:
        self._waker = None
        link = self.peer.link
        now = max(asyncio.get_running_loop().time(), when)  # (the loop may run it a grain early)
        self._perform(link, self.machine.tick(link.endpoint if link else None, now))

    def _finish(self) -> None:
        if self.life not in (Life.PLAYING, Life.CLOSED):
            return
        try:
            path = self.keeper.close() if self.keeper is not None else None
        except StorageError as e:
            why = CannotKeepRecord(storage_problem(e), over=True)
            self._fail(why, ending(self.peer_name, EndCause.STORAGE), save=False)
            return
        self.life = Life.OVER if self.life is Life.PLAYING else Life.CLOSED_OVER
        self.put(self.core.end_event(str(path) if path else None))

    def link_storage_failed(self, link: Link | None, e: BaseException) -> None:
        """The record or journal cannot be written (disk full...): stop the match, tell the peer."""
        problem = storage_problem(e)
        if link is not None:
            link.endpoint.data_to_send()  # dropped: it may depend on what could not be written
            link.endpoint.refuse(Refusal.STORAGE, "cannot write its record (a disk error)")
            link.fail(ConnectionError(f"cannot write the record: {problem.why}"))
        self.give_up(CannotKeepRecord(problem), EndCause.STORAGE)

    def write_pending(self) -> None:
        """The private deck's tape noted so far, written down (StorageError if it cannot):
        before a takeback starts the journal afresh (net/takeback.py)."""
        keeper = self.keeper
        for fx in self.machine.tape():
            if keeper is not None and isinstance(fx, WriteTape):
                keeper.deck_tape(fx.entry)

    def link_news(self, link: Link, ev: LinkNews) -> None:
        """What ``link`` hands on (its sink, once the session takes it over): the match's
        events, its loss, the peer breaking the protocol."""
        if isinstance(ev, LinkLost):
            self.link_lost(link, ev.exc)
        elif isinstance(ev, LinkBroken):
            self.link_protocol_error(link, ev.error)
        else:
            self.link_event(link, ev)

    def link_event(self, link: Link, ev: OwnerEvent) -> None:
        self.peer.stirred.set()
        if isinstance(ev, ActionReceived):
            self._perform(link, self.machine.peer_acted())  # (it voids its takeback request)
            # one the peer caught us up with changed the board on this driver's turn
            self._settle(link, ev.done, ev, unseen=self.core.position <= self.peer.catch_up_end)
            now = asyncio.get_running_loop().time()  # (one the peer's sync claimed: the next has 15 s again)
            closed = self.closed_for_play
            self._perform(
                link, self.machine.caught_action(link.endpoint, HANDSHAKE_TIMEOUT, now, closed=closed)
            )
        elif isinstance(ev, ActionDue):
            self._perform(link, self.machine.action_due(link.endpoint, ev.action))
        elif isinstance(ev, Acked):
            self._perform(link, self.machine.acked(ev.n, link.endpoint))
        elif isinstance(ev, TakebackRequested | TakebackAnswered | TakenBack):
            now = asyncio.get_running_loop().time()
            self._perform(link, self.machine.takeback_received(ev, link.endpoint, now))
        elif isinstance(ev, PeerBye):
            if self.life is Life.PLAYING:
                self.give_up(PeerLeft(self.peer_name, ev.reason), EndCause.PEER_LEFT, reason=ev.reason)
            link.fail(ConnectionError("bye"))
        elif isinstance(ev, RematchReceived):
            self._perform(link, self.machine.rematch_received(ev.yes))
            self.again.heard()
        elif isinstance(ev, Handover):
            self.again.hand_over(link, ev.data)
        elif isinstance(ev, ChatReceived):
            if self.closing:
                return  # (sent before the peer read our yes to another match)
            self.outbox.chat(ev, self.peer_name)
        else:
            self.put(ev)

    def link_protocol_error(self, link: Link, e: ProtocolError) -> None:
        link.fail(e)
        if self.life is Life.HANDED:  # both said yes: the next match is refused (its line says why)
            self.again.broken(e)
        self._fail(*refused(e, self.peer_name))

    # -- the private deck (the machine's DeckSide decides; here, its timers and futures) ------

    def _deck_sent(self, msg: DeckBody) -> None:
        link = self.peer.link
        assert self.machine.deck is not None
        self._perform(link, self.machine.deck.sent(msg, link.endpoint if link is not None else None))

    def _work_ahead(self) -> None:
        if self.machine.deck is not None:
            self.machine.deck.ahead()

    def _deck_outcome(self) -> None:
        """A private game's outcome came (a late one goes into the closed record)."""
        self.deck_moved.set()
        if self.machine.deck is not None:
            self._perform(self.peer.link, self.machine.deck.outcome())

    async def _announced(self, action: Action) -> bool:
        """A private deck's: announce ``action`` and wait until the cards it shows are shown
        (False: not to be made).  A seeded match's: True."""
        side = self.machine.deck
        if side is None:
            return True
        if not side.announce(action):
            return False
        while (ready := side.ready(action)) is False:
            self.deck_moved.clear()
            await self.deck_moved.wait()
        return ready is True

    async def _wait_reveal(self) -> None:
        """The match ended on a resignation: wait for the peer's secret of the last game
        (REVEAL_WAIT at most, pings do not count), then put it in the record, or say
        plainly that it did not come."""
        side = self.machine.deck
        if side is not None:
            side.await_reveal(asyncio.get_running_loop().time())
            await self._wait_secret(side)
            self._perform(self.peer.link, side.reveal_missed())

    async def _leave(self) -> None:
        """Leaving in the middle of a private game: our secret revealed, the peer's waited
        for (REVEAL_WAIT at most)."""
        side, link = self.machine.deck, self.peer.link
        ep = link.endpoint if link is not None else None
        if side is not None and side.leave(ep, asyncio.get_running_loop().time()):
            await self._wait_secret(side)

    async def _wait_secret(self, side: DeckSide) -> None:
        loop = asyncio.get_running_loop()
        while (left := side.secret_wait(self.peer.link is not None, loop.time())) is not None:
            self.deck_moved.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.deck_moved.wait(), left)

    # -- losing and finding the peer again ------------------------------------------------

    def link_lost(self, link: Link, exc: Exception | None) -> None:
        if not self.peer.lost(link):
            return
        self._perform(None, self.machine.takeback_lost())
        if self.ended:
            self.again.lost(exc)  # (no other match: a lost connection is not redialed for one)
        if self.life not in _LIVE:
            return
        settled = self.life is Life.OVER and self.acked >= self.core.position
        if settled:  # the peer left after the end (its bye, or another match refused)
            self.put(ConnectionChanged(LinkState.CLOSED))
            return
        if self.machine.live.grace <= 0:
            if self.life is Life.PLAYING:
                self.give_up(ConnectionLost(self.peer_name), EndCause.CONNECTION_LOST)
            return
        news, fx = self.machine.live.lost(asyncio.get_running_loop().time())
        self.put(ConnectionChanged(LinkState.RECONNECTING, news))
        self._perform(None, fx)

    def offer_link(self, link: Link) -> bool:
        """A returning joiner's link (host side): taken while the match needs one."""
        if self.life not in _LIVE or (self.life is Life.OVER and self.acked >= self.core.position):
            return False
        self.peer.replace()  # (the peer came back before we noticed it was gone)
        self.relink(link)
        return True

    def relink(self, link: Link) -> None:
        """The peer is back (it dialed the host again, or the joiner redialed it)."""
        self.machine.live.back()
        self.put(ConnectionChanged(LinkState.CONNECTED, self.peer.back_news(link)))
        self._attach(link)

    def give_up(self, news: News, cause: EndCause, code: Refusal | None = None, reason: str = "") -> None:
        self._fail(news, ending(self.peer_name, cause, code, reason))

    def _waited_out(self, news: News) -> None:
        if self.ended:
            self.acks.back.set()  # close() stops waiting for the last acknowledgement
            return
        self.give_up(news, EndCause.CONNECTION_LOST)

    def _fail(self, news: News, ending: Ending, *, save: bool = True) -> None:
        if self.life not in (Life.PLAYING, Life.CLOSED) or self.failure is not None:
            return  # (a session closed by this side may still fail while it says goodbye)
        if self.life is Life.PLAYING:
            self.life = Life.FAILED
        self.failure = news
        self.ending = ending
        self.deck_moved.set()
        path, unsaved = None, None
        if self.keeper is not None and save:
            deck = PrivateDeck.of(self.core)
            # the journal of a match to resume is kept: a private game's tape, and where the
            # host listens (``history`` shows the command that takes the match up again)
            keep = deck.resumable if deck is not None else not self.core.finished
            try:
                path = str(self.keeper.close(keep_journal=keep))
                if self._nothing_to_keep():
                    path = None  # (removed when this side closes the session: never said saved)
            except StorageError as e:
                unsaved = storage_problem(e)
        self.put(ConnectionChanged(LinkState.LOST, news, ending))
        self.put(SessionFailed(news, path, ending, unsaved))
        self.peer.close_transport()
        self._halt()

    def _halt(self) -> None:
        """No more waiting for the peer: no redial, no grace period."""
        if self._dialer is not None:
            self._dialer.cancel()
        self.machine.live.back()

    async def _redial(self, dial: Callable[[], Awaitable[Link]]) -> None:
        """Dial the lost host again, with back-off, until it answers (relink), the match
        stops, or a refusal says redialing is pointless (Liveness.redial_refused)."""
        backoff = Backoff()
        while self.peer.link is None and not self.closing and self.failure is None:
            try:
                link = await dial()
            except (OSError, ConnectionError, TimeoutError, ProtocolError) as e:
                if isinstance(e, ProtocolError) and (fx := self.machine.live.redial_refused(e)):
                    self._perform(None, fx)
                    return
            else:
                self.relink(link)
                return
            await backoff.wait()

    async def _heartbeat(self, every: float) -> None:
        """Every ``every`` seconds, the machine's verdict on the connection of the moment
        (Liveness.beat: pinged, or dropped as silent)."""
        loop = asyncio.get_running_loop()
        while not self.closing:
            await asyncio.sleep(every)
            link = self.peer.link
            if link is not None and link.transport is not None:
                self._perform(link, self.machine.live.beat(link.endpoint, loop.time() - link.last_rx))

    async def _shutdown(self, reason: str) -> None:
        self._quiet()
        await self.peer.say_bye(reason)
        if self.keeper is not None and self.life is Life.CLOSED and self.failure is None:
            with contextlib.suppress(StorageError):
                self.keeper.close()
        if self.keeper is not None and self._nothing_to_keep() and self.keeper.discard():
            self.record_dropped = True
        await self.peer.stop_listening()


def _endpoint(link: Link | None) -> Endpoint | None:
    return link.endpoint if link is not None else None


class DeckPort:
    """A private deck's way out (core/private.py's ``Port``): what it sends goes through
    the seat machine's effects (``send``), its events to the driver (``show``)."""

    def __init__(self, send: Callable[[DeckBody], None], show: Callable[[Event], None]) -> None:
        self.send_message = send
        self.push_event = show


def ending(peer: str, cause: EndCause, code: Refusal | None = None, reason: str = "") -> Ending:
    return Ending(cause, peer, code.value if code is not None else None, reason)


def refused(e: ProtocolError, peer: str) -> tuple[News, Ending]:
    """The news and the typed cause for a refusal, by us (RemoteProtocolError) or the peer."""
    if isinstance(e, PeerRefused):
        return PeerStopped(peer, e.code.value, str(e)), ending(peer, EndCause.PEER_REFUSED, e.code, str(e))
    return WeStopped(peer, e.code.value, str(e)), ending(peer, EndCause.PEER_BROKE_PROTOCOL, e.code)
