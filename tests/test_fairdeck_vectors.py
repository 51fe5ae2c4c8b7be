"""docs/fairness.md's byte-exact private deck, pinned to the document's own test vectors.

Every vector is computed here FROM THE DOCUMENT'S RECIPE: the hashes, HMACs, framings,
derivations from the game secret, the proof of shuffle (prover and verifier) and the
private-state digest are written out in this file with hashlib and hmac; only the P-256
arithmetic (``mul``, ``add``, ``neg``) comes from ``p2p_spite.fairdeck.group``, and the
SPEC stream from ``tests/reference_spec.py`` (written from SPEC alone).  Nothing of
fairdeck's ``derive_*``, ``proofs`` or ``shuffle`` is called to make them.  Then:

(a) the recipe gives exactly the hex printed in docs/fairness.md (parsed out of the
    document, so the document and the code cannot drift apart unnoticed);
(b) what :class:`~p2p_spite.fairdeck.FairDeck` actually sends is what the recipe gives,
    byte for byte (whole messages where the recipe makes them whole), and the document's
    verifier accepts the real proofs and refuses altered ones.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from p2p_spite.fairdeck import FairDeck, from_wire, to_wire
from p2p_spite.fairdeck import group as grp
from p2p_spite.fairdeck.table import SeatGame
from p2p_spite.fairdeck.wire import MAX_WIRE
from p2p_spite.net.private import public_digest
from p2p_spite.net.wire import MAX_FRAME
from tests.reference_spec import RefStream, rank_of

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "fairness.md"
SECTION = "## Test vectors"

SECRETS = [bytes([7]) * 32, bytes([9]) * 32]
MATCH = bytes(range(16))
GAME = 1
SEED = bytes(range(32))  # the match seed of the private-state digest's vector (SPEC's test seed)
# the reshuffle's deck events (not a legal game: the deck does not check the rules): seat 0
# draws 7 cards, plays its 12 hand cards onto center 0 in this order, and the stack completes
DRAWN = list(range(103, 96, -1))
STACK = [*range(40, 45), *DRAWN]

P, N, G = grp.P, grp.N, grp.G
Pt = tuple[int, int] | None
Ct = tuple[Pt, Pt]

# -- the document's recipes, written out ------------------------------------------------------


def u32(x: int) -> bytes:
    return x.to_bytes(4, "big")


def frame(*parts: bytes) -> bytes:
    """Each part as u32(length) || part."""
    return b"".join(u32(len(p)) + p for p in parts)


def ctx(*parts: bytes | int) -> bytes:
    """A context: the framing of its parts, an integer as its u32."""
    return frame(*(p if isinstance(p, bytes) else u32(p) for p in parts))


def enc(pt: Pt) -> bytes:
    """SEC 1 compressed; 33 zero bytes for the point at infinity (hashed only, never sent)."""
    if pt is None:
        return bytes(33)
    return bytes([2 | (pt[1] & 1)]) + pt[0].to_bytes(32, "big")


def dec(data: bytes) -> Pt:
    """The point of a 33-byte compressed encoding, or None if there is none."""
    x = int.from_bytes(data[1:], "big")
    if len(data) != 33 or data[0] not in (2, 3) or x >= P:
        return None
    rhs = (x**3 - 3 * x + grp.B) % P
    y = pow(rhs, (P + 1) // 4, P)
    if y * y % P != rhs:
        return None
    return (x, y if y & 1 == data[0] & 1 else P - y)


def scalar(key: bytes, *parts: bytes) -> int:
    """HMAC-SHA-512(key, frame(parts)) as a big-endian integer, mod (N - 1), plus 1."""
    mac = hmac.new(key, frame(*parts), hashlib.sha512).digest()
    return int.from_bytes(mac, "big") % (N - 1) + 1


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def mul(k: int, pt: Pt) -> Pt:
    return grp.mul(k, pt)


def add(*pts: Pt) -> Pt:
    total: Pt = None
    for p in pts:
        total = grp.add(total, p)
    return total


def lincomb(ks: Sequence[int], pts: Sequence[Pt]) -> Pt:
    return add(*(mul(k, p) for k, p in zip(ks, pts, strict=True)))


V1 = b"p2p-spite/fairdeck/v1/"
V2 = b"p2p-spite/fairdeck/v2/"


def card(c: int) -> Pt:
    return mul(c + 1, G)


def key_of(secret: bytes, seat: int) -> int:
    return scalar(secret, b"key", MATCH, ctx(GAME, seat))


def schnorr(x: int, seat: int) -> tuple[Pt, bytes, int]:
    """X, c, z of a KEY."""
    context = ctx(b"key", MATCH, GAME, seat)
    k = scalar(x.to_bytes(32, "big"), b"schnorr", context)
    big_x, a = mul(x, G), mul(k, G)
    c = sha(frame(V1 + b"schnorr", context, enc(big_x), enc(a)))
    return big_x, c, (k + int.from_bytes(c, "big") * x) % N


def dleq(x: int, seat: int, slot: int, ct: Ct) -> tuple[Pt, bytes, int]:
    """D, c, z of seat ``seat``'s share of ``slot`` holding ``ct``."""
    c1, c2 = ct
    context = ctx(b"share", MATCH, GAME, seat, slot, enc(c2))
    k = scalar(x.to_bytes(32, "big"), b"dleq", context, enc(c1))
    d, a1, a2 = mul(x, c1), mul(k, G), mul(k, c1)
    c = sha(frame(V1 + b"dleq", context, enc(mul(x, G)), enc(c1), enc(d), enc(a1), enc(a2)))
    return d, c, (k + int.from_bytes(c, "big") * x) % N


