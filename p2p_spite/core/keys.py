"""The handshake's keys and MACs (docs/protocol.md, "Byte-exact definitions"): the join
code and the key it stands for (the opening's password, net/opening.py), the resume
proof, the seed commitments and the seed they open to.  Pure functions; the endpoint
(core/protocol.py) uses them."""

from __future__ import annotations

import hashlib
import hmac
import secrets

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L


def new_join_code() -> str:
    """A short code to read out loud: 8 characters (~39 bits), as XXXX-XXXX."""
    chars = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{chars[:4]}-{chars[4:]}"


def derive_code_key(code: str) -> bytes:
    """The key a join code stands for (slow on purpose: guessing codes offline is costly)."""
    norm = "".join(ch for ch in code.upper() if ch.isalnum())
    return hashlib.pbkdf2_hmac("sha256", norm.encode(), b"p2p-spite/join-code/v1", 100_000)


def resume_key(seed: bytes, match_id: bytes) -> bytes:
    """The key a returning joiner and the host prove the match with (neither sends the seed)."""
    return hmac.new(seed, b"p2p-spite/resume/v1|" + match_id, "sha256").digest()


def proof_mac(key: bytes, role: str, host_nonce: bytes, join_nonce: bytes) -> bytes:
    return hmac.new(
        key, b"p2p-spite/proof/v1|" + role.encode() + b"|" + host_nonce + join_nonce, "sha256"
    ).digest()


def commitment(role: str, secret: bytes, match_id: bytes) -> bytes:
    """A seat's commitment to its half of the seed: bound to its role and the match."""
    return hashlib.sha256(b"p2p-spite/commit/v1|" + role.encode() + b"|" + match_id + secret).digest()


def seed_from(host_secret: bytes, join_secret: bytes, match_id: bytes) -> bytes:
    return hashlib.sha256(b"p2p-spite/seed/v1|" + match_id + host_secret + join_secret).digest()
