"""One TCP connection: an asyncio Protocol around a protocol :class:`Endpoint`.

Bytes from the socket go into the endpoint, its bytes go to the socket (bounded:
a peer that stops reading is dropped), and, once the handshake is done, what
happens goes to the link's :attr:`Link.sink` (a function the session that takes
the link over passes in) as :data:`LinkNews`.  The link only moves bytes: what the
bytes it sends depend on is written down before they are queued for it (the seat
machine's ``Flush`` comes after its writes).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from ..contracts.news import CannotDial, Dial, DropKind
from ..contracts.session import Event
from ..core.protocol import Endpoint, Handshaken, NeedData, Phase, PlayEvent
from ..core.wire import ProtocolError
from .conn import no_delay, send_bounded

HANDSHAKE_TIMEOUT = 15.0  # seconds a connection may take to finish its handshake
MAX_SEND_BUFFER = 256 * 1024  # bytes queued for a peer that does not read; more: the link is dropped


# what a link hands its sink: the match's events, and the endpoint's about the link
OwnerEvent = Event | PlayEvent


@dataclass(frozen=True, slots=True)
class LinkLost:
    """The connection closed (``exc``: why, as asyncio says; None: an orderly close)."""

    exc: Exception | None


@dataclass(frozen=True, slots=True)
class LinkBroken:
    """The peer broke the protocol, or refused ours (``error``; our refusal is sent)."""

    error: ProtocolError


# everything a link hands on, to the one function its session passes in (Link.sink): an
# event (an action received: written down and acknowledged before the sink returns), the
# link's loss, a protocol error
LinkNews = OwnerEvent | LinkLost | LinkBroken
Sink = Callable[["Link", LinkNews], None]


class HelloTimeout(TimeoutError):
    """A new connection sent no valid hello in time (the host's first, short deadline)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no hello within {seconds:g} s")
        self.seconds = seconds


class Link(asyncio.Protocol):
    """One TCP connection and its protocol endpoint."""

    def __init__(
        self,
        endpoint: Endpoint,
        peer_label: str = "",
        *,
        admit: Callable[[Link], bool] | None = None,
        hello_deadline: float | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.peer: Any = None  # the peer's socket address
        self._admit = admit  # the host's door: may this connection take a handshake slot?
        self._hello_deadline = hello_deadline  # seconds the peer has to send a valid hello
        self.transport: asyncio.Transport | None = None
        self.peer_label = peer_label
        self.handshaken: asyncio.Future[Handshaken] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.sink: Sink | None = None  # the session's, once it takes the link over
        self.error: BaseException | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._hello_timer: asyncio.TimerHandle | None = None
        self.last_rx = asyncio.get_running_loop().time()
        self.connected_at = self.last_rx  # (connection_made sets it again)
        self.dropped_as: DropKind | None = None  # why the host's door dropped this connection
        self.overflowed = False  # the peer stopped reading and our send buffer went over the bound

    # asyncio callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        no_delay(transport)
        self.peer = transport.get_extra_info("peername")
        self.connected_at = asyncio.get_running_loop().time()
        if not self.peer_label:
            self.peer_label = fmt_addr(self.peer) if self.peer else "?"
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(HANDSHAKE_TIMEOUT, self._handshake_timeout)
        if self._admit is not None and not self._admit(self):
            self.drop(DropKind.TURNED_AWAY, "every handshake slot holds an authenticated connection")
            return
        if self._hello_deadline is not None:
            self._hello_timer = loop.call_later(self._hello_deadline, self._hello_timeout)
        self.endpoint.initiate()
        self.flush()

    def data_received(self, data: bytes) -> None:
        self.last_rx = asyncio.get_running_loop().time()
        self.endpoint.receive_data(data)
        self.pump()

    def eof_received(self) -> bool | None:
        return None  # close our side too

    def pause_writing(self) -> None:
        """The peer does not read what we send: stop reading what it sends until it does
        (every ping and move from it would queue an answer)."""
        if self.transport is not None and not self.transport.is_closing():
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._timer, self._hello_timer):
            if timer is not None:
                timer.cancel()
        if not self.handshaken.done():
            detail = self.error or ConnectionError(
                "the connection closed during the handshake"
                + (" (in the middle of a frame)" if self.endpoint.pending_bytes else "")
            )
            self.handshaken.set_exception(detail)
            self.handshaken.exception()  # mark retrieved
        if not self.closed.done():
            self.closed.set_result(None)
        if self.sink is not None:
            self.sink(self, LinkLost(exc))

    # helpers
    def _handshake_timeout(self) -> None:
        if not self.handshaken.done():
            self.fail(TimeoutError("no handshake within the time limit"))

    def _hello_timeout(self) -> None:
        self._hello_timer = None
        if not self.handshaken.done() and self.endpoint.phase is Phase.HELLO:
            self.fail(HelloTimeout(self._hello_deadline or 0.0))

    def hand_over(self) -> None:
        """The host's door gave this connection to a watcher (net/watch.py) before the
        endpoint read a byte of it: stop this link's deadlines; it hears no more."""
        for timer in (self._timer, self._hello_timer):
            if timer is not None:
                timer.cancel()
        self._timer = self._hello_timer = None
        if not self.handshaken.done():
            self.handshaken.cancel()

    def drop(self, kind: DropKind, why: str) -> None:
        """The host's door drops this connection at once (``kind``: why, for the console)."""
        self.dropped_as = kind
        if self.error is None:
            self.error = ConnectionError(f"{kind.value} ({why})")
        if self.transport is not None:
            self.transport.abort()

    def flush(self) -> None:
        """Send what the endpoint has queued (what it depends on is written down already:
        the session flushes after the machine's writes)."""
        if not send_bounded(self.transport, self.endpoint.data_to_send(), MAX_SEND_BUFFER):
            self._overflow()

    def _overflow(self) -> None:
        """The peer has left more than MAX_SEND_BUFFER bytes unread: drop the link
        (abort: the unread bytes are thrown away, not kept until it reads)."""
        self.overflowed = True
        if self.error is None:
            self.error = ConnectionError(f"the peer left more than {MAX_SEND_BUFFER // 1024} KiB unread")
        if self.transport is not None:
            self.transport.abort()

    def fail(self, exc: BaseException) -> None:
        """Stop this connection (after sending whatever refusal is queued)."""
        if self.error is None:
            self.error = exc
        self.flush()
        if self.transport is not None:
            self.transport.close()

    def pump(self) -> None:
        """Process what arrived, until the endpoint needs more bytes (or a session must take over)."""
        ep = self.endpoint
        try:
            while True:
                if self.transport is not None and self.transport.is_closing():
                    # dropped (overflow, failure, a write that found the connection reset):
                    # nothing more from this peer (an action it sent is handed over whole,
                    # written down and shown, by the sink)
                    break
                if self.handshaken.done() and self.sink is None:
                    break  # wait for the session to attach before handling play messages
                ev = ep.next_event()
                if isinstance(ev, NeedData):
                    break
                if isinstance(ev, Handshaken):
                    if self._timer is not None:
                        self._timer.cancel()
                    self.handshaken.set_result(ev)
                    continue
                assert self.sink is not None
                self.sink(self, ev)
        except ProtocolError as e:
            if not self.handshaken.done():
                self.error = e
                self.fail(e)
            elif self.sink is not None:
                self.flush()
                self.sink(self, LinkBroken(e))
            else:
                self.fail(e)
        self.flush()


def fmt_addr(addr: Any) -> str:
    if isinstance(addr, tuple) and len(addr) >= 2:
        host, port = addr[0], addr[1]
        return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"
    return str(addr)


class DialFailed(ConnectionError):
    """No TCP connection at all (refused, unreachable, timed out): ``news`` says which."""

    def __init__(self, news: CannotDial) -> None:
        super().__init__(news.where)
        self.news = news


P = TypeVar("P", bound=asyncio.Protocol)


async def connect_to(factory: Callable[[], P], host: str, port: int, timeout: float) -> P:
    """Connect to ``host``:``port`` within ``timeout`` seconds: the protocol ``factory``
    made (a player's link, a watcher's client), or DialFailed."""
    with _dial_failures(host, port, timeout):
        _t, protocol = await asyncio.wait_for(
            asyncio.get_running_loop().create_connection(factory, host, port), timeout
        )
    return protocol


async def dial_stream(
    host: str, port: int, timeout: float
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """As :func:`connect_to`, the connection as a stream (net/opening.py runs on it)."""
    with _dial_failures(host, port, timeout):
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    no_delay(writer.transport)
    return reader, writer


@contextlib.contextmanager
def _dial_failures(host: str, port: int, timeout: float) -> Iterator[None]:
    """A failed dial as DialFailed, saying which failure."""
    where = fmt_addr((host, port))
    try:
        yield
    except TimeoutError:
        raise DialFailed(CannotDial(where, Dial.NO_ANSWER, seconds=timeout)) from None
    except ConnectionRefusedError:
        raise DialFailed(CannotDial(where, Dial.NOBODY)) from None
    except (OSError, OverflowError) as e:
        raise DialFailed(
            CannotDial(where, Dial.OTHER, detail=str(getattr(e, "strerror", None) or e))
        ) from None
