"""A seat that peeks at the private deck with its own key: what it could name.

Used by the private deck's tests (tests/fairdeck/test_fairdeck.py, in memory;
tests/core/test_private_net.py, over the protocol) to show that a seat names no card it
was not shown, and, as the control, that with the other seat's key too it would.
"""

from __future__ import annotations

from p2p_spite.fairdeck import FairDeck, Shares, Shuffle, card_of_point, from_wire
from p2p_spite.fairdeck import group as grp


def named_by_one_key(deck: FairDeck, log: list[tuple[int, bytes]], extra_key: int = 0) -> dict[int, int]:
    """Everything one seat can try with its own key (and, for the control, the
    other's): every slot, every ciphertext it saw in a shuffle, minus its own
    share, minus every share it received.  Gives the cards it could name."""
    received = [from_wire(d) for s, d in log if s != deck.seat]
    shares = [sh.d for m in received if isinstance(m, Shares) for sh in m.shares]
    named: dict[int, int] = {}
    x = deck._x + extra_key
    seen = list(enumerate(deck.cts))
    for m in received:
        if isinstance(m, Shuffle):
            seen += [(-1, ct) for ct in m.deck]
    for slot, (c1, c2) in seen:
        mine = grp.mul(x, c1)
        for guess in [grp.sub(c2, mine), *(grp.sub(grp.sub(c2, mine), d) for d in shares)]:
            card = card_of_point(guess)
            if card is not None and slot >= 0:
                named[slot] = card
    return named
