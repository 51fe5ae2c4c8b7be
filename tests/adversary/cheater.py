"""A modified p2p-spite: the real program with its own private-deck pass falsified, run
as its own process (``python -m tests.adversary.cheater ATTACK p2p-spite-args...``), as
the host (seat 0, the first shuffler of each round) or the joiner (seat 1, the last).

Attacks (each forges its pass, keeps its own state as if it had sent it honestly, and
sends the honest pass's proof, or one made for the forged deck with a false witness):

- ``own-order``: its deal pass replaced by fresh encryptions ``(r*G, M + r*Y)`` of an
  order it chose (the joiner's is the last pass: it would know every card);
- ``duplicate``: its deal pass with a second copy of a card;
- ``replace``: its deal pass with one card replaced by a card of its choice;
- ``foreign``: its first reshuffle pass with a re-encryption of a ciphertext that is
  not among its inputs (the card under the other seat's pay-off top);
- ``mute``: no forgery; once the deal is shown it sends no more private-deck messages,
  while its connection stays up, answers pings and sends its own, and chats: a ping
  and a chat line with each heartbeat (its debts' deadlines must not be put off).
"""

from __future__ import annotations

import sys
from typing import Any

from p2p_spite.commands.cli import main
from p2p_spite.fairdeck import deck as fd
from p2p_spite.fairdeck import group as grp
from p2p_spite.fairdeck import scheme
from p2p_spite.fairdeck.shuffle import prove
from p2p_spite.fairdeck.wire import Shuffle

ATTACKS = ("own-order", "duplicate", "replace", "foreign", "mute")


def _reenc(ct: Any, joint: grp.FixedBase, r: int) -> Any:
    return scheme._reencrypt(ct, (grp.base_g().mul(r), joint.mul(r)))


def install(attack: str) -> None:
    if attack == "mute":
        _mute()
        return
    honest = fd.FairDeck._shuffle

    def shuffle(self: fd.FairDeck) -> Shuffle:
        rnd = len(self.rounds) - 1
        inputs = self._pass_input()
        msg = honest(self)
        joint = self._joint
        assert joint is not None
        deck = list(msg.deck)
        if attack == "own-order" and rnd == 0:
            rs = [1000 + j for j in range(len(deck))]
            deck = [
                (grp.base_g().mul(r), grp.add(scheme.card_point(j), joint.mul(r))) for j, r in enumerate(rs)
            ]
            proof = prove(
                b"cheat", scheme.shuffle_context(self.head, rnd), joint, inputs, deck, list(range(104)), rs
            )
            msg = Shuffle(msg.head, rnd, self.seat, tuple(deck), proof)
        elif attack == "duplicate" and rnd == 0:
            deck[0] = _reenc(deck[1], joint, 99)
        elif attack == "replace" and rnd == 0:
            deck[0] = _reenc((None, scheme.card_point(0)), joint, 99)
        elif attack == "foreign" and rnd >= 1:
            deck[0] = _reenc(self.cts[self.payoff[1 - self.seat][-2]], joint, 99)
        else:
            return msg
        forged = Shuffle(msg.head, rnd, self.seat, tuple(deck), msg.proof)
        done = self.rounds[-1]
        done.passes[-1] = forged.deck  # our own state, as if we had sent it honestly
        if len(done.passes) == 2:
            self.cts[-len(deck) :] = forged.deck
        return forged

    fd.FairDeck._shuffle = shuffle  # type: ignore[method-assign]


def _mute() -> None:
    """Once the deal is shown, make no more shares, passes or reveals and no more moves
    (the connection stays up and keeps answering pings): the honest side waits on what
    it is owed, the cards of a move announced, a draw's share."""
    from p2p_spite.core import deckside, private
    from p2p_spite.core.protocol import Endpoint, Phase

    deckside.DECK_DEADLINE = 10**6  # (a cheater does not give up on the honest side first)
    honest = fd.FairDeck.outgoing
    muted: list[bool] = []

    def outgoing(self: fd.FairDeck) -> list[Any]:
        out = honest(self)
        if self.dealt and len(self.shares._sent) >= 7:
            muted.append(True)
            return []
        return out

    real_ready = private.PrivateDeck.ready

    def ready(self: private.PrivateDeck, action: Any) -> bool:
        return not muted and real_ready(self, action)

    real_ping = Endpoint.send_ping

    def ping_and_chat(self: Endpoint, k: int) -> None:
        real_ping(self, k)
        if muted and self.phase is Phase.PLAY:
            self.send_chat(f"still here ({k})")

    fd.FairDeck.outgoing = outgoing  # type: ignore[method-assign]
    private.PrivateDeck.ready = ready  # type: ignore[method-assign]
    Endpoint.send_ping = ping_and_chat  # type: ignore[method-assign]


if __name__ == "__main__":
    chosen = sys.argv[1]
    if chosen not in ATTACKS:
        raise SystemExit(f"attack must be one of {', '.join(ATTACKS)}")
    install(chosen)
    sys.exit(main(sys.argv[2:]))
