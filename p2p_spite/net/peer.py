"""The asyncio side: listening, connecting, and a :class:`NetSession` per seat.

A thin transport around :class:`~p2p_spite.net.protocol.Endpoint`: bytes from
the socket go into the endpoint, its events come out here, its bytes go to the
socket.  Both ends of a match can live in one process and one event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from ..engine import IllegalMoveError, Match, Move, PlayerView
from ..errors import EXIT_PEER_LEFT, UserError
from ..paths import default_record_path
from ..session import (
    ChatReceived,
    ConnectionChanged,
    EndCause,
    Ending,
    Event,
    GameEnded,
    LinkState,
    Notice,
    SessionFailed,
)
from .game import Action, GameCore
from .gate import AUTHENTICATED, CONNECTED, GREETED, HELLO_TIMEOUT, Door, StrangerLog, address_key
from .journal import RecordKeeper, Saved
from .link import HANDSHAKE_TIMEOUT, HelloTimeout, Link, fmt_addr
from .protocol import (
    HOST,
    JOIN,
    Acked,
    Deal,
    Endpoint,
    LocalConfig,
    PeerBye,
    PeerRefused,
    Phase,
    Pong,
)
from .reconnect import Backoff
from .wire import ProtocolError, Refusal, RemoteProtocolError

DEFAULT_PORT = 4747
LINGER = 2.0  # seconds to wait for the peer to see our last bytes when closing
DEFAULT_GRACE = 60.0  # seconds to wait for a lost peer to come back
HEARTBEAT = 2.0  # seconds between pings
DEAD_AFTER = 10.0  # seconds of silence after which the connection is taken as dead
NOTICE_EVERY = 5.0  # seconds: at most one Notice per this (the others are counted in the next one)
MAX_CHAT_BACKLOG = 100  # chat messages waiting for the driver; more are dropped (one notice)
# refusals after which redialing is pointless
FATAL_REFUSALS = frozenset(
    {
        Refusal.HISTORY,
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
    }
)

Warn = Callable[[str], None]
Dial = Callable[[GameCore | None], Awaitable["Link"]]


def _stderr_warning(text: str) -> None:
    print(f"p2p-spite: warning: {text}", file=sys.stderr, flush=True)


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


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
        seed_from_host: bool | None = False,
        grace: float = DEFAULT_GRACE,
        heartbeat: float = HEARTBEAT,
        dead_after: float = DEAD_AFTER,
    ) -> None:
        self.core = core
        self.keeper = keeper
        self.peer_name = peer_name or ("host" if core.seat == 1 else "joiner")
        self.server = server
        self.resumed_at = resumed_at
        self.seed_from_host = seed_from_host
        self.grace = grace
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self.acked = max(resumed_at, peer_position)  # the peer has the first `acked` actions
        self._dial = dial
        self._ack_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self._link: Link | None = None
        self._done = False  # failed, closed or over: no more play
        self._ended = False  # MatchEnded emitted
        self._closing = False
        self._lost_at: float | None = None
        self._grace_timer: asyncio.TimerHandle | None = None
        self._dialer: asyncio.Task[None] | None = None
        self._back: asyncio.Event = asyncio.Event()
        self.failure: str | None = None  # the line for the user when the session failed ...
        self.ending: Ending | None = None  # ... and why, as data
        self.notice_every = NOTICE_EVERY
        self.max_chat_backlog = MAX_CHAT_BACKLOG
        self._chat_backlog = 0  # ChatReceived events in the queue
        self._queued = 0  # events put in the queue ...
        self._taken = 0  # ... and taken out by the driver
        self._remote_mark = 0  # _queued after the last event that changed the board on our turn
        self._catch_up_end = 0  # the peer's position at the last sync
        self._chat_dropped = 0
        self._notice_until = 0.0  # no notice before this (loop time) ...
        self._held_text = ""  # ... the last one held back, and how many were
        self._held_count = 0
        self._notice_timer: asyncio.TimerHandle | None = None
        for ev in core.start_events():
            self._put(ev)
        if core.finished:
            self._finish()
        self._attach(link)
        self._beat: asyncio.Task[None] | None = asyncio.get_running_loop().create_task(self._heartbeat())

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
    def record_path(self) -> str | None:
        return str(self.keeper.path) if self.keeper is not None else None

    @property
    def connected(self) -> bool:
        return self._link is not None

    def view(self) -> PlayerView:
        return self.core.view()

    async def play(self, move: Move) -> None:
        """Play ``move`` (IllegalMoveError if it is not legal).  A move chosen on a board
        that has changed since (the peer is catching us up with actions our journal lost,
        whose events the driver has not seen yet) is dropped: the events that follow
        show the board as it is now."""
        self._check_open()
        if not await self._fresh():
            return
        core = self.core
        core.check_move(move, core.seat)
        self._local(Action(core.match.game_number, core.seat, move))

    async def resign(self) -> None:
        """Resign the current game, at any time.  On turn, the resignation is our next
        action; off turn, it is a request that the peer (on turn) makes its next action
        (or that we make ours, if the turn comes to us first): docs/protocol.md."""
        self._check_open()
        if not await self._fresh():
            return
        core = self.core
        if core.match.game.turn == core.seat:
            self._local(core.check_resign(core.seat))
            return
        try:
            game = core.request_resign()  # written down (fsynced) before it is sent
        except (OSError, UserError) as e:
            self.link_storage_failed(self._link, e)
            return
        link = self._link
        if link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_resign_request(game)
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
        self._closing = True
        if not self._done:
            self._done = True
            self._put(ConnectionChanged(LinkState.CLOSED, reason))
        await self._shutdown(reason)

    async def next_event(self) -> Event:
        ev = await self._events.get()
        self._taken += 1
        if isinstance(ev, ChatReceived):
            self._chat_backlog -= 1
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
            raise IllegalMoveError([], self.failure or "the session is closed")

    def _put(self, ev: Event) -> None:
        self._events.put_nowait(ev)
        self._queued += 1

    async def _fresh(self) -> bool:
        """May a move the driver chose now be played?  A catch-up in progress is
        waited out first (briefly); then the answer is no if the driver has not
        yet seen the peer's latest actions: its move was chosen on an old board,
        and the events it has still to read will show the board as it is.

        (Dropping the move while actions were still on their way, instead of
        waiting, could leave both sides waiting for each other: the catch-up
        need not bring the driver any new event.)"""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HANDSHAKE_TIMEOUT
        while not self._done:
            link = self._link
            if link is None or not link.endpoint.catching_up:
                break
            if loop.time() >= deadline:  # it claimed actions it does not send
                e = RemoteProtocolError(
                    f"{self.peer_name} claimed actions it did not send within {HANDSHAKE_TIMEOUT:g} s",
                    Refusal.POSITION,
                )
                link.endpoint.refuse(e.code, str(e))
                self.link_protocol_error(link, e)
                break
            await asyncio.sleep(0.005)
        self._check_open()
        return self._taken >= self._remote_mark

    def notice(self, text: str, *, merged: bool = False) -> None:
        """Tell the driver something that changes nothing in the match.

        At most one notice every ``notice_every`` seconds: the ones in between
        (a crowd of strangers knocking, say) are merged into the next, with a count.
        ``merged``: ``text`` already sums up many (the door's counts): told at once."""
        if merged:
            self._put(Notice(text))
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if now >= self._notice_until and not self._held_count:
            self._notice_until = now + self.notice_every
            self._put(Notice(text))
            return
        self._held_text = text
        self._held_count += 1
        if self._notice_timer is None:
            self._notice_timer = loop.call_later(max(0.0, self._notice_until - now), self._release_notices)

    def _release_notices(self) -> None:
        self._notice_timer = None
        n, text = self._held_count, self._held_text
        if not n:
            return
        self._held_count = 0
        self._notice_until = asyncio.get_running_loop().time() + self.notice_every
        self._put(Notice(text if n == 1 else f"{text} (and {n - 1} more like it)"))

    def _attach(self, link: Link) -> None:
        self._link = link
        link.owner = self
        if self.keeper is not None:
            self.core.sink = self.keeper
        hs = link.handshaken.result()
        self._set_acked(hs.peer_position)
        self._catch_up_end = hs.peer_position
        self._back.set()
        if link.endpoint.phase is Phase.PLAY:
            # An action made between the handshake's history check and now went
            # nowhere (the session had no link): send it before anything else.
            link.endpoint.send_missing()
            link.flush()
        link.pump()  # play messages that came right behind the handshake
        self._pending_resignation()

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
        elif link is not None and link.endpoint.phase is Phase.PLAY:
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

    def _local(self, action: Action) -> None:
        core = self.core
        n = core.position
        link = self._link
        try:
            done = core.commit(action)  # written to the journal before anything is sent or shown
        except (OSError, UserError) as e:
            self.link_storage_failed(link, e)
            return
        if link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_action(n)
            link.flush()
        try:
            evs = core.events(done)  # a game's end rewrites the record
        except (OSError, UserError) as e:
            self.link_storage_failed(link, e)
            return
        for ev in evs:
            self._put(ev)
        if core.finished:
            self._finish()

    def _finish(self) -> None:
        if self._ended:
            return
        try:
            path = self.keeper.close() if self.keeper is not None else None
        except (OSError, UserError) as e:
            self._fail(
                f"the match is over but its record could not be written: {_one_line(e)}",
                self._ending(EndCause.STORAGE),
                save=False,
            )
            return
        self._ended = True
        self._done = True
        self._put(self.core.end_event(str(path) if path else None))

    def link_storage_failed(self, link: Link | None, e: BaseException) -> None:
        """The record or journal cannot be written (disk full...): stop the match, tell the peer."""
        text = f"cannot write the record: {_one_line(e)}"
        if link is not None:
            link.endpoint.refuse(Refusal.STORAGE, "cannot write its record (a disk error)")
            link.fail(ConnectionError(text))
        self._fail(f"stopped the match: {text}", self._ending(EndCause.STORAGE))

    def link_event(self, link: Link, ev: Event | Acked | PeerBye | Pong) -> None:
        if isinstance(ev, Acked):
            self._set_acked(ev.n)
        elif isinstance(ev, Pong):
            pass
        elif isinstance(ev, PeerBye):
            if not self._ended and not self._done:
                self._fail(
                    f"{self.peer_name} left the match ({ev.reason or 'no reason given'})",
                    self._ending(EndCause.PEER_LEFT, reason=ev.reason),
                )
            link.fail(ConnectionError("bye"))
        else:
            if isinstance(ev, ChatReceived):
                if self._chat_backlog >= self.max_chat_backlog:
                    self._chat_dropped += 1
                    if self._chat_dropped == 1:
                        self.notice(f"{self.peer_name}'s chat comes faster than it is read: dropping some")
                    return
                self._chat_backlog += 1
            else:
                self._set_acked(self.core.position)  # the peer made that action: it has them all
            self._put(ev)
            core = self.core
            if not isinstance(ev, ChatReceived) and (
                core.position <= self._catch_up_end or (core.authors and core.authors[-1] == core.seat)
            ):
                # an action that changed the board on this driver's turn without it (one the
                # peer caught us up with, or one the endpoint made: a resignation asked for
                # while off turn, or at the peer's request): a move it chose before seeing
                # this event was chosen on a board that no longer exists
                self._remote_mark = self._queued
            if isinstance(ev, GameEnded) and self.core.finished:
                self._finish()

    def link_protocol_error(self, link: Link, e: ProtocolError) -> None:
        link.fail(e)
        self._fail(*self._refusal(e))

    def _refusal(self, e: ProtocolError) -> tuple[str, Ending]:
        """The line and the typed cause for a refusal, by us (RemoteProtocolError) or the peer."""
        if isinstance(e, PeerRefused):
            return (
                f"{self.peer_name} stopped the match: {e}",
                self._ending(EndCause.PEER_REFUSED, e.code, str(e)),
            )
        if isinstance(e, RemoteProtocolError):
            msg = f"stopped the match: {self.peer_name} broke the protocol: {e}"
            if e.code in (Refusal.ILLEGAL_MOVE, Refusal.DESYNC, Refusal.HISTORY):
                msg = f"stopped the match: {e}"
            return msg, self._ending(EndCause.PEER_BROKE_PROTOCOL, e.code)
        return f"stopped the match: {e}", self._ending(EndCause.PEER_BROKE_PROTOCOL, e.code)

    def _ending(self, cause: EndCause, code: Refusal | None = None, reason: str = "") -> Ending:
        return Ending(cause, self.peer_name, code.value if code is not None else None, reason)

    # -- losing and finding the peer again ------------------------------------------------

    def link_lost(self, link: Link, exc: Exception | None) -> None:
        if link is not self._link:
            return
        self._link = None
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
                self._fail(
                    f"the connection to {self.peer_name} was lost", self._ending(EndCause.CONNECTION_LOST)
                )
            return
        loop = asyncio.get_running_loop()
        self._lost_at = loop.time()
        what = "redialing" if self._dial is not None else "keeping the seat open"
        self._put(
            ConnectionChanged(
                LinkState.RECONNECTING,
                f"the connection to {self.peer_name} was lost; {what} for up to {self.grace:g} s",
            )
        )
        if self._grace_timer is None:
            self._grace_timer = loop.call_later(self.grace, self._grace_over)
        if self._dial is not None and (self._dialer is None or self._dialer.done()):
            self._dialer = loop.create_task(self._redial())

    def _grace_over(self) -> None:
        self._grace_timer = None
        if self._link is not None or self._closing:
            return
        if self._dialer is not None:
            self._dialer.cancel()
        if self._ended:
            self._back.set()  # close() stops waiting for the last acknowledgement
            return
        self._fail(
            f"the connection to {self.peer_name} was lost and did not come back within {self.grace:g} s",
            self._ending(EndCause.CONNECTION_LOST),
        )

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
            old.owner = None
            if old.transport is not None:
                old.transport.abort()
        self._reconnected(link)
        return True

    def _reconnected(self, link: Link) -> None:
        if self._grace_timer is not None:
            self._grace_timer.cancel()
            self._grace_timer = None
        hs = link.handshaken.result()
        who = self.peer_name
        if hs.peer_name and hs.peer_name != who:
            who = f"{who} (now calling itself {hs.peer_name})"
        back = f"{who} is back; going on from action {hs.resumed_at}"
        self._put(ConnectionChanged(LinkState.CONNECTED, back))
        self._attach(link)

    async def _redial(self) -> None:
        assert self._dial is not None
        backoff = Backoff()
        while self._link is None and not self._closing and self.failure is None:
            try:
                link = await self._dial(self.core)
            except PeerRefused as e:
                if e.code in FATAL_REFUSALS:
                    self._fail(
                        f"{self.peer_name} refused to go on: {e}",
                        self._ending(EndCause.PEER_REFUSED, e.code, str(e)),
                    )
                    return
            except RemoteProtocolError as e:
                if e.code in FATAL_REFUSALS:
                    self._fail(
                        f"cannot go on with {self.peer_name}: {e}",
                        self._ending(EndCause.PEER_BROKE_PROTOCOL, e.code),
                    )
                    return
            except (OSError, ConnectionError, TimeoutError, ProtocolError):
                pass
            else:
                self._reconnected(link)
                return
            await backoff.wait()

    async def _heartbeat(self) -> None:
        loop = asyncio.get_running_loop()
        k = 0
        while not self._closing:
            await asyncio.sleep(self.heartbeat)
            link = self._link
            if link is None or link.transport is None or link.endpoint.phase is not Phase.PLAY:
                continue
            if loop.time() - link.last_rx > self.dead_after:
                link.fail(ConnectionError(f"{self.peer_name} went silent"))
                link.transport.abort()
                continue
            k += 1
            link.endpoint.send_ping(k)
            link.flush()

    def _fail(self, message: str, ending: Ending, *, save: bool = True) -> None:
        if self._ended or self.failure is not None:
            return
        self._done = True
        self.failure = message
        self.ending = ending
        path = None
        if self.keeper is not None and save:
            try:
                path = str(self.keeper.close(keep_journal=False))
            except (OSError, UserError) as e:
                message += f" ({_one_line(e)})"
        self._put(ConnectionChanged(LinkState.LOST, message, ending))
        self._put(SessionFailed(message + (f"; record saved to {path}" if path else ""), path, ending))
        self._close_transport()

    def _close_transport(self) -> None:
        link = self._link
        if link is not None and link.transport is not None:
            link.flush()
            link.transport.close()
        if self.server is not None:
            self.server.close()
        if self._dialer is not None:
            self._dialer.cancel()
        if self._grace_timer is not None:
            self._grace_timer.cancel()
            self._grace_timer = None

    async def _shutdown(self, reason: str) -> None:
        if self._notice_timer is not None:
            self._notice_timer.cancel()
            self._notice_timer = None
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None
        if self._dialer is not None:
            self._dialer.cancel()
        if self._grace_timer is not None:
            self._grace_timer.cancel()
            self._grace_timer = None
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
            with contextlib.suppress(UserError):
                self.keeper.close()
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.server.wait_closed(), LINGER)


