"""One game of Spite & Malice: the state, its legal moves and how moves apply.

The state is mutable, like python-chess's ``Board``: :meth:`GameState.apply`
checks a move completely before it touches anything, so an illegal move
raises :class:`IllegalMoveError` and leaves the state exactly as it was.
Use :meth:`GameState.copy` to branch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from . import refusals as no
from .cards import Card, rank
from .moves import CENTER, CENTER_STACKS, HAND, PAYOFF, SIDE, SIDE_STACKS, Move, as_move
from .refusals import Illegal
from .rng import Stream
from .rules import generate_moves, judge

HAND_SIZE = 5
PAYOFF_SIZE = 20
STACK_COMPLETE = 12


class EndReason(StrEnum):
    """How a game ended (the record's ``"reason"``: the same words)."""

    PAYOFF = "payoff"  # a pay-off pile emptied: its player won
    RESIGN = "resign"  # a player resigned: the other won
    STOCK = "stock"  # the stock ran out: a draw


WIN_PAYOFF = EndReason.PAYOFF
WIN_RESIGN = EndReason.RESIGN
DRAW_STOCK = EndReason.STOCK


_MOVE_TYPES = (list, Move, tuple)  # the record's lists first: replay --check


class Result(NamedTuple):
    """How a game ended: ``winner`` is a seat, or None for a draw."""

    winner: int | None
    points: int
    reason: EndReason

    def key(self) -> tuple[int | None, int, str]:
        """The plain values (the reason as its word), as the state digest covers them."""
        return (self.winner, self.points, self.reason.value)

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "points": self.points, "reason": self.reason.value}

    def describe(self) -> str:
        """The engine's plain sentence, seats 0-based as in the record (what a record's
        error says; a player reads :func:`p2p_spite.ui.words.game_result`)."""
        if self.winner is None:
            return "a draw (the stock ran out)"
        how = "played out the pay-off pile" if self.reason == WIN_PAYOFF else "won by resignation"
        return f"seat {self.winner} {how}, {self.points} points"


class RulesError(Exception):
    """Base of the errors the engine raises."""


class IllegalMoveError(RulesError, ValueError):
    """An action the rules refuse: ``why`` says why as data (:mod:`.refusals`),
    ``reason`` is its plain sentence.  ``why`` given as text is a layer above
    the rules refusing in its own words (:class:`~.refusals.Refused`)."""

    def __init__(self, move: Sequence[Any], why: Illegal | str) -> None:
        self.move = list(move) if isinstance(move, (list, tuple)) else move
        self.why: Illegal = no.Refused(why) if isinstance(why, str) else why
        self.reason = str(self.why)
        super().__init__(f"illegal move {self.move}: {self.reason}")


@dataclass(frozen=True, slots=True)
class Played:
    """What a move did: its card, a center completed (its twelve cards shuffled into
    the stock), the cards drawn into a hand (``drawer``'s, ``drew`` of them), who
    is on turn now (the other seat after a discard) and the game's end, if it came;
    ``at``: where a hand card was in the hand (what taking the move back needs)."""

    move: Move
    card: Card
    completed: bool  # the center played on reached a Queen and went into the stock
    drawer: int | None  # the seat that drew (its hand emptied, or the turn came to it)
    drew: int
    turn: int
    stock: int  # the cards left in the stock after the move
    result: Result | None
    at: int | None = None  # a hand card's place in the hand it left (None: not from the hand)

    @property
    def turn_passed(self) -> bool:
        return self.move.target == SIDE


class GameOverError(RulesError):
    """An action on a game that has already ended."""


