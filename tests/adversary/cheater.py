"""A modified p2p-spite: the real program with one private-deck pass falsified, run as
its own process (``python -m tests.adversary.cheater ATTACK p2p-spite-args...``).

Attacks (each forges the pass it names, keeps its own state as if it had sent it, and
sends the honest pass's proof, or one made for the forged deck with a false witness):

- ``own-order``: the deal's last pass (the joiner's) replaced by fresh encryptions
  ``(r*G, M + r*Y)`` of an order the cheater chose: it would know every card;
- ``duplicate``: the deal's first pass (the host's) with a second copy of a card;
- ``replace``: the deal's first pass with one card replaced by a card of its choice;
- ``foreign``: the host's first reshuffle pass with a re-encryption of a ciphertext
  that is not among its inputs (the card under the joiner's pay-off top).
"""

from __future__ import annotations

import sys
from typing import Any

from p2p_spite.cli import main
from p2p_spite.fairdeck import deck as fd
from p2p_spite.fairdeck import group as grp
from p2p_spite.fairdeck.shuffle import prove
from p2p_spite.fairdeck.wire import Shuffle

ATTACKS = ("own-order", "duplicate", "replace", "foreign")


def _reenc(ct: Any, joint: grp.FixedBase, r: int) -> Any:
    return fd._reencrypt(ct, (grp.base_g().mul(r), joint.mul(r)))


def install(attack: str) -> None:
    honest = fd.FairDeck._shuffle

    def shuffle(self: fd.FairDeck) -> Shuffle:
        rnd = len(self.rounds) - 1
        inputs = self._pass_input()
        msg = honest(self)
        joint = self._joint
        assert joint is not None
        deck = list(msg.deck)
        if attack == "own-order" and rnd == 0 and self.seat == 1:
            rs = [1000 + j for j in range(len(deck))]
            deck = [(grp.base_g().mul(r), grp.add(fd.card_point(j), joint.mul(r))) for j, r in enumerate(rs)]
            proof = prove(
                b"cheat", fd.shuffle_context(self.head, rnd), joint, inputs, deck, list(range(104)), rs
            )
            msg = Shuffle(msg.head, rnd, self.seat, tuple(deck), proof)
        elif attack == "duplicate" and rnd == 0 and self.seat == 0:
            deck[0] = _reenc(deck[1], joint, 99)
        elif attack == "replace" and rnd == 0 and self.seat == 0:
            deck[0] = _reenc((None, fd.card_point(0)), joint, 99)
        elif attack == "foreign" and rnd >= 1 and self.seat == 0:
            deck[0] = _reenc(self.cts[self.payoff[1][-2]], joint, 99)
        else:
            return msg
        forged = Shuffle(msg.head, rnd, self.seat, tuple(deck), msg.proof)
        done = self.rounds[-1]
        done.passes[-1] = forged.deck  # our own state, as if we had sent it honestly
        if len(done.passes) == 2:
            self.cts[-len(deck) :] = forged.deck
        return forged

    fd.FairDeck._shuffle = shuffle  # type: ignore[method-assign]


if __name__ == "__main__":
    chosen = sys.argv[1]
    if chosen not in ATTACKS:
        raise SystemExit(f"attack must be one of {', '.join(ATTACKS)}")
    install(chosen)
    sys.exit(main(sys.argv[2:]))