# -- starting a session -----------------------------------------------------------------------


def _code_key(code: str | None, resume: Saved | None) -> bytes | None:
    """The join code's key: from ``code``; when resuming without one, the match's own."""
    from .protocol import derive_code_key

    if code:
        return derive_code_key(code)
    return resume.code_key if resume is not None else None


def _session_on(
    link: Link,
    kind: str,
    record_path: str | Path | None,
    resume: Saved | None,
    code_key: bytes | None,
    grace: float,
    heartbeat: float,
    dead_after: float,
    *,
    server: asyncio.AbstractServer | None = None,
    dial: Dial | None = None,
    origin: bool | None = None,
) -> NetSession:
    """The session of a link whose first handshake is done (``server``: the host's
    listener, kept for reconnections; ``dial``: how the joiner reconnects; ``origin``:
    who chose the seed, if an earlier, cut handshake agreed the match)."""
    hs = link.handshaken.result()
    core = link.endpoint.core
    assert core is not None
    path = record_path if resume is None else resume_path(resume, record_path)
    # a resumed match: who chose the seed is in the record (the handshake does not say)
    if hs.seed_from_host is not None:
        origin = hs.seed_from_host
    elif resume is not None:
        origin = resume.seed_from_host
    return NetSession(
        core,
        link,
        _keeper_for(core, path, kind, code_key, origin),
        core.match.players[1 - core.seat],  # as agreed (a resumed match: as in the record)
        server=server,
        dial=dial,
        resumed_at=hs.resumed_at,
        peer_position=hs.peer_position,
        seed_from_host=origin,
        grace=grace,
        heartbeat=heartbeat,
        dead_after=dead_after,
    )


