"""docs/fairness.md's byte-exact private deck, pinned to the document's own test vectors.

Every vector is computed FROM THE DOCUMENT'S RECIPE, by ``tests/support/docdeck.py``:
the hashes, HMACs, framings, derivations from the game secret, the proof of shuffle
(prover and verifier) and the private-state digest written out with hashlib and hmac on
a P-256 of its own (``tests/support/p256.py``) and SPEC's stream of
``tests/reference_spec.py``; nothing of ``p2p_spite`` makes them.  Then:

(a) the recipe gives exactly the hex printed in docs/fairness.md (parsed out of the
    document, so the document and the code cannot drift apart unnoticed);
(b) what :class:`~p2p_spite.fairdeck.FairDeck` actually sends is what the recipe gives,
    byte for byte (whole messages where the recipe makes them whole), and the document's
    verifier accepts the real proofs and refuses altered ones.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import pytest

from p2p_spite.core.private import public_digest
from p2p_spite.core.wire import MAX_FRAME
from p2p_spite.fairdeck import FairDeck, to_wire
from p2p_spite.fairdeck.table import SeatGame
from p2p_spite.fairdeck.wire import MAX_WIRE
from tests.core.test_protocol_vectors import doc_vectors
from tests.fairdeck.test_fairdeck import pump
from tests.reference_spec import RefStream, rank_of
from tests.support import docdeck as dd
from tests.support.docdeck import (
    Ct,
    Proof,
    card,
    challenges,
    generator,
    pass_input_digest,
    prove,
    statement,
    u32,
    verify,
)
from tests.support.p256 import G, N, Pt, add, decode, mul, neg
from tests.support.p256 import encode as enc

ROOT = Path(__file__).resolve().parents[2]
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
SHUFFLE, SHARES = 2, 3  # message types


def shuffle_context(seat: int, rnd: int) -> bytes:
    return dd.shuffle_context(MATCH, GAME, seat, rnd)


def header(t: int, seat: int) -> bytes:
    return dd.header(MATCH, GAME, t, seat)


def pass_of(seat: int, rnd: int, y: Pt, digest: bytes) -> dd.PassOf:
    return dd.PassOf(MATCH, GAME, SECRETS[seat], seat, rnd, y, digest)


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
    xs = [dd.key_of(MATCH, GAME, SECRETS[s], s) for s in (0, 1)]
    for s in (0, 1):
        big_x, c, z = dd.schnorr(MATCH, GAME, xs[s], s)
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
        perm = dd.permutation(pass_of(seat, 0, y, digest), len(cur))
        rs = dd.randomness(pass_of(seat, 0, y, digest), len(cur))
        outs: list[Ct] = []
        for j in range(len(cur)):
            c1, c2 = cur[perm[j]]
            outs.append((add(c1, mul(rs[j], G)), add(c2, mul(rs[j], y))))
        v[f"pass{seat}_input_digest"] = digest.hex()
        v[f"pass{seat}_perm0"] = u32(perm[0]).hex()
        v[f"pass{seat}_r0"] = rs[0].to_bytes(32, "big").hex()
        v[f"pass{seat}_out0"] = (enc(outs[0][0]) + enc(outs[0][1])).hex()
        if seat == 0:
            seed = dd.pass_key(pass_of(0, 0, y, digest), b"shuffle-proof")
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
    d, c, z = dd.dleq(MATCH, GAME, xs[0], 0, 19, deal[19])
    v["share0_19"] = (u32(19) + enc(d) + c + z.to_bytes(32, "big")).hex()
    # the cards, by following both permutations (as the end-of-game check does)
    plain = list(range(104))
    for perm in perms:
        plain = [plain[perm[j]] for j in range(104)]
    tops = plain[19], plain[39]
    assert add(deal[19][1], neg(mul(xs[0] + xs[1], deal[19][0]))) == card(tops[0])  # decrypts so
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
    v["state_after_deal"] = dd.private_digest(GAME, starter, starter, stream.i, 0, (5, 5), piles).hex()
    # the first reshuffle: the stock (bottom to top) then the completed stack (bottom to top)
    cur = [deal[slot] for slot in [*range(50, 97), *STACK]]
    for seat in (0, 1):
        digest = pass_input_digest(cur)
        perm = dd.permutation(pass_of(seat, 1, y, digest), len(cur))
        rs = dd.randomness(pass_of(seat, 1, y, digest), len(cur))
        outs = [
            (add(cur[perm[j]][0], mul(rs[j], G)), add(cur[perm[j]][1], mul(rs[j], y)))
            for j in range(len(cur) if seat == 0 else 1)
        ]
        v[f"reshuffle_pass{seat}_input_digest"] = digest.hex()
        v[f"reshuffle_pass{seat}_out0"] = (enc(outs[0][0]) + enc(outs[0][1])).hex()
        cur = outs
    # *Around a reshuffle*, first row: seat 0 sends its pass, then its share of its hand card
    # (the 12th card); seat 1 its pass
    v["reshuffle_order"] = bytes([0, SHUFFLE, 0, SHARES, 1, SHUFFLE]).hex()
    assert proof0 is not None
    return Recipe(xs, y, canonical, passes, perms, rss, proof0, u0, digests, v)


# -- what FairDeck sends ----------------------------------------------------------------------------


@dataclass
class Sent:
    log: list[tuple[int, bytes]]
    decks: list[FairDeck]
    around: int = 0  # where the messages of the move that completes the stack begin in ``log``


@pytest.fixture(scope="module")
def sent() -> Sent:
    decks = [FairDeck(MATCH, GAME, seat, SECRETS[seat]) for seat in (0, 1)]
    log: list[tuple[int, bytes]] = []
    pump(decks, log)
    return Sent(log, decks)


def _of(sent: Sent, seat: int, t: int) -> list[bytes]:
    return [d for s, d in sent.log if s == seat and d[0] == t]


# -- (a) the recipe gives the document's hex ----------------------------------------------------------


def test_every_documented_vector_is_what_the_recipe_gives(recipe: Recipe) -> None:
    documented = doc_vectors(DOC, SECTION)
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
    assert msg == dd.shuffle_message(MATCH, GAME, 0, 0, recipe.passes[0], recipe.proof0)
    assert len(msg) == 173 + 196 * 104 == MAX_WIRE


def test_seat_1_s_deal_pass_starts_as_the_recipe_says_and_its_proof_verifies(
    recipe: Recipe, sent: Sent
) -> None:
    (msg,) = _of(sent, 1, 2)
    n = 104
    assert msg[:29] == header(2, 1) + u32(0) + bytes([1, n])
    rnd, step, outs, pr = dd.read_shuffle(msg)
    assert (rnd, step) == (0, 1)
    assert outs == recipe.passes[1]  # every ciphertext: the recipe's permutation and randomness
    assert msg[29:95].hex() == recipe.vectors["pass1_out0"]
    c, ks = pr.c, [*pr.s, *pr.s_hat, *pr.s_prime]
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
            d, c, z = dd.dleq(MATCH, GAME, recipe.xs[seat], seat, slot, deal[slot])
            body += u32(slot) + enc(d) + c + z.to_bytes(32, "big")
        assert msg == header(3, seat) + bytes([len(slots)]) + body
        assert len(msg) == 24 + 101 * len(slots)
    assert _of(sent, 0, 3)[0][24 : 24 + 101].hex() == recipe.vectors["share0_19"]


@pytest.fixture(scope="module")
def reshuffled(sent: Sent) -> Sent:
    """The deal's decks (copies) after the reshuffle's deck events, messages flowing."""
    decks = copy.deepcopy(sent.decks)
    log: list[tuple[int, bytes]] = []
    for d in decks:
        assert [d.draw(0) for _ in DRAWN] == DRAWN
    pump(decks, log)
    around = 0
    for slot in STACK:
        for d in decks:
            d.play_hand(0, slot, "center", 0)
            if slot == STACK[-1]:  # the 12th card: both events before anything is sent, as
                d.complete(0)  # core/intents.py takes them
        if slot == STACK[-1]:
            around = len(log)
        pump(decks, log)
    return Sent(log, decks, around)


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
        assert d.cts[104] == (decode(passes[1][29:62]), decode(passes[1][62:95]))
        assert d.draw(1) == 104 + n - 1  # the next draw takes the top: the highest new slot


def test_around_a_reshuffle_seat_0_sends_its_pass_before_its_share(recipe: Recipe, reshuffled: Sent) -> None:
    """*Around a reshuffle*: for the move that completes the stack with seat 0's hand card,
    seat 0 sends its pass and then its share of that card, seat 1 its pass: the document's
    ``reshuffle_order``."""
    sent = reshuffled.log[reshuffled.around :]
    order = [m for seat in (0, 1) for s, m in sent if s == seat]
    assert b"".join(bytes([m[22], m[0]]) for m in order).hex() == recipe.vectors["reshuffle_order"]
    shares = order[1]
    assert shares[23] == 1 and shares[24:28] == u32(STACK[-1])  # the 12th card's slot, alone


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
