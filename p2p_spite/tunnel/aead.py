"""ChaCha20-Poly1305, the AEAD of RFC 8439 (AEAD_CHACHA20_POLY1305), pure Python.

RFC 8439 ("ChaCha20 and Poly1305 for IETF Protocols", Nir & Langley, 2018):
ChaCha20 with a 256-bit key, a 32-bit block counter and a 96-bit nonce
(section 2.3), Poly1305 (section 2.5) keyed by the first 32 bytes of the
ChaCha20 block with counter 0 (section 2.6), and the AEAD construction of
section 2.8: the plaintext is encrypted from counter 1 and the tag is Poly1305
over ``aad || pad16 || ciphertext || pad16 || le64(len(aad)) || le64(len(ct))``.
A sealed message is ``ciphertext || tag`` (16 bytes); :meth:`ChaCha20Poly1305.open`
checks the tag (in constant time, :func:`hmac.compare_digest`) before it makes
the plaintext.

How it is fast enough in CPython: the cost of a ChaCha20 block is the
interpreter's, one operation at a time (2,240 additions, XORs, shifts and masks
in 20 rounds), not the arithmetic.  So all the blocks of a message are computed
at once, as lanes of Python integers: word ``j`` of every block lives in one
integer, block ``b``'s copy in bits ``64*b .. 64*b + 31``.  An addition's carry
and a rotation's spill land in the 32 free bits above each lane and are masked
away, so one big-integer operation does the work of that operation in every
block (the block counter is the only word that differs between lanes).  Then the
lanes are cut into bytes and interleaved back into block order with strided
memoryview assignments (16 of them, whatever the number of blocks), and the XOR
with the message is one integer XOR.  Poly1305 is the evaluation mod 2**130 - 5
in Python integers, four blocks to a reduction.  ``scripts/bench_tunnel``
measures the result.

Nothing here is constant-time beyond the tag comparison: Python integers are
not (docs/fairness.md says why timing is outside the threat model).
"""

from __future__ import annotations

import hmac
import struct
from functools import lru_cache

from .errors import SealError

KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16
BLOCK_BYTES = 64
# The most a single seal may hold: a 32-bit block counter from 1 (RFC 8439 2.8).
MAX_PLAINTEXT = (2**32 - 1) * BLOCK_BYTES
# Blocks computed side by side in one pass; longer messages take several passes.
_BATCH = 512

_M32 = 0xFFFFFFFF
_P1305 = (1 << 130) - 5
_CLAMP = 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
_HIBIT = 1 << 128
_SIGMA = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)  # "expand 32-byte k"

# The lanes are cut apart as 4-byte items of a memoryview: the C unsigned int.
assert struct.calcsize("I") == 4


def _words(data: bytes) -> tuple[int, ...]:
    """Little-endian 32-bit words (RFC 8439 2.3: key and nonce as words)."""
    return struct.unpack(f"<{len(data) // 4}I", data)


@lru_cache(maxsize=64)
def _lanes(n: int) -> tuple[int, int, int]:
    """For ``n`` lanes: (ones: 1 in every lane, mask: 2**32 - 1 in every lane,
    steps: ``b`` in lane ``b``)."""
    ones = int.from_bytes(b"\x01\x00\x00\x00\x00\x00\x00\x00" * n, "little")
    steps = int.from_bytes(b"".join(b.to_bytes(8, "little") for b in range(n)), "little")
    return ones, ones * _M32, steps


