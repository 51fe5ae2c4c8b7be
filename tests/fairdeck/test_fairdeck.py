"""The private deck's core: group, proofs, wire format, the protocol's refusals,
and what a peer can learn on its own (p2p_spite/fairdeck, docs/fairness.md)."""

from __future__ import annotations

import copy
import hashlib
import hmac
import secrets
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_spite.fairdeck import (
    MAX_WIRE,
    CheatError,
    FairDeck,
    KeyShare,
    Message,
    OrderError,
    ProofError,
    Reveal,
    Shares,
    Shuffle,
    WireError,
    card_of_point,
    from_wire,
    to_wire,
)
from p2p_spite.fairdeck import group as grp
from p2p_spite.fairdeck import shuffle as shf
from p2p_spite.fairdeck.proofs import Proof, prove_key, prove_share, verify_key, verify_share
from p2p_spite.fairdeck.scheme import (
    _reencrypt,
    card_point,
    derive_key,
    derive_permutation,
    pass_input_digest,
    shuffle_context,
)
from p2p_spite.fairdeck.shuffle import ShuffleProof
from p2p_spite.fairdeck.shuffle import verify as verify_shuffle
from p2p_spite.fairdeck.wire import Header, Share
from tests.adversary.peeking import named_by_one_key
from tests.reference_spec import RefStream
from tests.support import docdeck as dd
from tests.support.p256 import G as G256
from tests.support.p256 import mul as mul256

MATCH = bytes(range(16))
SECRETS = [bytes([7]) * 32, bytes([9]) * 32]


def pump(decks: list[FairDeck], log: list[tuple[int, bytes]] | None = None) -> None:
    moved = True
    while moved:
        moved = False
        for seat in (0, 1):
            for msg in decks[seat].outgoing():
                data = to_wire(msg)
                if log is not None:
                    log.append((seat, data))
                decks[1 - seat].receive(from_wire(data))
                moved = True


def fresh(game: int = 1) -> list[FairDeck]:
    return [FairDeck(MATCH, game, seat, SECRETS[seat]) for seat in (0, 1)]


Pair = tuple[list[FairDeck], list[tuple[int, bytes]]]


def unproven(head: Header, rnd: int, step: int, deck: tuple[Any, ...]) -> Shuffle:
    """A pass with a proof of the right shape that proves nothing (for the order checks)."""
    n = len(deck)
    g = grp.G
    assert g is not None
    return Shuffle(
        head, rnd, step, deck, ShuffleProof((g,) * n, (g,) * n, 1, (1, 1, 1, 1), (1,) * n, (1,) * n)
    )


@pytest.fixture(scope="module")
def dealt_pair() -> Pair:
    decks = fresh()
    log: list[tuple[int, bytes]] = []
    pump(decks, log)
    return decks, log


@pytest.fixture
def dealt(dealt_pair: Pair) -> list[FairDeck]:
    return copy.deepcopy(dealt_pair[0])


# -- the group ------------------------------------------------------------------


def test_p256_generator_order_and_a_known_multiple() -> None:
    assert grp.on_curve(grp.G)
    assert grp.mul(grp.N, grp.G) is None
    assert grp.mul(grp.N - 1, grp.G) == grp.neg(grp.G)
    two_g = grp.mul(2, grp.G)
    assert two_g is not None
    assert two_g[0] == 0x7CF27B188D034F7E8A52380304B51AC3C08969E277F21B35A60B48FC47669978  # SEC test vector


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=grp.N - 1))
def test_fixed_base_agrees_and_points_round_trip(k: int) -> None:
    pt = grp.mul(k, grp.G)
    assert grp.base_g().mul(k) == pt
    assert grp.decode(grp.encode(pt)) == pt


@pytest.mark.parametrize(
    "data",
    [
        b"\x04" + bytes(32),  # not a compressed prefix
        b"\x02" + grp.P.to_bytes(32, "big"),  # x out of range
        b"\x02" + (1).to_bytes(32, "big"),  # no point of P-256 has x = 1
        b"\x02" + bytes(31),  # short
        b"\x00",  # infinity is never encoded
    ],
)
def test_bad_points_are_refused(data: bytes) -> None:
    with pytest.raises(grp.GroupError):
        grp.decode(data)