def pass_input_digest(ins: Sequence[Ct]) -> bytes:
    return sha(frame(V2 + b"pass-input", u32(len(ins))) + b"".join(enc(a) + enc(b) for a, b in ins))


def pass_key(secret: bytes, seat: int, rnd: int, digest: bytes, label: bytes) -> bytes:
    return hmac.new(secret, ctx(label, MATCH, GAME, seat, rnd, digest), hashlib.sha256).digest()


def permutation(secret: bytes, seat: int, rnd: int, digest: bytes, n: int) -> list[int]:
    perm = list(range(n))
    RefStream(pass_key(secret, seat, rnd, digest, b"perm"), 1).shuffle(perm)
    return perm


def randomness(secret: bytes, seat: int, rnd: int, digest: bytes, n: int) -> list[int]:
    key = pass_key(secret, seat, rnd, digest, b"reenc")
    return [scalar(key, b"reenc", u32(j)) for j in range(n)]


@cache
def generator(i: int) -> tuple[tuple[int, int], int]:
    """Generator i (0: H) and the counter that found it."""
    ctr = 0
    while True:
        pt = dec(b"\x02" + sha(frame(V2 + b"generator", u32(i), u32(ctr))))
        if pt is not None:
            return pt, ctr
        ctr += 1


def shuffle_context(seat: int, rnd: int) -> bytes:
    return ctx(b"shuffle", MATCH, GAME, seat, rnd)


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


def derive(seed: bytes, label: bytes, i: int) -> int:
    return scalar(seed, V2 + label, u32(i))


def prove(
    seed: bytes, context: bytes, y: Pt, ins: Sequence[Ct], outs: Sequence[Ct], perm: list[int], rs: list[int]
) -> tuple[Proof, list[int]]:
    """The proof, and its u_0..u_{n-1}."""
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
    b = [derive(seed, b"chain", j) for j in range(n)]
    w_hat = [derive(seed, b"w-hat", j) for j in range(n)]
    w_prime = [derive(seed, b"w-prime", j) for j in range(n)]
    w = [derive(seed, b"w", i) for i in (1, 2, 3, 4)]
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
    t1 = add(mul(c, add(*pr.cs, *(grp.neg(p) for p in hs))), mul(s1, G))
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


def header(t: int, seat: int) -> bytes:
    return bytes([t, 2]) + MATCH + u32(GAME) + bytes([seat])