class GameState:
    """Everything about one game.  Every pile is a list whose last item is its top."""

    __slots__ = (
        "game",
        "stream",
        "payoff",
        "hands",
        "sides",
        "center",
        "stock",
        "starter",
        "by_lot",
        "turn",
        "ply",
        "result",
    )

    game: int
    stream: Stream
    payoff: list[list[Card]]
    hands: list[list[Card]]
    sides: list[list[list[Card]]]
    center: list[list[Card]]
    stock: list[Card]
    starter: int
    by_lot: bool  # the pay-off tops dealt were of one rank: the starter was drawn by lot
    turn: int
    ply: int
    result: Result | None

    @classmethod
    def deal(cls, seed: bytes, game: int = 1) -> GameState:
        """The fresh deal of game ``game`` of the match with ``seed`` (SPEC 2)."""
        stream = Stream(seed, game)
        deck = list(range(104))
        stream.shuffle(deck)
        return cls.from_layout(deck, game, stream)

    @classmethod
    def from_deck(cls, deck: Sequence[Card], game: int, stream: Stream) -> GameState:
        """Game ``game`` dealt from ``deck`` in SPEC 2's layout; ``stream`` breaks a
        tie for the start and shuffles the stock.  :meth:`deal` shuffles the deck
        with the seeded stream first; a private deck (docs/fairness.md) gives
        the order the players' joint shuffle made."""
        if sorted(deck) != list(range(104)):
            raise ValueError("a deck holds each card id 0..103 exactly once")
        return cls.from_layout(list(deck), game, stream)

    @classmethod
    def from_layout(cls, deck: list[Card], game: int, stream: Stream) -> GameState:
        """:meth:`from_deck` without its check: the caller vouches for ``deck``
        (a seat's private table puts stand-ins there for the cards it cannot
        see, fairdeck/table.py; the two pay-off tops must be real cards)."""
        s = cls.__new__(cls)
        s.game = game
        s.stream = stream
        p, h = PAYOFF_SIZE, HAND_SIZE  # SPEC 2: the pay-off piles, the hands, then the stock
        s.payoff = [deck[0:p], deck[p : 2 * p]]
        s.hands = [deck[2 * p : 2 * p + h], deck[2 * p + h : 2 * p + 2 * h]]
        s.sides = [[[] for _ in range(SIDE_STACKS)] for _ in range(2)]
        s.center = [[] for _ in range(CENTER_STACKS)]
        s.stock = deck[2 * p + 2 * h :]
        r0, r1 = rank(s.payoff[0][-1]), rank(s.payoff[1][-1])
        s.by_lot = r0 == r1
        s.starter = 0 if r0 > r1 else 1 if r1 > r0 else stream.below(2)
        s.turn = s.starter
        s.ply = 0
        s.result = None
        s._refill(s.turn)
        return s

    @classmethod
    def from_position(
        cls,
        *,
        payoff: Sequence[Sequence[Card]],
        hands: Sequence[Sequence[Card]],
        sides: Sequence[Sequence[Sequence[Card]]],
        center: Sequence[Sequence[Card]],
        stock: Sequence[Card],
        turn: int,
        stream: Stream,
        game: int = 1,
        starter: int | None = None,
        ply: int = 0,
    ) -> GameState:
        """A game in progress, every pile given bottom to top (a hand in any order),
        ``turn`` on turn: a position built by hand (tests, puzzles) or a world a
        bot imagines behind a view (:func:`~.view.world_from_view`).  The piles' shapes are
        checked (two pay-offs and hands, four side stacks a seat, three centers
        of at most eleven cards), not that they hold 104 cards."""
        if len(payoff) != 2 or len(hands) != 2 or len(sides) != 2 or len(center) != CENTER_STACKS:
            raise ValueError(
                "a position has two pay-off piles, two hands, two seats' sides and three centers"
            )
        if any(len(sd) != SIDE_STACKS for sd in sides) or any(len(c) >= STACK_COMPLETE for c in center):
            raise ValueError("each seat has four side stacks; a center holds at most eleven cards")
        if turn not in (0, 1) or not payoff[turn]:
            raise ValueError("the seat on turn is 0 or 1, with a pay-off pile not empty")
        s = cls.__new__(cls)
        s.game = game
        s.stream = stream
        s.payoff = [list(p) for p in payoff]
        s.hands = [list(h) for h in hands]
        s.sides = [[list(st) for st in sd] for sd in sides]
        s.center = [list(c) for c in center]
        s.stock = list(stock)
        s.starter = turn if starter is None else starter
        s.by_lot = False
        s.turn = turn
        s.ply = ply
        s.result = None
        return s

    def copy(self) -> GameState:
        s = GameState.__new__(GameState)
        s.game = self.game
        s.stream = self.stream.copy()
        s.payoff = [p[:] for p in self.payoff]
        s.hands = [h[:] for h in self.hands]
        s.sides = [[st[:] for st in sd] for sd in self.sides]
        s.center = [c[:] for c in self.center]
        s.stock = self.stock[:]
        s.starter = self.starter
        s.by_lot = self.by_lot
        s.turn = self.turn
        s.ply = self.ply
        s.result = self.result
        return s

    # -- queries -------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.result is not None

    def payoff_top(self, seat: int) -> Card | None:
        pile = self.payoff[seat]
        return pile[-1] if pile else None

    def side_tops(self, seat: int) -> list[Card | None]:
        return [st[-1] if st else None for st in self.sides[seat]]

    def legal_moves(self) -> list[Move]:
        """The moves the seat to move may make now (none once the game is over)."""
        if self.result is not None:
            return []
        seat = self.turn
        return generate_moves(
            seat,
            self.hands[seat],
            self.payoff_top(seat),
            self.side_tops(seat),
            [len(c) for c in self.center],
        )

    def card_count(self) -> int:
        """All cards in play; 104 whenever the engine is right."""
        return (
            sum(len(p) for p in self.payoff)
            + sum(len(h) for h in self.hands)
            + sum(len(st) for sd in self.sides for st in sd)
            + sum(len(c) for c in self.center)
            + len(self.stock)
        )

    def digest(self) -> bytes:
        """A SHA-256 of the whole state, for peers to compare (desync check)."""
        # every pile as the byte 255 and then its cards (0..103, so 255 separates them)
        sd = self.sides
        piles = (*self.payoff, *self.hands, *sd[0], *sd[1], *self.center, self.stock)
        return hashlib.sha256(
            b"".join(
                (
                    self.game.to_bytes(4, "big"),
                    bytes((self.turn, self.starter)),
                    self.stream.index.to_bytes(8, "big"),
                    repr(self.result.key() if self.result else None).encode(),
                    b"\xff",
                    b"\xff".join(map(bytes, piles)),
                )
            )
        ).digest()

    def card_of(self, move: Move) -> Card:
        """The card ``move`` would place (the move is taken as legal now)."""
        if move.source == HAND:
            assert move.arg is not None
            return move.arg
        if move.source == PAYOFF:
            return self.payoff[move.seat][-1]
        assert move.arg is not None
        return self.sides[move.seat][move.arg][-1]

    def check(self, move: Sequence[Any]) -> Illegal | None:
        """Why ``move`` is illegal now, or None if it is legal."""
        if self.result is not None:
            return no.GameIsOver()
        found = self._judge(move)
        return found if isinstance(found, Illegal) else None

    # -- changes -------------------------------------------------------------

    def _judge(self, move: Sequence[Any]) -> Illegal | Card:
        turn = self.turn
        return judge(
            move,
            turn,
            self.hands[turn],
            self.payoff_top(turn),
            self.side_tops(turn),
            [len(c) for c in self.center],
        )

    def _resolve(self, move: Sequence[Any]) -> tuple[Card, list[Card] | None]:
        """Check ``move`` fully; give its card and the pile it leaves (None: the hand)."""
        if self.result is not None:
            raise IllegalMoveError(move, no.GameIsOver())
        found = self._judge(move)
        if isinstance(found, Illegal):
            raise IllegalMoveError(move, found)
        source = move[1]
        if source == HAND:
            return found, None
        if source == PAYOFF:
            return found, self.payoff[self.turn]
        return found, self.sides[self.turn][move[2]]

    def apply(self, move: Sequence[Any]) -> None:
        """Play ``move`` (a Move or its 5-item record form) for the seat to move.

        Raises IllegalMoveError, with the state untouched, if the rules refuse it.
        """
        # The common moves are checked and played inline (replay --check and the
        # bots' search spend their time here); anything else, legal or not, goes
        # through _resolve, which checks everything and names the reason.  The
        # inline checks only ever send a move on to _resolve, never accept one it
        # would refuse: ``seat is turn`` holds only for the int 0 or 1 on turn
        # (small ints are one object each), and a seat that is equal but not
        # identical takes the full check.
        if self.result is None and type(move) in _MOVE_TYPES and len(move) == 5:
            seat, source, arg, target, index = move
            turn = self.turn
            if seat is turn and type(index) is int:
                if source == HAND:
                    hand = self.hands[turn]
                    if type(arg) is int and arg in hand:
                        if target == CENTER:
                            if 0 <= index < CENTER_STACKS:
                                stack = self.center[index]
                                r = arg % 13
                                if r == 12 or r == len(stack):
                                    hand.remove(arg)
                                    self.ply += 1
                                    stack.append(arg)
                                    if len(stack) == STACK_COMPLETE:
                                        self._complete(stack)
                                    if not hand:
                                        self._refill(turn)
                                    return
                        elif target == SIDE and 0 <= index < SIDE_STACKS:
                            hand.remove(arg)
                            self.ply += 1
                            self.sides[turn][index].append(arg)
                            self.turn = other = 1 - turn
                            hand = self.hands[other]
                            need = HAND_SIZE - len(hand)
                            stock = self.stock
                            if 0 < need <= len(stock):
                                hand.extend(stock[: -need - 1 : -1])  # one stock.pop() after another
                                del stock[-need:]
                            elif need > 0:
                                self._refill(other)
                            return
                elif source == SIDE and target == CENTER and type(arg) is int and 0 <= arg < SIDE_STACKS:
                    pile = self.sides[turn][arg]
                    if pile and 0 <= index < CENTER_STACKS:
                        stack = self.center[index]
                        if (r := pile[-1] % 13) == 12 or r == len(stack):
                            self.ply += 1
                            stack.append(pile.pop())
                            if len(stack) == STACK_COMPLETE:
                                self._complete(stack)
                            return
                elif source == PAYOFF and target == CENTER and arg is None and 0 <= index < CENTER_STACKS:
                    pile = self.payoff[turn]
                    stack = self.center[index]
                    if pile and ((r := pile[-1] % 13) == 12 or r == len(stack)):
                        self.ply += 1
                        stack.append(pile.pop())
                        if len(stack) == STACK_COMPLETE:
                            self._complete(stack)
                        if not pile:
                            self.result = Result(turn, len(self.payoff[1 - turn]), WIN_PAYOFF)
                        elif not self.hands[turn]:
                            self._refill(turn)
                        return
        card, from_pile = self._resolve(move)
        self._play(move, card, from_pile)

    def play(self, move: Sequence[Any]) -> Played:
        """:meth:`apply` ``move`` and return what it did (IllegalMoveError, the state
        untouched, if the rules refuse it).  The drivers that show or tell moves use
        this one; a search that only needs the position uses :meth:`apply`."""
        card, from_pile = self._resolve(move)
        seat = self.turn
        target, index = move[3], move[4]
        was = len(self.center[index]) if target == CENTER else 0
        counts = (len(self.hands[0]), len(self.hands[1]))
        at = self.hands[seat].index(card) if from_pile is None else None
        self._play(move, card, from_pile)
        drawer: int | None = None
        drew = 0
        for s in (0, 1):
            gained = len(self.hands[s]) - (counts[s] - (from_pile is None and s == seat))
            if gained > 0:
                drawer, drew = s, gained
        completed = target == CENTER and was == STACK_COMPLETE - 1
        return Played(
            as_move(move), card, completed, drawer, drew, self.turn, len(self.stock), self.result, at
        )

    def _to_center(self, stack: list[Card], card: Card) -> None:
        stack.append(card)
        if len(stack) == STACK_COMPLETE:
            self._complete(stack)

    def _complete(self, stack: list[Card]) -> None:
        """A center stack reached twelve cards: it goes into the stock, which is shuffled."""
        self.stock.extend(stack)
        stack.clear()
        self.stream.shuffle(self.stock)

    def _play(self, move: Sequence[Any], card: Card, pile: list[Card] | None) -> None:
        """Play a move _resolve accepted: ``card`` leaves ``pile`` (None: the hand)."""
        seat = self.turn
        hand = self.hands[seat]
        index = move[4]
        if pile is None:
            hand.remove(card)
        else:
            pile.pop()
        self.ply += 1
        if move[3] == SIDE:
            self.sides[seat][index].append(card)
            self.turn = other = 1 - seat
            self._refill(other)
            return
        self._to_center(self.center[index], card)
        if pile is not None and not pile and pile is self.payoff[seat]:
            self.result = Result(seat, len(self.payoff[1 - seat]), WIN_PAYOFF)
        elif not hand:
            self._refill(seat)

    def check_resign(self, seat: int, author: int) -> Illegal | None:
        """Why ``seat``'s resignation, entered by ``author``, is not allowed now (None: it is).

        A player may resign at any time (SPEC section 1).  The order of events is
        kept by one rule: the next action of a game is always entered by the player
        on turn.  So the player on turn resigns by themselves; the other player's
        resignation is entered by the player on turn, as their next action (over the
        network, at the resigner's request: docs/protocol.md)."""
        if self.result is not None:
            return no.GameIsOver()
        if seat not in (0, 1) or author not in (0, 1):
            return no.NoSuchSeat(seat)
        if author != self.turn:
            return no.NotTheAuthor(self.turn)
        return None

    def resign(self, seat: int) -> Result:
        """Seat ``seat`` resigns: the opponent wins the cards left in its pay-off."""
        if self.result is not None:
            raise GameOverError("the game is already over")
        if type(seat) is not int or seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, not {seat!r}")
        self.result = Result(1 - seat, len(self.payoff[seat]), WIN_RESIGN)
        return self.result

    def _refill(self, seat: int) -> None:
        hand, stock = self.hands[seat], self.stock
        need = HAND_SIZE - len(hand)
        if need <= 0:
            return
        if need <= len(stock):
            hand.extend(stock[: -need - 1 : -1])  # one stock.pop() after another
            del stock[-need:]
            return
        hand.extend(reversed(stock))
        stock.clear()
        self.result = Result(None, 0, DRAW_STOCK)

    def __repr__(self) -> str:
        return (
            f"<GameState game={self.game} ply={self.ply} turn={self.turn} "
            f"payoff={len(self.payoff[0])}/{len(self.payoff[1])} stock={len(self.stock)} "
            f"center={[len(c) for c in self.center]} result={self.result}>"
        )
