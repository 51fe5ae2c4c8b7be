"""A WebSocket client (RFC 6455): a sans-I/O core and a thin asyncio shell.

:class:`WebSocketCore` takes the bytes the server sent (:meth:`~WebSocketCore.receive_data`)
and gives back events (:meth:`~WebSocketCore.next_event`); what it has to send waits in
:meth:`~WebSocketCore.data_to_send`.  It does the opening handshake (section 4.1: the
``Sec-WebSocket-Key`` and its ``Sec-WebSocket-Accept``), masks every frame it sends
(5.3), reassembles fragmented messages (5.4), answers a ping with a pong (5.5.2) and a
close with a close (5.5.1, 7), and refuses what a server must not send: a masked frame,
a reserved bit or opcode, a fragmented or oversized control frame, a text that is not
UTF-8, a frame or message over the size limit.  A refusal is a :class:`WebSocketError`;
the core then queues a close frame with the status code (1002, 1007, 1009) and takes
nothing more.  No extensions and no subprotocols are offered.

:func:`connect` opens ``ws://`` or ``wss://`` (TLS with :func:`ssl.create_default_context`,
which checks the certificate and the host name) and gives a :class:`WebSocket`; each of
its waits has a deadline.

The errors are under :class:`~p2p_spite.contracts.errors.SpiteError`, technical words (the mailbox
client turns them into a player's line).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import ssl
import struct
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from ..contracts.errors import SpiteError

GUID: Final = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455, 1.3

OP_CONTINUATION: Final = 0x0
OP_TEXT: Final = 0x1
OP_BINARY: Final = 0x2
OP_CLOSE: Final = 0x8
OP_PING: Final = 0x9
OP_PONG: Final = 0xA
_DATA_OPS: Final = (OP_TEXT, OP_BINARY)
_CONTROL_OPS: Final = (OP_CLOSE, OP_PING, OP_PONG)

# Status codes (RFC 6455, 7.4.1)
CLOSE_NORMAL: Final = 1000
CLOSE_PROTOCOL: Final = 1002
CLOSE_NO_STATUS: Final = 1005  # never sent: "the close frame had no code"
CLOSE_BAD_DATA: Final = 1007
CLOSE_TOO_BIG: Final = 1009

MAX_MESSAGE: Final = 1 << 20  # a whole message, after reassembly
MAX_HANDSHAKE: Final = 16 * 1024  # the server's HTTP response head
MAX_CONTROL: Final = 125  # RFC 6455, 5.5


class WebSocketError(SpiteError):
    """Something went wrong with the WebSocket (technical words)."""


class WebSocketProtocolError(WebSocketError):
    """The server broke RFC 6455 (or our size limits): ``close_code`` is the status sent."""

    def __init__(self, message: str, close_code: int = CLOSE_PROTOCOL) -> None:
        super().__init__(message)
        self.close_code = close_code


class WebSocketClosed(WebSocketError):
    """The connection is closed (``code`` and ``reason`` from the close frame, if any)."""

    def __init__(self, code: int = CLOSE_NO_STATUS, reason: str = "") -> None:
        super().__init__(f"closed ({code}{': ' + reason if reason else ''})")
        self.code = code
        self.reason = reason


class WebSocketTimeout(WebSocketError):
    """A wait on the server passed its deadline (``what`` waited, ``seconds``)."""

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"{what}: no answer within {seconds:g} s")
        self.seconds = seconds


class WebSocketUnreachable(WebSocketError):
    """No connection to the server at ``where`` (refused, unreachable, TLS failed):
    ``why``, the system's words."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}")
        self.where = where
        self.why = why


# -- events ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TextMessage:
    text: str


@dataclass(frozen=True, slots=True)
class BinaryMessage:
    data: bytes


@dataclass(frozen=True, slots=True)
class Pong:
    data: bytes


@dataclass(frozen=True, slots=True)
class Closed:
    """The server's close frame (``code`` 1005 when it had none)."""

    code: int
    reason: str


Event = TextMessage | BinaryMessage | Pong | Closed


# -- framing --------------------------------------------------------------------------------