def _blocks(key: tuple[int, ...], counter: int, nonce: tuple[int, ...], n: int) -> bytes:
    """The keystream of ``n`` ChaCha20 blocks from ``counter`` on (RFC 8439 2.3), all
    computed at once in lanes (see the module's docstring)."""
    ones, m, steps = _lanes(n)
    init = [
        _SIGMA[0] * ones,
        _SIGMA[1] * ones,
        _SIGMA[2] * ones,
        _SIGMA[3] * ones,
        *(k * ones for k in key),
        counter * ones + steps,
        *(w * ones for w in nonce),
    ]
    x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15 = init
    for _ in range(10):
        # column round: QR(0, 4, 8, 12), QR(1, 5, 9, 13), QR(2, 6, 10, 14), QR(3, 7, 11, 15)
        x0 = (x0 + x4) & m
        x12 ^= x0
        x12 = ((x12 << 16) | (x12 >> 16)) & m
        x8 = (x8 + x12) & m
        x4 ^= x8
        x4 = ((x4 << 12) | (x4 >> 20)) & m
        x0 = (x0 + x4) & m
        x12 ^= x0
        x12 = ((x12 << 8) | (x12 >> 24)) & m
        x8 = (x8 + x12) & m
        x4 ^= x8
        x4 = ((x4 << 7) | (x4 >> 25)) & m

        x1 = (x1 + x5) & m
        x13 ^= x1
        x13 = ((x13 << 16) | (x13 >> 16)) & m
        x9 = (x9 + x13) & m
        x5 ^= x9
        x5 = ((x5 << 12) | (x5 >> 20)) & m
        x1 = (x1 + x5) & m
        x13 ^= x1
        x13 = ((x13 << 8) | (x13 >> 24)) & m
        x9 = (x9 + x13) & m
        x5 ^= x9
        x5 = ((x5 << 7) | (x5 >> 25)) & m

        x2 = (x2 + x6) & m
        x14 ^= x2
        x14 = ((x14 << 16) | (x14 >> 16)) & m
        x10 = (x10 + x14) & m
        x6 ^= x10
        x6 = ((x6 << 12) | (x6 >> 20)) & m
        x2 = (x2 + x6) & m
        x14 ^= x2
        x14 = ((x14 << 8) | (x14 >> 24)) & m
        x10 = (x10 + x14) & m
        x6 ^= x10
        x6 = ((x6 << 7) | (x6 >> 25)) & m

        x3 = (x3 + x7) & m
        x15 ^= x3
        x15 = ((x15 << 16) | (x15 >> 16)) & m
        x11 = (x11 + x15) & m
        x7 ^= x11
        x7 = ((x7 << 12) | (x7 >> 20)) & m
        x3 = (x3 + x7) & m
        x15 ^= x3
        x15 = ((x15 << 8) | (x15 >> 24)) & m
        x11 = (x11 + x15) & m
        x7 ^= x11
        x7 = ((x7 << 7) | (x7 >> 25)) & m

        # diagonal round: QR(0, 5, 10, 15), QR(1, 6, 11, 12), QR(2, 7, 8, 13), QR(3, 4, 9, 14)
        x0 = (x0 + x5) & m
        x15 ^= x0
        x15 = ((x15 << 16) | (x15 >> 16)) & m
        x10 = (x10 + x15) & m
        x5 ^= x10
        x5 = ((x5 << 12) | (x5 >> 20)) & m
        x0 = (x0 + x5) & m
        x15 ^= x0
        x15 = ((x15 << 8) | (x15 >> 24)) & m
        x10 = (x10 + x15) & m
        x5 ^= x10
        x5 = ((x5 << 7) | (x5 >> 25)) & m

        x1 = (x1 + x6) & m
        x12 ^= x1
        x12 = ((x12 << 16) | (x12 >> 16)) & m
        x11 = (x11 + x12) & m
        x6 ^= x11
        x6 = ((x6 << 12) | (x6 >> 20)) & m
        x1 = (x1 + x6) & m
        x12 ^= x1
        x12 = ((x12 << 8) | (x12 >> 24)) & m
        x11 = (x11 + x12) & m
        x6 ^= x11
        x6 = ((x6 << 7) | (x6 >> 25)) & m

        x2 = (x2 + x7) & m
        x13 ^= x2
        x13 = ((x13 << 16) | (x13 >> 16)) & m
        x8 = (x8 + x13) & m
        x7 ^= x8
        x7 = ((x7 << 12) | (x7 >> 20)) & m
        x2 = (x2 + x7) & m
        x13 ^= x2
        x13 = ((x13 << 8) | (x13 >> 24)) & m
        x8 = (x8 + x13) & m
        x7 ^= x8
        x7 = ((x7 << 7) | (x7 >> 25)) & m

        x3 = (x3 + x4) & m
        x14 ^= x3
        x14 = ((x14 << 16) | (x14 >> 16)) & m
        x9 = (x9 + x14) & m
        x4 ^= x9
        x4 = ((x4 << 12) | (x4 >> 20)) & m
        x3 = (x3 + x4) & m
        x14 ^= x3
        x14 = ((x14 << 8) | (x14 >> 24)) & m
        x9 = (x9 + x14) & m
        x4 ^= x9
        x4 = ((x4 << 7) | (x4 >> 25)) & m
    final = (x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15)
    # Word j of block b is at 4-byte item 2 * (j * n + b) (its lane's high half is zero).
    width = 8 * n
    lanes = b"".join(((x + i) & m).to_bytes(width, "little") for x, i in zip(final, init, strict=True))
    items = memoryview(lanes).cast("I")
    out = bytearray(BLOCK_BYTES * n)
    words = memoryview(out).cast("I")
    for j in range(16):  # word j of every block at once: items 2*j*n, 2*j*n + 2, ...
        words[j::16] = items[2 * j * n : 2 * (j + 1) * n : 2]
    return bytes(out)