def test_cards_are_distinct_points() -> None:
    from p2p_spite.fairdeck import card_point

    assert [card_of_point(card_point(c)) for c in range(104)] == list(range(104))
    assert card_of_point(grp.mul(105, grp.G)) is None


# -- proofs -----------------------------------------------------------------------


def test_key_proof_binds_its_context() -> None:
    x = 123456789
    pt, proof = prove_key(x, b"ctx-a")
    assert verify_key(pt, proof, b"ctx-a")
    assert not verify_key(pt, proof, b"ctx-b")
    assert not verify_key(pt, Proof(bytes(32), proof.z), b"ctx-a")  # wrong challenge
    assert not verify_key(pt, Proof(proof.c, (proof.z + 1) % grp.N), b"ctx-a")
    assert not verify_key(grp.mul(x + 1, grp.G), proof, b"ctx-a")


def test_share_proof_refuses_forgeries() -> None:
    x = 987654321
    big_x = grp.mul(x, grp.G)
    h = grp.mul(4242, grp.G)
    d, proof = prove_share(x, big_x, h, b"slot-7")
    base = grp.FixedBase(big_x)
    assert verify_share(base, h, d, proof, b"slot-7")
    assert not verify_share(base, h, d, proof, b"slot-8")  # replayed for another card
    assert not verify_share(base, h, grp.add(d, grp.G), proof, b"slot-7")  # a false share
    flipped = bytes([proof.c[0] ^ 1]) + proof.c[1:]
    assert not verify_share(base, h, d, Proof(flipped, proof.z), b"slot-7")
    other_h = grp.mul(4243, grp.G)
    assert not verify_share(base, other_h, grp.mul(x, other_h), proof, b"slot-7")


# -- the wire format ------------------------------------------------------------------


def test_every_message_round_trips_bit_for_bit(dealt_pair: Pair) -> None:
    _, log = dealt_pair
    kinds = set()
    for _, data in log:
        msg = from_wire(data)
        kinds.add(type(msg))
        assert to_wire(msg) == data
        assert len(data) <= MAX_WIRE
    assert kinds == {KeyShare, Shuffle, Shares}
    reveal = Reveal(Header(MATCH, 1, 0), SECRETS[0])
    assert from_wire(to_wire(reveal)) == reveal
    assert max(len(d) for _, d in log) == MAX_WIRE  # a full deck is the largest message


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_garbage_is_refused_with_a_wire_error(data: bytes) -> None:
    try:
        msg = from_wire(data)
    except WireError:
        return
    assert to_wire(msg) == data


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_mutated_messages_are_refused_or_read_exactly(dealt_pair: Pair, data: st.DataObject) -> None:
    _, log = dealt_pair
    original = data.draw(st.sampled_from([d for _, d in log]))
    raw = bytearray(original)
    for _ in range(data.draw(st.integers(1, 3))):
        raw[data.draw(st.integers(0, len(raw) - 1))] ^= data.draw(st.integers(1, 255))
    cut = data.draw(st.sampled_from([None, 1, -1]))
    mutated = bytes(raw) if cut is None else bytes(raw[:-1]) if cut == 1 else bytes(raw) + b"\x00"
    try:
        msg = from_wire(mutated)
    except WireError:
        return
    assert to_wire(msg) == mutated


def test_size_limits_are_hard(dealt_pair: Pair) -> None:
    _, log = dealt_pair
    shuffle = next(d for _, d in log if d[0] == 2)
    with pytest.raises(WireError):
        from_wire(shuffle + bytes(66))  # 105 cards
    too_many = bytearray(shuffle)
    too_many[28] = 105
    with pytest.raises(WireError):
        from_wire(bytes(too_many) + bytes(66))
    with pytest.raises(WireError):
        from_wire(bytes(MAX_WIRE + 1))
    shares = next(d for _, d in log if d[0] == 3)
    with pytest.raises(WireError):
        from_wire(shares[:-1])
    bad_seat = bytearray(shares)
    bad_seat[22] = 2
    with pytest.raises(WireError):
        from_wire(bytes(bad_seat))


