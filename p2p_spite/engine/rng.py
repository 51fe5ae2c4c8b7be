"""The deterministic, language-independent random stream of SPEC section 2."""

from __future__ import annotations

import hashlib
import operator
import struct
from collections import deque
from itertools import repeat
from typing import Any

DOMAIN = b"p2p-spite/v1"
SEED_BYTES = 32
_TWO64 = 1 << 64
_sha256 = hashlib.sha256
_Hash = type(hashlib.sha256())
_digest = _Hash.digest
_update = _Hash.update
_copy = _Hash.copy
_unpack = struct.Struct(">Q").unpack_from  # the first 8 bytes, big-endian
# _FIRSTS[n] reads the first 8 bytes, big-endian, of each of n joined digests
_FIRSTS = [struct.Struct(">" + "Q24x" * n).unpack for n in range(128)]
_lt = operator.lt
_mod = operator.mod
# the stream's counters as bytes, for the first numbers of a game (a deal uses 103)
_COUNTERS = [i.to_bytes(8, "big") for i in range(4096)]
# below(n)'s rejection limit for every n a 104-card game can shuffle
_LIMITS = [_TWO64 - (_TWO64 % n) if n else 0 for n in range(129)]


class Stream:
    """Game ``game``'s stream for a match seed: SHA-256 of key + counter.

    The i-th 64-bit number is the first 8 bytes, big-endian, of
    ``SHA-256(key + i.to_bytes(8, "big"))`` with
    ``key = b"p2p-spite/v1" + seed + game.to_bytes(4, "big")``.
    """

    __slots__ = ("_key", "_prefix", "index")

    def __init__(self, seed: bytes, game: int) -> None:
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes, not {len(seed)}")
        if not 1 <= game < 1 << 32:
            raise ValueError(f"game numbers start at 1, not {game}")
        self._key = DOMAIN + seed + game.to_bytes(4, "big")
        self._prefix = _sha256(self._key)  # the key hashed once; never updated, only copied
        self.index = 0

    def copy(self) -> Stream:
        other = Stream.__new__(Stream)
        other._key = self._key
        other._prefix = self._prefix
        other.index = self.index
        return other

    def next64(self) -> int:
        x: int = _unpack(_sha256(self._key + self.index.to_bytes(8, "big")).digest())[0]
        self.index += 1
        return x

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection sampling."""
        if n <= 0:
            raise ValueError("below(n) needs n >= 1")
        limit = _LIMITS[n] if n < len(_LIMITS) else _TWO64 - (_TWO64 % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates in place: for i from len-1 down to 1, swap i and below(i+1).

        A deal shuffles 104 cards, and replays deal every game, so this is hot:
        the len-1 numbers a shuffle needs are hashed in one pass of C-level
        maps.  If ``below`` would reject one of them (probability under 2**-57
        for a list shorter than 128), the shuffle is done again one ``below``
        at a time, so the result is always exactly SPEC's.
        """
        count = len(items) - 1
        if count < 1:
            return
        k = self.index
        if count >= len(_LIMITS) - 1:
            self._shuffle_slowly(items, count)
            return
        if k + count <= len(_COUNTERS):
            counters = _COUNTERS[k : k + count]
        else:
            counters = [i.to_bytes(8, "big") for i in range(k, k + count)]
        # the number for the swap at each position i = count .. 1, hashed in C-level maps:
        # copies of the hashed key, each fed its counter
        hashes = list(map(_copy, repeat(self._prefix, count)))
        deque(map(_update, hashes, counters), 0)
        digests = b"".join(map(_digest, hashes))
        xs = _FIRSTS[count](digests)  # the first 8 bytes of each digest, big-endian
        sizes = range(count + 1, 1, -1)  # below(n) with n = i + 1
        if not all(map(_lt, xs, _LIMITS[count + 1 : 1 : -1])):
            self._shuffle_slowly(items, count)  # a number below() rejects: rare beyond measure
            return
        for i, j in zip(range(count, 0, -1), map(_mod, xs, sizes), strict=True):
            items[i], items[j] = items[j], items[i]
        self.index = k + count

    def _shuffle_slowly(self, items: list[Any], count: int) -> None:
        """SPEC's shuffle spelled out, one below() per position."""
        for i in range(count, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def parse_seed(text: str) -> bytes:
    """A seed written as 64 lowercase hex digits."""
    if not isinstance(text, str):
        raise ValueError("the seed must be a string of 64 lowercase hex digits")
    if len(text) != 2 * SEED_BYTES or any(c not in "0123456789abcdef" for c in text):
        raise ValueError("the seed must be 64 lowercase hex digits")
    return bytes.fromhex(text)
