"""The asyncio side: a :class:`NetSession` per seat, over a :class:`~p2p_spite.net.link.Link`.

The session takes over a link after its handshake: the endpoint's events come out
here as the seat's events; lost links are waited for (grace) or redialled, and
pinged (heartbeat).  Starting one: :mod:`p2p_spite.net.connect`.  Both ends of a
match can live in one process and one event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from ..core.game import Action, Committed, GameCore
from ..core.messages import DeckBody
from ..core.protocol import (
    MAX_TAKEBACKS,
    Acked,
    ActionDue,
    ActionReceived,
    PeerBye,
    PeerRefused,
    Phase,
    PlayEvent,
    SeedOrigin,
    TakebackAnswered,
    TakebackRequested,
    TakenBack,
)
from ..core.wire import ProtocolError, Refusal, RemoteProtocolError
from ..engine import IllegalMoveError, Match, Move, Played, PlayerView
from ..engine.refusals import Illegal, TakebackOffline, TakebackWaiting, TooManyTakebacks
from ..errors import SessionClosed, StorageError
from ..fairdeck import OrderError
from ..news import (
    CannotKeepRecord,
    ChatFlood,
    ConnectionLost,
    Keeping,
    News,
    PeerBack,
    PeerLeft,
    PeerStopped,
    RecordNotAmended,
    SecretNotRevealed,
    Stalled,
    StorageProblem,
    WeStopped,
)
from ..news import Owed as OwedKind
from ..session import (
    ChatReceived,
    ConnectionChanged,
    EndCause,
    Ending,
    Event,
    LinkState,
    Notice,
    SessionFailed,
    TakebackAsked,
    TakebackRefused,
    Takebacks,
)
from ..storage.keeper import RecordKeeper
from .link import HANDSHAKE_TIMEOUT, Link
from .notices import ChatBacklog, Notices
from .reconnect import DEAD_AFTER, DEFAULT_GRACE, HEARTBEAT, Dial, Reconnector

REVEAL_WAIT = 10.0  # seconds a private match's end waits for the peer's secret after a resignation
DECK_DEADLINE = 30.0  # seconds a private-deck message the peer owes may take (pings do not count)
DECK_CHECK = 1.0  # seconds between two looks at that deadline

AT_ONCE = 3.0  # seconds take_back() waits for the computer's answer
LINGER = 2.0  # seconds to wait for the peer to see our last bytes when closing
CATCH_UP = "catch-up"  # the debt of a peer whose sync claimed actions this side lacks
DECK_DEBT = "deck"  # the debt of a private-deck peer that owes a deck message


class Owed:
    """What the peer owes this side on the current connection, each debt with a deadline
    (the actions its sync claimed; a private deck's next messages).  Only paying meets a
    deadline: pings, chat and the rest of the peer's traffic do not put it off.  A debt
    not paid in time calls ``overdue(what, code)``; a lost connection forgives them all
    (the next one owes afresh)."""

    def __init__(self, overdue: Callable[[Stalled, Refusal], None]) -> None:
        self._overdue = overdue
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def owe(self, key: str, what: Stalled, code: Refusal) -> None:
        """The peer owes ``key`` within ``what.seconds`` (a debt owed already keeps its
        deadline); ``what``: the user's news if it does not come, ``code``: the refusal sent."""
        if key not in self._timers:
            loop = asyncio.get_running_loop()
            self._timers[key] = loop.call_later(what.seconds, self._due, key, what, code)

    def paid(self, key: str) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()

    def owes(self, key: str) -> bool:
        return key in self._timers

    def forgive(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _due(self, key: str, what: Stalled, code: Refusal) -> None:
        del self._timers[key]
        self._overdue(what, code)


class _DeckPort:
    """The private deck's way out: the session's link of the moment.  What it sends
    while the link is lost goes again after the reconnection (PrivateDeck.resync)."""

    def __init__(self, session: NetSession) -> None:
        self._session = session

    def send_message(self, msg: DeckBody) -> None:
        link = self._session._link
        if link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_message(msg)
            link.flush()
        self._session._work_ahead_soon()

    def push_event(self, ev: Event) -> None:
        self._session._put(ev)


def _problem(e: BaseException) -> StorageProblem:
    """What a StorageError says (the record keeper's), or an OSError's words."""
    if isinstance(e, StorageError) and e.problem is not None:
        return e.problem
    why = getattr(e, "strerror", None) or " ".join(str(e).split()) or type(e).__name__
    return StorageProblem(Keeping.RECORD, "", why)


class NetSession:
    """One seat's side of a network match: the :class:`~p2p_spite.session.Session` contract.

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
        *,
        server: asyncio.AbstractServer | None = None,
        dial: Dial | None = None,
        resumed_at: int = 0,
        peer_position: int = 0,
        seed_by: SeedOrigin | None = SeedOrigin.BOTH,
        grace: float = DEFAULT_GRACE,
        heartbeat: float = HEARTBEAT,
        dead_after: float = DEAD_AFTER,
    ) -> None:
        self.core = core
        self.keeper = keeper
        self.peer_name = peer_name or ("host" if core.seat == 1 else "joiner")
        self.server = server
        self.resumed_at = resumed_at
        self.seed_by = seed_by  # who chose the seed (None: a record from before it was kept)
        self.acked = max(resumed_at, peer_position)  # the peer has the first `acked` actions
        self._ack_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self._link: Link | None = None
        self._done = False  # failed, closed or over: no more play
        self._ended = False  # MatchEnded emitted
        self._closing = False
        self._back: asyncio.Event = asyncio.Event()  # set when a link is attached
        # set by every event, link and loss: what _fresh() waits on (a catch-up ends with an
        # action, and every action, a move or a resignation, comes out as an event)
        self._stirred = asyncio.Event()
        self.failure: News | None = None  # why the session failed, for the user ...
        self.ending: Ending | None = None  # ... and why, as data
        self.notices = Notices(self._put)
        self.chats = ChatBacklog()  # ChatReceived events in the queue
        self._queued = 0  # events put in the queue ...
        self._taken = 0  # ... and taken out by the driver
        self._remote_mark = 0  # _queued after the last event that changed the board on our turn
        self._catch_up_end = 0  # the peer's position at the last sync
        self.owed = Owed(self._overdue)  # what the peer owes us on this link, with deadlines
        self.reconnect = Reconnector(
            self,
            redial=(lambda: dial(core)) if dial is not None else None,
            grace=grace,
            heartbeat=heartbeat,
            dead_after=dead_after,
        )
        # taking back (docs/protocol.md, *Taking back*): how this side answers the peer's
        # requests, the peer's request waiting for the driver's answer (its link), our own
        # request waiting for the peer's, the link our last undo went out on until the peer
        # acknowledged it (no action of ours before then), and an action due meanwhile
        self.takebacks = Takebacks.ASK
        self.peer_answers_at_once = False  # the peer is the computer: take_back() waits for it
        self._peer_request: tuple[Link, int] | None = None
        self._asking: Played | None = None
        self._undo_link: Link | None = None
        self._due_after_undo: Action | None = None
        self._deck_wake = asyncio.Event()  # a private deck moved on (or the session stopped)
        self._deck_port = _DeckPort(self)
        self._ahead = False  # a private deck's work ahead is scheduled
        self._deck_watch: asyncio.Task[None] | None = None
        if core.private is not None:
            core.private.on_outcome = self._outcome_came
            with contextlib.suppress(RuntimeError):  # (no event loop: nothing to wait for)
                self._deck_watch = asyncio.get_running_loop().create_task(self._watch_deck())
        for ev in core.start_events():
            self._put(ev)
        if core.finished:
            self._finish()
        self._attach(link)

    # -- the Session contract ------------------------------------------------------

    @property
    def seat(self) -> int:
        return self.core.seat

    @property
    def names(self) -> tuple[str, str]:
        p = self.core.match.players
        return (p[0], p[1])

    @property
    def match(self) -> Match:
        return self.core.match

    @property
    def seed(self) -> bytes:
        return self.core.match.seed

    @property
    def private(self) -> bool:
        """A private-deck match (docs/fairness.md)."""
        return self.core.private is not None

    @property
    def record_path(self) -> str | None:
        return str(self.keeper.path) if self.keeper is not None else None

    @property
    def connected(self) -> bool:
        return self._link is not None

    @property
    def link(self) -> Link | None:
        """The connection to the peer (None while it is lost)."""
        return self._link

    @property
    def closing(self) -> bool:
        return self._closing

    @property
    def grace(self) -> float:
        return self.reconnect.grace

    def view(self) -> PlayerView:
        return self.core.view()

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
        if core.private is not None:
            # an action we announced before a restart is binding: it is the one we make
            action = core.private.own_pending() or action
            if not await self._announced(action):
                return
        self._local(action)

    def _work_ahead_soon(self) -> None:
        """Once what was just sent is on its way, work ahead while the peer answers."""
        if not self._ahead:
            self._ahead = True
            asyncio.get_running_loop().call_soon(self._work_ahead)

    def _work_ahead(self) -> None:
        self._ahead = False
        deck = self.core.private
        if deck is not None and not self._done:
            deck.work_ahead()

    async def _announced(self, action: Action) -> bool:
        """A private-deck match: announce ``action`` and wait until the cards it shows are
        shown (False: the session stopped meanwhile)."""
        deck = self.core.private
        assert deck is not None
        if deck.left:
            return False  # a seat left this game (its secret is revealed): the peer's bye follows
        try:
            deck.announce(action)
        except OrderError as e:
            raise IllegalMoveError(action.move or [], str(e)) from None
        deck.on_change = self._deck_wake.set
        while not deck.ready(action):
            if self._done:
                return False
            self._deck_wake.clear()
            await self._deck_wake.wait()
        return not self._done and not deck.left  # (a leave came meanwhile: no more moves)

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
            if core.private is not None and not await self._announced(action):
                return
            self._local(action)
            return
        asked = core.match.game.game in core.requests
        game = core.request_resign()
        if not asked and self.keeper is not None:
            try:
                self.keeper.request(game)  # written down (fsynced) before it is sent
            except StorageError as e:
                self.link_storage_failed(self._link, e)
                return
        link = self._link
        if link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_resign_request(game)
            link.flush()

    async def take_back(self) -> Played | None:
        """Ask the peer to let us take back our last move of this turn (docs/protocol.md,
        *Taking back*); its answer comes as MoveTakenBack or TakebackRefused.  Returns the
        move asked about (IllegalMoveError, nothing sent, if it cannot be taken back now)."""
        self._check_open()
        await self._fresh()
        if not await self._undo_settled():
            raise IllegalMoveError([], TakebackOffline())
        core, link = self.core, self._link
        why: Illegal | None = core.takeback_refusal(core.seat)
        if why is None:
            if link is None or link.endpoint.phase is not Phase.PLAY or link.endpoint.catching_up:
                why = TakebackOffline()
            elif link.endpoint.asking:
                why = TakebackWaiting()
            elif link.endpoint.takebacks_asked >= MAX_TAKEBACKS:
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
        while self._asking is played and not self._done:
            self._stirred.clear()
            await self._stirred.wait()

    async def answer_takeback(self, yes: bool) -> bool:
        """Answer the peer's takeback request (TakebackAsked); False: it is void (the peer
        played on, or the connection it came on is gone)."""
        req, self._peer_request = self._peer_request, None
        link = self._link
        if req is None or link is not req[0] or self._done or link.endpoint.phase is not Phase.PLAY:
            return False
        sent = link.endpoint.answer_takeback(req[1], yes)
        link.flush()
        return sent

    async def _undo_settled(self) -> bool:
        """Before an action of ours: wait until the peer has acknowledged our last undo (or a
        new connection's sync settled it), so that both histories go on from the same
        action (False: the session stopped meanwhile)."""
        while not self._done and self._undo_link is not None:
            link = self._undo_link
            if self._link is not None and (self._link is not link or not link.endpoint.undo_unacked):
                self._undo_link = None
                break
            self._stirred.clear()  # set again by the next event (the ack), link or loss
            await self._stirred.wait()
        return not self._done

    def _take_back_own(self, link: Link, n: int) -> None:
        """The peer allowed our takeback of action ``n``: take it back, write it down, tell
        the peer, show it."""
        core = self.core
        self._asking = None
        if core.position - 1 != n or core.takeback_refusal(core.seat) is not None:
            return  # (cannot happen: our action after the request voided it)
        played = core.take_back(core.seat)
        try:
            if self.keeper is not None:
                self.keeper.withdraw(n)
        except StorageError as e:
            self.link_storage_failed(link, e)
            return
        link.endpoint.send_undo(n)
        link.flush()
        self._undo_link = link
        self._put_taken_back(core.seat, played)

    def _taken_back_by_peer(self, link: Link, ev: TakenBack) -> None:
        """The peer took back its action (we allowed it): written down, acknowledged, shown."""
        try:
            if self.keeper is not None:
                self.keeper.withdraw(ev.n)
        except StorageError as e:
            self.link_storage_failed(link, e)
            return
        link.endpoint.acknowledge()
        link.flush()
        self._put_taken_back(1 - self.core.seat, ev.played)

    def _put_taken_back(self, seat: int, played: Played) -> None:
        self.acked = min(self.acked, self.core.position)  # the action taken back is nobody's now
        for ev in self.core.taken_back(seat, played):
            self._put(ev)
        self._remote_mark = self._queued  # a move chosen on the board before it is dropped

    def _peer_asks(self, link: Link, ev: TakebackRequested) -> None:
        """The peer asks to take back its last move: answered as ``takebacks`` says."""
        if self.takebacks is Takebacks.ASK:
            self._peer_request = (link, ev.n)
            self._put(TakebackAsked(1 - self.core.seat, ev.played))
            return
        link.endpoint.answer_takeback(ev.n, self.takebacks is Takebacks.ALWAYS)
        link.flush()

    async def chat(self, text: str) -> None:
        self._check_open()
        link = self._link
        if link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_chat(text)
            link.flush()

    async def close(self, reason: str = "quit") -> None:
        """Leave: once the match is over, first make sure the peer has every action
        (reconnecting if need be, up to the grace period)."""
        if self._closing:
            return
        if self._ended and self.failure is None and self.acked < self.core.position:
            await self.wait_acked(self.core.position, self.grace, through_reconnects=True)
        await self._wait_reveal()
        await self._leave_private()
        self._closing = True
        self._deck_wake.set()
        if not self._done:
            self._done = True
            self._put(ConnectionChanged(LinkState.CLOSED))
        await self._shutdown(reason)

    async def _wait_reveal(self) -> None:
        """A private match that ended on a resignation: the peer's secret of the last game
        follows the action.  Wait for it (at most REVEAL_WAIT seconds, pings do not count),
        then put it in the record, or say plainly that it did not come."""
        deck = self.core.private
        if deck is None or not self._ended or self.failure is not None:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + REVEAL_WAIT
        while deck.awaiting_reveal is not None and self._link is not None:
            left = deadline - loop.time()
            if left <= 0:
                break
            self._deck_wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._deck_wake.wait(), left)
        game = deck.awaiting_reveal
        if game is not None:
            deck.give_up_reveal()
            self._put(Notice(SecretNotRevealed(self.peer_name, game)))
            self._late_outcome()

    async def _watch_deck(self) -> None:
        """Every wait on the peer's private deck has a deadline: while the peer owes a
        message (its key, pass, a share, its secret, an announced action whose cards are
        shown), each deck message or action it sends starts DECK_DEADLINE seconds afresh
        (a debt in :attr:`owed`, which pings do not pay); none in time stops the match."""
        deck = self.core.private
        assert deck is not None
        mark: tuple[int, int, object] | None = None
        stalled = Stalled(self.peer_name, OwedKind.DECK, DECK_DEADLINE)
        while not self._done:
            await asyncio.sleep(DECK_CHECK)
            link = self._link
            now = (deck.taken, self.core.position, link)
            owes = link is not None and link.endpoint.phase is Phase.PLAY and deck.owed_by_peer()
            if not owes or now != mark:
                self.owed.paid(DECK_DEBT)
                mark = now
            if owes:
                self.owed.owe(DECK_DEBT, stalled, Refusal.STALLED)

    async def _leave_private(self) -> None:
        """Leaving a private match in the middle of a game: the game is over for us, so we
        reveal our secret and wait (REVEAL_WAIT at most) for the peer's, to put the deck
        in the record.  Such a match cannot be resumed: its deck is known."""
        deck = self.core.private
        link = self._link
        if deck is None or self._done or link is None or link.endpoint.phase is not Phase.PLAY:
            return
        if not deck.leave():
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + REVEAL_WAIT
        while deck.awaiting_reveal is not None and self._link is not None and not self._done:
            left = deadline - loop.time()
            if left <= 0:
                deck.give_up_reveal()
                break
            self._deck_wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._deck_wake.wait(), left)

    def _outcome_came(self) -> None:
        self._deck_wake.set()
        self._late_outcome()

    def _late_outcome(self) -> None:
        """A private game's outcome set after the record was closed: put it in."""
        if self._ended and self.keeper is not None:
            try:
                self.keeper.amend()
            except StorageError as e:
                self._put(Notice(RecordNotAmended(_problem(e))))

    async def next_event(self) -> Event:
        ev = await self._events.get()
        self._taken += 1
        if isinstance(ev, ChatReceived):
            self.chats.taken()
        return ev

    # -- extras ------------------------------------------------------------------------

    @property
    def closed_for_play(self) -> bool:
        """No more moves: the match ended, failed or was closed."""
        return self._done

    async def wait_acked(
        self, n: int, timeout: float | None = None, *, through_reconnects: bool = False
    ) -> bool:
        """Wait until the peer has acknowledged the first ``n`` actions (False on timeout,
        or on a lost connection unless ``through_reconnects``)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self.acked < n:
            if self.failure is not None or self._closing:
                return False
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            fut: asyncio.Future[None] = loop.create_future()
            self._ack_waiters.append((n, fut))
            try:
                if left is None:
                    await fut
                else:
                    await asyncio.wait_for(fut, left)
            except TimeoutError:
                return False
            except ConnectionError:
                if not through_reconnects:
                    return False
                if self._link is None:
                    self._back.clear()
                    left = None if deadline is None else deadline - loop.time()
                    try:
                        await asyncio.wait_for(self._back.wait(), left)
                    except TimeoutError:
                        return False
        return True

    # -- internals ----------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._done:
            raise SessionClosed(self.failure or "the session is closed")

    def _put(self, ev: Event) -> None:
        self._events.put_nowait(ev)
        self._queued += 1
        self._stirred.set()

    async def _fresh(self) -> bool:
        """May a move the driver chose now be played?  A catch-up in progress is
        waited out first (briefly); then the answer is no if the driver has not
        yet seen the peer's latest actions: its move was chosen on an old board,
        and the events it has still to read will show the board as it is.

        (Dropping the move while actions were still on their way, instead of
        waiting, could leave both sides waiting for each other: the catch-up
        need not bring the driver any new event.  The wait is bounded by the
        catch-up's deadline, which stops the session.)"""
        while not self._done:
            link = self._link
            if link is None or not link.endpoint.catching_up:
                break
            self._owe_catch_up()  # (armed at the attach already: its deadline holds)
            self._stirred.clear()  # set again by the next event, link or loss
            await self._stirred.wait()
        self._check_open()
        return self._taken >= self._remote_mark

    def notice(self, news: News, *, merged: bool = False) -> None:
        """Tell the driver something that changes nothing in the match (throttled:
        :class:`~p2p_spite.net.notices.Notices`; ``merged``: ``news`` already sums up
        many, told at once)."""
        self.notices.tell(news, merged=merged)

    def _attach(self, link: Link) -> None:
        self._link = link
        link.owner = self
        hs = link.handshaken.result()
        self._set_acked(hs.peer_position)
        self._catch_up_end = hs.peer_position
        self._back.set()
        self._stirred.set()
        deck = self.core.private
        if link.endpoint.phase is Phase.PLAY:
            # An action made between the handshake's history check and now went
            # nowhere (the session had no link): send it before anything else.
            if deck is not None:  # with what this side sent of the private deck, in order
                deck.resync(link.endpoint, hs.peer_position)
            else:
                link.endpoint.send_missing()
            link.flush()
        if deck is not None:
            deck.attach(self._deck_port)
        if deck is None:  # (a private deck's catch-up interleaves deck work: when the driver acts)
            self._owe_catch_up()
        catching_up = link.endpoint.catching_up
        link.pump()  # play messages that came right behind the handshake
        if not catching_up:  # (else the end of the catch-up asks: link_event)
            self._pending_resignation()

    def _owe_catch_up(self) -> None:
        """The peer's sync claimed actions we lack: each must come within the deadline of
        the one before (its pings do not put it off)."""
        link = self._link
        if link is not None and link.endpoint.catching_up:
            self.owed.owe(
                CATCH_UP, Stalled(self.peer_name, OwedKind.CATCH_UP, HANDSHAKE_TIMEOUT), Refusal.POSITION
            )

    def _overdue(self, what: Stalled, code: Refusal) -> None:
        """The peer did not pay what it owes in time: refuse it and stop the match."""
        link = self._link
        if link is None or self._done:
            return
        deck = self.core.private
        if code is Refusal.STALLED and deck is not None:
            deck.give_up_reveal()  # (if it was the secret it owed, the record says so)
        owed = "a private-deck message" if what.owed is OwedKind.DECK else "the actions claimed"
        e = RemoteProtocolError(f"{owed} did not come within {what.seconds:g} s", code)  # (the wire's msg)
        link.endpoint.refuse(e.code, str(e))
        link.fail(e)
        self._fail(what, self._ending(EndCause.PEER_BROKE_PROTOCOL, code))

    def _pending_resignation(self) -> None:
        """A resignation we asked for while the connection was down (or before a crash):
        ours to make if we are on turn now, else asked again."""
        core, link = self.core, self._link
        g = core.match.game
        if self._done or core.finished or g.result is not None or g.game not in core.requests:
            return
        if link is not None and link.endpoint.catching_up:
            return  # the endpoint resigns for us once caught up, if the turn is ours
        if g.turn == core.seat:
            self._local(Action(g.game, core.seat))
        else:
            self._ask_again()

    def _ask_again(self) -> None:
        """Off turn in a game we asked to resign: ask the peer (again).  (On turn, once a
        catch-up is over, the endpoint makes the resignation due itself: ActionDue.)"""
        core, link = self.core, self._link
        g = core.match.game
        if self._done or core.finished or g.result is not None or g.game not in core.requests:
            return
        if g.turn != core.seat and link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_resign_request(g.game)
            link.flush()

    def _set_acked(self, n: int) -> None:
        self.acked = max(self.acked, n)
        keep = []
        for want, fut in self._ack_waiters:
            if self.acked >= want:
                if not fut.done():
                    fut.set_result(None)
            else:
                keep.append((want, fut))
        self._ack_waiters = keep

    def _local(self, action: Action, *, unseen: bool = False) -> None:
        """Make an action of this seat's (checked legal).  ``unseen``: the protocol made it,
        not the driver (a resignation due: ActionDue).  It voids our takeback request."""
        self._asking = None
        self._settle(self._link, self.core.commit(action), None, unseen=unseen)

    def _settle(
        self, link: Link | None, done: Committed, received: ActionReceived | None, *, unseen: bool
    ) -> None:
        """The action just applied to the core (ours, or ``received`` from the peer), taken
        through :meth:`GameCore.settle`'s steps (written down, told to the peer, shown: the
        durability rule's one order), then shown.  ``unseen``: the driver did not make it (a
        move it chose before seeing this one was chosen on an old board)."""
        core = self.core
        # the peer's tag is kept for its own actions (ours come back only while it catches us up)
        tag = received.tag if received is not None and core.authors[-1] != core.seat else None
        evs = core.settle(done, _Steps(self, link), received=received is not None, tag=tag)
        if evs is None:
            return  # a write failed: the session has stopped
        deck = core.private
        for ev in evs:
            self._put(ev)
        if unseen:
            self._remote_mark = self._queued
        if core.finished:
            self._finish()
        elif deck is not None and received is None:
            due = deck.due_request()
            if due is not None:
                self._local(due, unseen=True)

    def _finish(self) -> None:
        if self._ended:
            return
        try:
            path = self.keeper.close() if self.keeper is not None else None
        except StorageError as e:
            self._fail(CannotKeepRecord(_problem(e), over=True), self._ending(EndCause.STORAGE), save=False)
            return
        self._ended = True
        self._done = True
        self._put(self.core.end_event(str(path) if path else None))

    def link_storage_failed(self, link: Link | None, e: BaseException) -> None:
        """The record or journal cannot be written (disk full...): stop the match, tell the peer."""
        problem = _problem(e)
        if link is not None:
            link.endpoint.refuse(Refusal.STORAGE, "cannot write its record (a disk error)")
            link.fail(ConnectionError(f"cannot write the record: {problem.why}"))
        self._fail(CannotKeepRecord(problem), self._ending(EndCause.STORAGE))

    def write_pending(self) -> None:
        """The one place the private deck's tape is written down (core/private.py queues
        it, it does no I/O): a secret fsynced, each entry before anything that depends on
        it is sent (Link.flush calls this before the bytes leave) and before the action
        made after it.  StorageError if the journal cannot be written."""
        deck = self.core.private
        if deck is None:
            return
        entries = deck.take_unwritten()
        if self.keeper is not None:
            for e in entries:
                self.keeper.deck_tape(e)

    def link_event(self, link: Link, ev: Event | PlayEvent) -> None:
        self._stirred.set()
        if isinstance(ev, ActionReceived):
            self._peer_request = None  # its action voids its takeback request
            self._set_acked(self.core.position)  # the peer made that action: it has them all
            # one the peer caught us up with changed the board on this driver's turn
            self._settle(link, ev.done, ev, unseen=self.core.position <= self._catch_up_end)
            if self.owed.owes(CATCH_UP):  # an action it claimed came: the next has 15 s again
                self.owed.paid(CATCH_UP)
                if link.endpoint.catching_up:
                    self._owe_catch_up()
                else:
                    self._ask_again()
        elif isinstance(ev, ActionDue):
            if link.endpoint.undo_unacked:
                self._due_after_undo = ev.action  # (made once the peer has the undo)
            else:
                self._local(ev.action, unseen=True)
        elif isinstance(ev, Acked):
            self._set_acked(ev.n)
            due, self._due_after_undo = self._due_after_undo, None
            if due is not None and not self._done:
                self._local(due, unseen=True)
        elif isinstance(ev, TakebackRequested):
            self._peer_asks(link, ev)
        elif isinstance(ev, TakebackAnswered):
            if ev.ok:
                self._take_back_own(link, ev.n)
            else:
                self._asking = None
                self._put(TakebackRefused(1 - self.core.seat))
        elif isinstance(ev, TakenBack):
            self._taken_back_by_peer(link, ev)
        elif isinstance(ev, PeerBye):
            if not self._ended and not self._done:
                self._fail(
                    PeerLeft(self.peer_name, ev.reason), self._ending(EndCause.PEER_LEFT, reason=ev.reason)
                )
            link.fail(ConnectionError("bye"))
        elif isinstance(ev, ChatReceived):
            if not self.chats.admit():
                if self.chats.dropped == 1:
                    self.notice(ChatFlood(self.peer_name))
                return
            self._put(ev)
        else:
            self._put(ev)

    def link_protocol_error(self, link: Link, e: ProtocolError) -> None:
        link.fail(e)
        self._fail(*self._refusal(e))

    def _refusal(self, e: ProtocolError) -> tuple[News, Ending]:
        """The news and the typed cause for a refusal, by us (RemoteProtocolError) or the peer."""
        if isinstance(e, PeerRefused):
            return (
                PeerStopped(self.peer_name, e.code.value, str(e)),
                self._ending(EndCause.PEER_REFUSED, e.code, str(e)),
            )
        return WeStopped(self.peer_name, e.code.value, str(e)), self._ending(
            EndCause.PEER_BROKE_PROTOCOL, e.code
        )

    def _ending(self, cause: EndCause, code: Refusal | None = None, reason: str = "") -> Ending:
        return Ending(cause, self.peer_name, code.value if code is not None else None, reason)

    # -- losing and finding the peer again ------------------------------------------------

    def link_lost(self, link: Link, exc: Exception | None) -> None:
        if link is not self._link:
            return
        self._link = None
        self._peer_request = self._due_after_undo = None  # (the peer asks again, if it still wants to)
        if self._asking is not None:  # our request went with the connection
            self._asking = None
            self._put(TakebackRefused(1 - self.core.seat, lost=True))
        self.owed.forgive()
        self._stirred.set()
        for _, fut in self._ack_waiters:
            if not fut.done():
                fut.set_exception(ConnectionError("connection lost"))
                fut.exception()
        self._ack_waiters = []
        if self._closing or self.failure is not None:
            return
        settled = self._ended and self.acked >= self.core.position
        if settled:
            return
        if self.grace <= 0:
            if not self._ended:
                self._fail(ConnectionLost(self.peer_name), self._ending(EndCause.CONNECTION_LOST))
            return
        self._put(ConnectionChanged(LinkState.RECONNECTING, self.reconnect.lost()))

    def offer_link(self, link: Link) -> bool:
        """A new connection finished its handshake for this match: take it (host side).

        It proved it holds the match (``proof``: a MAC keyed by the seed over both
        nonces) before the host sent anything, so it is the joiner come back: it
        replaces a link that is lost or that we have not noticed is dead yet."""
        if self._closing or self.failure is not None or (self._ended and self.acked >= self.core.position):
            return False
        old = self._link
        if old is not None:  # the peer came back before we noticed it was gone
            self._link = None
            self.owed.forgive()
            old.owner = None
            if old.transport is not None:
                old.transport.abort()
        self.relink(link)
        return True

    def relink(self, link: Link) -> None:
        """The peer is back (it dialed the host again, or the joiner redialed it)."""
        self.reconnect.back()
        hs = link.handshaken.result()
        renamed = hs.peer_name if hs.peer_name and hs.peer_name != self.peer_name else ""
        self._put(ConnectionChanged(LinkState.CONNECTED, PeerBack(self.peer_name, hs.resumed_at, renamed)))
        self._attach(link)

    def give_up(self, news: News, cause: EndCause, code: Refusal | None = None, reason: str = "") -> None:
        self._fail(news, self._ending(cause, code, reason))

    def waited_out(self, news: News) -> None:
        if self._ended:
            self._back.set()  # close() stops waiting for the last acknowledgement
            return
        self.give_up(news, EndCause.CONNECTION_LOST)

    def _fail(self, news: News, ending: Ending, *, save: bool = True) -> None:
        if self._ended or self.failure is not None:
            return
        self._done = True
        self.failure = news
        self.ending = ending
        self._deck_wake.set()
        path, unsaved = None, None
        if self.keeper is not None and save:
            deck = self.core.private
            try:  # a private game in play resumes from its journal's tape: it is kept
                path = str(self.keeper.close(keep_journal=deck is not None and deck.resumable))
            except StorageError as e:
                unsaved = _problem(e)
        self._put(ConnectionChanged(LinkState.LOST, news, ending))
        self._put(SessionFailed(news, path, ending, unsaved))
        self._close_transport()

    def _close_transport(self) -> None:
        self.owed.forgive()
        link = self._link
        if link is not None and link.transport is not None:
            link.flush()
            link.transport.close()
        if self.server is not None:
            self.server.close()
        self.reconnect.halt()

    async def _shutdown(self, reason: str) -> None:
        self.owed.forgive()
        self.notices.stop()
        if self._deck_watch is not None:
            self._deck_watch.cancel()
        self.reconnect.stop()
        link = self._link
        if link is not None and link.transport is not None and not link.transport.is_closing():
            link.endpoint.send_bye(reason)
            link.flush()
            with contextlib.suppress(OSError, RuntimeError):
                if link.transport.can_write_eof():
                    link.transport.write_eof()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(link.closed), LINGER)
            link.transport.close()
        if self.keeper is not None and not self._ended and self.failure is None:
            with contextlib.suppress(StorageError):
                self.keeper.close()
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.server.wait_closed(), LINGER)


class _Steps:
    """The session's side of each step of :meth:`GameCore.settle`: the tape and the action
    into the journal, the peer told over the link while it plays, the record's checkpoint."""

    __slots__ = ("_live", "_session", "link")

    def __init__(self, session: NetSession, link: Link | None) -> None:
        self._session = session
        self.link = link
        self._live = link if link is not None and link.endpoint.phase is Phase.PLAY else None

    def write(self, n: int, action: Action, tag: bytes | None) -> bool:
        s = self._session
        try:
            s.write_pending()  # the tape first (as it was noted), then the action
            if s.keeper is not None:
                s.keeper.append(n, action, tag)
        except StorageError as e:
            s.link_storage_failed(self.link, e)
            return False
        return True

    def send(self, n: int) -> None:
        if self._live is not None:
            self._live.endpoint.send_action(n)

    def acknowledge(self) -> None:
        if self._live is not None:
            self._live.endpoint.acknowledge()

    def flush(self) -> None:
        if self._live is not None:
            self._live.flush()

    def checkpoint(self, match: Match) -> bool:
        s = self._session
        if s.keeper is None:
            return True
        try:
            s.keeper.game_over(match)  # the record's checkpoint, when due, before the next deal
        except StorageError as e:
            s.link_storage_failed(self.link, e)
            return False
        return True