def test_a_point_off_the_curve_is_refused(dealt_pair: Pair) -> None:
    _, log = dealt_pair
    key = bytearray(next(d for _, d in log if d[0] == 1))
    key[24:56] = (1).to_bytes(32, "big")  # x = 1: no point of P-256 has it
    with pytest.raises(WireError, match="not a point"):
        from_wire(bytes(key))


# -- the protocol's refusals ---------------------------------------------------------


def _shares_from(decks: list[FairDeck], seat: int) -> Shares:
    decks[seat].shares._owe.extend(s for s in decks[seat].hands[1 - seat])
    msgs = [m for m in decks[seat].outgoing() if isinstance(m, Shares)]
    assert msgs
    return msgs[0]


def test_a_false_share_is_refused_and_changes_nothing() -> None:
    decks = fresh()
    held: list[Shares] = []
    moved = True
    while moved:  # everything flows, except seat 1's shares, held back
        moved = False
        for seat in (0, 1):
            for msg in decks[seat].outgoing():
                if seat == 1 and isinstance(msg, Shares):
                    held.append(msg)
                else:
                    decks[1 - seat].receive(from_wire(to_wire(msg)))
                moved = True
    (good,) = held
    first = good.shares[0]
    lie = replace(good, shares=(replace(first, d=grp.add(first.d, grp.G)), *good.shares[1:]))
    awaited = set(decks[0].shares._await)
    with pytest.raises(ProofError) as e:
        decks[0].receive(from_wire(to_wire(lie)))
    assert e.value.seat == 1 and e.value.slot == first.slot
    assert decks[0].shares._await == awaited and not decks[0].cards
    decks[0].receive(good)  # the true shares are still taken afterwards
    assert len(decks[0].cards) == 7  # its hand and both pay-off tops


def test_a_share_replayed_for_another_card_is_refused(dealt: list[FairDeck]) -> None:
    d0, d1 = dealt
    a, b = d0.hands[1][0], d0.hands[1][1]
    d0.shares._owe.extend([a, b])
    d1.shares._await.update([a, b])
    real = next(m for m in d0.outgoing() if isinstance(m, Shares))
    share_a = next(s for s in real.shares if s.slot == a)
    replayed = Shares(real.head, (replace(share_a, slot=b),))
    with pytest.raises(ProofError):
        d1.receive(replayed)
    wrong_challenge = Shares(real.head, (replace(share_a, proof=Proof(bytes(32), share_a.proof.z)),))
    with pytest.raises(ProofError):
        d1.receive(wrong_challenge)
    other_game = FairDeck(MATCH, 2, 0, SECRETS[0])
    with pytest.raises(OrderError):
        d1.receive(replace(real, head=other_game.head))


def test_messages_at_the_wrong_moment_are_refused(dealt: list[FairDeck]) -> None:
    d0, d1 = dealt
    with pytest.raises(OrderError):
        d1.receive(d1._key_msg)  # our own seat
    with pytest.raises(OrderError):
        d1.receive(d0._key_msg)  # twice
    with pytest.raises(OrderError):
        d1.receive(unproven(d0.head, 0, 0, d1.rounds[0].passes[0]))  # the deal is done
    unsolicited = d1.stock[-1]
    d0.shares._owe.append(unsolicited)
    msg = next(m for m in d0.outgoing() if isinstance(m, Shares))
    with pytest.raises(OrderError, match="not owed"):
        d1.receive(msg)
    with pytest.raises(OrderError):
        d1.play_hand(0, d1.hands[1][0], "center", 0)  # not seat 0's card
    with pytest.raises(OrderError):
        fresh()[1].receive(Reveal(d0.head, SECRETS[0]))  # before the deal is done


def test_a_reveal_in_the_middle_of_the_game_is_a_leave(dealt: list[FairDeck]) -> None:
    """A seat that quits reveals its secret: the other takes it as the end of the game
    (over, left), checks it and knows the deck, and answers with its own secret."""
    d0, d1 = dealt
    d0.leave()
    (reveal,) = [m for m in d0.outgoing() if isinstance(m, Reveal)]
    d1.receive(reveal)
    assert d1.over and d1.left and d1.result is not None
    assert [m for m in d1.outgoing() if isinstance(m, Reveal)]
    assert d1.result.deal[40:45] == d0.hand_cards()


