"""The tutorial's lessons (``p2p-spite learn``): prepared positions, their goals and checks.

Pure: no terminal, no session.  Each :class:`Lesson` is a position built through the
engine's own types (:meth:`GameState.from_position`), the moves that solve it (any
order the lesson allows, as whole sequences) and its words: the goal, the refusal of a
legal move that is off the lesson, and what the lesson taught once it is solved.  The
words name cards by placeholders (``{p}``: the pay-off card) that :meth:`Lesson.words`
fills with the interface's card labels, so a lesson reads like the board it is played on.

:class:`Tutor` plays one lesson: the engine refuses what the rules refuse (its own
reasons), the lesson refuses a legal move that leaves every solution, and the lesson is
done when the moves played make a whole solution.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product

from ..contracts.i18n import _
from ..engine import CENTER, HAND, PAYOFF, SIDE, Card, GameState, IllegalMoveError, Move, Played, Stream
from ..engine.cards import parse_card
from ..engine.moves import SIDE_STACKS
from ..engine.refusals import NothingToTakeBack, Refused

STUDENT = 0  # the seat the player has in every lesson (the computer, seat 1, never moves)
LESSON_SEED = b"p2p-spite learn: the stock order"  # the stock's order, fixed

Solution = tuple[Move, ...]


def _ids(text: str) -> list[Card]:
    """Card ids for names such as ``7S TC KH`` (each of the first deck)."""
    return [parse_card(name) for name in text.split()]


def _position(
    payoff: tuple[str, str],
    hand: str,
    centers: tuple[str, str, str] = ("", "", ""),
    sides: tuple[str, str, str, str] = ("", "", "", ""),
) -> GameState:
    """The student on turn: ``payoff`` (the student's, the computer's) and the piles given
    bottom to top; the computer holds five cards and the other cards make the stock, in an
    order fixed by :data:`LESSON_SEED`."""
    placed = [_ids(p) for p in payoff] + [_ids(hand)] + [_ids(c) for c in centers] + [_ids(s) for s in sides]
    used = {c for pile in placed for c in pile}
    rest = [c for c in range(104) if c not in used]
    stream = Stream(LESSON_SEED, 1)
    stream.shuffle(rest)
    other_hand, stock = rest[:5], rest[5:]
    return GameState.from_position(
        payoff=placed[0:2],
        hands=[placed[2], other_hand],
        sides=[placed[6:10], [[], [], [], []]],
        center=placed[3:6],
        stock=stock,
        turn=STUDENT,
        stream=stream,
    )


def _hand(card: str, center: int) -> Move:
    """The student's ``card`` (first deck) from the hand on center ``center`` (1-3)."""
    return Move(STUDENT, HAND, parse_card(card), CENTER, center - 1)


def _payoff(center: int) -> Move:
    return Move(STUDENT, PAYOFF, None, CENTER, center - 1)


def _discards(hand: Sequence[str]) -> list[Move]:
    """Every discard of these hand cards, on every side stack."""
    return [Move(STUDENT, HAND, parse_card(c), SIDE, s) for c, s in product(hand, range(SIDE_STACKS))]


@dataclass(frozen=True, slots=True)
class Lesson:
    """One lesson: ``start`` builds its position afresh; ``solutions``: the move
    sequences that solve it; ``goal``, ``off`` (a legal move off the lesson), ``done``:
    its words, already in the language spoken, with ``{name}`` placeholders for
    ``cards``; ``offs``: a wrong move that has words of its own."""

    title: str
    goal: str
    off: str
    done: str
    cards: dict[str, Card]
    start: Callable[[], GameState]
    solutions: tuple[Solution, ...]
    offs: tuple[tuple[Move, str], ...] = ()

    def words(self, text: str, label: Callable[[Card], str]) -> str:
        """``text`` (one of this lesson's) with its cards named by ``label``."""
        return text.format(**{k: label(c) for k, c in self.cards.items()})


