"""Two seats of a private game in one process, for tests and ``scripts/bench_fairdeck``.

Nothing is privileged: each seat has only its :class:`FairDeck` and its
:class:`SeatGame` (the engine on stand-ins for the cards it cannot see), and
every private-deck message goes through ``to_wire``/``from_wire``.  The
table times each seat's private-deck work by phase.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engine import Move, PlayerView, Result
from .check import GameDeck
from .deck import FairDeck
from .table import SeatGame
from .wire import Message, from_wire, to_wire

Tamper = Callable[[int, Message], Message]


@dataclass
class Costs:
    """Seconds of private-deck work by phase (per seat, or both seats added up)."""

    setup: list[float] = field(default_factory=lambda: [0.0, 0.0])
    moves: list[float] = field(default_factory=list)  # both seats' work added by each move
    reshuffles: list[float] = field(default_factory=list)  # both seats, the move's card shown and both passes
    end: list[float] = field(default_factory=lambda: [0.0, 0.0])
    idle: list[float] = field(default_factory=lambda: [0.0, 0.0])  # precompute() between moves
    bytes_sent: int = 0
    messages: int = 0


class PrivateTable:
    """One private game between two seats; ``tamper(seat, message)`` may
    replace what a seat sends (attacks in tests); ``ahead``: each seat works
    ahead between moves, as it would while the other one thinks."""

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
        self._phase = [0.0, 0.0]
        self.pump()
        self.costs.setup = self._take()
        self.seats = [SeatGame(d, seed) for d in self.decks]
        self.moves: list[Move] = []
        self._idle()

    @property
    def turn(self) -> int:
        return self.seats[0].state.turn

    @property
    def result(self) -> Result | None:
        return self.seats[0].state.result

    def view(self, seat: int) -> PlayerView:
        return self.seats[seat].view()

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
                    self.costs.bytes_sent += len(data)
                    self.costs.messages += 1
                    t0 = time.perf_counter()
                    self.decks[1 - seat].receive(from_wire(data))
                    self._phase[1 - seat] += time.perf_counter() - t0
                    moved = True

    def _idle(self) -> None:
        if not self.ahead:
            return
        for seat, d in enumerate(self.decks):
            t0 = time.perf_counter()
            d.precompute()
            self.costs.idle[seat] += time.perf_counter() - t0

    def apply(self, move: Move) -> None:
        """Play ``move`` on both seats: the mover sends it with its slot."""
        slot = self.seats[move.seat].slot_of(move)
        rounds = len(self.decks[0].rounds)
        for s in self.seats:
            s.begin(move, slot)
        self.pump()
        if len(self.decks[0].rounds) > rounds:
            self.costs.reshuffles.append(sum(self._take()))
        for s in self.seats:
            s.finish()
        self.pump()
        self.moves.append(move)
        if self.result is not None:
            self.costs.end = self._take()  # the reveals and each side's check
        self.costs.moves.append(sum(self._take()))
        self._idle()

    def results(self) -> list[GameDeck]:
        """What each seat's end-of-game check established."""
        out = []
        for d in self.decks:
            assert d.result is not None
            out.append(d.result)
        return out