def test_a_bad_key_share_is_refused() -> None:
    decks = fresh()
    key0 = decks[0].outgoing()[0]
    assert isinstance(key0, KeyShare)
    forged = replace(key0, point=grp.mul(5, grp.G))
    with pytest.raises(ProofError):
        decks[1].receive(forged)
    echoed = replace(decks[1]._key_msg, head=key0.head)
    with pytest.raises(ProofError):
        decks[1].receive(echoed)


# -- what a peer can learn alone, and the end-of-game check -----------------------------


@pytest.mark.parametrize("seat", [pytest.param(0, marks=pytest.mark.slow), 1])
def test_a_peer_alone_cannot_name_an_unrevealed_card(seat: int) -> None:
    decks = fresh()
    log: list[tuple[int, bytes]] = []
    pump(decks, log)
    for _ in range(6):  # some draws to each seat, then one hand card played
        decks[0].draw(1 - seat)
        decks[1].draw(1 - seat)
    pump(decks, log)
    played = decks[1 - seat].hands[1 - seat][0]
    for d in decks:
        d.play_hand(1 - seat, played, "side", 0)
    pump(decks, log)
    me = decks[seat]
    named = named_by_one_key(me, log)
    them = decks[1 - seat]
    hidden = [s for s in range(len(me.cts)) if me.card(s) is None]
    assert len(hidden) == 104 - 2 - 5 - 1  # all but the pay-off tops, its own hand, the played card
    assert named == me.cards  # exactly what the protocol showed it, not one hidden card more
    # Control: the same attack with both keys names every card, so it would see a leak.
    control = named_by_one_key(me, log, extra_key=them._x)
    assert len(control) == 104
    assert all(control[s] == them.card(s) for s in them.hands[1 - seat])


def _end(decks: list[FairDeck]) -> None:
    for d in decks:
        d.end()
    pump(decks)


def test_the_end_check_gives_both_seats_the_same_deal(dealt: list[FairDeck]) -> None:
    _end(dealt)
    r0, r1 = dealt[0].result, dealt[1].result
    assert r0 is not None and r0 == r1
    assert sorted(r0.deal) == list(range(104))
    assert dealt[0].hand_cards() == r0.deal[40:45]
    assert dealt[1].hand_cards() == r0.deal[45:50]
    assert dealt[0].card(19) == r0.deal[19]


def test_a_duplicated_card_slipped_into_a_shuffle_is_refused_on_receipt() -> None:
    decks = fresh()
    for msg in decks[0].outgoing() + decks[1].outgoing():  # the key shares
        decks[1 - msg.head.seat].receive(msg)
    joint = decks[0]._joint
    assert joint is not None
    (pass0,) = decks[0].outgoing()
    assert isinstance(pass0, Shuffle)
    cheat = list(pass0.deck)
    cheat[5] = _reencrypt(cheat[77], (grp.base_g().mul(99), joint.mul(99)))  # a second copy of a card
    for deck in (tuple(cheat), (pass0.deck[1], *pass0.deck[1:])):  # re-encrypted, or an exact copy
        before = copy.deepcopy(decks[1])
        with pytest.raises(CheatError) as e:
            decks[1].receive(from_wire(to_wire(replace(pass0, deck=deck))))
        assert e.value.kind == "shuffle-proof" and e.value.seat == 0
        assert e.value.evidence["round"] == 0 and e.value.evidence["step"] == 0
        assert bytes.fromhex(e.value.evidence["message"]) == to_wire(replace(pass0, deck=deck))
        assert decks[1].rounds[0].passes == before.rounds[0].passes == []  # nothing taken
        assert not decks[1].outgoing()  # and no pass, no share made on it


def test_a_wrong_secret_at_the_end_is_caught(dealt: list[FairDeck]) -> None:
    for d in dealt:
        d.end()
    dealt[0].outgoing()
    with pytest.raises(CheatError) as e:
        dealt[1].receive(Reveal(dealt[0].head, bytes(32)))
    assert e.value.kind == "key" and e.value.seat == 0


