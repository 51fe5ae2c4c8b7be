"""A zero-knowledge proof that a pass is a shuffle: Terelius-Wikstrom.

A *pass* turns the ciphertexts ``ins`` into ``outs`` with ``outs[j] =
ins[perm[j]] + (r_j*G, r_j*Y)``.  The proof here shows that ``outs`` is a
permutation of re-encryptions of ``ins`` under the joint key ``Y``, and
nothing else: not the permutation, not the randomness.  The construction is
the proof of a shuffle of Terelius and Wikstrom ("Proofs of Restricted
Shuffles", AFRICACRYPT 2010, the variant of Wikstrom's "A Commitment-Consistent
Proof of a Shuffle", ACISP 2009, that Verificatum implements), written after
the pseudo-code of Haenni, Locher, Koenig and Dubuis, "Pseudo-Code Algorithms
for Verifiable Re-Encryption Mix-Nets" (FC 2017 Workshops, Voting'17),
Algorithms 4.x ``GenShuffleProof`` / ``CheckShuffleProof``, in additive
notation on P-256 and made non-interactive with Fiat-Shamir.  docs/fairness.md
gives the soundness and zero-knowledge argument and every byte hashed.

The statement, with ``n = len(ins)`` and independent generators ``H, H_1..H_n``
(:func:`generators`: hashed to the curve, nobody knows a discrete log between
any two of them or to ``G``):

1. ``cs[k] = a_k*G + H_{perm^-1(k)}``: a Pedersen commitment to the
   permutation matrix, one column per input ``k``;
2. challenges ``u_k`` (128 bits) hashed from the context, ``Y``, ``ins``,
   ``outs`` and ``cs``; ``u~_j = u_{perm[j]}``;
3. a commitment chain ``chain[j] = b_j*G + u~_j*chain[j-1]`` from
   ``chain[-1] = H``: it commits to the product of the ``u~`` so the verifier
   knows ``prod u~ = prod u``;
4. a Schnorr-type proof of knowledge, with one 128-bit challenge ``c``, that
   the prover knows openings with ``sum cs - sum H_i = abar*G``,
   ``chain[n-1] - (prod u)*H = bhat*G``, ``sum u_k cs[k] = a*G + sum u~_j H_j``,
   ``sum u~_j outs[j] - sum u_k ins[k] = rtilde*(G, Y)`` and every chain link.

The first two say ``cs`` commits to a permutation matrix (a column sum of
ones and a product of ``u``s that holds for random ``u`` only for a
permutation, by the Schwartz-Zippel lemma), the fourth that ``outs`` weighted
by the permuted ``u`` is ``ins`` weighted by ``u``, re-encrypted.

Everything the prover draws is derived from its ``seed`` (the caller binds it
to the game secret, the joint key and the pass's input): the commitment
randomness ``a_k`` from the seed alone, every nonce (``b_j``, ``w^_j``,
``w'_j``, ``w_1..w_4``) from the seed and the statement hash ``st``, which
commits to the context, ``Y``, ``ins``, ``outs`` and ``cs`` (as RFC 6979 binds
a signature's nonce to its message).  So a restarted prover makes the same
proof of the same statement, and two proofs of different statements share no
nonce, even from one seed.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from .group import (
    POINT_BYTES,
    Affine,
    FixedBase,
    N,
    Point,
    add,
    add_jacobian,
    add_many,
    base_g,
    decode,
    encode,
    msm,
    mul2_jacobian,
    neg,
    normalize,
)
from .group import GroupError as _GroupError

Ciphertext = tuple[Point, Point]

DOMAIN = b"p2p-spite/fairdeck/v2/"
CHALLENGE_BYTES = 16  # the u_k and the proof's challenge c: 128 bits
MAX_GENERATORS = 104


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """The proof of one pass (layout on the wire: fairdeck/wire.py)."""

    commitments: tuple[Affine, ...]  # cs[k], one per input
    chain: tuple[Affine, ...]  # chain[j], one per output
    c: int  # the challenge, below 2**128
    s: tuple[int, int, int, int]  # s1..s4
    s_hat: tuple[int, ...]  # one per output
    s_prime: tuple[int, ...]  # one per output


def _frame(*parts: bytes) -> bytes:
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def _enc(pt: Point) -> bytes:
    """A point as hashed: SEC 1 compressed, and 33 zero bytes for the point at
    infinity (the C1 of the deal's first input is a trivial encryption)."""
    return bytes(POINT_BYTES) if pt is None else encode(pt)


@cache
def _generator(i: int) -> Affine:
    """Generator ``i`` (0 is ``H``): over ``ctr = 0, 1, ...``, the first digest
    ``x = SHA-256(frame(DOMAIN + "generator", i, ctr))`` that is below P and the
    x of a point, with the even y (try and increment: the encoding 0x02 | x)."""
    ctr = 0
    while True:
        digest = hashlib.sha256(
            _frame(DOMAIN + b"generator", i.to_bytes(4, "big"), ctr.to_bytes(4, "big"))
        ).digest()
        try:
            pt = decode(b"\x02" + digest)
        except _GroupError:
            ctr += 1
            continue
        assert pt is not None
        return pt


def generators(n: int) -> tuple[Affine, list[Affine]]:
    """``H`` and ``H_1..H_n`` (n <= 104)."""
    if not 0 < n <= MAX_GENERATORS:
        raise ValueError(f"a shuffle has 1..{MAX_GENERATORS} ciphertexts")
    return _generator(0), [_generator(i) for i in range(1, n + 1)]


def _derive(seed: bytes, label: bytes, i: int, statement: bytes = b"") -> int:
    """``H2S(seed; D2 || label, [statement,] u32(i))``: the commitment randomness ``a_k``
    (made before the statement, which commits to it) without, every nonce with the
    statement (RFC 6979's binding of a nonce to its message)."""
    parts = (
        (DOMAIN + label, statement, i.to_bytes(4, "big"))
        if statement
        else (DOMAIN + label, i.to_bytes(4, "big"))
    )
    mac = hmac.new(seed, _frame(*parts), hashlib.sha512).digest()
    return int.from_bytes(mac, "big") % (N - 1) + 1


def _statement(
    context: bytes, key: Point, ins: Sequence[Ciphertext], outs: Sequence[Ciphertext], cs: Sequence[Point]
) -> bytes:
    """The hash every challenge of this proof starts from."""
    h = hashlib.sha256(_frame(DOMAIN + b"shuffle", context, _enc(key), len(ins).to_bytes(4, "big")))
    for a, b in ins:
        h.update(_enc(a) + _enc(b))
    for a, b in outs:
        h.update(_enc(a) + _enc(b))
    for pt in cs:
        h.update(_enc(pt))
    return h.digest()


def _challenges(statement: bytes, n: int) -> list[int]:
    return [
        int.from_bytes(
            hashlib.sha256(_frame(DOMAIN + b"shuffle/u", statement, k.to_bytes(4, "big"))).digest()[
                :CHALLENGE_BYTES
            ],
            "big",
        )
        for k in range(n)
    ]


def _final_challenge(statement: bytes, chain: Sequence[Point], ts: Sequence[Point]) -> int:
    h = hashlib.sha256(_frame(DOMAIN + b"shuffle/c", statement))
    for pt in chain:
        h.update(_enc(pt))
    for pt in ts:
        h.update(_enc(pt))
    return int.from_bytes(h.digest()[:CHALLENGE_BYTES], "big")


def _lincomb(scalars: Sequence[int], points: Sequence[Point]) -> Point:
    """``sum k * P`` (the point at infinity and zero scalars left out)."""
    ks: list[int] = []
    ps: list[Affine] = []
    for k, p in zip(scalars, points, strict=True):
        k %= N
        if k and p is not None:
            ks.append(k)
            ps.append(p)
    if not ps:
        return None
    return msm(ks, ps, max(k.bit_length() for k in ks))


def prove(
    seed: bytes,
    context: bytes,
    key: FixedBase,
    ins: Sequence[Ciphertext],
    outs: Sequence[Ciphertext],
    perm: Sequence[int],
    rs: Sequence[int],
) -> ShuffleProof:
    """The proof that ``outs[j] = ins[perm[j]] + rs[j]*(G, Y)`` (``key`` is Y's table)."""
    n = len(ins)
    _, hs = generators(n)
    g = base_g()
    inv = [0] * n
    for j, k in enumerate(perm):
        inv[k] = j
    # 1. the permutation commitment: cs[k] = a_k*G + H_{inv[k]}
    a = [_derive(seed, b"perm-commit", k) for k in range(n)]
    cs: list[Affine] = add_many([(ag, hs[inv[k]]) for k, ag in enumerate(g.mul_many(a))])  # type: ignore[assignment]
    statement = _statement(context, key.point, ins, outs, cs)
    u = _challenges(statement, n)
    ut = [u[perm[j]] for j in range(n)]
    # 2. the commitment chain and the chain's proof commitments, sharing the doublings of each link
    b = [_derive(seed, b"chain", j, statement) for j in range(n)]
    w_hat = [_derive(seed, b"w-hat", j, statement) for j in range(n)]
    w_prime = [_derive(seed, b"w-prime", j, statement) for j in range(n)]
    # The prover knows each link as alpha_j*G + beta_j*H (alpha_j = b_j + u~_j*alpha_{j-1},
    # beta_j = u~_j*beta_{j-1}, from 0*G + 1*H), so the links and the t_hat_j = w^_j*G +
    # w'_j*chain[j-1] are sums of two fixed-base multiples: the same points as the chain
    # worked out link by link, for a fraction of the work.
    alpha = [0] * n
    beta = [0] * n
    a_prev, b_prev = 0, 1
    for j in range(n):
        a_prev = alpha[j] = (b[j] + ut[j] * a_prev) % N
        b_prev = beta[j] = ut[j] * b_prev % N
    alpha_before = [0, *alpha[:-1]]
    beta_before = [1, *beta[:-1]]
    hb = _h_table()
    chain_g = g.mul_many(alpha)
    chain_h = hb.mul_many(beta)
    that_g = g.mul_many([(wh + wp * ab) % N for wh, wp, ab in zip(w_hat, w_prime, alpha_before, strict=True)])
    that_h = hb.mul_many([wp * bb % N for wp, bb in zip(w_prime, beta_before, strict=True)])
    links = add_many(list(zip(chain_g, chain_h, strict=True)))
    t_hat = add_many(list(zip(that_g, that_h, strict=True)))
    if any(p is None for p in links):
        raise ValueError("a link of the chain is the point at infinity")  # probability about n/N
    chain: list[Affine] = links  # type: ignore[assignment]  # (none is infinity: just checked)
    # 3. the other proof commitments
    w = [_derive(seed, b"w", i, statement) for i in range(1, 5)]
    t1 = g.mul(w[0])
    t2 = g.mul(w[1])
    t3 = add(g.mul(w[2]), _lincomb(w_prime, hs))
    t41 = add(neg(g.mul(w[3])), _lincomb(w_prime, [o[0] for o in outs]))
    t42 = add(neg(key.mul(w[3])), _lincomb(w_prime, [o[1] for o in outs]))
    c = _final_challenge(statement, chain, [t1, t2, t3, t41, t42, *t_hat])
    # 4. the responses
    abar = sum(a) % N
    v = [1] * n  # v[j] = prod of ut[j+1:]
    for j in range(n - 2, -1, -1):
        v[j] = v[j + 1] * ut[j + 1] % N
    bhat = sum(bj * vj for bj, vj in zip(b, v, strict=True)) % N
    acomb = sum(ak * uk for ak, uk in zip(a, u, strict=True)) % N
    rtilde = sum(r * x for r, x in zip(rs, ut, strict=True)) % N
    s = (
        (w[0] - c * abar) % N,
        (w[1] - c * bhat) % N,
        (w[2] - c * acomb) % N,
        (w[3] - c * rtilde) % N,
    )
    s_hat = tuple((wh - c * bj) % N for wh, bj in zip(w_hat, b, strict=True))
    s_prime = tuple((wp - c * x) % N for wp, x in zip(w_prime, ut, strict=True))
    return ShuffleProof(tuple(cs), tuple(chain), c, s, s_hat, s_prime)


@cache
def _h_table() -> FixedBase:
    """``H``'s table (built once per process, like the generator's)."""
    return FixedBase(_generator(0))


def verify(
    context: bytes,
    key: FixedBase,
    ins: Sequence[Ciphertext],
    outs: Sequence[Ciphertext],
    proof: ShuffleProof,
) -> bool:
    """Does ``proof`` show that ``outs`` is a shuffle of ``ins`` under ``key``?"""
    n = len(ins)
    if not (len(outs) == len(proof.commitments) == len(proof.chain) == n):
        return False
    if not (len(proof.s_hat) == len(proof.s_prime) == n) or proof.c >> (8 * CHALLENGE_BYTES):
        return False
    if any(not 0 <= x < N for x in (*proof.s, *proof.s_hat, *proof.s_prime)):
        return False
    h0, hs = generators(n)
    g = base_g()
    cs, chain, c = proof.commitments, proof.chain, proof.c
    s1, s2, s3, s4 = proof.s
    statement = _statement(context, key.point, ins, outs, cs)
    u = _challenges(statement, n)
    uprod = 1
    for x in u:
        uprod = uprod * x % N
    # t1' = c*(sum cs - sum H) + s1*G
    cbar = add(_sum(cs), neg(_sum(hs)))
    t1 = _lin_g(g, s1, [(c, cbar)])
    # t2' = c*(chain[n-1] - prod(u)*H) + s2*G
    t2 = _lin_g(g, s2, [(c, chain[-1]), ((N - c) * uprod % N, h0)])
    # t3' = c*sum(u_k cs[k]) + s3*G + sum(s'_j H_j)
    t3 = add(_lin_g(g, s3, []), _lincomb([c * x for x in u] + list(proof.s_prime), [*cs, *hs]))
    # t41' = c*sum(u_k ins[k].C1) - s4*G + sum(s'_j outs[j].C1); t42' the same on C2 with Y
    t41 = add(
        _lin_g(g, N - s4, []),
        _lincomb([c * x for x in u] + list(proof.s_prime), [*(i[0] for i in ins), *(o[0] for o in outs)]),
    )
    t42 = add(
        key.mul(N - s4),
        _lincomb([c * x for x in u] + list(proof.s_prime), [*(i[1] for i in ins), *(o[1] for o in outs)]),
    )
    # t_hat_j' = c*chain[j] + s_hat_j*G + s'_j*chain[j-1]
    prevs: list[Affine] = [h0, *chain[:-1]]
    t_hat = normalize(
        [
            add_jacobian(g.mul_jacobian(sh), mul2_jacobian(c, cj, sp, pj))
            for cj, pj, sh, sp in zip(chain, prevs, proof.s_hat, proof.s_prime, strict=True)
        ]
    )
    expected = _final_challenge(statement, chain, [t1, t2, t3, t41, t42, *t_hat])
    return hmac.compare_digest(expected.to_bytes(CHALLENGE_BYTES, "big"), c.to_bytes(CHALLENGE_BYTES, "big"))


def _sum(points: Sequence[Point]) -> Point:
    total: Point = None
    for p in points:
        total = add(total, p)
    return total


def _lin_g(g: FixedBase, s: int, terms: Sequence[tuple[int, Point]]) -> Point:
    """``s*G + sum k*P``."""
    return add(g.mul(s), _lincomb([k for k, _ in terms], [p for _, p in terms]))


__all__ = ["CHALLENGE_BYTES", "ShuffleProof", "generators", "prove", "verify"]
