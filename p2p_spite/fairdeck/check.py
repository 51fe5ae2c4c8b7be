"""The end-of-game check: with both game secrets known, every card of the game is known.

When a game is over both seats reveal their game secrets.  Each side then recomputes
the other's key and every pass it made (its permutation and re-encryption randomness
derive from its secret, the joint key and the pass's input, :mod:`.scheme`), checks that each pass it
received is exactly that, and learns the order of the deal and of every reshuffle --
the :class:`GameDeck` a version-2 record keeps -- or catches a cheat, whose evidence
(:class:`~p2p_spite.fairdeck.errors.CheatError`) goes into the record instead.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from .errors import CheatError
from .group import FixedBase, Point, add, add_many, base_g, encode, msm, neg
from .scheme import DECK, derive_key, derive_permutation, derive_randomness, pass_input_digest, reencrypt_all
from .wire import Ciphertext, Header


class GameDeck(NamedTuple):
    """What the end-of-game check establishes (and a version-2 record keeps)."""

    deal: list[int]  # the 104 card ids in SPEC's deal layout (deck[0:20] is seat 0's pay-off, ...)
    reshuffles: list[list[int]]  # the stock after each reshuffle, bottom to top


@dataclass
class Round:
    """One round of shuffling (the deal, then each reshuffle) as a seat's deck keeps it."""

    inputs: list[Ciphertext]
    input_slots: list[int] | None  # None: the deal (the canonical deck)
    passes: list[tuple[Ciphertext, ...]] = field(default_factory=list)
    slots: list[int] = field(default_factory=list)


def check_game(
    head: Header,
    secret: bytes,
    their_secret: bytes,
    their_key: Point,
    rounds: Sequence[Round],
    joint: FixedBase | None,
    cards: Mapping[int, int],
) -> GameDeck:
    """The game of ``head``'s seat (its ``secret``), checked with the other seat's revealed
    ``their_secret``: it must give the key share it sent (``their_key``), and each of its
    passes of ``rounds`` (under the ``joint`` key) must be what it gives; every card shown
    (``cards``: slot -> card id) must be the card its slot holds.  CheatError if not."""
    o = 1 - head.seat
    their_head = Header(head.match_id, head.game, o)
    x = derive_key(their_secret, their_head)
    if base_g().mul(x) != their_key:
        raise CheatError(
            "key",
            o,
            "the revealed secret does not give the key share that was sent",
            {"game": head.game, "secret": their_secret.hex(), "key": encode(their_key).hex()},
        )
    assert joint is not None
    secrets_by_seat = {head.seat: secret, o: their_secret}
    heads = {head.seat: head, o: their_head}
    plain: dict[int, int] = {}
    theirs: list[tuple[int, list[Ciphertext], list[int], tuple[Ciphertext, ...], list[int]]] = []
    for r, rnd in enumerate(rounds):
        if len(rnd.passes) < 2:  # a reshuffle the game ended in the middle of: it dealt nothing
            break
        cur = rnd.inputs
        cur_plain = list(range(DECK)) if rnd.input_slots is None else [plain[s] for s in rnd.input_slots]
        for step in (0, 1):
            digest = pass_input_digest(cur)
            perm = derive_permutation(secrets_by_seat[step], heads[step], r, joint.point, digest, len(cur))
            sent = rnd.passes[step]
            if step == o:
                theirs.append(
                    (
                        r,
                        cur,
                        perm,
                        sent,
                        derive_randomness(their_secret, their_head, r, joint.point, digest, len(cur)),
                    )
                )
            cur_plain = [cur_plain[perm[j]] for j in range(len(cur))]
            cur = list(sent)
        for j, s in enumerate(rnd.slots):
            plain[s] = cur_plain[j]
    if not _batch_holds([t[1:] for t in theirs], joint):  # one batch for the game; then pass by pass
        for r, cur, perm, sent, rs in theirs:
            _check_pass(their_head, joint, cur, perm, sent, rs, their_secret, r)
        raise CheatError(  # every pass holds alone: only with probability 2**-64
            "reveal",
            o,
            "the shuffles do not hold together",
            {"game": head.game, "secret": their_secret.hex()},
        )
    for slot, card in cards.items():
        if plain[slot] != card:  # cannot happen while the shares' proofs are sound
            raise CheatError(
                "share",
                o,
                f"slot {slot} was shown as card {card}, but holds {plain[slot]}",
                {"game": head.game, "slot": slot},
            )
    deal = [plain[s] for s in range(DECK)]
    return GameDeck(deal, [[plain[s] for s in rnd.slots] for rnd in rounds[1:]])


def _check_pass(
    their_head: Header,
    joint: FixedBase,
    cur: list[Ciphertext],
    perm: list[int],
    sent: tuple[Ciphertext, ...],
    rs: list[int],
    secret: bytes,
    r: int,
) -> None:
    """Does the other seat's pass of round ``r`` re-encrypt ``cur`` permuted,
    as its revealed secret says?  On failure, the first wrong position is
    the evidence of a CheatError.  (The end-of-game check first tries all the
    passes in one batch, and comes here only when that fails.)"""
    if _batch_holds([(cur, perm, sent, rs)], joint):
        return
    pads = list(zip(base_g().mul_many(rs), joint.mul_many(rs), strict=True))
    evidence: dict[str, object] = {"game": their_head.game, "round": r, "secret": secret.hex()}
    for j, expected in enumerate(reencrypt_all([cur[i] for i in perm], pads)):
        if expected != sent[j]:
            evidence.update(position=j, sent=_ct_hex(sent[j]), expected=_ct_hex(expected))
            raise CheatError(
                "reveal",
                their_head.seat,
                f"round {r}: position {j} of the shuffle is not what the revealed secret gives",
                evidence,
            )
    raise CheatError("reveal", their_head.seat, f"round {r}: the shuffle does not hold", evidence)


def _batch_holds(
    passes: list[tuple[list[Ciphertext], list[int], tuple[Ciphertext, ...], list[int]]], joint: FixedBase
) -> bool:
    """For every pass ``(cur, perm, sent, rs)``: does every ``sent[j]``
    re-encrypt ``cur[perm[j]]`` with randomness ``rs[j]``?  One random linear
    combination of all the equations of all the passes (64-bit weights from
    ``secrets``, drawn after everything is fixed) holds with any wrong
    position with probability at most 2**-64."""
    pairs: list[tuple[Point, Point]] = []
    rs_all: list[int] = []
    for cur, perm, sent, rs in passes:
        for j, (o1, o2) in enumerate(sent):
            i1, i2 = cur[perm[j]]
            pairs += ((o1, neg(i1)), (o2, neg(i2)))
        rs_all += rs
    points: list[tuple[int, int]] = []
    for d in add_many(pairs):
        if d is None:
            return False
        points.append(d)
    weights = [secrets.randbits(64) for _ in points]
    a = sum(weights[2 * j] * r for j, r in enumerate(rs_all))
    b = sum(weights[2 * j + 1] * r for j, r in enumerate(rs_all))
    return msm(weights, points, 64) == add(base_g().mul(a), joint.mul(b))


def _ct_hex(ct: Ciphertext) -> str:
    return (encode(ct[0]) + encode(ct[1])).hex()
