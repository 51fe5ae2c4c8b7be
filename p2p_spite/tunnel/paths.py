"""The ways between the two players once they share ``Ke``: direct TCP connections and
the transit relay, each opened as a sealed channel (:mod:`.channel`), and the winner
handed to the game protocol as an :class:`asyncio.Transport` (:class:`SealedTransport`)
that seals what it writes and opens what it reads.

The joiner chooses the path (:func:`establish`): it dials the host's direct hints at
once (:func:`.hints.race_connect`, the channel's opening and hello as the handshake)
and, after :data:`HEAD_START` seconds (at once with ``relay_only``, or with no direct
hint), the relay too, with ``token = derive_key(Ke, "transit relay token")``.  The
first path whose channel opens wins; the joiner sends a sealed ``go`` on it and closes
the others.  The host (:class:`TunnelServer`) listens on its direct port (unless relay
only) and keeps one connection waiting at the relay; it takes every connection whose
channel opens and whose first message is ``go`` (the first for the match, later ones
for a reconnection, under the same ``Ke`` with fresh channel nonces).  docs/protocol.md,
"Paths".
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..contracts.news import Connected, News
from .channel import MAX_MESSAGE, SealedChannel, derive_key
from .errors import ChannelError
from .failures import NoPath, RelayLonely, RelayRefused, RelayUnreachable
from .hints import DirectHint, described, first_of, race_connect
from .relay import new_side, relay_connect, where_of
from .spake2 import Role

GO: Final = b"go"  # the joiner's first sealed message on the path it chose
HEAD_START: Final = 1.0  # seconds the direct hints have before the relay is tried too
OPEN_TIMEOUT: Final = 10.0  # seconds a connection has to open its channel (and say go)
RELAY_CONNECT: Final = 10.0  # seconds to reach the relay
RELAY_WAIT: Final = 600.0  # seconds the host's connection waits at the relay for the joiner
PATH_TIMEOUT: Final = 30.0  # seconds the joiner has to find a path
MAX_OPENING: Final = 16  # direct connections opening their channel at once (more: closed at once)
READ_CHUNK: Final = 65536


def relay_token(ke: bytes) -> bytes:
    """The transit relay's token: both sides compute it, nobody else can."""
    return derive_key(ke, b"transit relay token")


@dataclass(slots=True)
class Opened:
    """A connection whose sealed channel is open: the messages that came with it."""

    channel: SealedChannel
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    pending: list[bytes]
    connected: Connected
    address: tuple[str, int]  # the path's far end (the relay's, when relayed)


async def open_channel(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    ke: bytes,
    role: Role,
    timeout: float,
    *,
    seen: bytes = b"",
    go: bool = True,
) -> tuple[SealedChannel, list[bytes]]:
    """Send our opening, read the peer's, exchange the sealed hellos within ``timeout``:
    the channel and the messages already opened (``seen``: the peer's bytes read already;
    ``go``: the host waits for the joiner's first message too, the path's ``go``).
    ChannelError (another key), TimeoutError, ConnectionError."""
    ch = SealedChannel(ke, role)
    writer.write(ch.data_to_send())
    got: list[bytes] = ch.receive_data(seen) if seen else []
    writer.write(ch.data_to_send())
    async with asyncio.timeout(timeout):
        while not ch.established or (go and role is Role.A and not got):
            data = await reader.read(READ_CHUNK)
            if not data:
                raise ConnectionError("the connection closed while the channel opened")
            got += ch.receive_data(data)
            writer.write(ch.data_to_send())
    return ch, got


def _unmapped(host: str) -> str:
    """An IPv4 address a dual-stack listener saw as ``::ffff:a.b.c.d``, as ``a.b.c.d``."""
    with contextlib.suppress(ValueError):
        mapped = ipaddress.ip_address(host)
        if isinstance(mapped, ipaddress.IPv6Address) and mapped.ipv4_mapped is not None:
            return str(mapped.ipv4_mapped)
    return host


def _close_opened(opened: Opened) -> None:
    _close(opened.writer)


