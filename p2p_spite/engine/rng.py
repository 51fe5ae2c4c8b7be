"""The deterministic, language-independent random stream of SPEC section 2."""

from __future__ import annotations

import hashlib
from typing import Any

DOMAIN = b"p2p-spite/v1"
SEED_BYTES = 32
_TWO64 = 1 << 64


class Stream:
    """Game ``game``'s stream for a match seed: SHA-256 of key + counter.

    The i-th 64-bit number is the first 8 bytes, big-endian, of
    ``SHA-256(key + i.to_bytes(8, "big"))`` with
    ``key = b"p2p-spite/v1" + seed + game.to_bytes(4, "big")``.
    """

    __slots__ = ("_prefix", "index")

    def __init__(self, seed: bytes, game: int) -> None:
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes, not {len(seed)}")
        if not 1 <= game < 1 << 32:
            raise ValueError(f"game numbers start at 1, not {game}")
        self._prefix = hashlib.sha256(DOMAIN + seed + game.to_bytes(4, "big"))
        self.index = 0

    def copy(self) -> Stream:
        other = Stream.__new__(Stream)
        other._prefix = self._prefix
        other.index = self.index
        return other

    def next64(self) -> int:
        h = self._prefix.copy()
        h.update(self.index.to_bytes(8, "big"))
        self.index += 1
        return int.from_bytes(h.digest()[:8], "big")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection sampling."""
        if n <= 0:
            raise ValueError("below(n) needs n >= 1")
        limit = _TWO64 - (_TWO64 % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates in place: for i from len-1 down to 1, swap i and below(i+1).

        This is ``below`` inlined: a deal shuffles 104 cards, and replays deal
        every game, so this loop is hot.
        """
        prefix = self._prefix
        k = self.index
        from_bytes = int.from_bytes
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _TWO64 - (_TWO64 % n)
            while True:
                h = prefix.copy()
                h.update(k.to_bytes(8, "big"))
                k += 1
                x = from_bytes(h.digest()[:8], "big")
                if x < limit:
                    break
            j = x % n
            items[i], items[j] = items[j], items[i]
        self.index = k


def parse_seed(text: str) -> bytes:
    """A seed written as 64 lowercase hex digits."""
    if not isinstance(text, str):
        raise ValueError("the seed must be a string of 64 lowercase hex digits")
    if len(text) != 2 * SEED_BYTES or any(c not in "0123456789abcdef" for c in text):
        raise ValueError("the seed must be 64 lowercase hex digits")
    return bytes.fromhex(text)
