"""Why the rules refuse an action, as small frozen types with the position's facts.

The engine raises :class:`~.state.IllegalMoveError` with one of these as its
``why``; whoever shows it to a person words it from the facts
(:mod:`p2p_spite.ui.words`), in the player's terms.  Each type's ``str()`` is
the engine's own plain sentence, 0-based as in the record: what a log, a
record's error or a refusal sent to the peer says (those bytes are part of the
protocol's documents, so the sentences do not change).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import RANK_WORDS, Card, card_str


class Illegal:
    """Base of every reason the rules refuse an action."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class GameIsOver(Illegal):
    def __str__(self) -> str:
        return "the game is over"


@dataclass(frozen=True, slots=True)
class MatchIsOver(Illegal):
    def __str__(self) -> str:
        return "the match is over"


@dataclass(frozen=True, slots=True)
class NotAMove(Illegal):
    """Not five items ``[seat, source, arg, target, index]``."""

    def __str__(self) -> str:
        return "a move is [seat, source, arg, target, index]"


@dataclass(frozen=True, slots=True)
class NoSuchSeat(Illegal):
    seat: object

    def __str__(self) -> str:
        return f"seat must be 0 or 1, not {self.seat!r}"


@dataclass(frozen=True, slots=True)
class NotYourTurn(Illegal):
    """``seat`` moved while ``turn`` is on turn."""

    turn: int
    seat: int

    def __str__(self) -> str:
        return f"it is seat {self.turn}'s turn, not seat {self.seat}'s"


@dataclass(frozen=True, slots=True)
class PlaysForOther(Illegal):
    """``seat`` sent a move of ``mover``."""

    seat: int
    mover: int

    def __str__(self) -> str:
        return f"seat {self.seat} cannot play for seat {self.mover}"


@dataclass(frozen=True, slots=True)
class NotTheAuthor(Illegal):
    """An action entered by a seat off turn: only ``turn`` enters the next one."""

    turn: int

    def __str__(self) -> str:
        return f"it is seat {self.turn}'s turn: only seat {self.turn} enters the next action"


@dataclass(frozen=True, slots=True)
class NoSuchCenter(Illegal):
    index: object

    def __str__(self) -> str:
        return f"center index must be 0..2, not {self.index!r}"


@dataclass(frozen=True, slots=True)
class NoSuchSide(Illegal):
    index: object

    def __str__(self) -> str:
        return f"side stack index must be 0..3, not {self.index!r}"


@dataclass(frozen=True, slots=True)
class NotInHand(Illegal):
    card: object  # the move's arg: a card id 0..103 when it is one
    seat: int

    def __str__(self) -> str:
        c = self.card
        name = f"card {c} ({card_str(c)})" if type(c) is int and 0 <= c < 104 else f"card {c!r}"
        return f"{name} is not in seat {self.seat}'s hand"


@dataclass(frozen=True, slots=True)
class PayoffArg(Illegal):
    """A pay-off move whose arg is not null."""

    arg: object

    def __str__(self) -> str:
        return f"a pay-off move has arg null, not {self.arg!r}"


@dataclass(frozen=True, slots=True)
class EmptyPayoff(Illegal):
    seat: int

    def __str__(self) -> str:
        return f"the pay-off pile of seat {self.seat} is empty"


@dataclass(frozen=True, slots=True)
class EmptySide(Illegal):
    seat: int
    stack: int

    def __str__(self) -> str:
        return f"side stack {self.stack} of seat {self.seat} is empty"


@dataclass(frozen=True, slots=True)
class DoesNotFit(Illegal):
    """``card`` cannot go on center ``center``, which needs rank ``needs`` (1 Ace .. 12 Queen) or a King."""

    card: Card
    center: int
    needs: int

    def __str__(self) -> str:
        return (
            f"{card_str(self.card)} does not fit center {self.center}, "
            f"which needs {RANK_WORDS[self.needs - 1]} or a King"
        )


@dataclass(frozen=True, slots=True)
class OnlyHandToSide(Illegal):
    def __str__(self) -> str:
        return "only a hand card may go on a side stack"


@dataclass(frozen=True, slots=True)
class UnknownSource(Illegal):
    source: object

    def __str__(self) -> str:
        return f"unknown source {self.source!r}"


@dataclass(frozen=True, slots=True)
class UnknownTarget(Illegal):
    target: object

    def __str__(self) -> str:
        return f"unknown target {self.target!r}"


class NoTakeback(Illegal):
    """Base of the reasons a move cannot be taken back (``undo``): only a move of the
    turn under way that showed its mover no card may be."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class NothingToTakeBack(NoTakeback):
    """The seat on turn has made no move this turn (or none this side knows of)."""

    def __str__(self) -> str:
        return "there is no move of this turn to take back"


@dataclass(frozen=True, slots=True)
class EndedTurn(NoTakeback):
    """The last move was the discard that ended the turn."""

    def __str__(self) -> str:
        return "the discard ended the turn"


@dataclass(frozen=True, slots=True)
class ShowedPayoff(NoTakeback):
    """The last move played the pay-off top, and so turned up the next card."""

    def __str__(self) -> str:
        return "the pay-off move turned up the next pay-off card"


@dataclass(frozen=True, slots=True)
class RefilledHand(NoTakeback):
    """The last move emptied the hand, which drew new cards."""

    def __str__(self) -> str:
        return "the move emptied the hand, which drew new cards"


@dataclass(frozen=True, slots=True)
class CompletedCenter(NoTakeback):
    """The last move completed center ``center``, shuffled into the stock."""

    center: int

    def __str__(self) -> str:
        return f"the move completed center {self.center}, which went into the stock"


@dataclass(frozen=True, slots=True)
class TakebackWaiting(NoTakeback):
    """A takeback asked for already waits for the other player's answer."""

    def __str__(self) -> str:
        return "a takeback already waits for the other player's answer"


@dataclass(frozen=True, slots=True)
class TooManyTakebacks(NoTakeback):
    """The turn's ``most`` takeback requests are used up."""

    most: int

    def __str__(self) -> str:
        return f"at most {self.most} takebacks can be asked for in one turn"


@dataclass(frozen=True, slots=True)
class TakebackOffline(NoTakeback):
    """The other player cannot be asked: the connection is down (or a catch-up goes on)."""

    def __str__(self) -> str:
        return "the other player cannot be asked now: the connection is down"


@dataclass(frozen=True, slots=True)
class DeckBusy(NoTakeback):
    """A private-deck match: an action is under way (announced, its cards being shown), so
    the move before it cannot be taken back now."""

    def __str__(self) -> str:
        return "the private deck is showing the cards of an action under way"


@dataclass(frozen=True, slots=True)
class Refused(Illegal):
    """A refusal by a layer above the rules (a session's own condition), in its words."""

    text: str

    def __str__(self) -> str:
        return self.text


__all__ = [
    "CompletedCenter",
    "DeckBusy",
    "DoesNotFit",
    "EmptyPayoff",
    "EmptySide",
    "EndedTurn",
    "GameIsOver",
    "Illegal",
    "MatchIsOver",
    "NoSuchCenter",
    "NoSuchSeat",
    "NoSuchSide",
    "NoTakeback",
    "NotAMove",
    "NotInHand",
    "NotTheAuthor",
    "NotYourTurn",
    "NothingToTakeBack",
    "OnlyHandToSide",
    "PayoffArg",
    "PlaysForOther",
    "RefilledHand",
    "Refused",
    "ShowedPayoff",
    "TakebackOffline",
    "TakebackWaiting",
    "TooManyTakebacks",
    "UnknownSource",
    "UnknownTarget",
]
