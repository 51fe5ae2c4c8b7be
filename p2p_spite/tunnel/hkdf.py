"""HKDF with HMAC-SHA256, RFC 5869 ("HMAC-based Extract-and-Expand Key Derivation
Function", Krawczyk & Eronen, 2010), over :mod:`hmac` and :mod:`hashlib`.

``extract(salt, ikm)`` is section 2.2 (an empty salt is HashLen zero bytes),
``expand(prk, info, length)`` section 2.3 (at most 255 * 32 bytes), and
``hkdf(ikm, salt, info, length)`` the two in a row.
"""

from __future__ import annotations

import hashlib
import hmac

HASH_BYTES = 32
MAX_LENGTH = 255 * HASH_BYTES


def extract(salt: bytes, ikm: bytes) -> bytes:
    """PRK = HMAC-SHA256(salt, IKM) (RFC 5869 2.2)."""
    return hmac.digest(salt or bytes(HASH_BYTES), ikm, hashlib.sha256)


def expand(prk: bytes, info: bytes, length: int) -> bytes:
    """OKM, the first ``length`` bytes of T(1) || T(2) || ... (RFC 5869 2.3)."""
    if len(prk) < HASH_BYTES:
        raise ValueError(f"a PRK is at least {HASH_BYTES} bytes")
    if not 0 <= length <= MAX_LENGTH:
        raise ValueError(f"HKDF-SHA256 gives at most {MAX_LENGTH} bytes")
    out = b""
    t = b""
    i = 1
    while len(out) < length:
        t = hmac.digest(prk, t + info + bytes((i,)), hashlib.sha256)
        out += t
        i += 1
    return out[:length]


def hkdf(ikm: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    """Extract then expand (RFC 5869 2)."""
    return expand(extract(salt, ikm), info, length)
