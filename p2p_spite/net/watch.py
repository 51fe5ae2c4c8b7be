"""Watchers, the asyncio side: the host's door hands a watcher's connection to a
:class:`WatchLink`, the :class:`WatchHub` shows each of them the table after every
event of the host's session, and :func:`watch_match` is ``p2p-spite watch``'s
connection (a :class:`~p2p_spite.contracts.spectator.Spectator`).

The players never wait for a watcher: a table is encoded once and written to each
watcher's socket without awaiting anything; a watcher that leaves more than
``MAX_WATCH_BUFFER`` bytes unread is dropped.  The byte level (bounded writes, the
deadline on a silent peer, the pings) is :mod:`.conn`'s, as the players' link's is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, Final, Protocol

from ..contracts.errors import EXIT_ERROR, EXIT_LOST, EXIT_PEER_LEFT, UserError
from ..contracts.news import (
    ConnectionDropped,
    DropKind,
    HandshakeFailed,
    HostRefused,
    RefusedHost,
    WatchCut,
    WatchEnd,
    WatchStop,
)
from ..contracts.session import (
    ConnectionChanged,
    EndCause,
    Ending,
    Event,
    GameEnded,
    GameStarted,
    LinkState,
    MatchEnded,
    MovePlayed,
    MoveTakenBack,
    SessionFailed,
)
from ..contracts.spectator import SpectatorEvent, TableShown, Watching, WatchStopped
from ..core.keys import derive_code_key
from ..core.protocol import NeedData, PeerRefused
from ..core.watch import (
    WATCH,
    DoorPhase,
    HostBye,
    WatchEndpoint,
    WatcherDoor,
    WatcherIn,
    WatcherLeft,
    WatchPhase,
    first_type,
    table_frame,
    watching_frame,
)
from ..core.wire import CODE_REFUSALS, FrameDecoder, ProtocolError, Refusal, RemoteProtocolError
from ..engine import public_view
from .conn import Beat, Silence, no_delay, send_bounded, small_send_buffer
from .gate import AUTHENTICATED, GREETED, CodeRefused, shown_address
from .link import HANDSHAKE_TIMEOUT, DialFailed, Link, connect_to, fmt_addr
from .opening import LanDial, lan_scalar
from .session import NetSession

MAX_WATCH_BUFFER = 64 * 1024  # bytes queued for a watcher that does not read; more: it is dropped
WATCH_SNDBUF = 32 * 1024  # the kernel's send buffer of a watcher's socket (conn.small_send_buffer)
WATCH_PING = 5.0  # seconds between a watcher's pings
WATCHER_SILENCE = 60.0  # seconds the host waits for a byte from a watcher before dropping it
HOST_SILENCE = 30.0  # seconds a watcher waits for a byte from the host (it answers pings)


class Doorway(asyncio.Protocol):
    """A new connection at the host, until its first message says whose it is: a
    ``watch`` hands it to ``to_watcher``; anything else to the player's ``link``, which
    has had the connection from the start (its hello sent, its deadlines running).
    ``seats`` False: a door for watchers only (a connection sealed under a watcher's code,
    internet.py): anything but ``watch`` is refused, as a watcher taking part would be."""

    def __init__(
        self, link: Link, to_watcher: Callable[[Link, asyncio.Transport, bytes], None], *, seats: bool = True
    ) -> None:
        self.link = link
        self._to_watcher = to_watcher
        self._seats = seats
        self._peek = FrameDecoder()
        self._seen = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.link.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self._seen += data
        try:
            self._peek.feed(data)
            first = self._peek.next_message()
        except RemoteProtocolError:
            first = {}  # not a frame of ours: the player's endpoint refuses it as it does
        if first is None:
            return
        assert self.transport is not None
        seen = bytes(self._seen)
        if first_type(first) == WATCH:
            self._to_watcher(self.link, self.transport, seen)
            return
        self.transport.set_protocol(self.link)
        if self._seats:
            self.link.data_received(seen)
            return
        e = RemoteProtocolError("a watcher's code takes no seat in the match", Refusal.WATCHER)
        self.link.endpoint.refuse(e.code, str(e))
        self.link.fail(e)

    def eof_received(self) -> bool | None:
        return self.link.eof_received()

    def pause_writing(self) -> None:
        self.link.pause_writing()

    def resume_writing(self) -> None:
        self.link.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._seen and self._seats:  # a first frame cut short: the link tells it as it would have
            self.link.data_received(bytes(self._seen))
        self.link.connection_lost(exc)


class WatchHost(Protocol):
    """What a :class:`WatchLink` needs of the host: its door and its console."""

    def leave_door(self, link: WatchLink) -> None: ...

    def dropped_watcher(self, link: WatchLink, line: ConnectionDropped) -> None: ...


class WatchLink(asyncio.Protocol):
    """One watcher's connection at the host, from its first message on."""

    def __init__(self, door: WatcherDoor, hub: WatchHub, host: WatchHost, peer: Any, started: float) -> None:
        self.door = door
        self.hub = hub
        self.host = host
        self.peer = peer
        self.transport: asyncio.Transport | None = None
        loop = asyncio.get_running_loop()
        left = max(0.0, HANDSHAKE_TIMEOUT - (loop.time() - started))
        self._deadline: asyncio.TimerHandle | None = loop.call_later(left, self._late)
        self._silence = Silence(WATCHER_SILENCE, self._silent)
        self.watching = False  # in the hub

    @property
    def stage(self) -> int:
        """How far it came (gate.Door): its first message was valid; let in once it passed the door."""
        return AUTHENTICATED if self.door.phase is DoorPhase.IN else GREETED

    def take(self, transport: asyncio.Transport, seen: bytes) -> None:
        """Take the connection over, with the bytes it sent so far."""
        self.transport = transport
        small_send_buffer(transport, WATCH_SNDBUF)
        transport.set_protocol(self)
        self.data_received(seen)

    def data_received(self, data: bytes) -> None:
        self._silence.heard()
        self.door.receive_data(data)
        self._pump()

    def _pump(self) -> None:
        try:
            while True:
                ev = self.door.next_event()
                if isinstance(ev, NeedData):
                    break
                if isinstance(ev, WatcherIn):
                    self._let_in()
                elif isinstance(ev, WatcherLeft):
                    self.close()
                    return
        except ProtocolError as e:
            self._refused(e)
            return
        self.flush()

    def _let_in(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self.host.leave_door(self)
        refusal = self.hub.admit(self)
        if refusal is not None:
            self.door.refuse(*refusal)
            self.close()

    def _refused(self, e: ProtocolError) -> None:
        if not self.watching:
            line = ConnectionDropped(shown_address(self.peer), DropKind.PROTOCOL, e.code.value, detail=str(e))
            self.host.dropped_watcher(self, line)
        self.close()

    def send(self, frame: bytes) -> None:
        """Show the watcher ``frame``: nothing once it is on its way out (refused, gone)."""
        if self.door.phase is DoorPhase.IN:
            self.door.show(frame)
            self.flush()

    def flush(self) -> None:
        """Send what is queued, unless the watcher has left too much unread: then drop it."""
        if not send_bounded(self.transport, self.door.data_to_send(), MAX_WATCH_BUFFER):
            self.drop(DropKind.STOPPED_READING, f"more than {MAX_WATCH_BUFFER // 1024} KiB unread")

    def bye(self, bye: HostBye) -> None:
        self.door.bye(bye)
        self.close()

    def close(self) -> None:
        self.hub.leave(self)
        self.flush()
        if self.transport is not None:
            self.transport.close()

    def drop(self, kind: DropKind, why: str) -> None:
        """Drop at once (the door's victim, a watcher that stopped reading, fell silent or
        was late); the host's console is told (``kind``: what to count it by; ``why``, the
        details, as Link.drop takes them, are not told: a stranger's story is its kind)."""
        if self.transport is None or self.transport.is_closing():
            return
        self.hub.leave(self)
        self.host.dropped_watcher(self, ConnectionDropped(shown_address(self.peer), kind))
        self.transport.abort()

    def _silent(self) -> None:
        self.drop(DropKind.SILENT, f"nothing from it in {WATCHER_SILENCE:g} s")

    def _late(self) -> None:
        self._deadline = None
        self.drop(DropKind.NO_HANDSHAKE, f"not let in within {HANDSHAKE_TIMEOUT:g} s")

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._silence.stop()
        self.host.leave_door(self)
        self.hub.leave(self)


class WatchHub:
    """The host's watchers (at most ``most``; 0: none) and what they are shown: the
    match's players, then the table, after every event of the host's session; when
    the players play again, the same of the next match to the watchers that follow it
    (``again``), who are told nothing in between (docs/protocol.md, *Watchers*)."""

    def __init__(self, most: int, on_count: Callable[[int], None] | None = None) -> None:
        self.most = most
        self.on_count = on_count
        self.links: list[WatchLink] = []
        self.ended = False
        self.between = False  # a match is over and another may follow on its connection
        self._session: NetSession | None = None  # the match shown
        self._intro: bytes | None = None
        self._last: TableShown | None = None
        self._frame: bytes | None = None
        self._scores = (0, 0)  # the match's, as its last GameStarted or GameEnded said
        self._ending: TableShown | None = None  # a game's last move, until its GameEnded

    def admit(self, link: WatchLink) -> tuple[Refusal, str] | None:
        """Let ``link`` watch; or why not."""
        if self.ended or (self.between and not link.door.again):
            return Refusal.NO_MATCH, "the match is over"
        if len(self.links) >= self.most:
            return Refusal.WATCHERS_FULL, f"this match has its {self.most} watchers already"
        self.links.append(link)
        link.watching = True
        if self._intro is not None and self._frame is not None:
            link.send(self._intro)
            link.send(self._frame)
        self._counted()
        return None

    def leave(self, link: WatchLink) -> None:
        if link in self.links:
            self.links.remove(link)
            self._counted()

    def _counted(self) -> None:
        if self.on_count is not None and not self.ended:
            self.on_count(len(self.links))

    def follow(self, session: NetSession) -> None:
        """The match is on (``session`` is being made, before its link brings the peer's
        first move): tell the watchers who plays and show them the table, then after
        every event of it; its driver is told how many watch.  The next match on the
        connection, if the players play again, is followed the same way."""
        m = session.match
        self._session, self.between, self._last, self._frame = session, False, None, None
        self._ending = None
        self._intro = watching_frame(session.names, m.target, session.core.max_games, session.private)
        self._scores = (m.scores[0], m.scores[1])
        for link in list(self.links):
            link.send(self._intro)
        view = session.view()  # (None: a private deal being made; its GameStarted shows it)
        if view is not None:
            self._show(TableShown(public_view(view), self._scores, by_lot=m.game.by_lot and not m.game.ply))
        self.on_count = session.watchers_changed
        if self.links:
            self._counted()
        session.observe(lambda ev: self.seen(session, ev))
        session.again.then(self._next)

    def _next(self, session: NetSession | None) -> None:
        """What follows the match just over: nothing, and the watchers leave (the next
        match, if any, is followed from its making on: follow)."""
        if session is None and self.between and not self.ended:
            self.end(HostBye.saying(WatchStop.OVER))

    def seen(self, session: NetSession, ev: Event) -> None:
        """An event of the host's ``session`` (the public part of its view only)."""
        if self.ended or self._intro is None or session is not self._session:
            return
        ending, self._ending = self._ending, None
        if ending is not None and not isinstance(ev, GameEnded):  # (never: GameEnded follows it)
            self._show(ending)
        if isinstance(ev, GameStarted):
            self._scores = ev.scores
            self._show(TableShown(public_view(ev.view), ev.scores, by_lot=ev.by_lot))
        elif isinstance(ev, MovePlayed):
            shown = TableShown(public_view(ev.view), self._scores, ev.move, ev.card)
            if ev.played.result is None:
                self._show(shown)
            else:  # the game's last move: shown with the match's scores, which its GameEnded brings
                self._ending = shown
        elif isinstance(ev, MoveTakenBack):
            self._show(TableShown(public_view(ev.view), self._scores, ev.move, ev.card, taken_back=True))
        elif isinstance(ev, GameEnded):
            self._scores = ev.scores
            pv = public_view(ev.view)
            if ending is not None:
                self._show(replace(ending, scores=ev.scores))
            elif self._last is None or self._last.view != pv or self._last.scores != ev.scores:
                self._show(TableShown(pv, ev.scores))  # a resignation: no move showed it
        elif isinstance(ev, MatchEnded):
            if self._last is not None:
                last = self._last
                self._show(TableShown(last.view, ev.scores, match_over=True))
            self.between = True  # (watchers that follow another match wait for it: _next)
            for link in list(self.links):
                if not link.door.again:
                    link.bye(HostBye.saying(WatchStop.OVER))
        elif isinstance(ev, SessionFailed):  # (why, as data: the host's own line names its files)
            self.end(_stopped(ev.ending))
        elif isinstance(ev, ConnectionChanged) and ev.state is LinkState.CLOSED:
            self.end(HostBye.saying(WatchStop.HOST_LEFT))

    def _show(self, now: TableShown) -> None:
        self._last = now
        self._frame = table_frame(now)
        for link in list(self.links):
            link.send(self._frame)

    def end(self, bye: HostBye) -> None:
        """Say goodbye to every watcher (``bye``: why); none is let in after this."""
        if self.ended:
            return
        self.ended = True
        for link in list(self.links):
            link.bye(bye)
        self.links.clear()


_STOPS: Final = {  # why the match stopped, as the host's bye to its watchers codes it
    EndCause.PEER_LEFT: WatchStop.PEER_LEFT,
    EndCause.CONNECTION_LOST: WatchStop.CONNECTION_LOST,
    EndCause.PEER_BROKE_PROTOCOL: WatchStop.BROKE_PROTOCOL,
    EndCause.PEER_REFUSED: WatchStop.REFUSED,
    EndCause.DEAL_ABANDONED: WatchStop.DEAL_ABANDONED,
    EndCause.STORAGE: WatchStop.STORAGE,
}


def _stopped(ending: Ending | None) -> HostBye:
    """The host's goodbye to its watchers when the match stopped before its end."""
    if ending is None:
        return HostBye.saying(WatchStop.STOPPED)
    left = ending.cause is EndCause.PEER_LEFT
    return HostBye.saying(_STOPS[ending.cause], ending.peer if left else "")


# -- the watcher's side -------------------------------------------------------------


def _cut(where: str, bye: HostBye) -> WatchCut:
    """A watch the host ended before the match's end: its code, never its words read back
    (shown only for a code this version does not know)."""
    return WatchCut(where, WatchEnd.HOST_STOPPED, bye.reason, stop=bye.why, peer=bye.name)


class WatchClient(asyncio.Protocol):
    """``p2p-spite watch``'s connection to the host: a :class:`~p2p_spite.contracts.spectator.Spectator`."""

    def __init__(self, endpoint: WatchEndpoint, where: str) -> None:
        self.endpoint = endpoint
        self.where = where
        self.transport: asyncio.Transport | None = None
        self._events: asyncio.Queue[SpectatorEvent] = asyncio.Queue()
        self._stopped = False
        self._over = False  # the match watched ended (the last one, unless another follows)
        self._beat: Beat | None = None  # our pings
        self._silence: Silence | None = None  # the host's
        # past the join code (None), or how the watch stopped before that
        self.in_door: asyncio.Future[WatchStopped | None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        no_delay(transport)
        self.endpoint.initiate()
        self._flush()
        self._silence = Silence(HOST_SILENCE, self._host_silent)
        self._beat = Beat(WATCH_PING, self._ping)

    def _ping(self) -> None:
        self.endpoint.ping()
        self._flush()

    def _host_silent(self) -> None:
        self._stop(
            WatchStopped(False, WatchCut(self.where, WatchEnd.HOST_SILENT, seconds=HOST_SILENCE), EXIT_LOST)
        )
        if self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if self._silence is not None:
            self._silence.heard()
        self.endpoint.receive_data(data)
        try:
            while True:
                ev = self.endpoint.next_event()
                if isinstance(ev, NeedData):
                    break
                if isinstance(ev, HostBye):
                    if self._over:
                        self._stop(WatchStopped(True))
                    else:
                        self._stop(WatchStopped(False, _cut(self.where, ev), EXIT_PEER_LEFT))
                    break
                if isinstance(ev, TableShown) and ev.match_over:
                    self._over = True
                elif isinstance(ev, Watching):  # (the next match on the connection: not over yet)
                    self._over = False
                self._events.put_nowait(ev)
        except PeerRefused as e:
            self._stop(WatchStopped(False, HostRefused(e.code.value, str(e)), EXIT_ERROR, e.code.value))
        except ProtocolError as e:
            self._stop(WatchStopped(False, RefusedHost(self.where, e.code.value, str(e)), EXIT_ERROR))
        self._flush()
        if self.endpoint.phase in (WatchPhase.WAITING, WatchPhase.WATCHING) and not self.in_door.done():
            self.in_door.set_result(None)
        if self._stopped and self.transport is not None:
            self.transport.close()

    def _flush(self) -> None:
        if not send_bounded(self.transport, self.endpoint.data_to_send(), MAX_WATCH_BUFFER):
            assert self.transport is not None  # (a host that reads nothing of ours: gone)
            self.transport.abort()

    def _stop(self, ev: WatchStopped) -> None:
        if not self._stopped:
            self._stopped = True
            self._events.put_nowait(ev)
            if not self.in_door.done():
                self.in_door.set_result(ev)

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._beat, self._silence):
            if timer is not None:
                timer.stop()
        if self._over:
            self._stop(WatchStopped(True))
        else:
            self._stop(WatchStopped(False, WatchCut(self.where, WatchEnd.LOST), EXIT_LOST))

    async def next_event(self) -> SpectatorEvent:
        return await self._events.get()

    async def close(self) -> None:
        self.endpoint.bye("quit")
        self._flush()
        if self.transport is not None:
            self.transport.close()


WatchDial = Callable[[Callable[[], WatchClient], str, int, float], Awaitable[WatchClient]]


async def watch_match(
    *, host: str, port: int, code: str | None = None, timeout: float = 10.0, dial: WatchDial | None = None
) -> WatchClient:
    """Connect to the host at ``host``:``port`` as a watcher (``code``: its join code),
    and pass its door: CodeRefused when the host wants a code not given, or another.
    ``dial``: the connection comes from it instead (internet.py: a sealed channel)."""
    where = fmt_addr((host, port))
    if dial is None:
        dial = LanDial(lan_scalar(derive_code_key(code))) if code else connect_to  # (net/opening.py)
    try:
        client = await dial(lambda: WatchClient(WatchEndpoint(), where), host, port, timeout)
    except DialFailed as e:
        raise UserError(e.news) from None
    except PeerRefused as e:  # in the opening
        refused = HostRefused(e.code.value, str(e))
        if e.code in CODE_REFUSALS:
            raise CodeRefused(refused, wrong=e.code is Refusal.BAD_CODE) from None
        raise UserError(refused) from None
    except (RemoteProtocolError, ConnectionError, TimeoutError) as e:
        raise UserError(HandshakeFailed(where, str(e) or type(e).__name__)) from None
    try:
        stopped = await asyncio.wait_for(asyncio.shield(client.in_door), HANDSHAKE_TIMEOUT)
    except TimeoutError:
        await client.close()
        raise UserError(HandshakeFailed(where, timeout=True, seconds=HANDSHAKE_TIMEOUT)) from None
    if stopped is not None and stopped.refusal in CODE_REFUSALS:
        refused = stopped.news if isinstance(stopped.news, HostRefused) else HostRefused(stopped.refusal)
        raise CodeRefused(refused, wrong=stopped.refusal == Refusal.BAD_CODE.value)
    return client


__all__ = ["Doorway", "WatchClient", "WatchHub", "WatchLink", "Watching", "watch_match"]