def accept_key(key: str) -> str:
    """``Sec-WebSocket-Accept`` for ``Sec-WebSocket-Key`` ``key`` (RFC 6455, 4.2.2)."""
    return base64.b64encode(hashlib.sha1(key.encode("ascii") + GUID).digest()).decode("ascii")


def apply_mask(data: bytes, mask: bytes) -> bytes:
    """``data`` XOR the 4-byte ``mask`` repeated (RFC 6455, 5.3): masks and unmasks."""
    if not data:
        return b""
    n = len(data)
    repeated = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big")


def encode_frame(opcode: int, payload: bytes, mask: bytes | None, fin: bool = True) -> bytes:
    """One frame: ``mask`` (4 bytes) for a client's frame, None for a server's."""
    head = bytearray([(0x80 if fin else 0) | opcode])
    bit = 0x80 if mask is not None else 0
    n = len(payload)
    if n < 126:
        head.append(bit | n)
    elif n < 1 << 16:
        head.append(bit | 126)
        head += struct.pack("!H", n)
    else:
        head.append(bit | 127)
        head += struct.pack("!Q", n)
    if mask is None:
        return bytes(head) + payload
    return bytes(head) + mask + apply_mask(payload, mask)


def _valid_close_code(code: int) -> bool:
    """A status code a close frame may carry (RFC 6455, 7.4)."""
    return code in (1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014) or (
        3000 <= code <= 4999
    )


# -- the core -------------------------------------------------------------------------------

_CONNECTING: Final = 0
_OPEN: Final = 1
_CLOSING: Final = 2  # we sent a close frame, waiting for the server's
_CLOSED: Final = 3