def shuffle_message(seat: int, rnd: int, outs: Sequence[Ct], pr: Proof) -> bytes:
    body = b"".join(enc(a) + enc(b) for a, b in outs)
    return header(2, seat) + u32(rnd) + bytes([seat, len(outs)]) + body + pr.wire()


def private_digest(
    game: int,
    turn: int,
    starter: int,
    drawn: int,
    ply: int,
    hand_sizes: tuple[int, int],
    piles: list[list[int]],
) -> bytes:
    """The private-state digest of a game in progress (result None)."""
    return sha(
        b"p2p-spite/private-state/v1"
        + u32(game)
        + bytes([turn, starter])
        + drawn.to_bytes(8, "big")
        + ply.to_bytes(8, "big")
        + b"None"
        + b"".join(k.to_bytes(2, "big") for k in hand_sizes)
        + b"".join(b"\xff\xff" + b"".join(c.to_bytes(2, "big") for c in p) for p in piles)
    )


# -- the game of the vectors, from the recipe alone ----------------------------------------------


@dataclass
class Recipe:
    xs: list[int]
    y: Pt
    canonical: list[Ct]
    passes: list[list[Ct]]  # the deal's two passes
    perms: list[list[int]]
    rs: list[list[int]]
    proof0: Proof  # seat 0's pass
    u0: list[int]
    digests: list[bytes]  # the pass-input digests
    vectors: dict[str, str]


@pytest.fixture(scope="module")
def recipe() -> Recipe:
    return make_recipe()


def make_recipe() -> Recipe:
    """The vectors' game as the document's recipe makes it."""
    v: dict[str, str] = {}
    xs = [key_of(SECRETS[s], s) for s in (0, 1)]
    for s in (0, 1):
        big_x, c, z = schnorr(xs[s], s)
        v[f"x{s}"] = xs[s].to_bytes(32, "big").hex()
        v[f"key{s}_X"] = enc(big_x).hex()
        v[f"key{s}_c"] = c.hex()
        v[f"key{s}_z"] = z.to_bytes(32, "big").hex()
    y = add(mul(xs[0], G), mul(xs[1], G))
    v["Y"] = enc(y).hex()
    for i in (0, 1):
        v[f"gen{i}"] = enc(generator(i)[0]).hex()
    canonical: list[Ct] = [(None, card(c)) for c in range(104)]
    cur = canonical
    passes, perms, rss, digests = [], [], [], []
    proof0: Proof | None = None
    u0: list[int] = []
    for seat in (0, 1):
        digest = pass_input_digest(cur)
        perm = permutation(SECRETS[seat], seat, 0, digest, len(cur))
        rs = randomness(SECRETS[seat], seat, 0, digest, len(cur))
        outs: list[Ct] = []
        for j in range(len(cur)):
            c1, c2 = cur[perm[j]]
            outs.append((add(c1, mul(rs[j], G)), add(c2, mul(rs[j], y))))
        v[f"pass{seat}_input_digest"] = digest.hex()
        v[f"pass{seat}_perm0"] = u32(perm[0]).hex()
        v[f"pass{seat}_r0"] = rs[0].to_bytes(32, "big").hex()
        v[f"pass{seat}_out0"] = (enc(outs[0][0]) + enc(outs[0][1])).hex()
        if seat == 0:
            seed = pass_key(SECRETS[0], 0, 0, digest, b"shuffle-proof")
            v["proof0_seed"] = seed.hex()
            proof0, u0 = prove(seed, shuffle_context(0, 0), y, cur, outs, perm, rs)
            v["proof0_cs0"] = enc(proof0.cs[0]).hex()
            v["proof0_u0"] = u0[0].to_bytes(16, "big").hex()
            v["proof0_c"] = proof0.c.to_bytes(16, "big").hex()
            v["proof0_s1"] = proof0.s[0].to_bytes(32, "big").hex()
        passes.append(outs)
        perms.append(perm)
        rss.append(rs)
        digests.append(digest)
        cur = outs
    deal = passes[1]
    # seat 0's first share of the deal: its pay-off top, slot 19
    d, c, z = dleq(xs[0], 0, 19, deal[19])
    v["share0_19"] = (u32(19) + enc(d) + c + z.to_bytes(32, "big")).hex()
    # the cards, by following both permutations (as the end-of-game check does)
    plain = list(range(104))
    for perm in perms:
        plain = [plain[perm[j]] for j in range(104)]
    tops = plain[19], plain[39]
    assert add(deal[19][1], grp.neg(mul(xs[0] + xs[1], deal[19][0]))) == card(tops[0])  # decrypts so
    r0, r1 = rank_of(tops[0]), rank_of(tops[1])
    stream = RefStream(SEED, GAME)
    starter = 0 if r0 > r1 else 1 if r1 > r0 else stream.below(2)
    piles = [
        [1000 + s for s in range(19)] + [tops[0]],
        [1000 + s for s in range(20, 39)] + [tops[1]],
        *([[]] * 8),
        *([[]] * 3),
        [1000 + s for s in range(50, 104)],
    ]
    v["state_after_deal"] = private_digest(GAME, starter, starter, stream.i, 0, (5, 5), piles).hex()
    # the first reshuffle: the stock (bottom to top) then the completed stack (bottom to top)
    cur = [deal[slot] for slot in [*range(50, 97), *STACK]]
    for seat in (0, 1):
        digest = pass_input_digest(cur)
        perm = permutation(SECRETS[seat], seat, 1, digest, len(cur))
        rs = randomness(SECRETS[seat], seat, 1, digest, len(cur))
        outs = [
            (add(cur[perm[j]][0], mul(rs[j], G)), add(cur[perm[j]][1], mul(rs[j], y)))
            for j in range(len(cur) if seat == 0 else 1)
        ]
        v[f"reshuffle_pass{seat}_input_digest"] = digest.hex()
        v[f"reshuffle_pass{seat}_out0"] = (enc(outs[0][0]) + enc(outs[0][1])).hex()
        cur = outs
    assert proof0 is not None
    return Recipe(xs, y, canonical, passes, perms, rss, proof0, u0, digests, v)