def test_secrets_and_keys_are_per_game_and_seat() -> None:
    h = Header(MATCH, 1, 0)
    assert derive_key(SECRETS[0], h) != derive_key(SECRETS[0], replace(h, game=2))
    assert derive_key(SECRETS[0], h) != derive_key(SECRETS[0], replace(h, seat=1))
    a, b = FairDeck(MATCH, 1, 0, SECRETS[0]), FairDeck(MATCH, 1, 0, SECRETS[0])
    assert to_wire(a.outgoing()[0]) == to_wire(b.outgoing()[0])  # deterministic: safe to resume
    assert secrets.token_bytes(32) != SECRETS[0]


def test_message_types_are_a_closed_set() -> None:
    msg: Message = Reveal(Header(MATCH, 1, 1), SECRETS[1])
    assert isinstance(from_wire(to_wire(msg)), Reveal)
    g = grp.G
    assert g is not None
    sh = Shares(Header(MATCH, 1, 0), (Share(3, g, Proof(bytes(32), 1)),))  # the entry type is public
    assert from_wire(to_wire(sh)) == sh


def test_working_ahead_changes_no_message() -> None:
    logs: list[list[tuple[int, bytes]]] = []
    for ahead in (False, True):
        decks = fresh()
        log: list[tuple[int, bytes]] = []
        pump(decks, log)
        for step in range(4):
            if ahead:
                assert all(d.precompute() > 0 for d in decks) or step > 0
            for d in decks:
                d.draw(step % 2)
            pump(decks, log)
        logs.append(log)
    assert logs[0] == logs[1]


def test_a_restarted_seat_resends_the_same_bytes_from_its_secret_and_what_it_received() -> None:
    """Resume after kill -9: journal the game secret and, in order, the game's
    events and the messages received and sent; a fresh FairDeck fed that tape
    rebuilds its state and makes exactly the bytes the lost one sent."""
    decks = fresh()
    tape: list[tuple[str, Any]] = []  # seat 1's life: ("in"/"out", bytes) / ("event", (name, args))
    sent: list[bytes] = []

    def run(events: list[tuple[str, tuple[Any, ...]]]) -> None:
        for name, args in events:
            for d in decks:
                getattr(d, name)(*args)
            tape.append(("event", (name, args)))
        moved = True
        while moved:
            moved = False
            for seat in (0, 1):
                for msg in decks[seat].outgoing():
                    data = to_wire(msg)
                    if seat == 1:
                        sent.append(data)
                    tape.append(("out" if seat == 1 else "in", data))
                    decks[1 - seat].receive(from_wire(data))
                    moved = True

    run([])
    run([("draw", (0,)), ("draw", (0,)), ("draw", (1,))])
    slot = decks[1].hands[1][0]
    run([("play_hand", (1, slot, "side", 2)), ("play_payoff", (0, 1))])
    reborn = FairDeck(MATCH, 1, 1, SECRETS[1])
    again: list[bytes] = []
    queue: list[bytes] = []
    for kind, item in tape:
        if kind == "in":
            reborn.receive(from_wire(item))
        elif kind == "event":
            name, args = item
            getattr(reborn, name)(*args)
        else:  # the journal says a message went out here
            if not queue:
                queue = [to_wire(m) for m in reborn.outgoing()]
            again.append(queue.pop(0))
    assert not queue and not reborn.outgoing()
    assert again == sent and len(sent) >= 4
    assert reborn.cards == decks[1].cards and reborn.hands == decks[1].hands


def test_multi_scalar_multiplication_agrees_with_the_sum() -> None:
    points = [grp.mul(7919 * i + 1, grp.G) for i in range(1, 40)]
    weights = [(2**63 + 12345 * i) % 2**64 for i in range(1, 40)]
    expected = None
    for k, p in zip(weights, points, strict=True):
        expected = grp.add(expected, grp.mul(k, p))
    affine = [p for p in points if p is not None]
    assert grp.msm(weights, affine, 64) == expected
    assert grp.msm([0, 0], affine[:2], 64) is None


def _public(d: FairDeck) -> set[int]:
    out = {p[-1] for p in d.payoff if p}
    for seat in (0, 1):
        for st_ in d.sides[seat]:
            out.update(st_)
    for c in d.center:
        out.update(c)
    return out