class WebSocketCore:
    """A client's side of one WebSocket connection, without I/O.

    ``host`` (as the ``Host`` header gives it) and ``resource`` (path and query) name what
    is opened; ``new_key`` and ``new_mask`` give the handshake's 16 random bytes and each
    frame's 4 (``os.urandom``; a test pins them).  ``max_message`` bounds a message after
    reassembly, so also each frame.
    """

    def __init__(
        self,
        host: str,
        resource: str = "/",
        *,
        max_message: int = MAX_MESSAGE,
        new_key: Callable[[], bytes] | None = None,
        new_mask: Callable[[], bytes] | None = None,
    ) -> None:
        self.max_message = max_message
        self._new_mask = new_mask or (lambda: os.urandom(4))
        self._key = base64.b64encode((new_key or (lambda: os.urandom(16)))()).decode("ascii")
        self._state = _CONNECTING
        self._in = bytearray()
        self._out = bytearray()
        self._events: deque[Event] = deque()
        self._parts: list[bytes] = []  # the fragments of the message under way
        self._parts_size = 0
        self._message_op: int | None = None  # its opcode, None between messages
        self.close_code: int | None = None  # the server's close, once received
        self._out += (
            f"GET {resource} HTTP/1.1\r\n"
            f"Host: {host}\r\n"
            "Upgrade: websocket\r\n"
            "Connection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {self._key}\r\n"
            "Sec-WebSocket-Version: 13\r\n"
            "\r\n"
        ).encode("ascii")

    # -- state ------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        """The handshake is done and no close frame was sent or received."""
        return self._state == _OPEN

    @property
    def is_closed(self) -> bool:
        """Both close frames passed (or a refusal): the TCP connection may go."""
        return self._state == _CLOSED

    def data_to_send(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def next_event(self) -> Event | None:
        return self._events.popleft() if self._events else None

    # -- sending ----------------------------------------------------------------------------

    def _frame(self, opcode: int, payload: bytes, fin: bool = True) -> None:
        self._out += encode_frame(opcode, payload, self._new_mask(), fin)

    def _check_open(self) -> None:
        if self._state != _OPEN:
            raise WebSocketClosed(self.close_code or CLOSE_NO_STATUS)

    def send_text(self, text: str) -> None:
        self._check_open()
        self._frame(OP_TEXT, text.encode("utf-8"))

    def send_binary(self, data: bytes, fragment: int = 0) -> None:
        """One binary message; in frames of ``fragment`` bytes when given (> 0)."""
        self._check_open()
        if fragment <= 0 or len(data) <= fragment:
            self._frame(OP_BINARY, data)
            return
        chunks = [data[i : i + fragment] for i in range(0, len(data), fragment)]
        for i, chunk in enumerate(chunks):
            self._frame(OP_BINARY if i == 0 else OP_CONTINUATION, chunk, fin=i == len(chunks) - 1)

    def ping(self, data: bytes = b"") -> None:
        self._check_open()
        if len(data) > MAX_CONTROL:
            raise ValueError("a ping carries at most 125 bytes")
        self._frame(OP_PING, data)

    def close(self, code: int = CLOSE_NORMAL, reason: str = "") -> None:
        """Start the closing handshake (nothing if it is started already)."""
        if self._state == _CONNECTING:
            self._state = _CLOSED
            return
        if self._state != _OPEN:
            return
        payload = struct.pack("!H", code) + reason.encode("utf-8")[:123]
        self._frame(OP_CLOSE, payload)
        self._state = _CLOSING

    # -- receiving --------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Take the server's bytes (b"" when its connection ended): events, or a
        :class:`WebSocketError` (then a close frame waits in :meth:`data_to_send`)."""
        if self._state == _CLOSED:
            return
        if not data:
            self._state = _CLOSED
            if self.close_code is None:
                raise WebSocketClosed()
            return
        self._in += data
        try:
            if self._state == _CONNECTING:
                self._read_handshake()
            while self._state in (_OPEN, _CLOSING) and self._read_frame():
                pass
        except WebSocketProtocolError as e:
            self._fail(e.close_code)
            raise

    def _fail(self, code: int) -> None:
        if self._state == _OPEN:
            self._frame(OP_CLOSE, struct.pack("!H", code))
        self._state = _CLOSED
        self._in.clear()

    def _read_handshake(self) -> None:
        end = self._in.find(b"\r\n\r\n")
        if end < 0:
            if len(self._in) > MAX_HANDSHAKE:
                raise WebSocketProtocolError("the server's handshake is too long")
            return
        if end > MAX_HANDSHAKE:
            raise WebSocketProtocolError("the server's handshake is too long")
        head = bytes(self._in[:end]).decode("latin-1")
        del self._in[: end + 4]
        lines = head.split("\r\n")
        status = lines[0].split(" ", 2)
        if len(status) < 2 or not status[0].startswith("HTTP/1.1") or status[1] != "101":
            raise WebSocketProtocolError(f"the server answered {lines[0][:80]!r}, not 101")
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep:
                raise WebSocketProtocolError("a malformed header in the server's handshake")
            key = name.strip().lower()
            headers[key] = (headers[key] + ", " if key in headers else "") + value.strip()
        if headers.get("upgrade", "").lower() != "websocket":
            raise WebSocketProtocolError("the server's handshake lacks 'Upgrade: websocket'")
        if "upgrade" not in [t.strip().lower() for t in headers.get("connection", "").split(",")]:
            raise WebSocketProtocolError("the server's handshake lacks 'Connection: Upgrade'")
        if headers.get("sec-websocket-accept") != accept_key(self._key):
            raise WebSocketProtocolError("the server's Sec-WebSocket-Accept is wrong")
        if headers.get("sec-websocket-extensions") or headers.get("sec-websocket-protocol"):
            raise WebSocketProtocolError("the server chose an extension or subprotocol not offered")
        self._state = _OPEN

    def _read_frame(self) -> bool:
        """Take one whole frame from the buffer, if there is one."""
        buf = self._in
        if len(buf) < 2:
            return False
        b0, b1 = buf[0], buf[1]
        fin, rsv, opcode = bool(b0 & 0x80), b0 & 0x70, b0 & 0x0F
        if rsv:
            raise WebSocketProtocolError("a reserved bit is set")
        if b1 & 0x80:
            raise WebSocketProtocolError("the server masked a frame")
        if opcode not in _DATA_OPS + _CONTROL_OPS + (OP_CONTINUATION,):
            raise WebSocketProtocolError(f"unknown opcode {opcode}")
        n, at = b1 & 0x7F, 2
        if opcode in _CONTROL_OPS and (n > MAX_CONTROL or not fin):
            raise WebSocketProtocolError("a control frame is fragmented or over 125 bytes")
        if n == 126:
            if len(buf) < 4:
                return False
            (n,) = struct.unpack_from("!H", buf, 2)
            at = 4
        elif n == 127:
            if len(buf) < 10:
                return False
            (n,) = struct.unpack_from("!Q", buf, 2)
            at = 10
            if n >> 63:
                raise WebSocketProtocolError("a frame length has its top bit set")
        if opcode in (*_DATA_OPS, OP_CONTINUATION) and self._parts_size + n > self.max_message:
            raise WebSocketProtocolError(f"a message over {self.max_message} bytes", close_code=CLOSE_TOO_BIG)
        if len(buf) < at + n:
            return False
        payload = bytes(buf[at : at + n])
        del buf[: at + n]
        self._on_frame(fin, opcode, payload)
        return True

    def _on_frame(self, fin: bool, opcode: int, payload: bytes) -> None:
        if opcode == OP_PING:
            if self._state == _OPEN:
                self._frame(OP_PONG, payload)
        elif opcode == OP_PONG:
            self._events.append(Pong(payload))
        elif opcode == OP_CLOSE:
            self._on_close(payload)
        elif self._state == _CLOSING:
            pass  # data after our close frame: dropped (RFC 6455, 5.5.1)
        elif opcode == OP_CONTINUATION:
            if self._message_op is None:
                raise WebSocketProtocolError("a continuation frame with no message under way")
            self._add_part(fin, payload)
        else:
            if self._message_op is not None:
                raise WebSocketProtocolError("a new message before the last one's final frame")
            self._message_op = opcode
            self._add_part(fin, payload)

    def _add_part(self, fin: bool, payload: bytes) -> None:
        self._parts.append(payload)
        self._parts_size += len(payload)
        if not fin:
            return
        data = b"".join(self._parts)
        op = self._message_op
        self._parts, self._parts_size, self._message_op = [], 0, None
        if op == OP_BINARY:
            self._events.append(BinaryMessage(data))
            return
        try:
            self._events.append(TextMessage(data.decode("utf-8")))
        except UnicodeDecodeError:
            raise WebSocketProtocolError("a text message is not UTF-8", CLOSE_BAD_DATA) from None

    def _on_close(self, payload: bytes) -> None:
        if len(payload) == 1:
            raise WebSocketProtocolError("a close frame of one byte")
        code, reason = CLOSE_NO_STATUS, ""
        if payload:
            (code,) = struct.unpack_from("!H", payload)
            if not _valid_close_code(code):
                raise WebSocketProtocolError(f"a close frame with status {code}")
            try:
                reason = payload[2:].decode("utf-8")
            except UnicodeDecodeError:
                raise WebSocketProtocolError("a close reason is not UTF-8", CLOSE_BAD_DATA) from None
        if self._state == _OPEN:  # echo it (RFC 6455, 5.5.1)
            self._frame(OP_CLOSE, payload[:2])
        self.close_code = code
        self._state = _CLOSED
        self._in.clear()
        self._events.append(Closed(code, reason))


# -- the asyncio shell ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Url:
    """A ``ws://`` or ``wss://`` address, taken apart."""

    secure: bool
    host: str
    port: int
    resource: str

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.secure else 80
        return host if self.port == default else f"{host}:{self.port}"

    @property
    def where(self) -> str:
        """How a person reads it: ``host:port``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_url(url: str) -> Url:
    """``ws://host[:port]/path`` or ``wss://...``; ValueError for anything else."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise ValueError(f"not a ws:// or wss:// address: {url!r}")
    if parts.fragment:
        raise ValueError(f"a WebSocket address has no #fragment: {url!r}")
    secure = parts.scheme == "wss"
    port = parts.port or (443 if secure else 80)  # ValueError for a bad port
    resource = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Url(secure, parts.hostname, port, resource)


class WebSocket:
    """An open WebSocket (from :func:`connect`): messages in and out, each wait bounded."""

    def __init__(
        self, core: WebSocketCore, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.core = core
        self._reader = reader
        self._writer = writer

    async def _flush(self, timeout: float) -> None:
        data = self.core.data_to_send()
        if data:
            self._writer.write(data)
            try:
                await asyncio.wait_for(self._writer.drain(), timeout)
            except TimeoutError:
                raise WebSocketTimeout("sending", timeout) from None
            except OSError as e:
                raise WebSocketClosed(reason=str(e)) from None

    async def send_text(self, text: str, timeout: float) -> None:
        self.core.send_text(text)
        await self._flush(timeout)

    async def send_binary(self, data: bytes, timeout: float) -> None:
        self.core.send_binary(data)
        await self._flush(timeout)

    async def ping(self, data: bytes, timeout: float) -> None:
        self.core.ping(data)
        await self._flush(timeout)

    async def _feed(self, deadline: float, what: str, timeout: float) -> None:
        """Read once from the server into the core, by the loop's time ``deadline``."""
        left = deadline - asyncio.get_running_loop().time()
        try:
            data = await asyncio.wait_for(self._reader.read(65536), max(left, 0))
        except TimeoutError:
            raise WebSocketTimeout(what, timeout) from None
        except OSError:
            data = b""  # reset: as the end of the connection
        try:
            self.core.receive_data(data)
        finally:
            with contextlib.suppress(WebSocketError):
                await self._flush(timeout)

    async def recv(self, timeout: float) -> TextMessage | BinaryMessage | Pong:
        """The next message (or pong) within ``timeout`` seconds; WebSocketClosed once the
        server closes, WebSocketTimeout when nothing comes."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            event = self.core.next_event()
            if isinstance(event, Closed):
                raise WebSocketClosed(event.code, event.reason)
            if event is not None:
                return event
            if self.core.is_closed:
                raise WebSocketClosed(self.core.close_code or CLOSE_NO_STATUS)
            await self._feed(deadline, "waiting for a message", timeout)

    async def close(self, timeout: float, code: int = CLOSE_NORMAL, reason: str = "") -> None:
        """The closing handshake, within ``timeout``; then the TCP connection goes."""
        try:
            self.core.close(code, reason)
            await self._flush(timeout)
            deadline = asyncio.get_running_loop().time() + timeout
            while not self.core.is_closed:
                await self._feed(deadline, "closing", timeout)
        except WebSocketError:
            pass
        finally:
            self.abort()

    def abort(self) -> None:
        """Drop the TCP connection now."""
        self._writer.close()


async def connect(
    url: str | Url, timeout: float, *, max_message: int = MAX_MESSAGE, tls: ssl.SSLContext | None = None
) -> WebSocket:
    """Open the WebSocket at ``url`` (TCP, TLS for wss://, the handshake) within ``timeout``
    seconds; WebSocketUnreachable, WebSocketTimeout or WebSocketProtocolError.  ``tls``
    replaces :func:`ssl.create_default_context` (a test's own certificate authority)."""
    u = parse_url(url) if isinstance(url, str) else url
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    ctx = (tls or ssl.create_default_context()) if u.secure else None
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(u.host, u.port, ssl=ctx, server_hostname=u.host if ctx else None),
            timeout,
        )
    except TimeoutError:
        raise WebSocketTimeout(f"connecting to {u.where}", timeout) from None
    except (OSError, ssl.SSLError) as e:
        why = getattr(e, "strerror", None) or str(e) or type(e).__name__
        raise WebSocketUnreachable(u.where, why) from None
    ws = WebSocket(WebSocketCore(u.host_header, u.resource, max_message=max_message), reader, writer)
    try:
        await ws._flush(timeout)
        while not ws.core.is_open:
            if ws.core.is_closed:
                raise WebSocketClosed()
            await ws._feed(deadline, f"the handshake with {u.where}", timeout)
    except BaseException:
        ws.abort()
        raise
    return ws
