"""The private deck as docs/fairness.md writes it (*Byte-exact specification*), for the
tests that check the document: every hash, HMAC, framing and derivation from a game
secret, the proof of shuffle's prover and verifier, the message bytes and the
private-state digest, written out with hashlib and hmac on the plain P-256 of
``tests/support/p256.py`` and SPEC's stream of ``tests/reference_spec.py``.  Nothing
of ``p2p_spite`` is used.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from tests.reference_spec import RefStream
from tests.support.p256 import G, N, Pt, add, decode, lincomb, mul, neg
from tests.support.p256 import encode as enc

Ct = tuple[Pt, Pt]


def u32(x: int) -> bytes:
    return x.to_bytes(4, "big")


def frame(*parts: bytes) -> bytes:
    """Each part as u32(length) || part."""
    return b"".join(u32(len(p)) + p for p in parts)


def ctx(*parts: bytes | int) -> bytes:
    """A context: the framing of its parts, an integer as its u32."""
    return frame(*(p if isinstance(p, bytes) else u32(p) for p in parts))


def scalar(key: bytes, *parts: bytes) -> int:
    """HMAC-SHA-512(key, frame(parts)) as a big-endian integer, mod (N - 1), plus 1."""
    mac = hmac.new(key, frame(*parts), hashlib.sha512).digest()
    return int.from_bytes(mac, "big") % (N - 1) + 1


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


V1 = b"p2p-spite/fairdeck/v1/"
V2 = b"p2p-spite/fairdeck/v2/"


def card(c: int) -> Pt:
    return mul(c + 1, G)


def key_of(match: bytes, game: int, secret: bytes, seat: int) -> int:
    return scalar(secret, b"key", match, ctx(game, seat))


def key_context(match: bytes, game: int, seat: int) -> bytes:
    return ctx(b"key", match, game, seat)


def schnorr(match: bytes, game: int, x: int, seat: int) -> tuple[Pt, bytes, int]:
    """X, c, z of a KEY."""
    context = key_context(match, game, seat)
    k = scalar(x.to_bytes(32, "big"), b"schnorr", context)
    big_x, a = mul(x, G), mul(k, G)
    c = sha(frame(V1 + b"schnorr", context, enc(big_x), enc(a)))
    return big_x, c, (k + int.from_bytes(c, "big") * x) % N


def share_context(match: bytes, game: int, seat: int, slot: int, c2: Pt) -> bytes:
    return ctx(b"share", match, game, seat, slot, enc(c2))


def dleq(match: bytes, game: int, x: int, seat: int, slot: int, ct: Ct) -> tuple[Pt, bytes, int]:
    """D, c, z of seat ``seat``'s share of ``slot`` holding ``ct``."""
    c1, c2 = ct
    context = share_context(match, game, seat, slot, c2)
    k = scalar(x.to_bytes(32, "big"), b"dleq", context, enc(c1))
    d, a1, a2 = mul(x, c1), mul(k, G), mul(k, c1)
    c = sha(frame(V1 + b"dleq", context, enc(mul(x, G)), enc(c1), enc(d), enc(a1), enc(a2)))
    return d, c, (k + int.from_bytes(c, "big") * x) % N


def pass_input_digest(ins: Sequence[Ct]) -> bytes:
    return sha(frame(V2 + b"pass-input", u32(len(ins))) + b"".join(enc(a) + enc(b) for a, b in ins))


@dataclass(frozen=True)
class PassOf:
    """What a pass derives from: the match, the game, the shuffling seat's secret and seat,
    the round, the joint key and the digest of the pass's input."""

    match: bytes
    game: int
    secret: bytes
    seat: int
    rnd: int
    y: Pt
    digest: bytes


def pass_key(p: PassOf, label: bytes) -> bytes:
    return hmac.new(
        p.secret, ctx(label, p.match, p.game, p.seat, p.rnd, enc(p.y), p.digest), hashlib.sha256
    ).digest()


def permutation(p: PassOf, n: int) -> list[int]:
    perm = list(range(n))
    RefStream(pass_key(p, b"perm"), 1).shuffle(perm)
    return perm


def randomness(p: PassOf, n: int) -> list[int]:
    key = pass_key(p, b"reenc")
    return [scalar(key, b"reenc", u32(j)) for j in range(n)]


@cache
def generator(i: int) -> tuple[tuple[int, int], int]:
    """Generator i (0: H) and the counter that found it."""
    ctr = 0
    while True:
        pt = decode(b"\x02" + sha(frame(V2 + b"generator", u32(i), u32(ctr))))
        if pt is not None:
            return pt, ctr
        ctr += 1


