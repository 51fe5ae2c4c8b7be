"""Two honest seats of a private deck in one process, driven by the real engine.

For tests and ``scripts/bench_fairdeck``: every message goes through
``to_wire``/``from_wire``; the engine's game is dealt from the order the
joint shuffle made (read with both seats' keys: a privilege of the
simulation, which no peer has) and every card the protocol shows a seat is
checked against the engine's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engine import CENTER, HAND, PAYOFF, GameState, Move
from .dealing import private_game
from .deck import FairDeck, GameDeck, card_of_point
from .group import add, mul, neg
from .wire import Message, from_wire, to_wire

Tamper = Callable[[int, Message], Message]


@dataclass
class Costs:
    """Seconds of private-deck work, per seat, by phase."""

    setup: list[float] = field(default_factory=lambda: [0.0, 0.0])
    moves: list[float] = field(default_factory=list)  # both seats' work added by each move
    reshuffles: list[float] = field(default_factory=list)
    end: list[float] = field(default_factory=lambda: [0.0, 0.0])
    idle: list[float] = field(default_factory=lambda: [0.0, 0.0])  # precompute() between moves
    bytes_sent: int = 0
    messages: int = 0


class PrivateTable:
    """One game: two FairDecks, the engine, the messages between them.

    ``tamper(seat, message)`` may replace what a seat sends (attacks in tests).
    """

    def __init__(
        self,
        match_id: bytes,
        seed: bytes,
        game: int,
        secrets: Sequence[bytes],
        tamper: Tamper | None = None,
        ahead: bool = True,
    ) -> None:
        self.decks = [FairDeck(match_id, game, seat, secrets[seat]) for seat in (0, 1)]
        self.tamper = tamper
        self.ahead = ahead
        self.costs = Costs()
        self.log: list[tuple[int, bytes]] = []  # (sender, bytes) of every message
        self._phase: list[float] = [0.0, 0.0]
        self.pump()
        self.costs.setup = self._take()
        self.orders: list[list[int]] = []
        self.state: GameState = private_game(seed, game, [self.peek(s) for s in range(104)], self.orders)
        self.check()
        self.idle()

    def idle(self) -> None:
        """Each seat works ahead, as it would while the other one thinks."""
        if not self.ahead:
            return
        for seat, d in enumerate(self.decks):
            t0 = time.perf_counter()
            d.precompute()
            self.costs.idle[seat] += time.perf_counter() - t0

    # -- plumbing ----------------------------------------------------------------

    def _take(self) -> list[float]:
        out, self._phase = self._phase, [0.0, 0.0]
        return out

    def pump(self) -> None:
        """Deliver messages until both seats are quiet."""
        moved = True
        while moved:
            moved = False
            for seat in (0, 1):
                t0 = time.perf_counter()
                msgs = self.decks[seat].outgoing()
                self._phase[seat] += time.perf_counter() - t0
                for msg in msgs:
                    if self.tamper is not None:
                        msg = self.tamper(seat, msg)
                    data = to_wire(msg)
                    self.log.append((seat, data))
                    self.costs.bytes_sent += len(data)
                    self.costs.messages += 1
                    t0 = time.perf_counter()
                    self.decks[1 - seat].receive(from_wire(data))
                    self._phase[1 - seat] += time.perf_counter() - t0
                    moved = True

    def peek(self, slot: int) -> int:
        """The card in ``slot``, read with both keys (the simulation's privilege)."""
        d0, d1 = self.decks
        c1, c2 = d0.cts[slot]
        card = card_of_point(add(c2, neg(mul(d0._x + d1._x, c1))))
        if card is None:
            raise AssertionError(f"slot {slot} holds no card")
        return card

    def check(self) -> None:
        """What each seat's protocol shows it equals the engine's game."""
        st = self.state
        for seat, d in enumerate(self.decks):
            assert d.hand_cards() == st.hands[seat], (seat, d.hand_cards(), st.hands[seat])
            for s in (0, 1):
                if st.payoff[s]:
                    assert d.card(d.payoff[s][-1]) == st.payoff[s][-1]
                for i in range(4):
                    assert [d.card(x) for x in d.sides[s][i]] == st.sides[s][i]
            for i in range(3):
                assert [d.card(x) for x in d.center[i]] == st.center[i]
            assert len(d.stock) == len(st.stock)

    # -- the game ------------------------------------------------------------------

    def apply(self, move: Move) -> None:
        """Play ``move`` in the engine and the private deck alike."""
        st = self.state
        seat, source, arg, target, index = move
        before = [h[:] for h in st.hands]
        card = st.card_of(move)
        slot = self.decks[seat].slot_of(card) if source == HAND else -1
        for d in self.decks:
            if source == HAND:
                d.play_hand(seat, slot, target, index)
            elif source == PAYOFF:
                d.play_payoff(seat, index)
            else:
                assert arg is not None
                d.play_side(seat, arg, index)
        if target == CENTER and len(st.center[index]) == 11:
            self.pump()
            for d in self.decks:
                d.complete(index)
            self.pump()
            self.costs.reshuffles.append(sum(self._take()))
            self.orders.append([self.peek(s) for s in self.decks[0].stock])
        st.apply(move)
        if source == HAND:
            before[seat].remove(card)
        for s in (0, 1):
            for _ in st.hands[s][len(before[s]) :]:
                for d in self.decks:
                    d.draw(s)
        self.pump()
        if st.result is not None:
            self.costs.moves.append(sum(self._take()))
            for d in self.decks:
                d.end()
            self.pump()
            self.costs.end = self._take()
        else:
            self.costs.moves.append(sum(self._take()))
        self.check()
        self.idle()

    def results(self) -> list[GameDeck]:
        """What each seat's end-of-game check established."""
        out = []
        for d in self.decks:
            assert d.result is not None
            out.append(d.result)
        return out