def lessons() -> list[Lesson]:
    """The lessons in order, in the language spoken now."""
    c = parse_card
    return [
        Lesson(
            title=_("Play your pay-off card"),
            goal=_(
                "The top card of your pay-off pile, {p}, is your pay-off card: empty that pile "
                "to win the game. An empty center needs an Ace: play {p} there (type p c1)."
            ),
            off=_("this lesson is about your pay-off card: play {p} on an empty center (p c1)"),
            done=_(
                "Well done: your pay-off pile is one card shorter and its next card, {next}, "
                "shows. Play your pay-off card whenever it fits: that is how games are won."
            ),
            cards={"p": c("AH"), "next": c("5S")},
            start=lambda: _position(("6C 9D 5S AH", "4C TS 8H"), "3C 7D 9S JC QH"),
            solutions=tuple((_payoff(n),) for n in (1, 2, 3)),
        ),
        Lesson(
            title=_("Build a center"),
            goal=_(
                "Centers go up from Ace to Queen, in any suit. Center 1 stands at 2. Play {c3}, "
                "{c4} and {c5} from your hand on it, and then your pay-off card {p} fits."
            ),
            off=_(
                "build center 1 first: it needs a 3, then a 4 and a 5; a discard would end "
                "your turn before your pay-off card is played"
            ),
            done=_(
                "Four cards in one turn: your turn goes on as long as you play on the centers. "
                "Your own cards built the way for your pay-off card."
            ),
            cards={"c3": c("3H"), "c4": c("4C"), "c5": c("5D"), "p": c("6C")},
            start=lambda: _position(("TC 8D 6C", "4D JS 9C"), "3H 4C 5D 9S JH", ("AS 2D", "", "")),
            solutions=((_hand("3H", 1), _hand("4C", 1), _hand("5D", 1), _payoff(1)),),
        ),
        Lesson(
            title=_("A King as any card"),
            goal=_(
                "Center 1 needs a 4 and you have none. A King stands for any card: play {k} on "
                "center 1 as the 4, then {c5}, then your pay-off card {p}."
            ),
            off=_("put the King on center 1, where it stands for the 4 you are missing"),
            done=_(
                "The King counted as a 4. Kings are rare: keep them for the moment they open "
                "the way to your pay-off card."
            ),
            cards={"k": c("KS"), "c5": c("5H"), "p": c("6S")},
            start=lambda: _position(("QC 7H 6S", "3S TH 2H"), "KS 5H 8C 9D JD", ("AC 2C 3D", "", "")),
            solutions=((_hand("KS", 1), _hand("5H", 1), _payoff(1)),),
        ),
        Lesson(
            title=_("A complete center goes back to the stock"),
            goal=_(
                "Center 1 stands at a Jack. Play {q} on it: with twelve cards, Ace to Queen, "
                "the center is complete. Then play your pay-off card {p} on an empty center."
            ),
            off=_("play {q} on center 1 to complete it, and your pay-off card {p} on an empty center"),
            done=_(
                "A complete center is shuffled into the stock (its count grew by 12) and its "
                "place is empty again, ready for a new Ace."
            ),
            cards={"q": c("QD"), "p": c("AH")},
            start=lambda: _position(
                ("6H 2H AH", "7C 8H 4H"),
                "QD 7S 8D 9H TS",
                ("AC 2D 3H 4D 5C 6D 7H 8S 9C TD JH", "AS 2S 3S 4S", ""),
            ),
            solutions=(
                (_hand("QD", 1), _payoff(1)),
                (_hand("QD", 1), _payoff(3)),
                (_payoff(3), _hand("QD", 1)),
            ),
        ),
        Lesson(
            title=_("The discard that ends the turn"),
            goal=_(
                "Nothing you hold fits a center: each center shows the rank it needs. End "
                "your turn with a discard: put one card of your hand on one of your four side "
                "stacks (for example {c} s1)."
            ),
            off=_("end your turn with a discard: a hand card on a side stack"),
            done=_(
                "Your turn is over: a discard always ends it, and the computer plays next. "
                "Your hand is filled up to five cards from the stock when your turn comes again."
            ),
            cards={"c": c("9S")},
            start=lambda: _position(
                ("7C 2S 9H", "5S 8C QD"),
                "9S JC TD 8H QS",
                ("AC 2C 3C 4C", "AD 2D", "AH 2H 3H 4H 5H 6H"),
            ),
            solutions=tuple((m,) for m in _discards(("9S", "JC", "TD", "8H", "QS"))),
        ),
        Lesson(
            title=_("Use your side stacks well"),
            goal=_(
                "Nothing fits, so you discard {nine}. Only the top card of a side stack can be "
                "played: choose the stack where {nine} will not be in the way later."
            ),
            off=_(
                "put {nine} on {ten}, side stack 1: later the 9 plays first and then the 10 "
                "under it; on side stack 2 or 3 it would bury a card you need, and an empty "
                "stack is best kept for a card that fits nowhere"
            ),
            done=_(
                "Side stack 1 goes down 10, 9: on a center that needs a 9 both play one after "
                "the other. Discard a card one rank below a side stack's top, or on a card of "
                "its own rank."
            ),
            cards={"nine": c("9H"), "ten": c("TC")},
            start=lambda: _position(
                ("5D KC TH", "2H 8S JS"),
                "9H 4H JC QC 7D",
                ("AC 2C 3C 4C", "AS 2S 3S 4S 5S 6S 7S", "AD"),
                ("TC", "3D", "6H", ""),
            ),
            solutions=((Move(STUDENT, HAND, c("9H"), SIDE, 0),),),
        ),
        Lesson(
            title=_("Block your opponent"),
            goal=_(
                "The computer's pay-off card is {six}, and center 1 needs a 5. Play your pay-off "
                "card {p}, then end your turn with a discard, without giving the computer the 5 "
                "it waits for."
            ),
            off=_("first play your pay-off card {p} on center 2, then discard (keep {five} back)"),
            done=_(
                "Center 1 still needs a 5, so the computer cannot play its {six} there. Watch "
                "the other pay-off card: do not build a center to one below it if you can help it."
            ),
            cards={"six": c("6H"), "p": c("9D"), "five": c("5D")},
            start=lambda: _position(
                ("JC 3D 9D", "KH 6H"),
                "5D 8H QH 7D 2D",
                ("AH 2H 3H 4D", "AC 2C 3C 4C 5C 6C 7C 8C", "AS 2S 3S 4S 5S 6S 7S 8S 9S TS"),
            ),
            solutions=tuple((_payoff(2), m) for m in _discards(("5D", "8H", "QH", "7D", "2D"))),
            offs=(
                (
                    _hand("5D", 1),
                    _("{five} on center 1 would let the computer play its pay-off card {six} next"),
                ),
            ),
        ),
    ]


