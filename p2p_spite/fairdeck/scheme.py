"""The private deck's building blocks: the cards as points, what a game secret gives.

Card ``c`` is the point ``(c+1)*G`` (:func:`card_point`); a seat's key, the permutation
and re-encryption randomness of each of its passes, and its proofs' nonces all derive
from its 32-byte game secret (docs/fairness.md), so that the end-of-game check can
recompute the other seat's passes from its revealed secret.  A pass made again under
another joint key or over another input has a permutation and randomness of its own
(they are keyed with both, as RFC 6979 keys a nonce with the message).
:func:`reencrypt_all` is ElGamal re-encryption under the joint key.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from ..engine.rng import Stream
from .group import G, Point, add, add_many, encode, hash_to_scalar
from .proofs import frame
from .wire import Ciphertext, Header

DECK = 104

_CARD_POINTS: list[tuple[int, int]] = []
_CARD_OF: dict[tuple[int, int], int] = {}


def card_point(card: int) -> Point:
    """The group element of card id ``card``: ``(card + 1) * G``."""
    if not _CARD_POINTS:
        pt: Point = None
        for c in range(DECK):
            pt = add(pt, G)
            assert pt is not None
            _CARD_POINTS.append(pt)
            _CARD_OF[pt] = c
    return _CARD_POINTS[card]


def card_of_point(pt: Point) -> int | None:
    card_point(0)
    return None if pt is None else _CARD_OF.get(pt)


def ctx(*parts: bytes | int) -> bytes:
    """A context string: the parts framed (an int as 4 bytes, big-endian)."""
    return frame(*(p if isinstance(p, bytes) else p.to_bytes(4, "big") for p in parts))


def derive_key(secret: bytes, head: Header) -> int:
    return hash_to_scalar(secret, b"key", head.match_id, ctx(head.game, head.seat))


def pass_input_digest(inputs: Sequence[Ciphertext]) -> bytes:
    """What binds a pass to its input: SHA-256 over the label and the input's
    ciphertexts (33 zero bytes for the deal's trivial C1)."""
    h = hashlib.sha256(frame(b"p2p-spite/fairdeck/v2/pass-input", len(inputs).to_bytes(4, "big")))
    for c1, c2 in inputs:
        h.update(_enc_or_zero(c1) + _enc_or_zero(c2))
    return h.digest()


def _enc_or_zero(pt: Point) -> bytes:
    return bytes(33) if pt is None else encode(pt)


def _pass_key(secret: bytes, head: Header, rnd: int, joint: Point, digest: bytes, label: bytes) -> bytes:
    return hmac.new(
        secret, ctx(label, head.match_id, head.game, head.seat, rnd, encode(joint), digest), hashlib.sha256
    ).digest()


def derive_permutation(
    secret: bytes, head: Header, rnd: int, joint: Point, digest: bytes, n: int
) -> list[int]:
    """The permutation of a seat's pass in round ``rnd`` under the joint key ``joint``
    over the input whose :func:`pass_input_digest` is ``digest``: ``out[j] =
    in[perm[j]]``, Fisher-Yates driven by SPEC's stream keyed with an HMAC of the
    secret over everything the pass's proof commits to.  A pass made again under
    another key or over another input (a restarted seat that lost the peer's KEY or
    pass, fed another) has a permutation and randomness of its own: two passes
    never share either, so nothing of them cancels out."""
    perm = list(range(n))
    Stream(_pass_key(secret, head, rnd, joint, digest, b"perm"), 1).shuffle(perm)
    return perm


def derive_randomness(
    secret: bytes, head: Header, rnd: int, joint: Point, digest: bytes, n: int
) -> list[int]:
    """The re-encryption randomness of the pass's positions 0..n-1."""
    key = _pass_key(secret, head, rnd, joint, digest, b"reenc")
    return [hash_to_scalar(key, b"reenc", j.to_bytes(4, "big")) for j in range(n)]


def proof_seed(secret: bytes, head: Header, rnd: int, joint: Point, digest: bytes) -> bytes:
    """The seed of the pass's proof (the proof binds its nonces to its statement too)."""
    return _pass_key(secret, head, rnd, joint, digest, b"shuffle-proof")


def shuffle_context(head: Header, rnd: int) -> bytes:
    """What a pass's proof is bound to besides its input and output: the match,
    the game, the shuffling seat and the round."""
    return ctx(b"shuffle", head.match_id, head.game, head.seat, rnd)


def _reencrypt(ct: Ciphertext, pad: tuple[Point, Point]) -> Ciphertext:
    """One ciphertext re-encrypted (tests build cheating passes with it)."""
    return reencrypt_all([ct], [pad])[0]


def reencrypt_all(cts: list[Ciphertext], pads: list[tuple[Point, Point]]) -> tuple[Ciphertext, ...]:
    """``(C1 + R, C2 + S)`` for each ciphertext and its pad ``(R, S) = (r*G, r*Y)``,
    all the additions with one inversion."""
    pairs: list[tuple[Point, Point]] = []
    for (c1, c2), (r1, r2) in zip(cts, pads, strict=True):
        pairs += ((c1, r1), (c2, r2))
    flat = add_many(pairs)
    return tuple(zip(flat[0::2], flat[1::2], strict=True))
