"""The sealed channel: every byte between the two players after the key, encrypted and
authenticated, in order; and the sealed mailbox messages.  Sans-I/O: bytes in,
plaintext messages out; plaintext in, bytes out.  docs/protocol.md, "The sealed
channel", is the byte-exact description with test vectors.

The key is ``Ke`` of a SPAKE2 exchange (:mod:`.spake2`, RFC 9382) and the roles are
its roles: A the host, B the joiner.  Everything derived from ``Ke`` goes through
:func:`derive_key`, HKDF-SHA256 (RFC 5869) with the info ``"p2p-spite v1|" + purpose``,
so that no two uses share a key.

A connection (:class:`SealedChannel`):

1. Each side sends its *opening* in clear, 25 bytes: ``"P2PSEAL1"``, its role (``A``
   or ``B``), 16 random bytes (its connection nonce).  An opening with another magic,
   the same role as ours, or our own nonce (a reflection) is refused at once.
2. Both then derive this connection's two keys, one per direction:
   ``key(A->B) = derive_key(Ke, "channel|A->B", salt = nonce_A || nonce_B)`` and
   ``key(B->A)`` alike.  Fresh nonces make fresh keys for every connection, so a
   reconnection under the same ``Ke`` never reuses a (key, nonce) pair, and the bytes
   of an earlier connection do not open in a later one.
3. Frames: a 4-byte big-endian length ``n`` (17 <= n <= :data:`MAX_SEALED`), then
   ``n`` bytes of ChaCha20-Poly1305 (RFC 8439) under the direction's key, with the
   nonce ``0x00000000 || counter`` (the counter 8 bytes big-endian, 0 for the first
   frame of each direction, one more for every frame) and the 4 length bytes as
   associated data.  The plaintext is a record type byte then its body: HELLO (1)
   with the fixed body ``"p2p-spite channel v1"``, DATA (2) with a message of at most
   :data:`MAX_MESSAGE` bytes, CLOSE (3) with none.
4. Each side's first frame is its HELLO, sent as soon as the peer's opening is in;
   nothing else may be sent, or is accepted, before the peer's HELLO opened
   (:attr:`SealedChannel.established`): a peer that holds another key (a wrong code,
   a wrong path) fails there, at once, with :class:`~.errors.HandshakeError`.
5. After it: DATA records in order; CLOSE ends the peer's direction.  A frame that
   does not open at the next counter (changed, replayed, reordered, dropped, cut),
   a length out of bounds, an unknown type, a second HELLO, anything after CLOSE, or
   an end of stream in the middle of a frame is a :class:`~.errors.FrameError`,
   and the channel is unusable after any error.

The mailbox's messages (connection hints) are sealed by :func:`seal_message`: a key per
purpose, ``derive_key(Ke, "mailbox|" + purpose)``, a random 12-byte nonce sent in front,
the purpose as associated data.  The purpose names the sender and the phase (e.g.
``b"A|hints"``), so that a message reflected to its sender does not open as the peer's.
"""

from __future__ import annotations

import secrets
from enum import IntEnum

from .aead import NONCE_BYTES, TAG_BYTES, ChaCha20Poly1305
from .errors import ChannelError, FrameError, HandshakeError, SealError
from .hkdf import hkdf
from .spake2 import Role

LABEL = b"p2p-spite v1|"
MAGIC = b"P2PSEAL1"
CONNECTION_NONCE_BYTES = 16
OPENING_BYTES = len(MAGIC) + 1 + CONNECTION_NONCE_BYTES
HELLO_BODY = b"p2p-spite channel v1"
MAX_MESSAGE = 64 * 1024  # a DATA record's body
HEADER_BYTES = 4
MIN_SEALED = 1 + TAG_BYTES  # a record type and the tag
MAX_SEALED = 1 + MAX_MESSAGE + TAG_BYTES
MAX_COUNTER = 2**64 - 1
_ROLE_BYTE = {Role.A: b"A", Role.B: b"B"}


class Record(IntEnum):
    """The plaintext's first byte."""

    HELLO = 1
    DATA = 2
    CLOSE = 3


def derive_key(ke: bytes, purpose: bytes, length: int = 32, salt: bytes = b"") -> bytes:
    """A key for one use of ``Ke``: HKDF-SHA256(IKM=Ke, salt, info="p2p-spite v1|" + purpose)."""
    return hkdf(ke, salt, LABEL + purpose, length)