def shuffle_context(match: bytes, game: int, seat: int, rnd: int) -> bytes:
    return ctx(b"shuffle", match, game, seat, rnd)


def statement(context: bytes, y: Pt, ins: Sequence[Ct], outs: Sequence[Ct], cs: Sequence[Pt]) -> bytes:
    return sha(
        frame(V2 + b"shuffle", context, enc(y), u32(len(ins)))
        + b"".join(enc(a) + enc(b) for a, b in ins)
        + b"".join(enc(a) + enc(b) for a, b in outs)
        + b"".join(enc(p) for p in cs)
    )


def challenges(st: bytes, n: int) -> list[int]:
    return [int.from_bytes(sha(frame(V2 + b"shuffle/u", st, u32(k)))[:16], "big") for k in range(n)]


def final_challenge(st: bytes, chain: Sequence[Pt], ts: Sequence[Pt]) -> int:
    return int.from_bytes(
        sha(frame(V2 + b"shuffle/c", st) + b"".join(enc(p) for p in (*chain, *ts)))[:16], "big"
    )


@dataclass(frozen=True)
class Proof:
    cs: list[Pt]
    chain: list[Pt]
    c: int
    s: tuple[int, int, int, int]
    s_hat: list[int]
    s_prime: list[int]

    def wire(self) -> bytes:
        return (
            b"".join(enc(p) for p in (*self.cs, *self.chain))
            + self.c.to_bytes(16, "big")
            + b"".join(k.to_bytes(32, "big") for k in (*self.s, *self.s_hat, *self.s_prime))
        )


def derive(seed: bytes, label: bytes, i: int, st: bytes | None = None) -> int:
    """``R(lab, i)`` (``st``: the nonces' ``R(lab, i; st)``)."""
    return scalar(seed, V2 + label, u32(i)) if st is None else scalar(seed, V2 + label, st, u32(i))


def prove(
    seed: bytes,
    context: bytes,
    y: Pt,
    ins: Sequence[Ct],
    outs: Sequence[Ct],
    perm: list[int],
    rs: list[int],
    *,
    nonces_of_the_seed_alone: bool = False,
) -> tuple[Proof, list[int]]:
    """The proof, and its u_0..u_{n-1}.  ``nonces_of_the_seed_alone``: the recipe before
    issue 44 (nonces not bound to the statement), for the test that shows its leak."""
    n = len(ins)
    h = generator(0)[0]
    hs = [generator(j + 1)[0] for j in range(n)]
    inv = [0] * n
    for j, k in enumerate(perm):
        inv[k] = j
    a = [derive(seed, b"perm-commit", k) for k in range(n)]
    cs = [add(mul(a[k], G), hs[inv[k]]) for k in range(n)]
    st = statement(context, y, ins, outs, cs)
    u = challenges(st, n)
    ut = [u[perm[j]] for j in range(n)]
    bound = None if nonces_of_the_seed_alone else st
    b = [derive(seed, b"chain", j, bound) for j in range(n)]
    w_hat = [derive(seed, b"w-hat", j, bound) for j in range(n)]
    w_prime = [derive(seed, b"w-prime", j, bound) for j in range(n)]
    w = [derive(seed, b"w", i, bound) for i in (1, 2, 3, 4)]
    chain: list[Pt] = []
    t_hat: list[Pt] = []
    prev: Pt = h
    for j in range(n):
        chain.append(add(mul(b[j], G), mul(ut[j], prev)))
        t_hat.append(add(mul(w_hat[j], G), mul(w_prime[j], prev)))
        prev = chain[-1]
    t1, t2 = mul(w[0], G), mul(w[1], G)
    t3 = add(mul(w[2], G), lincomb(w_prime, hs))
    t41 = add(mul(N - w[3], G), lincomb(w_prime, [o[0] for o in outs]))
    t42 = add(mul(N - w[3], y), lincomb(w_prime, [o[1] for o in outs]))
    c = final_challenge(st, chain, [t1, t2, t3, t41, t42, *t_hat])
    v = [1] * n
    for j in range(n - 2, -1, -1):
        v[j] = v[j + 1] * ut[j + 1] % N
    abar = sum(a) % N
    bhat = sum(x * y_ for x, y_ in zip(b, v, strict=True)) % N
    acomb = sum(x * y_ for x, y_ in zip(a, u, strict=True)) % N
    rtilde = sum(x * y_ for x, y_ in zip(rs, ut, strict=True)) % N
    s = ((w[0] - c * abar) % N, (w[1] - c * bhat) % N, (w[2] - c * acomb) % N, (w[3] - c * rtilde) % N)
    s_hat = [(w_hat[j] - c * b[j]) % N for j in range(n)]
    s_prime = [(w_prime[j] - c * ut[j]) % N for j in range(n)]
    return Proof(cs, chain, c, s, s_hat, s_prime), u


