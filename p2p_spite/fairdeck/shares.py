"""Who may see which card: the decryption shares of one seat's side of one game.

A card in slot ``s`` is revealed by decryption shares ``Di = xi*C1``, each with a
Chaum-Pedersen proof (docs/fairness.md).  A card dealt or drawn into a hand goes to its
holder: the other seat sends its share, the holder combines it with its own.  A public
card goes to both: each seat sends its share to the other.  A :class:`ShareBook` keeps,
for one seat, the shares it owes and those it awaits, checks every share it receives
before it takes any (all of a message, or none), and knows the cards so revealed.
"""

from __future__ import annotations

from .errors import CheatError, OrderError, ProofError
from .group import FixedBase, Point, add, encode, mul, neg
from .proofs import prove_share, verify_share
from .scheme import card_of_point, ctx
from .wire import MAX_SHARES, Ciphertext, Header, Share, Shares


class ShareBook:
    """The shares of seat ``head.seat`` (its key ``x``, whose point is ``key``) for the
    slots of ``cts`` (the deck's ciphertexts, a list that grows as rounds complete);
    ``their_base``, the other seat's key share as a base, once it came."""

    def __init__(self, head: Header, x: int, key: Point, cts: list[Ciphertext]) -> None:
        self.head = head
        self.seat = head.seat
        self.other = 1 - head.seat
        self._x = x
        self._key = key
        self.cts = cts
        self.their_base: FixedBase | None = None
        self.cards: dict[int, int] = {}  # slot -> card id, for every card this seat knows
        self._live: dict[int, int] = {}  # card id -> slot, known cards still in play
        self._retired: set[int] = set()  # slots that went into a reshuffle
        self._mine: dict[int, Point] = {}  # slot -> our share (cached)
        self._theirs: dict[int, Point] = {}  # slot -> their verified share
        self._owe: list[int] = []
        self._sent: set[int] = set()
        self._await: set[int] = set()
        self._ready: dict[int, Share] = {}  # slot -> our share, proven ahead (precompute)

    @property
    def quiet(self) -> bool:
        """No share is owed or awaited."""
        return not self._owe and not self._await

    @property
    def awaiting(self) -> bool:
        """A share of the other seat is awaited."""
        return bool(self._await)

    def slot_of_card(self, card: int) -> int | None:
        """The slot of card ``card``, if this seat knows it and it is still in play."""
        return self._live.get(card)

    def to_holder(self, slot: int, seat: int) -> None:
        """The card in ``slot`` goes to ``seat`` alone."""
        if seat == self.seat:
            self._await.add(slot)
        else:
            self._owe.append(slot)

    def to_both(self, slot: int) -> None:
        """The card in ``slot`` is public."""
        if slot not in self._sent and slot not in self._owe:
            self._owe.append(slot)
        if slot not in self._theirs:
            self._await.add(slot)

    def outgoing(self) -> list[Shares]:
        """The shares owed, in messages of at most MAX_SHARES (owed no more)."""
        out: list[Shares] = []
        if self._owe:
            owe = sorted(self._owe)
            self._owe.clear()
            for i in range(0, len(owe), MAX_SHARES):
                out.append(Shares(self.head, tuple(self._share(s) for s in owe[i : i + MAX_SHARES])))
        return out

    def prove_ahead(self, slots: list[int]) -> int:
        """Our proven shares of ``slots`` made now, for when they are owed (the ones not
        made or sent yet); how many were made."""
        done = 0
        for slot in slots:
            if slot not in self._ready and slot not in self._sent:
                self._ready[slot] = self._prove(slot)
                done += 1
        return done

    def retire(self, stack: list[int], slots: list[int]) -> None:
        """A completed center ``stack`` goes into a reshuffle with the stock (``slots``,
        both): its cards leave play, and no share made ahead for these slots is any use."""
        for s in stack:
            card = self.cards.get(s)
            if card is not None and self._live.get(card) == s:
                del self._live[card]
        for s in slots:
            self._ready.pop(s, None)
        self._retired.update(slots)

    def _my_share(self, slot: int) -> Point:
        ready = self._ready.get(slot)
        if ready is not None:
            return ready.d
        d = self._mine.get(slot)
        if d is None:
            d = self._mine[slot] = mul(self._x, self.cts[slot][0])
        return d

    def _prove(self, slot: int) -> Share:
        c1 = self.cts[slot][0]
        d, proof = prove_share(self._x, self._key, c1, self._share_ctx(self.seat, slot))
        return Share(slot, d, proof)

    def _share(self, slot: int) -> Share:
        share = self._ready.pop(slot, None) or self._prove(slot)
        self._mine[slot] = share.d
        self._sent.add(slot)
        return share

    def _share_ctx(self, seat: int, slot: int) -> bytes:
        h = self.head
        return ctx(b"share", h.match_id, h.game, seat, slot, encode(self.cts[slot][1]))

    def receive(self, msg: Shares) -> None:
        """The other seat's shares: OrderError for one not owed, ProofError for a false one
        (nothing taken), CheatError if one completes a card that cannot be."""
        for sh in msg.shares:
            if sh.slot not in self._await:
                raise OrderError(f"a share for slot {sh.slot}, which is not owed")
        checked: list[Share] = []
        for sh in msg.shares:
            assert self.their_base is not None
            c1 = self.cts[sh.slot][0]
            if not verify_share(self.their_base, c1, sh.d, sh.proof, self._share_ctx(self.other, sh.slot)):
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
