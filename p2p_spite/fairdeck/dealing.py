"""A game dealt from a private deck: the deck order and the reshuffles that the
end-of-game reveal established (or, while simulating, that the joint shuffle
just made) instead of the seeded stream's."""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import GameState, Stream
from ..engine.cards import Card


class DeckStream(Stream):
    """SPEC's stream of the game (it still breaks a tie for the start with
    ``below(2)``), but each shuffle of the stock takes the next order of
    ``orders`` instead: the stock after that reshuffle, bottom to top.

    ``orders`` may grow while the game is played (a simulation appends each
    order just before the move that needs it); copies share it.
    """

    __slots__ = ("orders", "used")

    def __init__(self, seed: bytes, game: int, orders: list[list[Card]]) -> None:
        super().__init__(seed, game)
        self.orders = orders
        self.used = 0

    def copy(self) -> DeckStream:
        other = DeckStream.__new__(DeckStream)
        other._key = self._key
        other.index = self.index
        other.orders = self.orders
        other.used = self.used
        return other

    def shuffle(self, items: list[Card]) -> None:
        if self.used >= len(self.orders):
            raise ValueError(f"no order given for reshuffle {self.used + 1}")
        order = self.orders[self.used]
        if sorted(order) != sorted(items):
            raise ValueError(f"reshuffle {self.used + 1} is not an order of the cards in the stock")
        self.used += 1
        items[:] = order


def private_game(seed: bytes, game: int, deck: Sequence[Card], orders: list[list[Card]]) -> GameState:
    """Game ``game`` dealt from ``deck``, its reshuffles taken from ``orders``."""
    return GameState.from_deck(deck, game, DeckStream(seed, game, orders))