def direction_keys(ke: bytes, nonce_a: bytes, nonce_b: bytes) -> tuple[bytes, bytes]:
    """(key A->B, key B->A) of the connection whose openings carried these nonces."""
    salt = nonce_a + nonce_b
    return derive_key(ke, b"channel|A->B", salt=salt), derive_key(ke, b"channel|B->A", salt=salt)


def frame_nonce(counter: int) -> bytes:
    """The AEAD nonce of a direction's ``counter``-th frame: 4 zero bytes, 8 big-endian."""
    return counter.to_bytes(NONCE_BYTES, "big")


def seal_message(ke: bytes, purpose: bytes, plaintext: bytes, *, nonce: bytes | None = None) -> bytes:
    """A mailbox message: ``nonce (12) || ChaCha20-Poly1305(key, nonce, plaintext, aad=purpose)``
    with ``key = derive_key(Ke, "mailbox|" + purpose)`` and a random nonce (given only by
    test vectors)."""
    if nonce is None:
        nonce = secrets.token_bytes(NONCE_BYTES)
    return nonce + ChaCha20Poly1305(derive_key(ke, b"mailbox|" + purpose)).seal(nonce, plaintext, purpose)


def open_message(ke: bytes, purpose: bytes, sealed: bytes) -> bytes:
    """The plaintext of :func:`seal_message`'s bytes; :class:`~.errors.SealError` unless
    they were sealed under this ``Ke`` for this ``purpose``, unchanged."""
    if len(sealed) < NONCE_BYTES + TAG_BYTES:
        raise SealError("a sealed mailbox message is at least 28 bytes")
    box = ChaCha20Poly1305(derive_key(ke, b"mailbox|" + purpose))
    return box.open(sealed[:NONCE_BYTES], sealed[NONCE_BYTES:], purpose)