_STEP = st.tuples(st.integers(0, 3), st.integers(0, 1), st.integers(0, 9), st.integers(0, 3))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_STEP, min_size=4, max_size=16))
def test_each_seat_knows_exactly_its_hand_and_the_public_cards(
    dealt_pair: Pair, steps: list[tuple[int, int, int, int]]
) -> None:
    decks = copy.deepcopy(dealt_pair[0])
    for kind, seat, pick, index in steps:
        d0 = decks[0]
        hand = d0.hands[seat]
        if kind == 0 and d0.stock:
            events: list[tuple[str, tuple[Any, ...]]] = [("draw", (seat,))]
        elif kind == 1 and hand:
            target = "side" if index % 2 else "center"
            events = [("play_hand", (seat, hand[pick % len(hand)], target, index % 3))]
        elif kind == 2 and len(d0.payoff[seat]) > 1:
            events = [("play_payoff", (seat, index % 3))]
        elif kind == 3 and d0.sides[seat][index]:
            events = [("play_side", (seat, index, pick % 3))]
        else:
            continue
        for name, args in events:
            for d in decks:
                getattr(d, name)(*args)
        pump(decks)
    for seat, d in enumerate(decks):
        other = decks[1 - seat]
        assert d.settled
        assert (d.payoff, d.hands, d.sides, d.center, d.stock) == (
            other.payoff,
            other.hands,
            other.sides,
            other.center,
            other.stock,
        )
        assert set(d.cards) == set(d.hands[seat]) | _public(d)  # never a card of the other hand or the stock
        assert all(other.card(s) == d.card(s) for s in _public(d))


def test_passes_and_reveals_early_late_twice_or_wrong_are_refused(dealt: list[FairDeck]) -> None:
    d0, d1 = dealt
    deal_pass = d1.rounds[0].passes[0]
    with pytest.raises(OrderError):  # a reshuffle pass before any stack completed
        d1.receive(unproven(d0.head, 1, 0, deal_pass[:66]))
    with pytest.raises(OrderError, match="not complete"):
        d0.complete(0)
    for _ in range(12):  # fill center 0 by hand (the protocol does not judge the rules)
        for d in dealt:
            d.center[0].append(d.stock.pop())
    for d in dealt:
        d.complete(0)
    with pytest.raises(OrderError, match="reshuffled"):
        d0.draw(0)
    with pytest.raises(OrderError, match="middle of a reshuffle"):
        d0.end()
    (pass0,) = [m for m in d0.outgoing() if isinstance(m, Shuffle)]
    assert pass0.round == 1 and len(pass0.deck) == 54
    with pytest.raises(OrderError, match="54"):  # the wrong size
        d1.receive(replace(pass0, deck=pass0.deck[:-1]))
    with pytest.raises(OrderError):  # seat 1's step from seat 0
        d1.receive(replace(pass0, step=1))
    d1.receive(pass0)
    with pytest.raises(OrderError):  # twice
        d1.receive(pass0)
    pump(dealt)
    assert not d0.shuffling and len(d0.stock) == 54 and d0.stock == d1.stock
    for d in dealt:
        d.end()
    msgs = d0.outgoing()
    assert isinstance(msgs[-1], Reveal)
    d1.receive(msgs[-1])
    assert d1.result is not None and len(d1.result.reshuffles) == 1
    with pytest.raises(OrderError, match="second reveal"):
        d1.receive(msgs[-1])


def test_a_stack_completed_by_a_hidden_card_does_not_keep_it_in_play(dealt: list[FairDeck]) -> None:
    """The last card of a stack may be shown after the reshuffle began (its
    holder's share follows the move): it must not count as a card in play,
    or its next appearance would look like a duplicate."""
    d0, d1 = dealt
    for _ in range(11):
        for d in dealt:
            d.center[0].append(d.stock.pop())
    slot = d1.hands[1][0]
    for d in dealt:
        d.play_hand(1, slot, "center", 0)
        d.complete(0)
    pump(dealt)
    card = d0.card(slot)
    assert card is not None and card == d1.card(slot)
    for d in dealt:
        assert d.shares._live.get(card) != slot
        assert all(any(s in pile for pile in _piles(d)) for s in d.shares._live.values())


def _piles(d: FairDeck) -> list[list[int]]:
    return [*d.payoff, *d.hands, *d.sides[0], *d.sides[1], *d.center, d.stock]


