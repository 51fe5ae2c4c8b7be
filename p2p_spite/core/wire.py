"""Frames and messages on the wire: length-prefixed msgpack maps, with hard limits.

A frame is a 4-byte big-endian length ``N`` (1 <= N <= MAX_FRAME) followed by
``N`` bytes holding exactly one msgpack map with a string key ``"t"`` (the
message type).  The length is checked before any of the body is buffered, and
the body is decoded by ``msgpack.unpackb`` whose limits (string, binary,
array and map lengths; no ext types; msgpack's own nesting cap) make a hostile
frame cheap to refuse.  A decoder keeps no buffer but the bytes of the frame in
progress (a stranger's connection costs nothing it does not send).  See
docs/protocol.md.
"""

from __future__ import annotations

import struct
from enum import StrEnum
from typing import Any, Final

import msgpack

from ..fairdeck.wire import MAX_WIRE

MAX_FRAME: Final = 24 * 1024  # bytes in one frame's body (a private-deck pass with its proof: 20,557)
MAX_STR: Final = 2048  # bytes in one string
MAX_BIN: Final = MAX_WIRE  # bytes in one binary value: a private-deck message (20,557)
MAX_ARRAY: Final = 16  # items in one array (a move has 5)
MAX_MAP: Final = 16  # keys in one map
MAX_DEPTH: Final = 4  # maps and arrays inside one another (a valid message has at most 2)
MAX_PENDING: Final = 1024 * 1024  # bytes received but not yet decoded (frames are decoded as they come)
_HEADER = struct.Struct(">I")


class Refusal(StrEnum):
    """Why a side refuses the other: the ``code`` of a ``refuse`` message (the values
    are the words on the wire; docs/protocol.md says when each is sent)."""

    PROTOCOL = "protocol"  # no more precise code
    FRAME = "frame"  # a frame over the size limit
    DECODE = "decode"  # a frame that is not one msgpack map with a type
    FLOOD = "flood"  # too much, too fast
    MALFORMED = "malformed"  # a field of the wrong type or range
    NOT_P2P_SPITE = "not-p2p-spite"
    VERSION = "version"
    ROLE = "role"
    CODE_NEEDED = "code-needed"
    NO_CODE = "no-code"
    BAD_CODE = "bad-code"
    BAD_PROOF = "bad-proof"
    NO_MATCH = "no-match"
    SEAT_TAKEN = "seat-taken"
    OTHER_MATCH = "other-match"
    NOT_AGREED = "not-agreed"  # a later match on the connection that is not the one both agreed to
    UNEXPECTED = "unexpected"  # a known message at the wrong time
    UNKNOWN_TYPE = "unknown-type"
    ECHO = "echo"  # the peer echoed our commitment
    BAD_REVEAL = "bad-reveal"
    POSITION = "position"  # a sync position the peer cannot hold
    HISTORY = "history"
    BEHIND = "behind"  # a sync position older than the actions this side still keeps
    SEQUENCE = "sequence"
    ILLEGAL_MOVE = "illegal-move"
    FORGED = "forged"  # an action for a seat that did not make it (or an undo not allowed)
    TAKEBACK = "takeback"  # a takeback request for a move that is not the sender's to take back
    DESYNC = "desync"
    STORAGE = "storage"  # the sender cannot write its record
    # the private deck (docs/fairness.md): fairdeck's WireError, OrderError, ProofError, CheatError
    NOT_PRIVATE = "not-private"  # the joiner asked for a private deck, the host does not offer one
    DECK_FORMAT = "deck-format"
    DECK_ORDER = "deck-order"
    BAD_SHARE = "bad-share"
    BAD_SHUFFLE = "bad-shuffle"  # a pass whose proof of shuffle does not verify
    STALLED = "stalled"  # a message owed did not come in time (pings do not count)
    CHEAT = "cheat"
    # watchers (docs/protocol.md, *Watchers*)
    NO_WATCHERS = "no-watchers"  # the host lets nobody watch (host --watchers 0)
    WATCHERS_FULL = "watchers-full"  # the host has as many watchers as it lets in
    WATCHER = "watcher"  # a watcher sent a message of the match: it cannot take part
    OTHER = "refused"  # a code from the peer that this version does not know

    @classmethod
    def from_wire(cls, word: str) -> Refusal:
        try:
            return cls(word)
        except ValueError:
            return cls.OTHER


# The refusals that ask for the join code again: none given, or a wrong one
# (a StrEnum: the set holds the wire's words too).
CODE_REFUSALS = frozenset({Refusal.BAD_CODE, Refusal.CODE_NEEDED})