def _keeper_for(
    core: GameCore, record_path: str | Path | None, kind: str, code_key: bytes | None, origin: bool | None
) -> RecordKeeper:
    path = Path(record_path) if record_path is not None else default_record_path(kind)
    keeper = RecordKeeper(path, core.match, core.match_id, core.max_games, code_key, origin)
    keeper.carry(core)  # the action key first: before any action of ours is sent
    return keeper


def _core_from_saved(saved: Saved, seat: int) -> GameCore:
    try:
        core = GameCore.replay(
            Match(saved.seed, saved.target, saved.players),
            seat,
            saved.match_id,
            saved.max_games,
            saved.actions,
            saved.tags,
            saved.key,
        )
        core.requests = set(saved.requests)
    except IllegalMoveError as e:
        raise UserError(f"the saved match does not replay: {e.reason}") from None
    if core.finished:
        sc = core.match.scores
        raise UserError(f"{saved.path or 'that record'}: the match is already over ({sc[0]}-{sc[1]})")
    return core


async def host_session(
    *,
    bind: str = "",
    port: int = DEFAULT_PORT,
    name: str = "host",
    seed: bytes | None = None,
    target: int = 50,
    games: int | None = None,
    record_path: str | Path | None = None,
    on_listening: Callable[[str, int], None] | None = None,
    code: str | None = None,
    resume: Saved | None = None,
    on_warning: Warn | None = _stderr_warning,
    grace: float = DEFAULT_GRACE,
    heartbeat: float = HEARTBEAT,
    dead_after: float = DEAD_AFTER,
) -> NetSession:
    """Listen on ``bind``:``port`` (``""`` = all interfaces, port 0 = any free one) and
    return a session once a peer has joined and the handshake is done.

    ``on_listening(host, port)`` is called with the real address once listening.
    ``seed`` None: the seed is drawn by both peers (commit-reveal).  ``games``
    stops the match after that many games.  ``code``: the join code the joiner
    must give (None: no code).  ``resume``: continue a saved match
    (:func:`~p2p_spite.net.journal.load_saved`; the record is written back to
    its file unless ``record_path`` says otherwise).  Connections that fail the
    handshake are dropped with ``on_warning(text)`` and the host keeps waiting.
    The listening socket stays open for the whole match so that a joiner who
    lost the connection can come back within ``grace`` seconds.
    Raises UserError if it cannot listen.
    """

    loop = asyncio.get_running_loop()
    config = LocalConfig(
        HOST,
        resume.players[0] if resume is not None else name,  # a resumed match keeps its names
        _code_key(code, resume),
        seed=seed,
        target=target,
        max_games=games,
    )
    core = _core_from_saved(resume, 0) if resume is not None else None
    if core is not None:
        config.target = core.match.target
        config.max_games = core.max_games
    winner: asyncio.Future[Link] = loop.create_future()
    quiet: Warn = lambda _t: None  # noqa: E731

    def warn(text: str, merged: bool = False) -> None:
        """Before the match: ``on_warning``; during it: a Notice for the driver
        (printing to stderr would scribble over a full-screen interface)."""
        if session_box:
            session_box[0].notice(text, merged=merged)
        else:
            (on_warning or quiet)(text)

    session_box: list[NetSession] = []
    watchers: set[asyncio.Task[None]] = set()
    door: Door[Link] = Door(_stage)
    strangers = StrangerLog(loop.time)
    report: list[asyncio.TimerHandle | None] = [None]

    def admit(link: Link) -> bool:
        ok, victim = door.admit(link, address_key(link.peer))
        if victim is not None:
            victim.drop("crowded out", "by newer connections while it had not authenticated")
        return ok

    def dropped(link: Link, kind: str, line: str) -> None:
        text = strangers.drop(address_key(link.peer), kind, line)
        if text is not None:
            warn(text)
        if report[0] is None and strangers.due is not None:
            report[0] = loop.call_at(strangers.due, summary)

    def summary(now: bool = False) -> None:
        if report[0] is not None:
            report[0].cancel()
            report[0] = None
        text = strangers.summary(now=now)
        if text is not None:
            warn(text, merged=True)
        if strangers.due is not None:
            report[0] = loop.call_at(strangers.due, summary)

    pending: list[Deal | None] = [None]  # a first seed exchange cut short: the same commitments again
    held: list[GameCore | None] = [None]  # a seeded match a first handshake cut short agreed
    abandon: list[asyncio.TimerHandle | None] = [None]

    def give_up(who: str) -> None:
        if not winner.done():
            winner.set_exception(
                UserError(
                    f"{who or 'the joiner'} left during the seed exchange, after the deal was fixed "
                    f"(it may have seen it), and did not come back within {grace:g} s: the match is "
                    "stopped (nothing was played)",
                    EXIT_PEER_LEFT,
                )
            )

    def hold(link: Link) -> None:
        """A first handshake ended without a match: keep its deal (a returning joiner opens
        the same commitments); once fixed, wait for that joiner only, for the grace period."""
        deal = link.endpoint.deal
        hs = link.handshaken
        succeeded = hs.done() and not hs.cancelled() and hs.exception() is None
        if session_box or core is not None or winner.done() or succeeded:
            return
        agreed = link.endpoint.core
        if agreed is not None and link.endpoint.seed_from_host:
            held[0] = agreed  # a seeded match the joiner may have begun: it may come back to it
        if deal is None:
            return
        if pending[0] is None or deal is pending[0] or not pending[0].fixed:
            pending[0] = deal
        if deal.fixed and deal is pending[0] and abandon[0] is None:
            abandon[0] = loop.call_later(grace, give_up, link.endpoint.peer_name)

    def factory() -> Link:
        first = not session_box and core is None
        link = Link(
            Endpoint(
                config,
                session_box[0].core if session_box else core,
                held_deal=(lambda: pending[0]) if first else None,
                held_core=(lambda: held[0]) if first else None,
            ),
            admit=admit,
            hello_deadline=HELLO_TIMEOUT,
        )
        if first:  # a cut seed exchange: its deal is held before the next connection says hello
            link.closed.add_done_callback(lambda _f: hold(link))
        task = loop.create_task(_watch(link))
        watchers.add(task)
        task.add_done_callback(watchers.discard)
        return link

    async def _watch(link: Link) -> None:
        try:
            await link.handshaken
        except (ProtocolError, ConnectionError, TimeoutError, OSError) as e:
            door.leave(link)
            hold(link)
            if isinstance(e, PeerRefused):
                dropped(link, "refused the match", f"{link.peer_label} refused the match: {e}")
            else:
                line = f"dropped a connection from {link.peer_label}: {_describe(e)}"
                dropped(link, link.dropped_as or _kind(e), line)
            return
        door.leave(link)
        if session_box:
            sess = session_box[0]
            if link.endpoint.core is sess.core and sess.offer_link(link):
                summary(now=True)  # the drops held back while the joiner was away
                return
        elif not winner.done():
            winner.set_result(link)
            return
        link.endpoint.refuse(Refusal.SEAT_TAKEN, "this match already has its two players")
        link.fail(ConnectionError("seat taken"))

    try:
        sock = await _listen_socket(bind, port)
        server = await loop.create_server(factory, sock=sock)
    except (OSError, OverflowError) as e:
        where = fmt_addr((bind or "*", port))
        if isinstance(e, OSError) and e.errno == errno.EADDRINUSE:
            raise UserError(f"port {port} is taken: use --port N or --port 0") from None
        if isinstance(e, OSError) and e.errno == errno.EADDRNOTAVAIL:
            raise UserError(f"cannot listen on {where}: {bind} is not an address of this machine") from None
        raise UserError(f"cannot listen on {where}: {getattr(e, 'strerror', None) or e}") from None
    real = sock.getsockname()
    shown = str(real[0])
    if not bind and shown == "::":
        shown = "0.0.0.0"  # dual stack: every IPv4 and IPv6 address
    if on_listening is not None:
        on_listening(shown, int(real[1]))
    try:
        link = await winner
    except BaseException:
        if abandon[0] is not None:
            abandon[0].cancel()
        server.close()
        if report[0] is not None:
            report[0].cancel()
        raise
    if abandon[0] is not None:
        abandon[0].cancel()
    summary(now=True)  # the drops held back so far are told before the match starts
    sess = _session_on(
        link, "host", record_path, resume, config.code_key, grace, heartbeat, dead_after, server=server
    )
    session_box.append(sess)
    return sess