def test_a_restarted_seat_fed_another_pass_leaks_no_permutation() -> None:
    """The restart leak: seat 1 makes its deal pass, crashes before its journal kept the
    host's pass, and comes back; a hostile host now sends another (valid) pass.  The
    restarted seat's pass over it shares no permutation and no randomness with the first,
    so subtracting the two tells the host nothing: no difference of a position of the
    first output and its input repeats in the second."""
    decks = fresh()
    for msg in decks[0].outgoing() + decks[1].outgoing():  # the key shares
        decks[1 - msg.head.seat].receive(msg)
    (first_pass,) = decks[0].outgoing()
    assert isinstance(first_pass, Shuffle)
    decks[1].receive(first_pass)
    (out1,) = [m for m in decks[1].outgoing() if isinstance(m, Shuffle)]
    # the host makes its pass again with another secret (a valid, different pass), and the
    # restarted joiner (same secret, its journal lost the first pass) answers it
    other = FairDeck(MATCH, 1, 0, bytes([8]) * 32)
    other.keys, other._joint, other.shares.their_base = (
        decks[0].keys,
        decks[0]._joint,
        decks[0].shares.their_base,
    )
    other._x = decks[0]._x
    (second_pass,) = [m for m in other.outgoing() if isinstance(m, Shuffle)]
    reborn = FairDeck(MATCH, 1, 1, SECRETS[1])
    reborn.receive(decks[0]._key_msg)
    reborn.outgoing()
    reborn.receive(second_pass)
    (out2,) = [m for m in reborn.outgoing() if isinstance(m, Shuffle)]
    diff1 = {grp.sub(o[0], i[0]) for o in out1.deck for i in first_pass.deck}
    diff2 = {grp.sub(o[0], i[0]) for o in out2.deck for i in second_pass.deck}
    assert not diff1 & diff2


# -- a restart that proves seat 0's deal pass again under another key (issue 44) ------------------


def _subtraction_attack(
    proofs: tuple[tuple[int, list[int], list[int]], tuple[int, list[int], list[int]]],
) -> dict[int, list[int]]:
    """The peer's attack on two proofs of one pass made with the same nonces ``w'_j``:
    ``s'_j = w'_j - c*u_{perm[j]}``, so ``s'_b[j] - s'_a[j] = c_a*u_a[k] - c_b*u_b[k]``
    for ``k = perm[j]``, every term public.  Each proof is ``(c, u, s')``; gives, for each
    output position ``j``, the inputs ``k`` that fit (one, ``perm[j]``, if the nonces are
    shared; none if they are not)."""
    (ca, ua, sa), (cb, ub, sb) = proofs
    by_diff: dict[int, list[int]] = {}
    for k, (x, y) in enumerate(zip(ua, ub, strict=True)):
        by_diff.setdefault((ca * x - cb * y) % grp.N, []).append(k)
    return {
        j: by_diff[d]
        for j, (a, b) in enumerate(zip(sa, sb, strict=True))
        if (d := (b - a) % grp.N) in by_diff
    }


