"""Schnorr proofs of knowledge and Chaum-Pedersen (DLEQ) proofs, made
non-interactive with Fiat-Shamir.

Every challenge is SHA-256 over a domain tag and length-framed parts: the
proof's label, the caller's context (match id, game, seat, card slot, ...),
the statement and the commitments.  A proof made for one context does not
verify in another (another card, game, seat or match).

Proofs are ``(c, z)``: the verifier rebuilds the commitments from ``z`` and
``c`` and checks the hash.  Nonces are derived (HMAC-SHA-512 of the prover's
secret over the label, context and statement, as in RFC 6979 / EdDSA), so the
same statement always gets the same proof: a process that restarts and
proves again never reuses a nonce with another challenge.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import NamedTuple

from .group import (
    FixedBase,
    N,
    Point,
    add,
    add_jacobian,
    base_g,
    encode,
    hash_to_scalar,
    mul,
    mul2_jacobian,
    mul_same,
    normalize,
    scalar_bytes,
)

DOMAIN = b"p2p-spite/fairdeck/v1/"


class Proof(NamedTuple):
    c: bytes  # 32-byte challenge
    z: int  # response in [0, N)


def frame(*parts: bytes) -> bytes:
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def challenge(label: bytes, context: bytes, *points: Point) -> bytes:
    return hashlib.sha256(frame(DOMAIN + label, context, *(encode(p) for p in points))).digest()


def _c(c: bytes) -> int:
    return int.from_bytes(c, "big") % N


def prove_key(x: int, context: bytes) -> tuple[Point, Proof]:
    """``X = x*G`` and a Schnorr proof that the prover knows ``x``."""
    g = base_g()
    big_x = g.mul(x)
    k = hash_to_scalar(scalar_bytes(x), b"schnorr", context)
    a = g.mul(k)
    c = challenge(b"schnorr", context, big_x, a)
    return big_x, Proof(c, (k + _c(c) * x) % N)


def verify_key(big_x: Point, proof: Proof, context: bytes) -> bool:
    a = add(base_g().mul(proof.z), mul(N - _c(proof.c), big_x))
    if a is None:
        return False
    return hmac.compare_digest(challenge(b"schnorr", context, big_x, a), proof.c)


def prove_share(x: int, big_x: Point, h: Point, context: bytes) -> tuple[Point, Proof]:
    """``D = x*H`` and a Chaum-Pedersen proof that log_G(X) == log_H(D), ``X = x*G``."""
    k = hash_to_scalar(scalar_bytes(x), b"dleq", context, encode(h))
    d, a2 = mul_same((x, k), h)  # h is doubled once for both
    a1 = base_g().mul(k)
    c = challenge(b"dleq", context, big_x, h, d, a1, a2)
    return d, Proof(c, (k + _c(c) * x) % N)


def verify_share(x_base: FixedBase, h: Point, d: Point, proof: Proof, context: bytes) -> bool:
    """Is ``d`` = x*h for the ``x`` behind ``x_base`` (the prover's key share)?"""
    c = _c(proof.c)
    a1, a2 = normalize(
        [  # one inversion for both
            add_jacobian(base_g().mul_jacobian(proof.z), x_base.mul_jacobian(N - c)),
            mul2_jacobian(proof.z, h, N - c, d),
        ]
    )
    if a1 is None or a2 is None:
        return False
    return hmac.compare_digest(challenge(b"dleq", context, x_base.point, h, d, a1, a2), proof.c)
