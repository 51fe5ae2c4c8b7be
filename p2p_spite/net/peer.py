"""The asyncio side: listening, connecting, and a :class:`NetSession` per seat.

A thin transport around :class:`~p2p_spite.net.protocol.Endpoint`: bytes from
the socket go into the endpoint, its events come out here, its bytes go to the
socket.  Both ends of a match can live in one process and one event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..engine import IllegalMoveError, Match, Move, PlayerView
from ..errors import UserError
from ..paths import default_record_path
from ..session import (
    ConnectionChanged,
    Event,
    GameEnded,
    SessionFailed,
)
from .game import Action, GameCore
from .journal import RecordKeeper, Saved
from .protocol import (
    HOST,
    JOIN,
    NEED_DATA,
    Acked,
    Endpoint,
    Handshaken,
    LocalConfig,
    PeerBye,
    PeerRefused,
    Phase,
    Pong,
)
from .wire import ProtocolError, RemoteProtocolError

DEFAULT_PORT = 4747
HANDSHAKE_TIMEOUT = 15.0  # seconds a connection may take to finish its handshake
LINGER = 2.0  # seconds to wait for the peer to see our last bytes when closing

Warn = Callable[[str], None]


def _stderr_warning(text: str) -> None:
    print(f"p2p-spite: warning: {text}", file=sys.stderr, flush=True)


class _Link(asyncio.Protocol):
    """One TCP connection and its protocol endpoint."""

    def __init__(self, endpoint: Endpoint, peer_label: str = "") -> None:
        self.endpoint = endpoint
        self.transport: asyncio.Transport | None = None
        self.peer_label = peer_label
        self.handshaken: asyncio.Future[Handshaken] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.owner: NetSession | None = None
        self.error: BaseException | None = None
        self._timer: asyncio.TimerHandle | None = None

    # asyncio callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if not self.peer_label:
            peer = transport.get_extra_info("peername")
            self.peer_label = _fmt_addr(peer) if peer else "?"
        self._timer = asyncio.get_running_loop().call_later(HANDSHAKE_TIMEOUT, self._handshake_timeout)
        self.endpoint.initiate()
        self._flush()

    def data_received(self, data: bytes) -> None:
        self.endpoint.receive_data(data)
        self.pump()

    def eof_received(self) -> bool | None:
        return None  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if not self.handshaken.done():
            detail = self.error or ConnectionError(
                "the connection closed during the handshake"
                + (" (in the middle of a frame)" if self.endpoint.pending_bytes else "")
            )
            self.handshaken.set_exception(detail)
            self.handshaken.exception()  # mark retrieved
        if not self.closed.done():
            self.closed.set_result(None)
        if self.owner is not None:
            self.owner._link_lost(self, exc)

    # helpers
    def _handshake_timeout(self) -> None:
        if not self.handshaken.done():
            self.fail(TimeoutError("no handshake within the time limit"))

    def _flush(self) -> None:
        out = self.endpoint.data_to_send()
        if out and self.transport is not None and not self.transport.is_closing():
            self.transport.write(out)

    def fail(self, exc: BaseException) -> None:
        """Stop this connection (after sending whatever refusal is queued)."""
        if self.error is None:
            self.error = exc
        self._flush()
        if self.transport is not None:
            self.transport.close()

    def pump(self) -> None:
        """Process what arrived, until the endpoint needs more bytes (or an owner must take over)."""
        ep = self.endpoint
        try:
            while True:
                if self.handshaken.done() and self.owner is None:
                    break  # wait for the session to attach before handling play messages
                ev = ep.next_event()
                if ev is NEED_DATA:
                    break
                if isinstance(ev, Handshaken):
                    if self._timer is not None:
                        self._timer.cancel()
                    self.handshaken.set_result(ev)
                    continue
                assert self.owner is not None
                self.owner._on_event(self, ev)
        except ProtocolError as e:
            if not self.handshaken.done():
                self.error = e
                self.fail(e)
            elif self.owner is not None:
                self._flush()
                self.owner._on_protocol_error(self, e)
            else:
                self.fail(e)
        self._flush()


def _fmt_addr(addr: Any) -> str:
    if isinstance(addr, tuple) and len(addr) >= 2:
        host, port = addr[0], addr[1]
        return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"
    return str(addr)


class NetSession:
    """One seat's side of a network match: the :class:`~p2p_spite.session.Session` contract."""

    def __init__(
        self,
        core: GameCore,
        link: _Link,
        keeper: RecordKeeper | None,
        peer_name: str,
        *,
        server: asyncio.AbstractServer | None = None,
        resumed_at: int = 0,
        seed_from_host: bool = False,
    ) -> None:
        self.core = core
        self.keeper = keeper
        self.peer_name = peer_name or ("host" if core.seat == 1 else "joiner")
        self.server = server
        self.resumed_at = resumed_at
        self.seed_from_host = seed_from_host
        self.acked = core.position  # the peer has the first `acked` actions
        self._ack_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self._link: _Link | None = None
        self._done = False  # failed or closed: no more play
        self._ended = False  # MatchEnded emitted
        self.failure: str | None = None
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
    def record_path(self) -> str | None:
        return str(self.keeper.path) if self.keeper is not None else None

    def view(self) -> PlayerView:
        v: PlayerView = self.core.view()
        return v

    async def play(self, move: Move) -> None:
        self._check_open()
        core = self.core
        core.check_move(move, core.seat)
        self._local(Action(core.match.game_number, core.seat, move))

    async def resign(self) -> None:
        self._check_open()
        self._local(self.core.check_resign(self.core.seat))

    async def chat(self, text: str) -> None:
        self._check_open()
        link = self._link
        if link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_chat(text)
            link._flush()

    async def close(self, reason: str = "quit") -> None:
        if not self._done:
            self._done = True
            self._put(ConnectionChanged("closed", reason))
        await self._shutdown(reason)

    async def next_event(self) -> Event:
        return await self._events.get()

    # -- extras ------------------------------------------------------------------------

    @property
    def closed_for_play(self) -> bool:
        """No more moves: the match ended, failed or was closed."""
        return self._done

    async def wait_acked(self, n: int, timeout: float | None = None) -> bool:
        """Wait until the peer has acknowledged the first ``n`` actions (False on timeout/loss)."""
        if self.acked >= n:
            return True
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._ack_waiters.append((n, fut))
        try:
            await asyncio.wait_for(fut, timeout)
        except (TimeoutError, ConnectionError):
            return False
        return True

    # -- internals ----------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._done:
            raise IllegalMoveError([], self.failure or "the session is closed")

    def _put(self, ev: Event) -> None:
        self._events.put_nowait(ev)

    def _attach(self, link: _Link) -> None:
        self._link = link
        link.owner = self
        if self.keeper is not None:
            self.core.sink = self.keeper
        link.pump()  # play messages that came right behind the handshake

    def _local(self, action: Action) -> None:
        core = self.core
        n = core.position
        evs = core.apply(action)  # written to the journal before anything is sent or shown
        link = self._link
        if link is not None and link.endpoint.phase is Phase.PLAY:
            link.endpoint.send_action(n)
            link._flush()
        for ev in evs:
            self._put(ev)
        if core.finished:
            self._finish()

    def _finish(self) -> None:
        if self._ended:
            return
        self._ended = True
        self._done = True
        path = self.keeper.close() if self.keeper is not None else None
        self._put(self.core.end_event(str(path) if path else None))

    def _on_event(self, link: _Link, ev: Any) -> None:
        if isinstance(ev, Acked):
            self.acked = max(self.acked, ev.n)
            keep = []
            for n, fut in self._ack_waiters:
                if self.acked >= n:
                    if not fut.done():
                        fut.set_result(None)
                else:
                    keep.append((n, fut))
            self._ack_waiters = keep
        elif isinstance(ev, Pong):
            pass
        elif isinstance(ev, PeerBye):
            if not self._ended and not self._done:
                self._fail(f"{self.peer_name} left the match ({ev.reason or 'no reason given'})")
            link.fail(ConnectionError("bye"))
        else:
            self._put(ev)
            if isinstance(ev, GameEnded) and self.core.finished:
                self._finish()

    def _on_protocol_error(self, link: _Link, e: ProtocolError) -> None:
        if isinstance(e, RemoteProtocolError):
            msg = f"stopped the match: {self.peer_name} broke the protocol: {e}"
            if e.code in ("illegal-move", "desync", "history"):
                msg = f"stopped the match: {e}"
        elif isinstance(e, PeerRefused):
            msg = f"{self.peer_name} stopped the match: {e}"
        else:
            msg = f"stopped the match: {e}"
        link.fail(e)
        self._fail(msg)

    def _link_lost(self, link: _Link, exc: Exception | None) -> None:
        if link is not self._link:
            return
        self._link = None
        for _, fut in self._ack_waiters:
            if not fut.done():
                fut.set_exception(ConnectionError("connection lost"))
                fut.exception()
        self._ack_waiters = []
        if not self._done and not self._ended:
            self._fail(f"the connection to {self.peer_name} was lost")

    def _fail(self, message: str) -> None:
        if self._ended or self.failure is not None:
            return
        self._done = True
        self.failure = message
        path = None
        if self.keeper is not None:
            try:
                path = str(self.keeper.close(keep_journal=False))
            except UserError as e:
                message += f" ({e})"
        self._put(ConnectionChanged("lost", message))
        self._put(SessionFailed(message + (f"; record saved to {path}" if path else ""), path))
        self._close_transport()

    def _close_transport(self) -> None:
        link = self._link
        if link is not None and link.transport is not None:
            link._flush()
            link.transport.close()
        if self.server is not None:
            self.server.close()

    async def _shutdown(self, reason: str) -> None:
        link = self._link
        if link is not None and link.transport is not None and not link.transport.is_closing():
            link.endpoint.send_bye(reason)
            link._flush()
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