# -- what FairDeck sends ----------------------------------------------------------------------------


@dataclass
class Sent:
    log: list[tuple[int, bytes]]
    decks: list[FairDeck]


@pytest.fixture(scope="module")
def sent() -> Sent:
    decks = [FairDeck(MATCH, GAME, seat, SECRETS[seat]) for seat in (0, 1)]
    log: list[tuple[int, bytes]] = []
    moved = True
    while moved:
        moved = False
        for seat in (0, 1):
            for msg in decks[seat].outgoing():
                data = to_wire(msg)
                log.append((seat, data))
                decks[1 - seat].receive(from_wire(data))
                moved = True
    return Sent(log, decks)


def _of(sent: Sent, seat: int, t: int) -> list[bytes]:
    return [d for s, d in sent.log if s == seat and d[0] == t]


# -- the document ----------------------------------------------------------------------------------


def doc_section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end >= 0 else len(text)]


def doc_vectors() -> dict[str, str]:
    """``name = hex`` lines of the section's code blocks."""
    found: dict[str, str] = {}
    for m in re.finditer(r"^(\w+) += ([0-9a-f]+)$", doc_section(), re.M):
        assert m.group(1) not in found, f"vector {m.group(1)} twice in the document"
        found[m.group(1)] = m.group(2)
    return found


# -- (a) the recipe gives the document's hex ----------------------------------------------------------


def test_every_documented_vector_is_what_the_recipe_gives(recipe: Recipe) -> None:
    documented = doc_vectors()
    assert set(documented) == set(recipe.vectors)
    for name, value in recipe.vectors.items():
        assert documented[name] == value, name


