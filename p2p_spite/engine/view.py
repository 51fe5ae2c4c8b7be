"""What one seat may see of a game.

Everything outside the engine that shows or sends state, and every bot, works
from a :class:`PlayerView`: it holds no hidden card (the opponent's hand, the
stock order, the pay-off cards under the top), so nothing built on it can
cheat, whatever it does.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card
from .moves import Move
from .state import GameState, Result, generate_moves

Stack = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PlayerView:
    seat: int
    game: int
    turn: int
    ply: int
    hand: tuple[Card, ...]
    hand_counts: tuple[int, int]
    payoff_tops: tuple[Card | None, Card | None]
    payoff_counts: tuple[int, int]
    sides: tuple[tuple[Stack, Stack, Stack, Stack], tuple[Stack, Stack, Stack, Stack]]
    center: tuple[Stack, Stack, Stack]
    stock_count: int
    result: Result | None

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    @property
    def my_turn(self) -> bool:
        return self.result is None and self.turn == self.seat

    def side_tops(self, seat: int) -> list[Card | None]:
        return [st[-1] if st else None for st in self.sides[seat]]

    def legal_moves(self) -> list[Move]:
        """The viewer's legal moves (empty unless it is the viewer's turn)."""
        if not self.my_turn:
            return []
        return generate_moves(
            self.seat,
            self.hand,
            self.payoff_tops[self.seat],
            self.side_tops(self.seat),
            [len(c) for c in self.center],
        )


def view(state: GameState, seat: int) -> PlayerView:
    """The part of ``state`` that ``seat`` may see."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, not {seat!r}")
    sd = state.sides

    def stacks(s: int) -> tuple[Stack, Stack, Stack, Stack]:
        a, b, c, d = (tuple(st) for st in sd[s])
        return (a, b, c, d)

    c0, c1, c2 = (tuple(c) for c in state.center)
    return PlayerView(
        seat=seat,
        game=state.game,
        turn=state.turn,
        ply=state.ply,
        hand=tuple(state.hands[seat]),
        hand_counts=(len(state.hands[0]), len(state.hands[1])),
        payoff_tops=(state.payoff_top(0), state.payoff_top(1)),
        payoff_counts=(len(state.payoff[0]), len(state.payoff[1])),
        sides=(stacks(0), stacks(1)),
        center=(c0, c1, c2),
        stock_count=len(state.stock),
        result=state.result,
    )
