"""One seat's private game: the real engine, run on what this seat may know.

A seat cannot hold the cards hidden from it, so its :class:`GameState` has a
stand-in, ``HIDDEN + slot``, wherever the other hand, the stock or a pay-off
pile holds a card it has not been shown; the stand-in becomes the card as
soon as the seat's :class:`FairDeck` shows it (a drawn card to its holder, a
new pay-off top, a played hand card to both).  Every rule is the engine's:
legality of the seat's own moves and the peer's, refills, completed stacks,
wins and draws; a completed stack's reshuffle puts the stand-ins of the new
stock's slots in place.  The seat's :func:`view` holds real cards only.

A move goes in two steps on both seats, with the private-deck messages
exchanged in between: :meth:`SeatGame.begin` tells the deck what is played
(and that a stack completes), then, once the played card is shown and any
reshuffle made, :meth:`SeatGame.finish` applies the move to the engine and
tells the deck which cards were drawn.
"""

from __future__ import annotations

import copy

from ..engine import CENTER, HAND, PAYOFF, GameState, Move, PlayerView, Stream, view
from ..engine.cards import Card
from .deck import FairDeck
from .errors import OrderError
from .scheme import DECK

HIDDEN = 1000  # the stand-in for the card in slot s is HIDDEN + s (card ids are 0..103)


class _SlotStream(Stream):
    """SPEC's stream of the game (the starter on equal tops); the engine's k-th
    reshuffle of the stock takes the stand-ins of the slots the k-th joint
    shuffle made (the deck may already have drawn from that stock: a copy of
    the state tried a move ahead of the engine)."""

    __slots__ = ("deck", "used")

    def __init__(self, seed: bytes, game: int, deck: FairDeck) -> None:
        super().__init__(seed, game)
        self.deck = deck
        self.used = 0

    def copy(self) -> _SlotStream:
        return copy.copy(self)

    def shuffle(self, items: list[Card]) -> None:
        k = self.used + 1
        rounds = self.deck.rounds
        if k >= len(rounds) or len(rounds[k].passes) < 2 or len(rounds[k].slots) != len(items):
            raise OrderError("the engine reshuffles a stock the private deck has not made")
        self.used = k
        items[:] = [HIDDEN + s for s in rounds[k].slots]


class SeatGame:
    """Seat ``deck.seat``'s game, once ``deck`` has dealt and shown the deal."""

    def __init__(self, deck: FairDeck, seed: bytes) -> None:
        if not deck.settled:
            raise OrderError("the deal is not shown yet")
        self.deck = deck
        self.seat = deck.seat
        layout = [self._card_or_standin(s) for s in range(DECK)]
        self.state = GameState.from_layout(layout, deck.head.game, _SlotStream(seed, deck.head.game, deck))
        self._move: Move | None = None
        self._played: tuple[int, Card] | None = None

    def _card_or_standin(self, slot: int) -> Card:
        card = self.deck.card(slot)
        return HIDDEN + slot if card is None else card

    def _refresh(self) -> None:
        self.refresh(self.state)

    def refresh(self, st: GameState) -> None:
        """Put every card the deck has shown since in place of its stand-in
        (in this seat's state, or a copy of it)."""
        for pile in st.hands:
            for i, c in enumerate(pile):
                if c >= HIDDEN:
                    pile[i] = self._card_or_standin(c - HIDDEN)
        for pile in st.payoff:
            if pile and pile[-1] >= HIDDEN:
                pile[-1] = self._card_or_standin(pile[-1] - HIDDEN)

    def view(self) -> PlayerView:
        """What this seat sees (call when the deck is settled)."""
        self._refresh()
        return view(self.state, self.seat)

    def slot_of(self, move: Move) -> int | None:
        """The slot of the hand card this seat plays (its move message carries it)."""
        return self.deck.slot_of(move.arg) if move.source == HAND and move.arg is not None else None

    def begin(self, move: Move, slot: int | None = None) -> None:
        """Tell the deck about ``move`` (the seat's own or the peer's, on both
        seats alike); ``slot`` is the played hand card's slot."""
        if self._move is not None:
            raise OrderError("a move is already under way")
        if self.state.result is not None:
            raise OrderError("the game is over")
        self._refresh()
        seat, source, arg, target, index = move
        if source == HAND:
            if slot is None or type(arg) is not int:
                raise OrderError("a hand move needs its card and its slot")
            self.deck.play_hand(seat, slot, target, index)
            self._played = (slot, arg)
        elif source == PAYOFF:
            self.deck.play_payoff(seat, index)
        else:
            assert arg is not None
            self.deck.play_side(seat, arg, index)
        if target == CENTER and 0 <= index < 3 and len(self.state.center[index]) == 11:
            self.deck.complete(index)
        self._move = move

    def finish(self) -> None:
        """Apply the move begun, once its card is shown and any reshuffle made:
        the engine checks it, then the deck learns the draws.  A move the
        engine refuses (IllegalMoveError, or OrderError for a card its slot
        does not hold) leaves the deck a move ahead of the engine: like any
        illegal move from the peer, it ends the match."""
        move, played = self._move, self._played
        if move is None:
            raise OrderError("no move under way")
        st = self.state
        seat = move.seat
        if played is not None:
            slot, card = played
            shown = self.deck.card(slot)
            if shown is None:
                raise OrderError(f"slot {slot} is not shown yet")
            if shown != card:
                raise OrderError(f"the move names card {card}, but slot {slot} holds card {shown}")
            hand = st.hands[seat]
            if HIDDEN + slot in hand:
                hand[hand.index(HIDDEN + slot)] = card
        self._refresh()
        before = [h[:] for h in st.hands]
        st.apply(move)
        self._move = self._played = None
        if played is not None:
            before[seat].remove(played[1])
        for s in (0, 1):
            for stand_in in st.hands[s][len(before[s]) :]:
                slot = self.deck.draw(s)
                if stand_in != HIDDEN + slot:  # the engine and the deck disagree: a bug, not a peer
                    raise AssertionError(f"engine drew {stand_in}, the deck slot {slot}")
        if st.result is not None:
            self.deck.end()
