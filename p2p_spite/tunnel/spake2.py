"""SPAKE2 on P-256, RFC 9382 ("SPAKE2, a Password-Authenticated Key Exchange",
Ladd & Kaduk, 2023), ciphersuite SPAKE2-P256-SHA256-HKDF-HMAC, with its key
confirmation: the short code becomes a strong key, and an attacker gets one guess
per exchange.

The protocol (RFC 9382 sections 3 and 4), as this module runs it:

* Both sides derive ``w`` from the code (:func:`password_scalar`): scrypt
  (RFC 7914) with the parameters below, 40 bytes (the order's 256 bits and 64
  more, so that the reduction mod the order has no useful bias, as section 3.1
  asks after NIST SP 800-56A), as a big-endian integer mod the order.  The RFC
  says the password SHOULD go through a memory-hard function; scrypt is the one it
  names, and :func:`hashlib.scrypt` is in the standard library.  A code is good for
  one exchange, and SPAKE2 gives a passive observer nothing to test guesses
  against, so scrypt here guards ``w`` should a transcript of it ever leak; its
  cost is kept to about 16 MiB and a few tens of milliseconds.
* A (the host) picks ``x`` uniformly in [1, p) and sends ``pA = w*M + x*G``;
  B (the joiner) picks ``y`` and sends ``pB = w*N + y*G``.  Each message is one
  point, SEC 1 uncompressed (65 bytes: 0x04, x, y), as the ciphersuite says.
* On arrival a peer's point is checked before any use: 65 bytes, 0x04, both
  coordinates below the field prime, on the curve (P-256's cofactor is 1, so that
  is the whole group check, and the identity has no such encoding); a point equal
  to our own message (a reflection) is refused too.
* ``K = x*(pB - w*N)`` (A) or ``y*(pA - w*M)`` (B); an identity ``K`` is refused.
* ``TT = len(A) || A || len(B) || B || len(pA) || pA || len(pB) || pB || len(K) || K
  || len(w) || w``, lengths as 8-byte little-endian, ``w`` as 32 big-endian bytes.
* ``Ke || Ka = SHA256(TT)`` (16 bytes each); ``KcA || KcB = HKDF(IKM=Ka, salt=nil,
  info="ConfirmationKeys" || AAD, L=32)``; A sends ``cA = HMAC-SHA256(KcA, TT)``
  and B ``cB = HMAC-SHA256(KcB, TT)``.  Each checks the other's (in constant time)
  and only then uses ``Ke``: a wrong code fails on both sides, here, before a byte
  of the game flows.

``M`` and ``N`` are the RFC's points for P-256 (section 6), pinned in compressed
form below; the tests regenerate them from the RFC's seeds.  The identities are the
roles (:data:`ID_A`, :data:`ID_B`) and the AAD names this protocol and its scrypt
parameters (:data:`AAD`), so that two programs that differ in either never agree.

Sans-I/O: :class:`Spake2` takes and gives bytes, each step once, in order; any
failure ends it.  Scalar multiplications are :mod:`p2p_spite.fairdeck.group`'s (not
constant-time: docs/fairness.md says why timing is outside the threat model).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from dataclasses import dataclass
from enum import Enum

from ..fairdeck import group
from ..fairdeck.group import N as ORDER
from .errors import ConfirmationError, PakeError, PeerElementError
from .hkdf import hkdf

# RFC 9382 section 6, P-256: seeds "1.2.840.10045.3.1.7 point generation seed (M)" / "(N)".
M_COMPRESSED = bytes.fromhex("02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f")
N_COMPRESSED = bytes.fromhex("03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49")
M = group.decode(M_COMPRESSED)
N = group.decode(N_COMPRESSED)

ELEMENT_BYTES = group.UNCOMPRESSED_BYTES  # a SPAKE2 message
MAC_BYTES = 32  # a confirmation (HMAC-SHA256)
KEY_BYTES = 16  # Ke: half of SHA-256

# The password's memory-hard function: scrypt (RFC 7914), 2**14 * 8 * 128 bytes = 16 MiB.
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
W_BYTES = 40  # 256 + 64 bits, reduced mod the order
SALT_PREFIX = b"p2p-spite SPAKE2 w v1|"

ID_A = b"p2p-spite host"
ID_B = b"p2p-spite joiner"
AAD = b"p2p-spite tunnel v1|SPAKE2-P256-SHA256-HKDF-HMAC|scrypt N=16384 r=8 p=1"


def password_scalar(password: bytes, context: bytes = b"") -> int:
    """``w`` from the password: scrypt over it, salted with this protocol's name and
    ``context`` (what both sides know of this exchange, e.g. the app id and the
    code's number), 40 bytes as an integer mod the group order."""
    out = hashlib.scrypt(
        password, salt=SALT_PREFIX + context, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=W_BYTES, maxmem=2**26
    )
    return int.from_bytes(out, "big") % ORDER


class Role(Enum):
    """Which side of RFC 9382 this is: A blinds with M, B with N."""

    A = "A"  # the host
    B = "B"  # the joiner


@dataclass(frozen=True, slots=True)
class Keys:
    """What the exchange derives (RFC 9382 section 4); only ``ke`` leaves it."""

    tt: bytes
    ke: bytes
    ka: bytes
    kca: bytes
    kcb: bytes


def _lp(data: bytes) -> bytes:
    """len(data) as 8 bytes little-endian, then data (RFC 9382 section 3.3)."""
    return struct.pack("<Q", len(data)) + data


def transcript(id_a: bytes, id_b: bytes, pa: bytes, pb: bytes, k: bytes, w: int) -> bytes:
    """TT of RFC 9382 section 3.3."""
    return b"".join(_lp(p) for p in (id_a, id_b, pa, pb, k, group.scalar_bytes(w)))


def key_schedule(tt: bytes, aad: bytes = AAD) -> Keys:
    """Ke || Ka = Hash(TT); KcA || KcB = KDF(Ka, nil, "ConfirmationKeys" || AAD) (section 4)."""
    digest = hashlib.sha256(tt).digest()
    ke, ka = digest[:16], digest[16:]
    kc = hkdf(ka, b"", b"ConfirmationKeys" + aad, 32)
    return Keys(tt, ke, ka, kc[:16], kc[16:])


def _peer_point(data: bytes) -> group.Affine:
    try:
        pt = group.decode_uncompressed(data)
    except group.GroupError as e:
        raise PeerElementError(f"the peer's SPAKE2 message is not a P-256 point: {e}") from None
    assert pt is not None  # decode_uncompressed never gives the identity
    return pt


class Spake2:
    """One side of one exchange: :attr:`message` to send, then :meth:`receive` the
    peer's (gives our confirmation to send), then :meth:`confirm` the peer's
    confirmation (gives ``Ke``).  Each step once, in that order; after any
    failure every call raises :class:`PakeError`.

    ``x`` is the secret scalar, random unless given (the RFC's test vectors)."""

    def __init__(
        self,
        role: Role,
        w: int,
        *,
        id_a: bytes = ID_A,
        id_b: bytes = ID_B,
        aad: bytes = AAD,
        x: int | None = None,
    ) -> None:
        if not 0 < w < ORDER:
            raise ValueError("w is a nonzero scalar mod the group order")
        self.role = role
        self._w = w
        self._x = secrets.randbelow(ORDER - 1) + 1 if x is None else x
        if not 0 < self._x < ORDER:
            raise ValueError("x is a nonzero scalar mod the group order")
        self._ids = (id_a, id_b)
        self._aad = aad
        ours, self._theirs = (M, N) if role is Role.A else (N, M)
        self.message = group.encode_uncompressed(group.mul2(w, ours, self._x, group.G))
        self._keys: Keys | None = None
        self._state = "sent"

    @property
    def keys(self) -> Keys:
        """The derived keys (for tests and vectors); PakeError before :meth:`receive`."""
        if self._keys is None:
            raise PakeError("no keys before the peer's message")
        return self._keys

    def _fail(self, error: PakeError) -> PakeError:
        self._state = "failed"
        self._keys = None
        return error

    def receive(self, peer: bytes) -> bytes:
        """Take the peer's message (checked before any use); our confirmation MAC."""
        if self._state != "sent":
            raise self._fail(PakeError(f"a SPAKE2 message when {self._state}: refused"))
        try:
            pt = _peer_point(peer)
        except PeerElementError as e:
            raise self._fail(e) from None
        if peer == self.message:
            raise self._fail(PeerElementError("the peer's SPAKE2 message is our own, reflected"))
        # K = x * (peer - w * theirs), in one pass: x*peer + (-x*w)*theirs.
        k = group.mul2(self._x, pt, -self._x * self._w % ORDER, self._theirs)
        if k is None:
            raise self._fail(PeerElementError("the peer's SPAKE2 message gives the identity"))
        pa, pb = (self.message, peer) if self.role is Role.A else (peer, self.message)
        tt = transcript(*self._ids, pa, pb, group.encode_uncompressed(k), self._w)
        self._keys = key_schedule(tt, self._aad)
        self._state = "received"
        return self._mac(self.role)

    def _mac(self, role: Role) -> bytes:
        keys = self.keys
        return hmac.digest(keys.kca if role is Role.A else keys.kcb, keys.tt, hashlib.sha256)

    def confirm(self, peer_mac: bytes) -> bytes:
        """Check the peer's confirmation MAC; ``Ke`` if it matches, else
        :class:`ConfirmationError` (the codes differ)."""
        if self._state != "received":
            raise self._fail(PakeError(f"a SPAKE2 confirmation when {self._state}: refused"))
        other = Role.B if self.role is Role.A else Role.A
        if not hmac.compare_digest(self._mac(other), peer_mac):
            raise self._fail(ConfirmationError("the key confirmation does not match: the codes differ"))
        self._state = "confirmed"
        return self.keys.ke