def test_seat_0_restarted_without_the_peer_s_key_proves_its_pass_again_revealing_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 0 proves its deal pass under the joint key of the peer's first KEY, then restarts
    from a journal that kept its game secret but not that KEY (a backup, a copied folder, a
    lost fsync); the peer now sends a KEY made from another secret and gets a second proof
    of a pass over the same canonical deck.  The pass's permutation and randomness and every
    value of its proof derive from the joint key too, so the two proofs share no drawn value
    (no nonce), no re-encryption pad, and the subtraction attack recovers no position of the
    permutation (with the nonces of before, it recovered all 104: the test below)."""
    drawn: list[dict[tuple[bytes, int], int]] = []
    derive = shf._derive

    def spy(seed: bytes, label: bytes, i: int, statement: bytes = b"") -> int:
        value = derive(seed, label, i, statement)
        drawn[-1][label, i] = value
        return value

    monkeypatch.setattr(shf, "_derive", spy)
    canonical = [(None, card_point(c)) for c in range(104)]
    seen: list[tuple[Shuffle, grp.FixedBase, list[int]]] = []
    for peer_secret in (SECRETS[1], bytes([8]) * 32):
        seat0 = FairDeck(MATCH, 1, 0, SECRETS[0])  # the first life, then the restarted one
        peer = FairDeck(MATCH, 1, 1, peer_secret)
        (key0,) = seat0.outgoing()
        assert key0 == seat0._key_msg  # the same KEY both times: the same secret
        (key1,) = peer.outgoing()
        seat0.receive(key1)
        drawn.append({})
        (msg,) = [m for m in seat0.outgoing() if isinstance(m, Shuffle)]
        assert seat0._joint is not None and verify_shuffle(
            shuffle_context(seat0.head, 0), seat0._joint, canonical, msg.deck, msg.proof
        )
        seen.append((msg, seat0._joint, _perm_of(seat0)))
    (a, joint_a, perm_a), (b, joint_b, perm_b) = seen
    assert joint_a.point != joint_b.point
    # no drawn value (commitment randomness, chain randomness, nonce) is shared
    assert len(drawn[0]) == len(drawn[1]) == 4 * 104 + 4
    assert not set(drawn[0].values()) & set(drawn[1].values())
    # no re-encryption pad either: the deal's input has C1 = O, so each out[j].C1 is r_j*G
    assert not {c1 for c1, _ in a.deck} & {c1 for c1, _ in b.deck}
    # and the subtraction attack finds nothing
    found = _subtraction_attack(
        (
            (a.proof.c, _challenges(a, joint_a, canonical), list(a.proof.s_prime)),
            (b.proof.c, _challenges(b, joint_b, canonical), list(b.proof.s_prime)),
        )
    )
    assert found == {}, f"{len(found)} positions of the permutation recovered"
    assert perm_a != perm_b  # (two independent permutations)


def _perm_of(deck: FairDeck) -> list[int]:
    """Seat ``deck``'s permutation of its deal pass, as its secret gives it."""
    assert deck._joint is not None
    digest = pass_input_digest(deck.rounds[0].inputs)
    return derive_permutation(deck._secret, deck.head, 0, deck._joint.point, digest, 104)


def _challenges(msg: Shuffle, joint: grp.FixedBase, ins: list[Any]) -> list[int]:
    """The ``u_k`` of a pass's proof, as its verifier computes them (all public)."""
    ctx = shuffle_context(msg.head, msg.round)
    return shf._challenges(shf._statement(ctx, joint.point, ins, msg.deck, msg.proof.commitments), len(ins))


@pytest.mark.slow
def test_the_derivation_before_the_fix_leaked_the_whole_permutation_to_that_attack() -> None:
    """The same restart on the derivation of before (written out by docdeck, the document's
    recipe: permutation, pads and proof seed keyed without the joint key, nonces from the
    seed alone): the two proofs share every nonce, and the attack above names seat 0's whole
    permutation, 104 positions of 104."""
    canonical: list[dd.Ct] = [(None, dd.card(c)) for c in range(104)]
    digest = dd.pass_input_digest(canonical)
    head = Header(MATCH, 1, 0)

    def old_key(label: bytes) -> bytes:  # the key(lab) of before: no joint key in it
        return hmac.new(
            SECRETS[0], dd.ctx(label, head.match_id, head.game, head.seat, 0, digest), hashlib.sha256
        ).digest()

    perm = list(range(104))
    RefStream(old_key(b"perm"), 1).shuffle(perm)
    rs = [dd.scalar(old_key(b"reenc"), b"reenc", dd.u32(j)) for j in range(104)]
    x0 = dd.key_of(MATCH, 1, SECRETS[0], 0)
    proofs = []
    for peer_secret in (SECRETS[1], bytes([8]) * 32):
        y = mul256(x0 + dd.key_of(MATCH, 1, peer_secret, 1), G256)
        outs = [dd.reencrypt(canonical[perm[j]], rs[j], y) for j in range(104)]
        ctx = dd.shuffle_context(MATCH, 1, 0, 0)
        pr, u = dd.prove(
            old_key(b"shuffle-proof"), ctx, y, canonical, outs, perm, rs, nonces_of_the_seed_alone=True
        )
        assert dd.verify(ctx, y, canonical, outs, pr)
        proofs.append((pr.c, u, pr.s_prime))
    found = _subtraction_attack((proofs[0], proofs[1]))
    assert {j: ks[0] for j, ks in found.items() if len(ks) == 1} == dict(enumerate(perm))
