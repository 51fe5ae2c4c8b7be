"""The private deck's messages as bytes: deterministic, fixed layouts, strict.

Every message starts with the same header::

    type (1) | version (1) | match id (16) | game (4, big-endian) | seat (1)

then, by type (``count`` is one byte, every integer big-endian)::

    KEY      0x01  X (33) | c (32) | z (32)                     -- 120 bytes
    SHUFFLE  0x02  round (4) | step (1) | count | count x (C1 (33) | C2 (33))
                   | proof: count x commitment (33) | count x chain (33)
                   | c (16) | s1 s2 s3 s4 (4 x 32) | count x s_hat (32) | count x s' (32)
    SHARES   0x03  count | count x (slot (4) | D (33) | c (32) | z (32))
    REVEAL   0x04  secret (32)                                   -- 55 bytes

Points are SEC 1 compressed P-256 points (on the curve, hence in the group;
never the point at infinity); scalars are below the group order.  Limits:
a deck holds 1..104 ciphertexts, a SHARES message 1..16 shares with slots
strictly increasing.  Decoding takes exactly the bytes of one message:
anything else (a short or long buffer, an unknown type or version, seat not
0/1, game 0, a bad point) raises :class:`WireError`.  ``to_wire`` of a
decoded message gives back the same bytes.  The largest message is
``MAX_WIRE`` = 20,557 bytes (a SHUFFLE of 104 cards with its proof, see
fairdeck/shuffle.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import WireError
from .group import POINT_BYTES, SCALAR_BYTES, GroupError, Point, decode, decode_scalar, encode, scalar_bytes
from .proofs import Proof
from .shuffle import CHALLENGE_BYTES, ShuffleProof

VERSION = 2
T_KEY, T_SHUFFLE, T_SHARES, T_REVEAL = 1, 2, 3, 4
MATCH_ID_BYTES = 16
SECRET_BYTES = 32
HEADER = 1 + 1 + MATCH_ID_BYTES + 4 + 1
MAX_DECK = 104
MAX_SHARES = 16
_SHARE = 4 + POINT_BYTES + 32 + SCALAR_BYTES
_CT = 2 * POINT_BYTES
_PROOF_FIXED = CHALLENGE_BYTES + 4 * SCALAR_BYTES
_PROOF_PER_CARD = 2 * POINT_BYTES + 2 * SCALAR_BYTES
MAX_WIRE = HEADER + 4 + 1 + 1 + MAX_DECK * (_CT + _PROOF_PER_CARD) + _PROOF_FIXED

Ciphertext = tuple[Point, Point]


@dataclass(frozen=True)
class Header:
    match_id: bytes
    game: int
    seat: int


@dataclass(frozen=True)
class KeyShare:
    """A seat's share ``X = x*G`` of the game's joint key, with a Schnorr proof."""

    head: Header
    point: Point
    proof: Proof


@dataclass(frozen=True)
class Shuffle:
    """A seat's re-encrypted, permuted deck with the proof that it is a shuffle of
    its input: ``round`` 0 is the deal, 1, 2, ... the reshuffles; ``step`` 0 is
    seat 0's pass, 1 seat 1's."""

    head: Header
    round: int
    step: int
    deck: tuple[Ciphertext, ...]
    proof: ShuffleProof


@dataclass(frozen=True)
class Share:
    slot: int
    d: Point
    proof: Proof


@dataclass(frozen=True)
class Shares:
    """Decryption shares, each with its Chaum-Pedersen proof."""

    head: Header
    shares: tuple[Share, ...]


@dataclass(frozen=True)
class Reveal:
    """The end-of-game reveal: the seat's game secret (key, permutations and
    re-encryption randomness all derive from it)."""

    head: Header
    secret: bytes


Message = KeyShare | Shuffle | Shares | Reveal


def _head(t: int, h: Header) -> bytes:
    return bytes((t, VERSION)) + h.match_id + h.game.to_bytes(4, "big") + bytes((h.seat,))


def _proof(p: Proof) -> bytes:
    return p.c + scalar_bytes(p.z)


def to_wire(msg: Message) -> bytes:
    if isinstance(msg, KeyShare):
        return _head(T_KEY, msg.head) + encode(msg.point) + _proof(msg.proof)
    if isinstance(msg, Shuffle):
        body = b"".join(encode(c1) + encode(c2) for c1, c2 in msg.deck)
        pr = msg.proof
        return b"".join(
            (
                _head(T_SHUFFLE, msg.head),
                msg.round.to_bytes(4, "big"),
                bytes((msg.step, len(msg.deck))),
                body,
                b"".join(encode(p) for p in pr.commitments),
                b"".join(encode(p) for p in pr.chain),
                pr.c.to_bytes(CHALLENGE_BYTES, "big"),
                b"".join(scalar_bytes(k) for k in (*pr.s, *pr.s_hat, *pr.s_prime)),
            )
        )
    if isinstance(msg, Shares):
        body = b"".join(s.slot.to_bytes(4, "big") + encode(s.d) + _proof(s.proof) for s in msg.shares)
        return _head(T_SHARES, msg.head) + bytes((len(msg.shares),)) + body
    return _head(T_REVEAL, msg.head) + msg.secret


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise WireError("message too short")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def byte(self) -> int:
        return self.take(1)[0]

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "big")

    def point(self) -> Point:
        try:
            return decode(self.take(POINT_BYTES))
        except GroupError as e:
            raise WireError(str(e)) from None

    def affine(self) -> tuple[int, int]:
        pt = self.point()
        assert pt is not None  # decode never gives the point at infinity
        return pt

    def scalar(self) -> int:
        try:
            return decode_scalar(self.take(SCALAR_BYTES))
        except GroupError as e:
            raise WireError(str(e)) from None

    def proof(self) -> Proof:
        c = self.take(32)
        try:
            return Proof(c, decode_scalar(self.take(SCALAR_BYTES)))
        except GroupError as e:
            raise WireError(str(e)) from None


def from_wire(data: bytes) -> Message:
    """One message from exactly its bytes (WireError for anything else)."""
    if not isinstance(data, (bytes, bytearray)):
        raise WireError("a message is bytes")
    if len(data) > MAX_WIRE:
        raise WireError(f"message longer than {MAX_WIRE} bytes")
    r = _Reader(bytes(data))
    t, version = r.byte(), r.byte()
    if version != VERSION:
        raise WireError(f"unknown private-deck message version {version}")
    match_id = r.take(MATCH_ID_BYTES)
    game = r.u32()
    seat = r.byte()
    if game < 1:
        raise WireError("game numbers start at 1")
    if seat not in (0, 1):
        raise WireError(f"seat must be 0 or 1, not {seat}")
    head = Header(match_id, game, seat)
    msg: Message
    if t == T_KEY:
        msg = KeyShare(head, r.point(), r.proof())
    elif t == T_SHUFFLE:
        rnd = r.u32()
        step, count = r.byte(), r.byte()
        if step not in (0, 1):
            raise WireError(f"shuffle step must be 0 or 1, not {step}")
        if not 1 <= count <= MAX_DECK:
            raise WireError(f"a deck holds 1..{MAX_DECK} cards, not {count}")
        if len(data) != r.pos + count * (_CT + _PROOF_PER_CARD) + _PROOF_FIXED:
            raise WireError("shuffle length does not match its count")
        deck = tuple((r.point(), r.point()) for _ in range(count))
        commitments = tuple(r.affine() for _ in range(count))
        chain = tuple(r.affine() for _ in range(count))
        c = int.from_bytes(r.take(CHALLENGE_BYTES), "big")
        s1, s2, s3, s4 = (r.scalar() for _ in range(4))
        s_hat = tuple(r.scalar() for _ in range(count))
        s_prime = tuple(r.scalar() for _ in range(count))
        msg = Shuffle(
            head, rnd, step, deck, ShuffleProof(commitments, chain, c, (s1, s2, s3, s4), s_hat, s_prime)
        )
    elif t == T_SHARES:
        count = r.byte()
        if not 1 <= count <= MAX_SHARES:
            raise WireError(f"a shares message holds 1..{MAX_SHARES} shares, not {count}")
        if len(data) != r.pos + count * _SHARE:
            raise WireError("shares length does not match its count")
        shares: list[Share] = []
        for _ in range(count):
            slot = r.u32()
            if shares and slot <= shares[-1].slot:
                raise WireError("share slots must be strictly increasing")
            shares.append(Share(slot, r.point(), r.proof()))
        msg = Shares(head, tuple(shares))
    elif t == T_REVEAL:
        msg = Reveal(head, r.take(SECRET_BYTES))
    else:
        raise WireError(f"unknown private-deck message type {t}")
    if r.pos != len(data):
        raise WireError("trailing bytes after the message")
    return msg