def _close(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        writer.close()


# -- the transport the game protocol sees ----------------------------------------------------


class SealedTransport(asyncio.Transport):
    """An opened sealed channel as an asyncio transport: :meth:`write` seals (in DATA
    records of at most MAX_MESSAGE bytes), the peer's records are opened and given to the
    protocol's ``data_received``; a channel error or a dropped connection is the
    protocol's ``connection_lost``.  ``peername`` is the path's address."""

    def __init__(self, opened: Opened) -> None:
        super().__init__()
        self._ch = opened.channel
        self._reader = opened.reader
        self._writer = opened.writer
        self._pending = opened.pending
        self.connected = opened.connected
        self._address = opened.address
        self._protocol: asyncio.BaseProtocol | None = None
        self._closing = False
        self._lost = False
        self._reading = asyncio.Event()
        self._reading.set()
        self._pump: asyncio.Task[None] | None = None

    def attach(self, protocol: asyncio.BaseProtocol) -> None:
        """Give the connection to ``protocol``: its connection_made, then the bytes."""
        self._protocol = protocol
        protocol.connection_made(self)
        self._pump = asyncio.get_running_loop().create_task(self._run())

    # the reading side
    async def _run(self) -> None:
        exc: Exception | None = None
        try:
            for m in self._pending:
                self._deliver(m)
            self._pending = []
            while not self._closing:
                await self._reading.wait()
                data = await self._reader.read(READ_CHUNK)
                if not data:
                    if not self._ch.receive_eof():
                        exc = ConnectionError("the connection dropped")
                    break
                for m in self._ch.receive_data(data):
                    self._deliver(m)
                if self._ch.peer_closed:
                    break
        except ChannelError as e:
            for m in e.delivered:
                self._deliver(m)
            exc = ConnectionError(f"the sealed channel failed: {e}")
        except OSError as e:
            exc = e
        finally:
            self._lose(exc)

    def _deliver(self, message: bytes) -> None:
        p = self._protocol
        if p is not None and not self._closing and isinstance(p, asyncio.Protocol):
            p.data_received(message)

    def _lose(self, exc: Exception | None) -> None:
        if self._lost:
            return
        self._lost = True
        self._closing = True
        self._reading.set()
        _close(self._writer)
        if self._protocol is not None:
            self._protocol.connection_lost(exc)

    # the writing side
    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing:
            return
        view = bytes(data)
        try:
            for i in range(0, len(view), MAX_MESSAGE):
                self._ch.send(view[i : i + MAX_MESSAGE])
        except ChannelError:
            self.abort()
            return
        self._writer.write(self._ch.data_to_send())

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        with contextlib.suppress(ChannelError, OSError):
            self._ch.close()
            self._writer.write(self._ch.data_to_send())
        self._finish()

    def abort(self) -> None:
        if self._closing and self._lost:
            return
        self._closing = True
        self._writer.transport.abort()
        self._finish()

    def _finish(self) -> None:
        if self._pump is not None and not self._pump.done():
            self._pump.cancel()
        asyncio.get_running_loop().call_soon(self._lose, None)

    def is_closing(self) -> bool:
        return self._closing

    def get_write_buffer_size(self) -> int:
        return self._writer.transport.get_write_buffer_size()

    def pause_reading(self) -> None:
        self._reading.clear()

    def resume_reading(self) -> None:
        self._reading.set()

    def is_reading(self) -> bool:
        return self._reading.is_set()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._protocol = protocol

    def get_protocol(self) -> asyncio.BaseProtocol:
        assert self._protocol is not None
        return self._protocol

    def can_write_eof(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        if name == "peername":
            return self._address
        if name == "socket":
            return self._writer.get_extra_info("socket", default)
        return self._writer.get_extra_info(name, default)


# -- the joiner: choosing a path ---------------------------------------------------------------


async def _relay_path(
    ke: bytes, role: Role, relay: tuple[str, int], side: bytes, wait: float
) -> tuple[SealedChannel, list[bytes], asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = relay
    conn = await relay_connect(
        host, port, relay_token(ke), side, connect_timeout=RELAY_CONNECT, wait_timeout=wait
    )
    try:
        ch, got = await open_channel(conn.reader, conn.writer, ke, role, OPEN_TIMEOUT)
    except BaseException:
        _close(conn.writer)
        raise
    return ch, got, conn.reader, conn.writer


async def establish(
    ke: bytes,
    direct: Sequence[DirectHint],
    relay: tuple[str, int] | None,
    *,
    side: bytes,
    timeout: float = PATH_TIMEOUT,
    head_start: float = HEAD_START,
) -> Opened:
    """The joiner's path to the host (see the module's text): the winner, ``go`` sent on
    it.  NoPath (or the relay's own failure, when the relay was the only way) if none
    opens within ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    async def direct_race() -> Opened:
        async def handshake(
            r: asyncio.StreamReader, w: asyncio.StreamWriter, _h: DirectHint
        ) -> tuple[SealedChannel, list[bytes]]:
            return await open_channel(r, w, ke, Role.B, OPEN_TIMEOUT)

        (ch, got), hint, r, w = await race_connect(direct, timeout, handshake)
        return Opened(ch, r, w, got, Connected(direct=True, where=hint.where), (hint.host, hint.port))

    async def relayed(delay: float) -> Opened:
        assert relay is not None
        await asyncio.sleep(delay)
        ch, got, r, w = await _relay_path(ke, Role.B, relay, side, max(deadline - loop.time(), 1.0))
        return Opened(ch, r, w, got, Connected(direct=False, where=where_of(*relay)), relay)

    attempts: list[Awaitable[Opened]] = []
    if direct:
        attempts.append(direct_race())
    if relay is not None:
        attempts.append(relayed(head_start if direct else 0.0))
    if not attempts:
        raise NoPath(seconds=timeout, detail="no address to try")
    winner, failure = await first_of(attempts, timeout, _close_opened)
    if winner is None:
        if isinstance(failure, (RelayUnreachable, RelayRefused, RelayLonely)) and not direct:
            raise failure
        raise NoPath(seconds=timeout, detail=described(failure))
    winner.channel.send(GO)
    winner.writer.write(winner.channel.data_to_send())
    return winner


# -- the host: taking the paths ---------------------------------------------------------------


class TunnelServer(asyncio.AbstractServer):
    """The host's side of the paths: a direct listener (``sock``, unless relay only) and
    one connection waiting at the relay at all times, from :meth:`serve` on.  Every
    connection whose channel opens with ``go`` is handed to a new protocol from the
    factory (through a :class:`SealedTransport`); ``first`` is how the first came,
    ``on_path`` is told how each later one came.  ``relay_failed`` is set
    with the relay's error when it cannot be reached (the caller decides whether that
    ends the wait: with no direct listener it does)."""

    def __init__(
        self,
        ke: bytes,
        relay: tuple[str, int] | None,
        sock: socket.socket | None,
        on_path: Callable[[News], None] | None = None,
        *,
        open_timeout: float = OPEN_TIMEOUT,
    ) -> None:
        self._ke = ke
        self._open_timeout = open_timeout
        self._factory: Callable[[], asyncio.BaseProtocol] | None = None
        self._relay = relay
        self._sock = sock
        self._on_path = on_path
        self._side = new_side()
        self._opening = 0  # direct connections opening their channel now
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = asyncio.Event()
        loop = asyncio.get_running_loop()
        self.relay_failed: asyncio.Future[Exception] = loop.create_future()
        self.first: asyncio.Future[Connected] = loop.create_future()

    async def serve(self, factory: Callable[[], asyncio.BaseProtocol]) -> TunnelServer:
        """Start taking connections, each for a protocol of ``factory``'s."""
        self._factory = factory
        if self._sock is not None:
            self._server = await asyncio.start_server(self._accepted_direct, sock=self._sock)
        if self._relay is not None:
            self._spawn(self._relay_loop())
        return self

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _accepted_direct(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._opening >= MAX_OPENING:  # strangers holding the door: no more of them
            writer.transport.abort()
            return
        self._opening += 1
        try:
            await self._direct(reader, writer)
        except asyncio.CancelledError:  # the host stops while this one is opening: close it
            # here (asyncio's start_server would print the cancelled task as an error)
            writer.transport.abort()
        finally:
            self._opening -= 1

    async def _direct(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        host, port = (_unmapped(str(peer[0])), int(peer[1])) if isinstance(peer, tuple) else ("?", 0)
        await self._take(reader, writer, Connected(direct=True, where=where_of(host, port)), (host, port))

    async def _take(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        how: Connected,
        address: tuple[str, int],
    ) -> bool:
        try:
            ch, got = await open_channel(reader, writer, self._ke, Role.A, self._open_timeout)
        except (ChannelError, TimeoutError, OSError):
            _close(writer)  # a stranger, another key, or a path the joiner did not choose
            return False
        except BaseException:  # (the server closed meanwhile)
            _close(writer)
            raise
        if got[0] != GO or self._closed.is_set() or self._factory is None:
            _close(writer)
            return False
        transport = SealedTransport(Opened(ch, reader, writer, got[1:], how, address))
        transport.attach(self._factory())
        if not self.first.done():
            self.first.set_result(how)
        elif self._on_path is not None:
            self._on_path(how)
        return True

    async def _relay_loop(self) -> None:
        assert self._relay is not None
        host, port = self._relay
        where = where_of(host, port)
        delay = 0.5
        while not self._closed.is_set():
            try:
                conn = await relay_connect(
                    host, port, relay_token(self._ke), self._side,
                    connect_timeout=RELAY_CONNECT, wait_timeout=RELAY_WAIT,
                )  # fmt: skip
            except RelayLonely:
                continue  # nobody came: wait again
            except (RelayUnreachable, RelayRefused) as e:
                if not self.relay_failed.done():
                    self.relay_failed.set_result(e)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            delay = 0.5
            how = Connected(direct=False, where=where)
            await self._take(conn.reader, conn.writer, how, (host, port))  # (then wait at the relay again)

    # asyncio.AbstractServer
    def close(self) -> None:
        self._closed.set()
        if self._server is not None:
            self._server.close()
        for t in list(self._tasks):
            t.cancel()

    async def wait_closed(self) -> None:
        if self._server is not None:
            await self._server.wait_closed()
        for t in list(self._tasks):
            with contextlib.suppress(BaseException):
                await t

    def is_serving(self) -> bool:
        return not self._closed.is_set()

    def get_loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    async def start_serving(self) -> None:
        pass  # (serve starts it)

    async def serve_forever(self) -> None:
        await self._closed.wait()