class ProtocolError(Exception):
    """Base of the protocol errors.  ``code`` says why, as a :class:`Refusal`."""

    code: Refusal = Refusal.PROTOCOL

    def __init__(self, message: str, code: Refusal | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class RemoteProtocolError(ProtocolError):
    """The peer sent something this side refuses (its fault, not ours)."""


class LocalProtocolError(ProtocolError):
    """This side tried something the protocol does not allow now (a bug or misuse here)."""


def encode(msg: dict[str, Any]) -> bytes:
    """One frame holding ``msg`` (LocalProtocolError if it would break the limits)."""
    body: bytes = msgpack.packb(msg, use_bin_type=True)
    if not 0 < len(body) <= MAX_FRAME:
        raise LocalProtocolError(f"a message of {len(body)} bytes is over the {MAX_FRAME}-byte frame limit")
    return _HEADER.pack(len(body)) + body


class FrameDecoder:
    """Bytes in, decoded messages out; refuses a frame before buffering it if too large."""

    __slots__ = ("_buf", "_flooded", "_need")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._need = 0  # length of the frame body being read; 0 while reading a header
        self._flooded = False

    @property
    def pending(self) -> int:
        """Bytes received but not yet making a whole frame."""
        return len(self._buf)

    def feed(self, data: bytes) -> None:
        if self._flooded:
            return
        if len(self._buf) + len(data) > MAX_PENDING:
            self._flooded = True  # next_message() refuses the peer
            self._buf.clear()
            return
        self._buf += data

    def next_message(self) -> dict[str, Any] | None:
        """The next whole message, or None if more bytes are needed.

        Raises RemoteProtocolError for a bad frame; the decoder is then unusable.
        """
        if self._flooded:
            raise RemoteProtocolError(
                f"more than {MAX_PENDING} bytes sent ahead of being read", Refusal.FLOOD
            )
        buf = self._buf
        if not self._need:
            if len(buf) < 4:
                return None
            (n,) = _HEADER.unpack_from(buf)
            if n == 0 or n > MAX_FRAME:
                raise RemoteProtocolError(f"a frame of {n} bytes (the limit is {MAX_FRAME})", Refusal.FRAME)
            del buf[:4]
            self._need = n
        n = self._need
        if len(buf) < n:
            return None
        body = bytes(buf[:n])
        del buf[:n]
        self._need = 0
        return decode_body(body)

    def next_frame(self) -> tuple[bytes, dict[str, Any]] | None:
        """The next whole message with its frame's bytes as received (header included),
        or None if more bytes are needed (the errors of :meth:`next_message`)."""
        buf = self._buf
        if self._need:  # (its header was read already)
            size, head, start = self._need, _HEADER.pack(self._need), 0
        elif len(buf) >= 4:
            (size,) = _HEADER.unpack_from(buf)
            head, start = b"", 4
        else:
            size, head, start = 0, b"", 0
        whole = 0 < size <= MAX_FRAME and len(buf) >= start + size
        raw = head + bytes(buf[: start + size]) if whole else b""
        msg = self.next_message()  # (raises for a bad frame or a flood)
        if msg is None:
            return None
        return raw, msg

    def rest(self) -> bytes:
        """Everything received and not taken as a message yet, as it came; the decoder
        is left empty (what follows is another reader's)."""
        head = _HEADER.pack(self._need) if self._need else b""
        out = head + bytes(self._buf)
        self._buf.clear()
        self._need = 0
        return out


def decode_body(body: bytes) -> dict[str, Any]:
    """Decode one frame body (exactly one msgpack map with a string ``t``).  (One
    ``unpackb`` a frame, not a ``msgpack.Unpacker`` a connection: an Unpacker holds
    its parse stack and a buffer of its ``max_buffer_size`` from birth, 64 KiB for
    every stranger that connects, and in a host's heap the holes they left were
    not reused: issue 44.)"""
    try:
        obj = msgpack.unpackb(
            body,
            raw=False,
            use_list=True,
            strict_map_key=True,
            max_str_len=MAX_STR,
            max_bin_len=MAX_BIN,
            max_array_len=MAX_ARRAY,
            max_map_len=MAX_MAP,
            max_ext_len=0,
        )
    except msgpack.ExtraData:
        raise RemoteProtocolError("a frame with bytes after its message", Refusal.DECODE) from None
    except (ValueError, TypeError, msgpack.UnpackException) as e:
        if str(e).endswith("incomplete input"):
            raise RemoteProtocolError("a frame that holds a truncated message", Refusal.DECODE) from None
        # StackError (too deep), limits exceeded, bad bytes, unhashable keys...
        raise RemoteProtocolError(f"an undecodable frame ({type(e).__name__})", Refusal.DECODE) from None
    if not isinstance(obj, dict) or not isinstance(obj.get("t"), str):
        raise RemoteProtocolError("a message that is not a map with a type", Refusal.DECODE)
    if _too_deep(obj):
        raise RemoteProtocolError(f"a message nested more than {MAX_DEPTH} deep", Refusal.DECODE)
    return obj


def _too_deep(obj: dict[str, Any]) -> bool:
    """More than MAX_DEPTH containers inside one another?  (Iterative: msgpack alone lets
    1024 through, enough for any recursive repr() or comparison to blow Python's stack.)"""
    for v in obj.values():  # the common case, a move or an ack: nothing deeper than a flat list
        t = type(v)
        if t is list:
            for x in v:
                if type(x) is list or type(x) is dict:
                    return _nested_too_deep(obj)
        elif t is dict:
            return _nested_too_deep(obj)
    return False


def _nested_too_deep(obj: object) -> bool:
    """The whole check, for a message with containers inside its lists or maps."""
    stack: list[tuple[object, int]] = [(obj, 1)]
    while stack:
        o, depth = stack.pop()
        items = o.values() if isinstance(o, dict) else o if isinstance(o, list) else None
        if items is None:
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((x, depth + 1) for x in items)
    return False