def verify(context: bytes, y: Pt, ins: Sequence[Ct], outs: Sequence[Ct], pr: Proof) -> bool:
    """The document's verifier."""
    n = len(ins)
    h = generator(0)[0]
    hs = [generator(j + 1)[0] for j in range(n)]
    st = statement(context, y, ins, outs, pr.cs)
    u = challenges(st, n)
    c = pr.c
    s1, s2, s3, s4 = pr.s
    uprod = 1
    for x in u:
        uprod = uprod * x % N
    t1 = add(mul(c, add(*pr.cs, *(neg(p) for p in hs))), mul(s1, G))
    t2 = add(mul(c, pr.chain[-1]), mul(N - c * uprod % N, h), mul(s2, G))
    t3 = add(lincomb([c * x for x in u], pr.cs), mul(s3, G), lincomb(pr.s_prime, hs))
    t41 = add(
        lincomb([c * x for x in u], [i[0] for i in ins]),
        mul(N - s4, G),
        lincomb(pr.s_prime, [o[0] for o in outs]),
    )
    t42 = add(
        lincomb([c * x for x in u], [i[1] for i in ins]),
        mul(N - s4, y),
        lincomb(pr.s_prime, [o[1] for o in outs]),
    )
    prevs = [h, *pr.chain[:-1]]
    t_hat = [add(mul(c, pr.chain[j]), mul(pr.s_hat[j], G), mul(pr.s_prime[j], prevs[j])) for j in range(n)]
    return final_challenge(st, pr.chain, [t1, t2, t3, t41, t42, *t_hat]) == c


def header(match: bytes, game: int, t: int, seat: int) -> bytes:
    return bytes([t, 2]) + match + u32(game) + bytes([seat])


def shuffle_message(match: bytes, game: int, seat: int, rnd: int, outs: Sequence[Ct], pr: Proof) -> bytes:
    body = b"".join(enc(a) + enc(b) for a, b in outs)
    return header(match, game, 2, seat) + u32(rnd) + bytes([seat, len(outs)]) + body + pr.wire()


def private_digest(
    game: int,
    turn: int,
    starter: int,
    drawn: int,
    ply: int,
    hand_sizes: tuple[int, int],
    piles: list[list[int]],
    result: bytes = b"None",
) -> bytes:
    """The private-state digest (``result``: the seeded digest's text of the result)."""
    return sha(
        b"p2p-spite/private-state/v1"
        + u32(game)
        + bytes([turn, starter])
        + drawn.to_bytes(8, "big")
        + ply.to_bytes(8, "big")
        + result
        + b"".join(k.to_bytes(2, "big") for k in hand_sizes)
        + b"".join(b"\xff\xff" + b"".join(c.to_bytes(2, "big") for c in p) for p in piles)
    )


def reencrypt(ct: Ct, r: int, y: Pt) -> Ct:
    return add(ct[0], mul(r, G)), add(ct[1], mul(r, y))


def read_shuffle(msg: bytes) -> tuple[int, int, list[Ct], Proof]:
    """Round, step, output and proof of a SHUFFLE's bytes (checked for its layout)."""
    rnd, step, n = int.from_bytes(msg[23:27], "big"), msg[27], msg[28]
    assert len(msg) == 173 + 196 * n, "a SHUFFLE's length"
    at = 29
    outs: list[Ct] = []
    for _ in range(n):
        outs.append((decode(msg[at : at + 33]), decode(msg[at + 33 : at + 66])))
        at += 66
    pts = [decode(msg[at + 33 * i : at + 33 * (i + 1)]) for i in range(2 * n)]
    at += 66 * n
    c = int.from_bytes(msg[at : at + 16], "big")
    ks = [int.from_bytes(msg[at + 16 + 32 * i : at + 48 + 32 * i], "big") for i in range(4 + 2 * n)]
    assert all(p is not None for p in (*pts, *(x for ct in outs for x in ct))), "a point off the curve"
    assert all(k < N for k in ks), "a scalar not below N"
    return (
        rnd,
        step,
        outs,
        Proof(pts[:n], pts[n:], c, (ks[0], ks[1], ks[2], ks[3]), ks[4 : 4 + n], ks[4 + n :]),
    )