class Tutor:
    """One lesson under way (lesson ``number``: its game's number, as the board shows it):
    its game, the moves played, and whether it is solved."""

    def __init__(self, lesson: Lesson, number: int = 1) -> None:
        self.lesson = lesson
        self.number = number
        self.restart()

    def restart(self) -> None:
        """The lesson from its start again."""
        self.state = self.lesson.start()
        self.state.game = self.number
        self.played: list[Move] = []
        self._did: list[Played] = []  # what each move played did (a takeback tells it)

    @property
    def done(self) -> bool:
        return tuple(self.played) in self.lesson.solutions

    def _open(self) -> list[Solution]:
        """The solutions the moves so far begin."""
        n = len(self.played)
        return [s for s in self.lesson.solutions if len(s) > n and list(s[:n]) == self.played]

    def next_move(self) -> Move | None:
        """A move that keeps to the lesson (the hint), or None once it is done."""
        found = self._open()
        return found[0][len(self.played)] if found else None

    def off_lesson(self, move: Move) -> str | None:
        """Why the legal ``move`` is off the lesson (its words, placeholders unfilled), or
        None when it keeps to a solution."""
        n = len(self.played)
        if any(s[n] == move for s in self._open()):
            return None
        return next((text for wrong, text in self.lesson.offs if wrong == move), self.lesson.off)

    def play(self, move: Move, label: Callable[[Card], str]) -> Played:
        """Play ``move``: IllegalMoveError when the rules refuse it (their reason) or it is
        off the lesson (the lesson's words, cards named by ``label``); nothing changes then."""
        why = self.state.check(move)
        if why is not None:
            raise IllegalMoveError(move, why)
        off = self.off_lesson(move) if not self.done else _("this lesson is done")
        if off is not None:
            raise IllegalMoveError(move, Refused(self.lesson.words(off, label)))
        played = self.state.play(move)
        self.played.append(move)
        self._did.append(played)
        return played

    def take_back(self) -> Played:
        """Take back the last move (the lesson played again up to the one before it): what
        it had done; IllegalMoveError when no move was played."""
        if not self._did:
            raise IllegalMoveError([], NothingToTakeBack())
        last, keep = self._did[-1], self.played[:-1]
        self.restart()
        for move in keep:
            self._did.append(self.state.play(move))
            self.played.append(move)
        return last


__all__ = ["STUDENT", "Lesson", "Tutor", "lessons"]
