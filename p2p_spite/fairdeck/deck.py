"""One seat's side of one game's private deck (sans-I/O).

A :class:`FairDeck` holds the game's ciphertexts ("slots") and where each one
lies -- pay-off piles, hands, side stacks, center stacks, stock, each a list
whose last item is its top, exactly as SPEC's piles -- and speaks the
private-deck protocol one message at a time: the driver calls
:meth:`FairDeck.receive` with each message from the peer, calls the event
methods (:meth:`draw`, :meth:`play_hand`, :meth:`play_payoff`,
:meth:`play_side`, :meth:`complete`, :meth:`end`) exactly when the engine
does the same thing on both sides, and sends whatever :meth:`outgoing`
returns after each of those calls.

The scheme (docs/fairness.md): ElGamal on P-256 under the joint key
``Y = X0 + X1`` (each ``Xi = xi*G`` sent with a Schnorr proof); card ``c`` is
the point ``(c+1)*G``; the deck starts as the 104 trivial encryptions
``(O, (c+1)*G)`` and seat 0 then seat 1 each re-encrypt and permute it
(Barnett-Smart); the result is the deal, slots 0..103 in SPEC's layout.  A
card is revealed by decryption shares ``Di = xi*C1``, each with a
Chaum-Pedersen proof: a holder gets the other seat's share and combines it
with its own, a public card gets both.  A completed center stack goes back
into the stock by a joint re-encrypt-and-permute round of the stock and the
stack ("round" 1, 2, ...), giving new slots.  Every secret a seat uses (its
key, permutations, re-encryption randomness, proof nonces) derives from its
32-byte game secret, which is journaled locally and revealed only when the
game is over; then each side recomputes the other's shuffles and knows
every card (:class:`GameDeck`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ..engine.rng import Stream
from .errors import CheatError, OrderError, ProofError, WireError
from .group import FixedBase, G, Point, add, add_many, base_g, encode, hash_to_scalar, msm, mul, neg
from .proofs import frame, prove_key, prove_share, verify_key, verify_share
from .shuffle import prove as prove_shuffle
from .shuffle import verify as verify_shuffle
from .wire import (
    MATCH_ID_BYTES,
    MAX_SHARES,
    SECRET_BYTES,
    Ciphertext,
    Header,
    KeyShare,
    Message,
    Reveal,
    Share,
    Shares,
    Shuffle,
    to_wire,
)

DECK = 104
PAYOFF, HAND = 20, 5
CENTERS, SIDES = 3, 4
STACK_COMPLETE = 12

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


def _ctx(*parts: bytes | int) -> bytes:
    return frame(*(p if isinstance(p, bytes) else p.to_bytes(4, "big") for p in parts))


def derive_key(secret: bytes, head: Header) -> int:
    return hash_to_scalar(secret, b"key", head.match_id, _ctx(head.game, head.seat))


def pass_input_digest(inputs: Sequence[Ciphertext]) -> bytes:
    """What binds a pass to its input: SHA-256 over the label and the input's
    ciphertexts (33 zero bytes for the deal's trivial C1)."""
    h = hashlib.sha256(frame(b"p2p-spite/fairdeck/v2/pass-input", len(inputs).to_bytes(4, "big")))
    for c1, c2 in inputs:
        h.update(_enc_or_zero(c1) + _enc_or_zero(c2))
    return h.digest()


def _enc_or_zero(pt: Point) -> bytes:
    return bytes(33) if pt is None else encode(pt)


def _pass_key(secret: bytes, head: Header, rnd: int, digest: bytes, label: bytes) -> bytes:
    return hmac.new(
        secret, _ctx(label, head.match_id, head.game, head.seat, rnd, digest), hashlib.sha256
    ).digest()


def derive_permutation(secret: bytes, head: Header, rnd: int, digest: bytes, n: int) -> list[int]:
    """The permutation of a seat's pass in round ``rnd`` over the input whose
    :func:`pass_input_digest` is ``digest``: ``out[j] = in[perm[j]]``,
    Fisher-Yates driven by SPEC's stream keyed with an HMAC of the secret.  A
    pass made again over another input (a restarted seat fed a different
    input) has a permutation and randomness of its own: two passes never
    share either, so nothing of them cancels out."""
    perm = list(range(n))
    Stream(_pass_key(secret, head, rnd, digest, b"perm"), 1).shuffle(perm)
    return perm


def derive_randomness(secret: bytes, head: Header, rnd: int, digest: bytes, n: int) -> list[int]:
    """The re-encryption randomness of the pass's positions 0..n-1."""
    key = _pass_key(secret, head, rnd, digest, b"reenc")
    return [hash_to_scalar(key, b"reenc", j.to_bytes(4, "big")) for j in range(n)]


def _proof_seed(secret: bytes, head: Header, rnd: int, digest: bytes) -> bytes:
    return _pass_key(secret, head, rnd, digest, b"shuffle-proof")


def shuffle_context(head: Header, rnd: int) -> bytes:
    """What a pass's proof is bound to besides its input and output: the match,
    the game, the shuffling seat and the round."""
    return _ctx(b"shuffle", head.match_id, head.game, head.seat, rnd)


class GameDeck(NamedTuple):
    """What the end-of-game check establishes (and a version-2 record keeps)."""

    deal: list[int]  # the 104 card ids in SPEC's deal layout (deck[0:20] is seat 0's pay-off, ...)
    reshuffles: list[list[int]]  # the stock after each reshuffle, bottom to top


@dataclass
class _Round:
    inputs: list[Ciphertext]
    input_slots: list[int] | None  # None: the deal (the canonical deck)
    passes: list[tuple[Ciphertext, ...]] = field(default_factory=list)
    slots: list[int] = field(default_factory=list)


def _canonical() -> list[Ciphertext]:
    return [(None, card_point(c)) for c in range(DECK)]


class FairDeck:
    """Seat ``seat``'s side of game ``game`` of match ``match_id``; ``secret``
    (32 bytes from ``secrets``) must be journaled by the caller before anything
    this object produced is sent, and never sent before the game is over."""

    def __init__(self, match_id: bytes, game: int, seat: int, secret: bytes) -> None:
        if len(match_id) != MATCH_ID_BYTES:
            raise ValueError(f"a match id is {MATCH_ID_BYTES} bytes")
        if not 1 <= game < 1 << 32 or seat not in (0, 1):
            raise ValueError("bad game or seat")
        if len(secret) != SECRET_BYTES:
            raise ValueError(f"a game secret is {SECRET_BYTES} bytes")
        self.head = Header(match_id, game, seat)
        self.seat = seat
        self.other = 1 - seat
        self._secret = secret
        self._x = derive_key(secret, self.head)
        self._key_ctx = [_ctx(b"key", match_id, game, s) for s in (0, 1)]
        point, proof = prove_key(self._x, self._key_ctx[seat])
        self.keys: list[Point] = [None, None]
        self.keys[seat] = point
        self._key_msg = KeyShare(self.head, point, proof)
        self._their_base: FixedBase | None = None
        self._joint: FixedBase | None = None
        self.cts: list[Ciphertext] = []
        self.rounds: list[_Round] = [_Round(_canonical(), None)]
        self.payoff: list[list[int]] = [[], []]
        self.hands: list[list[int]] = [[], []]
        self.sides: list[list[list[int]]] = [[[] for _ in range(SIDES)] for _ in range(2)]
        self.center: list[list[int]] = [[] for _ in range(CENTERS)]
        self.stock: list[int] = []
        self.cards: dict[int, int] = {}  # slot -> card id, for every card this seat knows
        self._live: dict[int, int] = {}  # card id -> slot, known cards still in play
        self._retired: set[int] = set()  # slots that went into a reshuffle
        self._mine: dict[int, Point] = {}  # slot -> our share (cached)
        self._theirs: dict[int, Point] = {}  # slot -> their verified share
        self._owe: list[int] = []
        self._sent: set[int] = set()
        self._await: set[int] = set()
        self._key_sent = False
        self._reveal_sent = False
        self.dealt = False
        self.over = False
        self.left = False  # a seat left the game before its end: both reveal, the game is over
        self._their_secret: bytes | None = None
        self.result: GameDeck | None = None
        self._ready_shares: dict[int, Share] = {}

    # -- state ---------------------------------------------------------------

    @property
    def shuffling(self) -> bool:
        """A round (the deal or a reshuffle) still lacks a pass."""
        return len(self.rounds[-1].passes) < 2

    @property
    def settled(self) -> bool:
        """Nothing is owed or awaited: every card the rules show is shown."""
        return self.dealt and not self.shuffling and not self._owe and not self._await

    def owes_us(self) -> bool:
        """Is the other seat's next message due: its pass of this round, or a share we await?"""
        if self._joint is not None and self.shuffling and len(self.rounds[-1].passes) == self.other:
            return True
        return bool(self._await)

    def card(self, slot: int) -> int | None:
        return self.cards.get(slot)

    def hand_cards(self) -> list[int | None]:
        return [self.cards.get(s) for s in self.hands[self.seat]]

    def slot_of(self, card: int) -> int:
        """The slot of card ``card`` in this seat's own hand."""
        for s in self.hands[self.seat]:
            if self.cards.get(s) == card:
                return s
        raise OrderError(f"card {card} is not known to be in seat {self.seat}'s hand")

    # -- messages --------------------------------------------------------------

    def outgoing(self) -> list[Message]:
        """What this seat must send now (call after every event and receive)."""
        out: list[Message] = []
        if not self._key_sent:
            self._key_sent = True
            out.append(self._key_msg)
        rnd = self.rounds[-1]
        if self._joint is not None and len(rnd.passes) == self.seat and len(rnd.passes) < 2:
            out.append(self._shuffle())
        if self._owe:
            owe = sorted(self._owe)
            self._owe.clear()
            for i in range(0, len(owe), MAX_SHARES):
                out.append(Shares(self.head, tuple(self._share(s) for s in owe[i : i + MAX_SHARES])))
        if self.over and not self._reveal_sent and (not self.shuffling or self.left):
            self._reveal_sent = True
            out.append(Reveal(self.head, self._secret))
        return out

    def receive(self, msg: Message) -> None:
        """Check and take one message from the other seat.  Raises OrderError
        (wrong moment) or ProofError (a lie, refused at once), leaving the state
        as it was, or CheatError (evidence: the game cannot go on)."""
        h = msg.head
        if h.match_id != self.head.match_id or h.game != self.head.game:
            raise OrderError("a private-deck message for another match or game")
        if h.seat != self.other:
            raise OrderError(f"a private-deck message from seat {h.seat}, not the other seat")
        if isinstance(msg, KeyShare):
            self._on_key(msg)
        elif isinstance(msg, Shuffle):
            self._on_shuffle(msg)
        elif isinstance(msg, Shares):
            self._on_shares(msg)
        else:
            self._on_reveal(msg)

    def _on_key(self, msg: KeyShare) -> None:
        if self.keys[self.other] is not None:
            raise OrderError("a second key share")
        if msg.point == self.keys[self.seat]:
            raise ProofError("echoed our own key share", self.other)
        if not verify_key(msg.point, msg.proof, self._key_ctx[self.other]):
            raise ProofError("key share proof does not verify", self.other)
        joint = add(self.keys[self.seat], msg.point)
        if joint is None:
            raise ProofError("key share cancels ours", self.other)
        self.keys[self.other] = msg.point
        self._their_base = FixedBase(msg.point)
        self._joint = FixedBase(joint)

    def _on_shuffle(self, msg: Shuffle) -> None:
        rnd = self.rounds[-1]
        if self._joint is None:
            raise OrderError("a shuffle before the key shares")
        if msg.round != len(self.rounds) - 1 or msg.step != len(rnd.passes) or msg.step != self.other:
            raise OrderError(f"an unexpected shuffle (round {msg.round}, step {msg.step})")
        if len(msg.deck) != len(rnd.inputs):
            raise OrderError(f"a shuffle of {len(msg.deck)} cards, not {len(rnd.inputs)}")
        if any(c1 is None for c1, _ in msg.deck):  # from_wire never gives one; a caller might
            raise WireError("a ciphertext with the point at infinity")
        context = shuffle_context(msg.head, msg.round)
        if not verify_shuffle(context, self._joint, self._pass_input(), msg.deck, msg.proof):
            raise CheatError(
                "shuffle-proof",
                self.other,
                f"round {msg.round}: the pass of seat {self.other} does not come with a valid proof "
                "that it is a shuffle of its input",
                {"game": self.head.game, "round": msg.round, "step": msg.step, "message": to_wire(msg).hex()},
            )
        self._add_pass(msg.deck)

    def _add_pass(self, deck: tuple[Ciphertext, ...]) -> None:
        rnd = self.rounds[-1]
        rnd.passes.append(deck)
        if len(rnd.passes) < 2:
            return
        first = len(self.cts)
        self.cts.extend(deck)
        rnd.slots = list(range(first, first + len(deck)))
        if rnd.input_slots is None:
            self._deal()
        else:
            self.stock = rnd.slots[:]

    def _pass_input(self) -> list[Ciphertext]:
        rnd = self.rounds[-1]
        return rnd.inputs if not rnd.passes else list(rnd.passes[0])

    def _shuffle(self) -> Shuffle:
        """Our pass of this round, with its proof: permutation, randomness and the
        proof's nonces all derive from the secret and the pass's input."""
        assert self._joint is not None
        r = len(self.rounds) - 1
        inputs = self._pass_input()
        digest = pass_input_digest(inputs)
        perm = derive_permutation(self._secret, self.head, r, digest, len(inputs))
        rs = derive_randomness(self._secret, self.head, r, digest, len(inputs))
        pads = list(zip(base_g().mul_many(rs), self._joint.mul_many(rs), strict=True))
        deck = _reencrypt_all([inputs[i] for i in perm], pads)
        proof = prove_shuffle(
            _proof_seed(self._secret, self.head, r, digest),
            shuffle_context(self.head, r),
            self._joint,
            inputs,
            deck,
            perm,
            rs,
        )
        msg = Shuffle(self.head, r, self.seat, deck, proof)
        self._add_pass(deck)
        return msg

    def precompute(self, cards: int = 6) -> int:
        """Work ahead while idle (the other player is thinking): our proven
        shares of the next ``cards`` stock cards and of the cards under the
        pay-off tops (whoever gets them, our share is the same), so that a
        draw or reveal costs the receiver only a verification.  (A pass cannot
        be made ahead: its randomness derives from its input.)
        Nothing is sent; what it computes is what would be computed later.
        Returns how many items it computed (0: nothing left to do)."""
        done = 0
        if self.dealt and not self.shuffling and not self.over:
            ahead = self.stock[-cards:] + [p[-2] for p in self.payoff if len(p) >= 2]
            for slot in ahead:
                if slot not in self._ready_shares and slot not in self._sent:
                    self._ready_shares[slot] = self._prove(slot)
                    done += 1
        return done

    def _check_pass(
        self,
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
        assert self._joint is not None
        if _batch_holds([(cur, perm, sent, rs)], self._joint):
            return
        pads = list(zip(base_g().mul_many(rs), self._joint.mul_many(rs), strict=True))
        evidence: dict[str, object] = {"game": self.head.game, "round": r, "secret": secret.hex()}
        for j, expected in enumerate(_reencrypt_all([cur[i] for i in perm], pads)):
            if expected != sent[j]:
                evidence.update(position=j, sent=_ct_hex(sent[j]), expected=_ct_hex(expected))
                raise CheatError(
                    "reveal",
                    self.other,
                    f"round {r}: position {j} of the shuffle is not what the revealed secret gives",
                    evidence,
                )
        raise CheatError("reveal", self.other, f"round {r}: the shuffle does not hold", evidence)

    def _deal(self) -> None:
        self.payoff = [list(range(0, 20)), list(range(20, 40))]
        self.hands = [list(range(40, 45)), list(range(45, 50))]
        self.stock = list(range(50, 104))
        self.dealt = True
        for seat in (0, 1):
            for s in self.hands[seat]:
                self._to_holder(s, seat)
            self._to_both(self.payoff[seat][-1])

    def _my_share(self, slot: int) -> Point:
        ready = self._ready_shares.get(slot)
        if ready is not None:
            return ready.d
        d = self._mine.get(slot)
        if d is None:
            d = self._mine[slot] = mul(self._x, self.cts[slot][0])
        return d

    def _prove(self, slot: int) -> Share:
        c1 = self.cts[slot][0]
        d, proof = prove_share(self._x, self.keys[self.seat], c1, self._share_ctx(self.seat, slot))
        return Share(slot, d, proof)

    def _share(self, slot: int) -> Share:
        share = self._ready_shares.pop(slot, None) or self._prove(slot)
        self._mine[slot] = share.d
        self._sent.add(slot)
        return share

    def _share_ctx(self, seat: int, slot: int) -> bytes:
        h = self.head
        return _ctx(b"share", h.match_id, h.game, seat, slot, encode(self.cts[slot][1]))

    def _on_shares(self, msg: Shares) -> None:
        for sh in msg.shares:
            if sh.slot not in self._await:
                raise OrderError(f"a share for slot {sh.slot}, which is not owed")
        checked: list[Share] = []
        for sh in msg.shares:
            assert self._their_base is not None
            c1 = self.cts[sh.slot][0]
            if not verify_share(self._their_base, c1, sh.d, sh.proof, self._share_ctx(self.other, sh.slot)):
                raise ProofError("decryption share proof does not verify", self.other, sh.slot)
            checked.append(sh)
        for sh in checked:  # all verified: now take them
            self._await.discard(sh.slot)
            self._theirs[sh.slot] = sh.d
            self._learn(sh.slot)

    def _learn(self, slot: int) -> None:
        c2 = self.cts[slot][1]
        m = add(c2, neg(add(self._my_share(slot), self._theirs[slot])))
        card = card_of_point(m)
        if card is None:
            raise CheatError(  # the other seat's share completed it: its message made the non-card
                "not-a-card",
                self.other,
                f"slot {slot} decrypts to a point that is no card",
                {"slot": slot, "game": self.head.game},
            )
        if card in self._live and self._live[card] != slot:
            raise CheatError(
                "duplicate",
                self.other,
                f"card {card} shows in slot {slot} and in slot {self._live[card]}",
                {"card": card, "slots": [self._live[card], slot], "game": self.head.game},
            )
        self.cards[slot] = card
        if slot not in self._retired:  # a stack's last card may be shown after its reshuffle began
            self._live[card] = slot

    def _on_reveal(self, msg: Reveal) -> None:
        if self.result is not None:
            raise OrderError("a second reveal")
        if not self.over:
            if not self.dealt:
                raise OrderError("a reveal before the deal is done")
            self.leave()  # the other seat left the game before its end: it is over for both
        elif self.shuffling and not self.left:
            raise OrderError("a reveal in the middle of a shuffle")
        self.result = self._verify(msg.secret)
        self._their_secret = msg.secret

    @property
    def peer_revealed(self) -> bool:
        """The other seat's game secret has come (and checked)."""
        return self._their_secret is not None

    def recheck(self) -> GameDeck | None:
        """After a seat left: the deck again, with what was dealt since the reveal (the
        moves that crossed the leave go on as usual).  CheatError as at the reveal."""
        if self._their_secret is None:
            return None
        self.result = self._verify(self._their_secret)
        return self.result

    # -- events (called on both sides in the engine's order) ------------------

    def _ready(self) -> None:
        if not self.dealt:
            raise OrderError("the deal is not done")
        if self.over and not self.left:  # (after a leave, the moves that crossed it go on)
            raise OrderError("the game is over")

    def _to_holder(self, slot: int, seat: int) -> None:
        if seat == self.seat:
            self._await.add(slot)
        else:
            self._owe.append(slot)

    def _to_both(self, slot: int) -> None:
        if slot not in self._sent and slot not in self._owe:
            self._owe.append(slot)
        if slot not in self._theirs:
            self._await.add(slot)

    def draw(self, seat: int) -> int:
        """Seat ``seat`` takes the stock's top card into its hand (only the
        holder will know it); gives the slot."""
        self._ready()
        if self.shuffling:
            raise OrderError("a draw while the stock is being reshuffled")
        if not self.stock:
            raise OrderError("a draw from an empty stock (the game is a draw)")
        slot = self.stock.pop()
        self.hands[seat].append(slot)
        self._to_holder(slot, seat)
        return slot

    def play_hand(self, seat: int, slot: int, target: str, index: int) -> None:
        """Seat ``seat`` plays the hand card in ``slot`` onto center ``index``
        (target ``"center"``) or its side stack ``index`` (``"side"``): the card
        becomes public (the holder's share goes to the other seat)."""
        self._ready()
        if slot not in self.hands[seat]:
            raise OrderError(f"slot {slot} is not in seat {seat}'s hand")
        pile = self._target(seat, target, index)
        self.hands[seat].remove(slot)
        pile.append(slot)
        self._to_both(slot)

    def play_payoff(self, seat: int, center: int) -> None:
        self._ready()
        pile = self.payoff[seat]
        if not pile:
            raise OrderError(f"seat {seat}'s pay-off pile is empty")
        target = self._target(seat, "center", center)
        target.append(pile.pop())
        if pile:
            self._to_both(pile[-1])

    def play_side(self, seat: int, side: int, center: int) -> None:
        self._ready()
        if not 0 <= side < SIDES or not self.sides[seat][side]:
            raise OrderError(f"side stack {side} of seat {seat} is empty")
        target = self._target(seat, "center", center)
        target.append(self.sides[seat][side].pop())

    def _target(self, seat: int, target: str, index: int) -> list[int]:
        if target == "center" and 0 <= index < CENTERS:
            return self.center[index]
        if target == "side" and 0 <= index < SIDES:
            return self.sides[seat][index]
        raise OrderError(f"no pile {target} {index}")

    def complete(self, center: int) -> None:
        """Center stack ``center`` holds 12 cards: it goes into the stock
        (``stock + stack``, as SPEC) and both seats reshuffle it jointly."""
        self._ready()
        if self.shuffling:
            raise OrderError("a reshuffle while another is running")
        if not 0 <= center < CENTERS or len(self.center[center]) != STACK_COMPLETE:
            raise OrderError(f"center stack {center} is not complete")
        slots = self.stock + self.center[center]
        for s in self.center[center]:
            card = self.cards.get(s)
            if card is not None and self._live.get(card) == s:
                del self._live[card]
        for s in slots:
            self._ready_shares.pop(s, None)
        self._retired.update(slots)
        self.center[center] = []
        self.stock = []
        self.rounds.append(_Round([self.cts[s] for s in slots], slots))

    def end(self) -> None:
        """The game is over (won, drawn or resigned): both reveal their secrets."""
        if not self.dealt:
            raise OrderError("the deal is not done")
        if self.shuffling:
            raise OrderError("the game cannot end in the middle of a reshuffle")
        self.over = True

    def leave(self) -> None:
        """A seat leaves the game before its end (it quits the match): the game is over
        for both, both reveal their secrets (even in the middle of a reshuffle, which then
        deals nothing), and the record can check every move made."""
        if not self.dealt:
            raise OrderError("the deal is not done")
        self.over = self.left = True

    # -- the end-of-game check ---------------------------------------------------

    def _verify(self, their_secret: bytes) -> GameDeck:
        o = self.other
        their_head = Header(self.head.match_id, self.head.game, o)
        x = derive_key(their_secret, their_head)
        if base_g().mul(x) != self.keys[o]:
            raise CheatError(
                "key",
                o,
                "the revealed secret does not give the key share that was sent",
                {"game": self.head.game, "secret": their_secret.hex(), "key": encode(self.keys[o]).hex()},
            )
        secrets_by_seat = {self.seat: self._secret, o: their_secret}
        heads = {self.seat: self.head, o: their_head}
        plain: dict[int, int] = {}
        theirs: list[tuple[int, list[Ciphertext], list[int], tuple[Ciphertext, ...], list[int]]] = []
        for r, rnd in enumerate(self.rounds):
            if len(rnd.passes) < 2:  # a reshuffle the game ended in the middle of: it dealt nothing
                break
            cur = rnd.inputs
            cur_plain = list(range(DECK)) if rnd.input_slots is None else [plain[s] for s in rnd.input_slots]
            for step in (0, 1):
                digest = pass_input_digest(cur)
                perm = derive_permutation(secrets_by_seat[step], heads[step], r, digest, len(cur))
                sent = rnd.passes[step]
                if step == o:
                    theirs.append(
                        (r, cur, perm, sent, derive_randomness(their_secret, their_head, r, digest, len(cur)))
                    )
                cur_plain = [cur_plain[perm[j]] for j in range(len(cur))]
                cur = list(sent)
            for j, s in enumerate(rnd.slots):
                plain[s] = cur_plain[j]
        assert self._joint is not None
        if not _batch_holds(
            [t[1:] for t in theirs], self._joint
        ):  # one batch for the game; then pass by pass
            for r, cur, perm, sent, rs in theirs:
                self._check_pass(cur, perm, sent, rs, their_secret, r)
            raise CheatError(  # every pass holds alone: only with probability 2**-64
                "reveal",
                o,
                "the shuffles do not hold together",
                {"game": self.head.game, "secret": their_secret.hex()},
            )
        for slot, card in self.cards.items():
            if plain[slot] != card:  # cannot happen while the shares' proofs are sound
                raise CheatError(
                    "share",
                    o,
                    f"slot {slot} was shown as card {card}, but holds {plain[slot]}",
                    {"game": self.head.game, "slot": slot},
                )
        deal = [plain[s] for s in range(DECK)]
        return GameDeck(deal, [[plain[s] for s in rnd.slots] for rnd in self.rounds[1:]])


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


def _reencrypt(ct: Ciphertext, pad: tuple[Point, Point]) -> Ciphertext:
    """One ciphertext re-encrypted (tests build cheating passes with it)."""
    return _reencrypt_all([ct], [pad])[0]


def _reencrypt_all(cts: list[Ciphertext], pads: list[tuple[Point, Point]]) -> tuple[Ciphertext, ...]:
    """``(C1 + R, C2 + S)`` for each ciphertext and its pad ``(R, S) = (r*G, r*Y)``,
    all the additions with one inversion."""
    pairs: list[tuple[Point, Point]] = []
    for (c1, c2), (r1, r2) in zip(cts, pads, strict=True):
        pairs += ((c1, r1), (c2, r2))
    flat = add_many(pairs)
    return tuple(zip(flat[0::2], flat[1::2], strict=True))


def _ct_hex(ct: Ciphertext) -> str:
    return (encode(ct[0]) + encode(ct[1])).hex()
