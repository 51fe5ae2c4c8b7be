"""What one seat may see of a game.

Everything outside the engine that shows or sends state, and every bot, works
from a :class:`PlayerView`: it holds no hidden card (the opponent's hand, the
stock order, the pay-off cards under the top), so nothing built on it can
cheat, whatever it does.  A spectator gets less still, a :class:`PublicView`:
what lies face up on the table for both players, and no hand at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card
from .moves import HAND, Move
from .refusals import GameIsOver, Illegal, PlaysForOther
from .rng import Stream
from .rules import generate_moves, judge
from .state import GameState, Result

Stack = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class _Table:
    """The fields both views share: the table as anyone at it sees it.  Neither view
    is the other's kind, so a seat's view, hand and all, cannot pass for a public one."""

    game: int
    turn: int
    ply: int
    hand_counts: tuple[int, int]
    payoff_tops: tuple[Card | None, Card | None]
    payoff_counts: tuple[int, int]
    sides: tuple[tuple[Stack, Stack, Stack, Stack], tuple[Stack, Stack, Stack, Stack]]
    center: tuple[Stack, Stack, Stack]
    stock_count: int
    result: Result | None


@dataclass(frozen=True, slots=True)
class PlayerView(_Table):
    """What ``seat`` sees: the table, and its own hand."""

    seat: int
    hand: tuple[Card, ...]

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

    def card_of(self, move: Move) -> Card | None:
        """The card ``move`` by the viewer would place (None: its pile is empty or not there)."""
        if move.source == HAND:
            return move.arg
        stack = move.side_stack
        if stack is not None:
            st = self.sides[self.seat][stack] if 0 <= stack < len(self.sides[self.seat]) else ()
            return st[-1] if st else None
        return self.payoff_tops[self.seat]

    def check(self, move: Move) -> Illegal | None:
        """Why the rules refuse ``move`` by the viewer now (None: they allow it),
        from the view alone: the same judgement the game itself makes."""
        if self.result is not None:
            return GameIsOver()
        if move.seat != self.seat and move.seat == self.turn:
            return PlaysForOther(self.seat, move.seat)
        me = self.seat
        found = judge(
            move,
            self.turn,
            self.hand,
            self.payoff_tops[me],
            self.side_tops(me),
            [len(c) for c in self.center],
        )
        return found if isinstance(found, Illegal) else None


@dataclass(frozen=True, slots=True)
class PublicView(_Table):
    """What anyone at the table sees of a game: the cards face up for both players
    (the pay-off tops, the side stacks, the centers) and how many cards lie face
    down (each hand, each pay-off pile, the stock).  No hand, no stock order, no
    seed: a watcher who knew any of them could tell a player the hidden cards."""

    def cards(self) -> list[Card]:
        """Every card face up, each once."""
        tops = [c for c in self.payoff_tops if c is not None]
        return [
            *tops,
            *(c for sd in self.sides for st in sd for c in st),
            *(c for st in self.center for c in st),
        ]

    def seen_from(self, seat: int) -> PlayerView:
        """The table as ``seat``'s board draws it, its hand left empty (a watcher
        holds no hand: the board shows both hands face down)."""
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, not {seat!r}")
        return PlayerView(
            seat=seat,
            game=self.game,
            turn=self.turn,
            ply=self.ply,
            hand=(),
            hand_counts=self.hand_counts,
            payoff_tops=self.payoff_tops,
            payoff_counts=self.payoff_counts,
            sides=self.sides,
            center=self.center,
            stock_count=self.stock_count,
            result=self.result,
        )


def public_view(seen: PlayerView) -> PublicView:
    """The part of a seat's view that both players see (its own hand left out)."""
    return PublicView(
        game=seen.game,
        turn=seen.turn,
        ply=seen.ply,
        hand_counts=seen.hand_counts,
        payoff_tops=seen.payoff_tops,
        payoff_counts=seen.payoff_counts,
        sides=seen.sides,
        center=seen.center,
        stock_count=seen.stock_count,
        result=seen.result,
    )


def world_from_view(view: PlayerView, hidden: Sequence[Card], stream: Stream) -> GameState:
    """A full game consistent with ``view``: the cards it does not show, ``hidden``
    in the order given, fill the pay-off piles under their tops (seat 0's first),
    then the opponent's hand, then the stock (its top last).  ``hidden`` must hold
    exactly as many cards as those places (ValueError otherwise); ``stream``
    shuffles the stock when a center completes in that world."""
    opp = 1 - view.seat
    under = [max(n - 1, 0) for n in view.payoff_counts]
    if len(hidden) != view.hand_counts[opp] + under[0] + under[1] + view.stock_count:
        raise ValueError("the hidden cards do not fill the places the view hides")
    payoff: list[list[Card]] = []
    k = 0
    for seat in (0, 1):
        pile = list(hidden[k : k + under[seat]])
        k += under[seat]
        top = view.payoff_tops[seat]
        if top is not None:
            pile.append(top)
        payoff.append(pile)
    hands = [list(view.hand), list(view.hand)]
    hands[opp] = list(hidden[k : k + view.hand_counts[opp]])
    k += view.hand_counts[opp]
    return GameState.from_position(
        payoff=payoff,
        hands=hands,
        sides=view.sides,
        center=view.center,
        stock=hidden[k:],
        turn=view.turn,
        stream=stream,
        game=view.game,
        ply=view.ply,
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