async def _listen_socket(bind: str, port: int) -> socket.socket:
    """One listening socket (one port even with port 0): dual-stack when ``bind`` is empty."""
    if not bind:
        if socket.has_dualstack_ipv6():
            return socket.create_server(("::", port), family=socket.AF_INET6, dualstack_ipv6=True, backlog=16)
        return socket.create_server(("0.0.0.0", port), backlog=16)
    infos = await asyncio.get_running_loop().getaddrinfo(
        bind.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )
    if not infos:
        raise OSError(f"cannot resolve {bind!r}")
    family, _t, _p, _c, addr = infos[0]
    return socket.create_server(addr[:2], family=family, backlog=16)


def resume_path(saved: Saved, record_path: str | Path | None) -> str | Path | None:
    return record_path if record_path is not None else saved.path


def _describe(e: BaseException) -> str:
    if isinstance(e, RemoteProtocolError):
        return "someone tried a wrong join code" if e.code is Refusal.BAD_CODE else f"protocol error: {e}"
    if isinstance(e, TimeoutError):
        return str(e) if isinstance(e, HelloTimeout) else "no handshake in time"
    return str(e) or type(e).__name__


def _kind(e: BaseException) -> str:
    """A few words for a dropped connection, to count it by in the merged warnings."""
    if isinstance(e, RemoteProtocolError):
        return "wrong join code" if e.code is Refusal.BAD_CODE else f"protocol errors ({e.code})"
    if isinstance(e, TimeoutError):
        return "no hello in time" if isinstance(e, HelloTimeout) else "no handshake in time"
    return "closed during the handshake"