def test_the_vectors_are_not_vacuous(recipe: Recipe) -> None:
    v = recipe.vectors
    assert len(set(v.values())) == len(v)
    assert sorted(recipe.perms[0]) == list(range(104)) != recipe.perms[0]
    assert recipe.digests[0] != recipe.digests[1]
    assert generator(0)[1] == generator(1)[1] == 0  # as the document says: found at ctr = 0
    # the statement binds the context: another round or seat gives other challenges
    ins, outs, cs = recipe.canonical, recipe.passes[0], recipe.proof0.cs
    st = statement(shuffle_context(0, 0), recipe.y, ins, outs, cs)
    assert challenges(st, 104) == recipe.u0
    for other in (shuffle_context(0, 1), shuffle_context(1, 0)):
        assert statement(other, recipe.y, ins, outs, cs) != st


def test_the_documented_sizes_are_the_code_s() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert f"{MAX_WIRE:,}" in text and MAX_WIRE == 23 + 4 + 1 + 1 + 104 * 196 + 144
    assert "6,893" not in text
    proto = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert f"{MAX_WIRE:,}" in proto and f"1 .. {MAX_FRAME:,}" in proto and "6,893" not in proto


# -- (b) FairDeck sends what the recipe gives --------------------------------------------------------


def test_the_key_messages_are_the_recipe_s(recipe: Recipe, sent: Sent) -> None:
    v = recipe.vectors
    for seat in (0, 1):
        (msg,) = _of(sent, seat, 1)
        expected = header(1, seat) + bytes.fromhex(v[f"key{seat}_X"] + v[f"key{seat}_c"] + v[f"key{seat}_z"])
        assert msg == expected and len(msg) == 120


def test_seat_0_s_deal_pass_is_the_recipe_s_byte_for_byte(recipe: Recipe, sent: Sent) -> None:
    (msg,) = _of(sent, 0, 2)
    assert msg == shuffle_message(0, 0, recipe.passes[0], recipe.proof0)
    assert len(msg) == 173 + 196 * 104 == MAX_WIRE


def test_seat_1_s_deal_pass_starts_as_the_recipe_says_and_its_proof_verifies(
    recipe: Recipe, sent: Sent
) -> None:
    (msg,) = _of(sent, 1, 2)
    n = 104
    assert msg[:29] == header(2, 1) + u32(0) + bytes([1, n])
    outs = [(dec(msg[29 + 66 * j : 62 + 66 * j]), dec(msg[62 + 66 * j : 95 + 66 * j])) for j in range(n)]
    assert outs == recipe.passes[1]  # every ciphertext: the recipe's permutation and randomness
    assert msg[29:95].hex() == recipe.vectors["pass1_out0"]
    at = 29 + 66 * n
    pts = [dec(msg[at + 33 * i : at + 33 * i + 33]) for i in range(2 * n)]
    at += 66 * n
    c = int.from_bytes(msg[at : at + 16], "big")
    ks = [int.from_bytes(msg[at + 16 + 32 * i : at + 48 + 32 * i], "big") for i in range(4 + 2 * n)]
    assert at + 16 + 32 * (4 + 2 * n) == len(msg)
    pr = Proof(pts[:n], pts[n:], c, (ks[0], ks[1], ks[2], ks[3]), ks[4 : 4 + n], ks[4 + n :])
    ctx1 = shuffle_context(1, 0)
    assert verify(ctx1, recipe.y, recipe.passes[0], outs, pr)
    # the document's verifier refuses what it must: another round, another seat, a changed response,
    # two outputs swapped
    assert not verify(shuffle_context(1, 1), recipe.y, recipe.passes[0], outs, pr)
    assert not verify(shuffle_context(0, 0), recipe.y, recipe.passes[0], outs, pr)
    assert not verify(
        ctx1,
        recipe.y,
        recipe.passes[0],
        outs,
        Proof(pr.cs, pr.chain, c, ((ks[0] + 1) % N, ks[1], ks[2], ks[3]), pr.s_hat, pr.s_prime),
    )
    swapped = [outs[1], outs[0], *outs[2:]]
    assert not verify(ctx1, recipe.y, recipe.passes[0], swapped, pr)