def _keystream(key: tuple[int, ...], counter: int, nonce: tuple[int, ...], nbytes: int) -> bytes:
    """``nbytes`` of keystream from block ``counter`` on, in passes of at most _BATCH blocks."""
    nblocks = -(-nbytes // BLOCK_BYTES)
    if counter < 0 or counter + max(nblocks, 1) > 2**32:
        raise ValueError("the ChaCha20 block counter would wrap (RFC 8439: 32 bits)")
    parts = []
    for first in range(0, nblocks, _BATCH):
        parts.append(_blocks(key, counter + first, nonce, min(_BATCH, nblocks - first)))
    return b"".join(parts)[:nbytes]


def _xor(data: bytes, stream: bytes) -> bytes:
    n = len(data)
    return (int.from_bytes(data, "little") ^ int.from_bytes(stream[:n], "little")).to_bytes(n, "little")


def _check(key: bytes, nonce: bytes) -> None:
    if len(key) != KEY_BYTES:
        raise ValueError(f"a ChaCha20 key is {KEY_BYTES} bytes")
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"a ChaCha20 nonce is {NONCE_BYTES} bytes")


def chacha20_block(key: bytes, counter: int, nonce: bytes) -> bytes:
    """The 64-byte ChaCha20 block function (RFC 8439 2.3)."""
    _check(key, nonce)
    return _keystream(_words(key), counter, _words(nonce), BLOCK_BYTES)


def chacha20_encrypt(key: bytes, counter: int, nonce: bytes, data: bytes) -> bytes:
    """ChaCha20 encryption (and decryption) from block ``counter`` on (RFC 8439 2.4)."""
    _check(key, nonce)
    return _xor(data, _keystream(_words(key), counter, _words(nonce), len(data)))