class SealedChannel:
    """One connection's sealed channel, sans-I/O.

    Feed the peer's bytes to :meth:`receive_data` (the DATA messages, in order) and
    the end of its stream to :meth:`receive_eof`; write out :meth:`data_to_send`
    after every call.  :meth:`send` and :meth:`close` once :attr:`established`.
    ``nonce`` (this side's connection nonce) is random unless given (test vectors).
    """

    def __init__(self, ke: bytes, role: Role, *, nonce: bytes | None = None) -> None:
        self.role = role
        self._ke = ke
        self._nonce = secrets.token_bytes(CONNECTION_NONCE_BYTES) if nonce is None else nonce
        if len(self._nonce) != CONNECTION_NONCE_BYTES:
            raise ValueError(f"a connection nonce is {CONNECTION_NONCE_BYTES} bytes")
        self._out = bytearray(MAGIC + _ROLE_BYTE[role] + self._nonce)
        self._in = bytearray()
        self._send_box: ChaCha20Poly1305 | None = None
        self._recv_box: ChaCha20Poly1305 | None = None
        self._send_counter = 0
        self._recv_counter = 0
        self.established = False  # the peer's HELLO opened
        self.peer_closed = False  # the peer's CLOSE arrived
        self._closed = False  # we sent CLOSE
        self._failed: ChannelError | None = None

    # -- out ---------------------------------------------------------------------------

    def data_to_send(self) -> bytes:
        """The bytes to write to the peer now (and forget)."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def _seal(self, record: Record, body: bytes) -> None:
        assert self._send_box is not None
        if self._send_counter >= MAX_COUNTER:
            raise ChannelError("the channel's frame counter is spent")
        header = (1 + len(body) + TAG_BYTES).to_bytes(HEADER_BYTES, "big")
        sealed = self._send_box.seal(frame_nonce(self._send_counter), bytes((record,)) + body, header)
        self._send_counter += 1
        self._out += header
        self._out += sealed

    def _check_usable(self) -> None:
        if self._failed is not None:
            raise ChannelError(f"the channel failed earlier: {self._failed}")

    def send(self, message: bytes) -> None:
        """Seal ``message`` (at most :data:`MAX_MESSAGE` bytes) as the next DATA frame."""
        self._check_usable()
        if not self.established:
            raise ChannelError("nothing is sent before the peer's hello opened")
        if self._closed:
            raise ChannelError("the channel was closed")
        if len(message) > MAX_MESSAGE:
            raise ValueError(f"a message of {len(message)} bytes is over the {MAX_MESSAGE}-byte limit")
        self._seal(Record.DATA, message)

    def close(self) -> None:
        """Seal a CLOSE frame: nothing more goes out."""
        self._check_usable()
        if not self.established:
            raise ChannelError("nothing is sent before the peer's hello opened")
        if not self._closed:
            self._closed = True
            self._seal(Record.CLOSE, b"")

    # -- in ----------------------------------------------------------------------------

    def _fail(self, error: ChannelError) -> ChannelError:
        self._failed = error
        self._in.clear()
        return error

    def receive_data(self, data: bytes) -> list[bytes]:
        """Take the peer's bytes; the DATA messages they complete, in order.  A
        ChannelError (HandshakeError, FrameError) ends the channel; the messages that
        opened before the fault, in these bytes, are its ``delivered``."""
        self._check_usable()
        self._in += data
        messages: list[bytes] = []
        try:
            self._parse(messages)
        except ChannelError as e:
            e.delivered = tuple(messages)
            raise self._fail(e) from None
        return messages

    def _parse(self, messages: list[bytes]) -> None:
        buf = self._in
        pos = 0
        if self._recv_box is None:
            if len(buf) < OPENING_BYTES:
                if not MAGIC.startswith(bytes(buf[: len(MAGIC)])):
                    raise HandshakeError("the peer does not speak the sealed channel")
                return
            self._opening(bytes(buf[:OPENING_BYTES]))
            pos = OPENING_BYTES
        while len(buf) - pos >= HEADER_BYTES:
            n = int.from_bytes(buf[pos : pos + HEADER_BYTES], "big")
            if not MIN_SEALED <= n <= MAX_SEALED:
                raise FrameError(f"a frame of {n} bytes (the bounds are {MIN_SEALED} and {MAX_SEALED})")
            end = pos + HEADER_BYTES + n
            if len(buf) < end:
                break
            message = self._record(bytes(buf[pos : pos + HEADER_BYTES]), bytes(buf[pos + HEADER_BYTES : end]))
            if message is not None:
                messages.append(message)
            pos = end
        del buf[:pos]

    def _opening(self, opening: bytes) -> None:
        if opening[: len(MAGIC)] != MAGIC:
            raise HandshakeError("the peer does not speak the sealed channel")
        role = opening[len(MAGIC) : len(MAGIC) + 1]
        nonce = opening[len(MAGIC) + 1 :]
        if role not in (b"A", b"B"):
            raise HandshakeError("the peer's opening names no role")
        if role == _ROLE_BYTE[self.role]:
            raise HandshakeError(f"both sides claim role {role.decode()}")
        if nonce == self._nonce:
            raise HandshakeError("the peer's opening is our own, reflected")
        nonce_a, nonce_b = (self._nonce, nonce) if self.role is Role.A else (nonce, self._nonce)
        a_to_b, b_to_a = direction_keys(self._ke, nonce_a, nonce_b)
        send, recv = (a_to_b, b_to_a) if self.role is Role.A else (b_to_a, a_to_b)
        self._send_box, self._recv_box = ChaCha20Poly1305(send), ChaCha20Poly1305(recv)
        self._seal(Record.HELLO, HELLO_BODY)

    def _record(self, header: bytes, sealed: bytes) -> bytes | None:
        assert self._recv_box is not None
        if self.peer_closed:
            raise FrameError("a frame after the peer's close")
        try:
            plain = self._recv_box.open(frame_nonce(self._recv_counter), sealed, header)
        except SealError:
            if not self.established:
                raise HandshakeError("the peer's hello does not open: it holds another key") from None
            raise FrameError(
                f"frame {self._recv_counter} does not open: changed, replayed or out of order"
            ) from None
        self._recv_counter += 1
        kind, body = plain[0], plain[1:]
        if not self.established:
            if kind != Record.HELLO or body != HELLO_BODY:
                raise HandshakeError("the peer's first frame is not the hello")
            self.established = True
            return None
        if kind == Record.DATA:
            return body
        if kind == Record.CLOSE and not body:
            self.peer_closed = True
            return None
        raise FrameError(f"a record of type {kind} here")

    def receive_eof(self) -> bool:
        """The peer's stream ended: True if after its CLOSE (a clean end), False if not
        (the connection dropped: its data so far is good); FrameError if mid-frame."""
        self._check_usable()
        if self._in:
            raise self._fail(FrameError(f"the stream ended inside a frame ({len(self._in)} bytes cut)"))
        return self.peer_closed