def test_seat_0_s_proof_verifies_under_the_document_s_verifier(recipe: Recipe) -> None:
    assert verify(shuffle_context(0, 0), recipe.y, recipe.canonical, recipe.passes[0], recipe.proof0)
    assert (
        recipe.vectors["proof0_u0"]
        == challenges(
            statement(shuffle_context(0, 0), recipe.y, recipe.canonical, recipe.passes[0], recipe.proof0.cs),
            1,
        )[0]
        .to_bytes(16, "big")
        .hex()
    )


def test_the_deal_s_shares_are_the_recipe_s(recipe: Recipe, sent: Sent) -> None:
    """Each seat sends one SHARES message in the deal: the two pay-off tops and the
    other seat's hand, slots increasing; every share is the recipe's."""
    deal = recipe.passes[1]
    for seat in (0, 1):
        (msg,) = _of(sent, seat, 3)
        other_hand = list(range(45, 50)) if seat == 0 else list(range(40, 45))
        slots = sorted([19, 39, *other_hand])
        body = b""
        for slot in slots:
            d, c, z = dleq(recipe.xs[seat], seat, slot, deal[slot])
            body += u32(slot) + enc(d) + c + z.to_bytes(32, "big")
        assert msg == header(3, seat) + bytes([len(slots)]) + body
        assert len(msg) == 24 + 101 * len(slots)
    assert _of(sent, 0, 3)[0][24 : 24 + 101].hex() == recipe.vectors["share0_19"]


@pytest.fixture(scope="module")
def reshuffled(sent: Sent) -> Sent:
    """The deal's decks (copies) after the reshuffle's deck events, messages flowing."""
    decks = copy.deepcopy(sent.decks)
    log: list[tuple[int, bytes]] = []

    def pump() -> None:
        moved = True
        while moved:
            moved = False
            for seat in (0, 1):
                for msg in decks[seat].outgoing():
                    data = to_wire(msg)
                    log.append((seat, data))
                    decks[1 - seat].receive(from_wire(data))
                    moved = True

    for d in decks:
        assert [d.draw(0) for _ in DRAWN] == DRAWN
    pump()
    for slot in STACK:
        for d in decks:
            d.play_hand(0, slot, "center", 0)
        pump()
    for d in decks:
        d.complete(0)
    pump()
    return Sent(log, decks)


def test_a_reshuffle_s_passes_and_slots_are_the_recipe_s(recipe: Recipe, reshuffled: Sent) -> None:
    v = recipe.vectors
    n = 47 + 12
    passes = [d for _, d in reshuffled.log if d[0] == 2]
    assert [(d[22], d[23:29]) for d in passes] == [(0, u32(1) + bytes([0, n])), (1, u32(1) + bytes([1, n]))]
    for seat, msg in enumerate(passes):
        assert len(msg) == 173 + 196 * n
        assert msg[29:95].hex() == v[f"reshuffle_pass{seat}_out0"]
    for d in reshuffled.decks:
        assert d.stock == list(range(104, 104 + n))  # out[j] is slot 104 + j, bottom to top
        assert d.cts[104] == (dec(passes[1][29:62]), dec(passes[1][62:95]))
        assert d.draw(1) == 104 + n - 1  # the next draw takes the top: the highest new slot


def test_the_order_of_the_deal_s_messages(sent: Sent) -> None:
    """KEY, KEY; seat 0's pass; seat 1's pass then its shares; seat 0's shares."""
    assert [(s, d[0]) for s, d in sent.log] == [(0, 1), (1, 1), (0, 2), (1, 2), (1, 3), (0, 3)]


def test_the_private_state_digest_after_the_deal_is_the_recipe_s(recipe: Recipe, sent: Sent) -> None:
    for deck in sent.decks:
        table = SeatGame(deck, SEED)
        assert public_digest(table.state).hex() == recipe.vectors["state_after_deal"]


def test_the_end_of_game_reveal_is_the_secret(sent: Sent) -> None:
    from p2p_spite.fairdeck import Reveal
    from p2p_spite.fairdeck.wire import Header

    assert to_wire(Reveal(Header(MATCH, GAME, 1), SECRETS[1])) == header(4, 1) + SECRETS[1]