def poly1305_mac(key: bytes, msg: bytes) -> bytes:
    """The 16-byte Poly1305 tag of ``msg`` under the one-time ``key`` (RFC 8439 2.5).

    Four 16-byte blocks at a time: ``acc = ((acc + m1)*r**4 + m2*r**3 + m3*r**2 + m4*r)
    mod p``, the same polynomial as one block at a time with a quarter of the reductions."""
    if len(key) != 32:
        raise ValueError("a Poly1305 key is 32 bytes")
    p = _P1305
    r = int.from_bytes(key[:16], "little") & _CLAMP
    s = int.from_bytes(key[16:], "little")
    r2 = r * r % p
    r3 = r2 * r % p
    r4 = r3 * r % p
    fb = int.from_bytes
    hi = _HIBIT
    n = len(msg)
    full = n - n % 16
    fours = full - full % 64
    acc = 0
    for i in range(0, fours, 64):
        acc = (
            (acc + (fb(msg[i : i + 16], "little") | hi)) * r4
            + (fb(msg[i + 16 : i + 32], "little") | hi) * r3
            + (fb(msg[i + 32 : i + 48], "little") | hi) * r2
            + (fb(msg[i + 48 : i + 64], "little") | hi) * r
        ) % p
    for i in range(fours, full, 16):
        acc = (acc + (fb(msg[i : i + 16], "little") | hi)) * r % p
    if full < n:
        tail = msg[full:]
        acc = (acc + fb(tail, "little") + (1 << (8 * len(tail)))) * r % p
    return ((acc + s) & (hi - 1)).to_bytes(16, "little")


def poly1305_key_gen(key: bytes, nonce: bytes) -> bytes:
    """The one-time Poly1305 key: the first 32 bytes of block 0 (RFC 8439 2.6)."""
    return chacha20_block(key, 0, nonce)[:32]


def _pad16(n: int) -> bytes:
    return bytes(-n % 16)


def _mac_data(aad: bytes, ct: bytes) -> bytes:
    """Poly1305's input in the AEAD (RFC 8439 2.8)."""
    lengths = len(aad).to_bytes(8, "little") + len(ct).to_bytes(8, "little")
    return b"".join((aad, _pad16(len(aad)), ct, _pad16(len(ct)), lengths))


class ChaCha20Poly1305:
    """AEAD_CHACHA20_POLY1305 under one 32-byte key (RFC 8439 2.8).

    The caller owns the nonces: a (key, nonce) pair must never seal twice.
    """

    __slots__ = ("_key",)

    def __init__(self, key: bytes) -> None:
        if len(key) != KEY_BYTES:
            raise ValueError(f"a ChaCha20-Poly1305 key is {KEY_BYTES} bytes")
        self._key = _words(key)

    def _stream(self, nonce: bytes, nbytes: int) -> tuple[bytes, bytes]:
        """(the Poly1305 key, the keystream for ``nbytes`` from counter 1) in one pass."""
        if len(nonce) != NONCE_BYTES:
            raise ValueError(f"a ChaCha20-Poly1305 nonce is {NONCE_BYTES} bytes")
        if nbytes > MAX_PLAINTEXT:
            raise ValueError("over the AEAD's limit of 2**32 - 1 blocks")
        stream = _keystream(self._key, 0, _words(nonce), BLOCK_BYTES + nbytes)
        return stream[:32], stream[BLOCK_BYTES:]

    def seal(self, nonce: bytes, plaintext: bytes, aad: bytes = b"") -> bytes:
        """``ciphertext || tag`` (len(plaintext) + 16 bytes)."""
        otk, stream = self._stream(nonce, len(plaintext))
        ct = _xor(plaintext, stream)
        return ct + poly1305_mac(otk, _mac_data(aad, ct))

    def open(self, nonce: bytes, sealed: bytes, aad: bytes = b"") -> bytes:
        """The plaintext of ``ciphertext || tag``; :class:`SealError` unless the tag is
        right (the plaintext is not computed unless it is)."""
        if len(sealed) < TAG_BYTES:
            raise SealError("sealed bytes shorter than a tag")
        ct, tag = sealed[:-TAG_BYTES], sealed[-TAG_BYTES:]
        otk, stream = self._stream(nonce, len(ct))
        if not hmac.compare_digest(poly1305_mac(otk, _mac_data(aad, ct)), tag):
            raise SealError("the tag does not match: another key, or changed bytes")
        return _xor(ct, stream)
