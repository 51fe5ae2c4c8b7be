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

Its parts: what a secret gives and the cards as points (:mod:`.scheme`), the
decryption shares owed, awaited and checked (:class:`~.shares.ShareBook`, the deck's
``shares``), and the end-of-game check (:func:`~.check.check_game`).  The deck
itself keeps the keys, the rounds of shuffling and the piles, and the order of it all.
"""

from __future__ import annotations

from .check import GameDeck, Round, check_game
from .errors import CheatError, OrderError, ProofError, WireError
from .group import FixedBase, Point, add, base_g
from .proofs import prove_key, verify_key
from .scheme import (
    DECK,
    card_point,
    ctx,
    derive_key,
    derive_permutation,
    derive_randomness,
    pass_input_digest,
    proof_seed,
    reencrypt_all,
    shuffle_context,
)
from .shares import ShareBook
from .shuffle import prove as prove_shuffle
from .shuffle import verify as verify_shuffle
from .wire import (
    MATCH_ID_BYTES,
    SECRET_BYTES,
    Ciphertext,
    Header,
    KeyShare,
    Message,
    Reveal,
    Shares,
    Shuffle,
    to_wire,
)

PAYOFF, HAND = 20, 5
CENTERS, SIDES = 3, 4
STACK_COMPLETE = 12


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
        self._key_ctx = [ctx(b"key", match_id, game, s) for s in (0, 1)]
        point, proof = prove_key(self._x, self._key_ctx[seat])
        self.keys: list[Point] = [None, None]
        self.keys[seat] = point
        self._key_msg = KeyShare(self.head, point, proof)
        self._joint: FixedBase | None = None
        self.cts: list[Ciphertext] = []  # (the shares read it: extended, never replaced)
        self.rounds: list[Round] = [Round(_canonical(), None)]
        self.payoff: list[list[int]] = [[], []]
        self.hands: list[list[int]] = [[], []]
        self.sides: list[list[list[int]]] = [[[] for _ in range(SIDES)] for _ in range(2)]
        self.center: list[list[int]] = [[] for _ in range(CENTERS)]
        self.stock: list[int] = []
        self.shares = ShareBook(self.head, self._x, point, self.cts)
        self._key_sent = False
        self._reveal_sent = False
        self.dealt = False
        self.over = False
        self.left = False  # a seat left the game before its end: both reveal, the game is over
        self._their_secret: bytes | None = None
        self.result: GameDeck | None = None

    # -- state ---------------------------------------------------------------

    @property
    def shuffling(self) -> bool:
        """A round (the deal or a reshuffle) still lacks a pass."""
        return len(self.rounds[-1].passes) < 2

    @property
    def settled(self) -> bool:
        """Nothing is owed or awaited: every card the rules show is shown."""
        return self.dealt and not self.shuffling and self.shares.quiet

    def owes_us(self) -> bool:
        """Is the other seat's next message due: its pass of this round, or a share we await?"""
        if self._joint is not None and self.shuffling and len(self.rounds[-1].passes) == self.other:
            return True
        return self.shares.awaiting

    @property
    def cards(self) -> dict[int, int]:
        """Slot -> card id, for every card this seat knows."""
        return self.shares.cards

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
        out += self.shares.outgoing()
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
            self.shares.receive(msg)
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
        self.shares.their_base = FixedBase(msg.point)
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
        proof's nonces all derive from the secret, the joint key and the pass's input."""
        assert self._joint is not None
        r = len(self.rounds) - 1
        inputs = self._pass_input()
        digest = pass_input_digest(inputs)
        joint = self._joint.point
        perm = derive_permutation(self._secret, self.head, r, joint, digest, len(inputs))
        rs = derive_randomness(self._secret, self.head, r, joint, digest, len(inputs))
        pads = list(zip(base_g().mul_many(rs), self._joint.mul_many(rs), strict=True))
        deck = reencrypt_all([inputs[i] for i in perm], pads)
        proof = prove_shuffle(
            proof_seed(self._secret, self.head, r, joint, digest),
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
        if self.dealt and not self.shuffling and not self.over:
            ahead = self.stock[-cards:] + [p[-2] for p in self.payoff if len(p) >= 2]
            return self.shares.prove_ahead(ahead)
        return 0

    def _deal(self) -> None:
        self.payoff = [list(range(0, 20)), list(range(20, 40))]
        self.hands = [list(range(40, 45)), list(range(45, 50))]
        self.stock = list(range(50, 104))
        self.dealt = True
        for seat in (0, 1):
            for s in self.hands[seat]:
                self.shares.to_holder(s, seat)
            self.shares.to_both(self.payoff[seat][-1])

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
        self.shares.to_holder(slot, seat)
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
        self.shares.to_both(slot)

    def play_payoff(self, seat: int, center: int) -> None:
        self._ready()
        pile = self.payoff[seat]
        if not pile:
            raise OrderError(f"seat {seat}'s pay-off pile is empty")
        target = self._target(seat, "center", center)
        target.append(pile.pop())
        if pile:
            self.shares.to_both(pile[-1])

    def play_side(self, seat: int, side: int, center: int) -> None:
        self._ready()
        if not 0 <= side < SIDES or not self.sides[seat][side]:
            raise OrderError(f"side stack {side} of seat {seat} is empty")
        target = self._target(seat, "center", center)
        target.append(self.sides[seat][side].pop())

    def take_back(self, seat: int, slot: int, center: int, *, hand_at: int | None, side: int | None) -> None:
        """Seat ``seat`` takes back its card of ``slot``, the top of center ``center``: into
        its hand at index ``hand_at`` (a hand card: shown to both when it was played, it is
        known to both now), or onto its side stack ``side``.  It shows nothing, and nothing
        is owed or awaited for it; a card played from the hand again later owes no share
        (both were sent).  OrderError, nothing changed, unless the deck is settled."""
        self._ready()
        if self.over or not self.settled:
            raise OrderError("a takeback while cards are being shown, or after the game")
        if not 0 <= center < CENTERS or not self.center[center] or self.center[center][-1] != slot:
            raise OrderError(f"slot {slot} is not the top of center {center}")
        if hand_at is not None:
            if slot not in self.cards or not 0 <= hand_at <= len(self.hands[seat]):
                raise OrderError(f"slot {slot} cannot go back into the hand at {hand_at}")
            self.center[center].pop()
            self.hands[seat].insert(hand_at, slot)
            return
        if side is None or not 0 <= side < SIDES:
            raise OrderError(f"no side stack {side}")
        self.center[center].pop()
        self.sides[seat][side].append(slot)

    def shown_slot(self, card: int) -> int | None:
        """The slot where card ``card`` lies, if this seat has been shown it and it is in play."""
        return self.shares.slot_of_card(card)

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
        self.shares.retire(self.center[center], slots)
        self.center[center] = []
        self.stock = []
        self.rounds.append(Round([self.cts[s] for s in slots], slots))

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
        return check_game(
            self.head, self._secret, their_secret, self.keys[self.other], self.rounds, self._joint, self.cards
        )
