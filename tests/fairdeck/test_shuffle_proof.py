"""The proof of shuffle (fairdeck/shuffle.py): an honest pass verifies; every way a
modified shuffler can deviate -- fresh encryptions of its own order, a dropped,
duplicated or replaced card, a ciphertext that is not among the inputs, a proof for
another context, key, input or output, any field of the proof changed -- does not."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_spite.fairdeck import group as grp
from p2p_spite.fairdeck.scheme import (
    card_point,
    derive_permutation,
    derive_randomness,
    pass_input_digest,
    reencrypt_all,
)
from p2p_spite.fairdeck.shuffle import ShuffleProof, generators, prove, verify
from p2p_spite.fairdeck.wire import Ciphertext, Header

X = 0x1234567890ABCDEF1234567890ABCDEF1234567890ABCDEF
KEY = grp.FixedBase(grp.base_g().mul(X))
CTX = b"match|game|seat|round"


def encrypt(card: int, r: int) -> Ciphertext:
    return grp.base_g().mul(r), grp.add(card_point(card), KEY.mul(r))


def decrypt(ct: Ciphertext) -> grp.Point:
    return grp.sub(ct[1], grp.mul(X, ct[0]))


def a_pass(ins: list[Ciphertext], seed: int) -> tuple[list[Ciphertext], list[int], list[int]]:
    rng = random.Random(seed)
    perm = list(range(len(ins)))
    rng.shuffle(perm)
    rs = [rng.randrange(1, grp.N) for _ in ins]
    pads = list(zip(grp.base_g().mul_many(rs), KEY.mul_many(rs), strict=True))
    return list(reencrypt_all([ins[i] for i in perm], pads)), perm, rs


def deck(n: int, seed: int = 1) -> list[Ciphertext]:
    rng = random.Random(seed)
    return [encrypt(c, rng.randrange(1, grp.N)) for c in range(n)]


@pytest.mark.parametrize("n", [1, 2, 7, 54])
def test_an_honest_pass_verifies_and_its_proof_is_deterministic(n: int) -> None:
    ins = deck(n)
    outs, perm, rs = a_pass(ins, n)
    proof = prove(b"seed", CTX, KEY, ins, outs, perm, rs)
    assert verify(CTX, KEY, ins, outs, proof)
    assert prove(b"seed", CTX, KEY, ins, outs, perm, rs) == proof
    assert sorted(map(str, map(decrypt, outs))) == sorted(map(str, map(decrypt, ins)))  # (what it proves)


def test_the_deal_from_trivial_encryptions_verifies() -> None:
    ins: list[Ciphertext] = [(None, card_point(c)) for c in range(104)]
    outs, perm, rs = a_pass(ins, 3)
    assert verify(CTX, KEY, ins, outs, prove(b"s", CTX, KEY, ins, outs, perm, rs))


def test_fresh_encryptions_of_the_shufflers_own_order_are_refused() -> None:
    """The attack that saw every card: the last pass replaced by (r*G, M + r*Y) of an
    order the shuffler chose.  Whatever witness it proves with, the proof fails."""
    ins = deck(20)
    _outs, perm, rs = a_pass(ins, 4)
    stacked = [encrypt(c, 1000 + c) for c in range(20)]
    for claim_perm, claim_rs in ((perm, rs), (list(range(20)), [1000 + c for c in range(20)])):
        assert not verify(CTX, KEY, ins, stacked, prove(b"s", CTX, KEY, ins, stacked, claim_perm, claim_rs))


@pytest.mark.parametrize("cheat", ["duplicate", "replace", "foreign", "drop-and-copy"])
def test_a_pass_that_changes_the_cards_is_refused(cheat: str) -> None:
    ins = deck(12)
    outs, perm, rs = a_pass(ins, 5)
    bad = list(outs)
    if cheat == "duplicate":  # a second copy of the card at position 0, re-encrypted
        bad[5] = reencrypt_all([bad[0]], [(grp.base_g().mul(9), KEY.mul(9))])[0]
    elif cheat == "replace":  # a card that is not in the deck
        bad[5] = encrypt(77, 9)
    elif cheat == "foreign":  # a re-encryption of a ciphertext that is not among the inputs
        other = deck(1, seed=99)[0]
        bad[5] = reencrypt_all([other], [(grp.base_g().mul(9), KEY.mul(9))])[0]
    else:  # one position passed on with other randomness than claimed
        bad[5] = reencrypt_all([bad[5]], [(grp.base_g().mul(9), KEY.mul(9))])[0]
    assert not verify(CTX, KEY, ins, bad, prove(b"s", CTX, KEY, ins, bad, perm, rs))


def test_a_proof_does_not_verify_for_another_context_key_input_or_output() -> None:
    ins = deck(10)
    outs, perm, rs = a_pass(ins, 6)
    proof = prove(b"s", CTX, KEY, ins, outs, perm, rs)
    assert verify(CTX, KEY, ins, outs, proof)
    assert not verify(CTX + b"!", KEY, ins, outs, proof)
    assert not verify(CTX, grp.FixedBase(grp.base_g().mul(X + 1)), ins, outs, proof)
    assert not verify(CTX, KEY, deck(10, seed=2), outs, proof)
    swapped = [outs[1], outs[0], *outs[2:]]
    assert not verify(CTX, KEY, ins, swapped, proof)
    assert not verify(CTX, KEY, ins[:-1], outs[:-1], proof)


FIELDS = ["commitments", "chain", "c", "s", "s_hat", "s_prime"]


@settings(max_examples=30, deadline=None)
@given(field=st.sampled_from(FIELDS), index=st.integers(0, 7), delta=st.integers(1, 2**64))
def test_changing_any_part_of_a_proof_breaks_it(field: str, index: int, delta: int) -> None:
    proof = PROOF
    if field in ("commitments", "chain"):
        pts = list(getattr(proof, field))
        moved = grp.add(pts[index], grp.base_g().mul(delta))
        assert moved is not None
        pts[index] = moved
        bad = (
            replace(proof, commitments=tuple(pts))
            if field == "commitments"
            else replace(proof, chain=tuple(pts))
        )
    elif field == "c":
        bad = replace(proof, c=(proof.c + delta) % 2**128)
    else:
        ks = list(getattr(proof, field))
        ks[index % len(ks)] = (ks[index % len(ks)] + delta) % grp.N
        new = tuple(ks)
        bad = (
            replace(proof, s=(new[0], new[1], new[2], new[3]))
            if field == "s"
            else replace(proof, s_hat=new)
            if field == "s_hat"
            else replace(proof, s_prime=new)
        )
    assert not verify(CTX, KEY, INS, OUTS, bad)


def test_a_proof_of_the_wrong_shape_is_refused() -> None:
    assert not verify(CTX, KEY, INS, OUTS, replace(PROOF, chain=PROOF.chain[:-1]))
    assert not verify(CTX, KEY, INS, OUTS, replace(PROOF, s_hat=PROOF.s_hat[:-1]))
    assert not verify(CTX, KEY, INS, OUTS, replace(PROOF, c=2**128))
    assert not verify(CTX, KEY, INS, OUTS, replace(PROOF, s=(grp.N, *PROOF.s[1:])))


def test_the_generators_are_distinct_points_from_a_public_recipe() -> None:
    h, hs = generators(104)
    pts = [h, *hs]
    assert len(set(pts)) == 105 and grp.G not in pts
    assert all(grp.on_curve(p) for p in pts)
    assert generators(3) == (h, hs[:3])


def test_two_passes_of_one_seat_over_different_inputs_share_no_randomness() -> None:
    """The restart leak: with randomness from the secret alone, out1[j] - in1[perm[j]]
    equals out2[j] - in2[perm[j]] for every j, so the peer finds the permutation by
    subtraction.  Derived from the secret and the input, no difference repeats."""
    head = Header(bytes(16), 1, 1)
    secret = bytes([3]) * 32
    in1, in2 = deck(20, seed=7), deck(20, seed=8)
    diffs = []
    for ins in (in1, in2):
        d = pass_input_digest(ins)
        perm = derive_permutation(secret, head, 0, KEY.point, d, 20)
        rs = derive_randomness(secret, head, 0, KEY.point, d, 20)
        pads = list(zip(grp.base_g().mul_many(rs), KEY.mul_many(rs), strict=True))
        outs = reencrypt_all([ins[i] for i in perm], pads)
        diffs.append({grp.sub(o[0], i[0]) for o in outs for i in ins})
    assert not diffs[0] & diffs[1]


INS = deck(8, seed=11)
OUTS, _PERM, _RS = a_pass(INS, 12)
PROOF: ShuffleProof = prove(b"seed", CTX, KEY, INS, OUTS, _PERM, _RS)