def _keeper_for(core: GameCore, record_path: str | Path | None, kind: str) -> RecordKeeper:
    path = Path(record_path) if record_path is not None else default_record_path(kind)
    return RecordKeeper(path, core.match, core.match_id, core.max_games)


def _core_from_saved(saved: Saved, seat: int) -> GameCore:
    try:
        return GameCore.replay(
            Match(saved.seed, saved.target, saved.players),
            seat,
            saved.match_id,
            saved.max_games,
            saved.actions,
        )
    except IllegalMoveError as e:
        raise UserError(f"the saved match does not replay: {e.reason}") from None


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
) -> NetSession:
    """Listen on ``bind``:``port`` (``""`` = all interfaces, port 0 = any free one) and
    return a session once a peer has joined and the handshake is done.

    ``on_listening(host, port)`` is called with the real address once listening.
    ``seed`` None: the seed is drawn by both peers (commit-reveal).  ``games``
    stops the match after that many games.  ``code``: the join code the joiner
    must give (None: no code).  ``resume``: continue a saved match
    (:func:`~p2p_spite.net.journal.load_saved`).  Connections that fail the
    handshake are dropped with ``on_warning(text)`` and the host keeps waiting.
    Raises UserError if it cannot listen.
    """
    from .protocol import derive_code_key

    loop = asyncio.get_running_loop()
    config = LocalConfig(
        HOST,
        name,
        derive_code_key(code) if code else None,
        seed=seed,
        target=target,
        max_games=games,
    )
    core = _core_from_saved(resume, 0) if resume is not None else None
    if core is not None:
        config.target = core.match.target
        config.max_games = core.max_games
    winner: asyncio.Future[_Link] = loop.create_future()
    warn = on_warning or (lambda _t: None)
    session_box: list[NetSession] = []
    watchers: set[asyncio.Task[None]] = set()

    def factory() -> _Link:
        link = _Link(Endpoint(config, session_box[0].core if session_box else core))
        task = loop.create_task(_watch(link))
        watchers.add(task)
        task.add_done_callback(watchers.discard)
        return link

    async def _watch(link: _Link) -> None:
        try:
            await link.handshaken
        except (ProtocolError, ConnectionError, TimeoutError, OSError) as e:
            if isinstance(e, PeerRefused):
                warn(f"{link.peer_label} refused the match: {e}")
            else:
                warn(f"dropped a connection from {link.peer_label}: {_describe(e)}")
            return
        if winner.done():
            link.endpoint.refuse("seat-taken", "this match already has its two players")
            link.fail(ConnectionError("seat taken"))
            return
        winner.set_result(link)

    try:
        sock = await _listen_socket(bind, port)
        server = await loop.create_server(factory, sock=sock)
    except (OSError, OverflowError) as e:
        where = _fmt_addr((bind or "*", port))
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
        server.close()
        raise
    hs = link.handshaken.result()
    ep = link.endpoint
    assert ep.core is not None
    keeper = _keeper_for(ep.core, record_path if resume is None else resume_path(resume, record_path), "host")
    sess = NetSession(
        ep.core,
        link,
        keeper,
        hs.peer_name,
        server=server,
        resumed_at=hs.resumed_at,
        seed_from_host=hs.seed_from_host,
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
        return f"protocol error: {e}"
    if isinstance(e, TimeoutError):
        return "no handshake in time"
    return str(e) or type(e).__name__


async def join_session(
    *,
    host: str,
    port: int = DEFAULT_PORT,
    name: str = "joiner",
    record_path: str | Path | None = None,
    code: str | None = None,
    resume: Saved | None = None,
    timeout: float = HANDSHAKE_TIMEOUT,
) -> NetSession:
    """Connect to a host and return the session once the handshake is done.

    Raises UserError (one line) if the host cannot be reached or refuses.
    """
    from .protocol import derive_code_key

    loop = asyncio.get_running_loop()
    config = LocalConfig(JOIN, name, derive_code_key(code) if code else None)
    core = _core_from_saved(resume, 1) if resume is not None else None
    where = _fmt_addr((host, port))
    try:
        _t, link = await asyncio.wait_for(
            loop.create_connection(lambda: _Link(Endpoint(config, core), where), host, port), timeout
        )
    except TimeoutError:
        raise UserError(f"cannot connect to {where}: timed out") from None
    except (OSError, OverflowError) as e:
        raise UserError(f"cannot connect to {where}: {getattr(e, 'strerror', None) or e}") from None
    try:
        hs = await link.handshaken
    except PeerRefused as e:
        raise UserError(f"the host refused: {e}") from None
    except RemoteProtocolError as e:
        raise UserError(f"refused the host at {where}: {e}") from None
    except (ConnectionError, TimeoutError, OSError) as e:
        raise UserError(f"the handshake with {where} failed: {_describe(e)}") from None
    ep = link.endpoint
    assert ep.core is not None
    keeper = _keeper_for(ep.core, record_path if resume is None else resume_path(resume, record_path), "join")
    return NetSession(
        ep.core, link, keeper, hs.peer_name, resumed_at=hs.resumed_at, seed_from_host=hs.seed_from_host
    )