def _stage(link: Link) -> int:
    """How far a connection has come in its handshake (see gate.Door)."""
    phase = link.endpoint.phase
    if phase in (Phase.HELLO, Phase.CLOSED):
        return CONNECTED
    if phase in (Phase.AUTH, Phase.PROOF):
        return GREETED
    return AUTHENTICATED


# What a first handshake meets when the other end speaks something else (HTTP, SSH...):
# bytes that are no frame of ours, or a hello of another program.
_FOREIGN = frozenset({"frame", "decode", "flood", "not-p2p-spite"})


# refusals that say the host no longer holds a deal we revealed our half of
_DEAL_GONE = frozenset({Refusal.NO_MATCH, Refusal.OTHER_MATCH, Refusal.SEAT_TAKEN})


class _ConnectFailed(ConnectionError):
    """No TCP connection at all (refused, unreachable, timed out)."""


async def join_session(
    *,
    host: str,
    port: int = DEFAULT_PORT,
    name: str = "joiner",
    record_path: str | Path | None = None,
    code: str | None = None,
    resume: Saved | None = None,
    timeout: float = HANDSHAKE_TIMEOUT,
    grace: float = DEFAULT_GRACE,
    heartbeat: float = HEARTBEAT,
    dead_after: float = DEAD_AFTER,
) -> NetSession:
    """Connect to a host and return the session once the handshake is done.

    A connection cut during the first handshake is retried (up to ``grace``
    seconds); so is a refused connection when resuming (the host may be
    restarting).  Mid-match, a lost connection is redialed for ``grace`` seconds.
    Raises UserError (one line) if the host cannot be reached or refuses.
    """

    loop = asyncio.get_running_loop()
    # a resumed match keeps its names
    config = LocalConfig(JOIN, resume.players[1] if resume is not None else name, _code_key(code, resume))
    core = _core_from_saved(resume, 1) if resume is not None else None
    where = fmt_addr((host, port))
    last_core: list[GameCore | None] = [None]
    origin: list[bool | None] = [None]  # who chose the seed of the match a cut handshake agreed
    last_deal: list[Deal | None] = [None]  # the seed agreement of a first handshake cut short

    async def dial(with_core: GameCore | None, with_deal: Deal | None = None) -> Link:
        try:
            _t, link = await asyncio.wait_for(
                loop.create_connection(
                    lambda: Link(Endpoint(config, with_core, deal=with_deal), where), host, port
                ),
                timeout,
            )
        except TimeoutError:
            raise _ConnectFailed(
                f"cannot reach {where}: no answer in {timeout:g} s (is the address right? a firewall?)"
            ) from None
        except ConnectionRefusedError:
            raise _ConnectFailed(
                f"nobody is hosting at {where} (is the host running? is the port right?)"
            ) from None
        except (OSError, OverflowError) as e:
            raise _ConnectFailed(f"cannot connect to {where}: {getattr(e, 'strerror', None) or e}") from None
        try:
            await link.handshaken
        except BaseException:
            last_core[0] = link.endpoint.core
            last_deal[0] = link.endpoint.deal
            if link.endpoint.seed_from_host is not None:
                origin[0] = link.endpoint.seed_from_host
            if link.transport is not None:
                link.transport.close()
            raise
        return link

    deadline = loop.time() + grace
    connected_once = False
    backoff = Backoff()
    deal: Deal | None = None

    def abandoned() -> UserError | None:
        """Once we have revealed our half of the seed, the host knows the deal: it may not
        throw it away (and we never draw a new half for this match)."""
        if resume is None and deal is not None and deal.revealed:
            return UserError(
                "the host left after it had your half of the seed, so it may have seen the deal: "
                "the match is stopped (nothing was played; start a new one if you wish)",
                EXIT_PEER_LEFT,
            )
        return None

    while True:
        try:
            link = await dial(core, deal)
            break
        except _ConnectFailed as e:
            if resume is None and not connected_once:
                raise UserError(str(e)) from None
            problem = str(e)
        except PeerRefused as e:
            deal = last_deal[0] or deal
            if (told := abandoned()) is not None and e.code in _DEAL_GONE:
                raise told from None
            if e.code is Refusal.NO_MATCH and resume is None and connected_once:
                core = None  # the host forgot the half-agreed match: start afresh
                deal = None
                problem = str(e)
            else:
                raise UserError(f"the host refused: {e}") from None
        except RemoteProtocolError as e:
            if e.code in _FOREIGN:  # a frame length from HTTP's or SSH's first bytes says nothing to a person
                detail = f" ({e})" if e.code == "decode" else ""
                problem = f"that is not a p2p-spite host: {where} speaks another protocol{detail}"
                raise UserError(problem) from None
            deal = last_deal[0] or deal
            if (told := abandoned()) is not None and e.code in _DEAL_GONE:
                raise told from None
            raise UserError(f"refused the host at {where}: {e}") from None
        except TimeoutError:
            raise UserError(f"the host at {where} did not answer the handshake") from None
        except (ConnectionError, OSError) as e:
            connected_once = True
            if resume is None:
                core = last_core[0]  # go on with the match the handshake may have agreed ...
                deal = last_deal[0]  # ... or with the same commitments
            problem = f"the handshake with {where} failed: {_describe(e)}"
        if loop.time() + backoff.delay > deadline:
            raise abandoned() or UserError(problem)
        await backoff.wait()
    return _session_on(
        link,
        "join",
        record_path,
        resume,
        config.code_key,
        grace,
        heartbeat,
        dead_after,
        dial=dial,
        origin=origin[0],
    )
