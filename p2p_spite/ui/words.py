"""Everything the interfaces say about the game, in one place: moves, what they
did, why the rules refuse one, how a game ended.

The engine says what happened as data (:class:`~p2p_spite.engine.Played`, the
reasons of :mod:`p2p_spite.engine.refusals`, :class:`~p2p_spite.engine.Result`);
this module puts it in the player's terms: players by name or as "you", stacks
counted from 1, cards as ``7♥``.  No English is parsed or edited anywhere else,
so this is also the one module a translation would replace.  No prompt_toolkit,
no session: data in, text out.
"""

from __future__ import annotations

from enum import StrEnum

from ..engine import CENTER, HAND, PAYOFF, SIDE, Card, EndReason, Move, Played, Result
from ..engine import refusals as no
from ..engine.cards import RANK_WORDS
from ..engine.state import STACK_COMPLETE
from ..session import LinkState
from .text import card_label, points

CARD_IDS = 104  # two decks: the engine's cards are 0..103
UNFINISHED = "unfinished: the record stops here"


class Style(StrEnum):
    """What a message line is, for its colour (the value names the style class ``msg.<value>``)."""

    ME = "me"  # a move of the player at the screen
    OPP = "opp"  # the opponent's move
    EVENT = "event"  # a game begins, ends, a center completes
    INFO = "info"
    ERROR = "error"
    CHAT = "chat"
    HELP = "help"


Said = tuple[Style, str]


class Voice:
    """How the interface speaks of the players: ``me`` is the seat at the screen
    ("you", "your"), or None for a record read by a third person (names only)."""

    def __init__(self, names: tuple[str, str], me: int | None = None) -> None:
        self.names = names
        self.me = me

    def who(self, seat: int) -> str:
        return "you" if seat == self.me else self.names[seat]

    def whose(self, seat: int) -> str:
        return "your" if seat == self.me else f"{self.names[seat]}'s"

    def Who(self, seat: int) -> str:
        """At the start of a sentence: ``You``, or the name as the player gave it."""
        return "You" if seat == self.me else self.names[seat]


# -- moves ----------------------------------------------------------------------------


def move_words(move: Move, card: Card, who: str) -> str:
    """Plain words: ``Bob played 7♥ from hand on center 2``."""
    if move.target == SIDE:
        return f"{who} discarded {card_label(card)} on side stack {move.slot + 1}"
    return f"{who} played {card_label(card)} {_from(move)} on center {move.slot + 1}"


def hint_words(move: Move, card: Card) -> str:
    """A suggested move as advice: ``play 7♥ from hand on center 1``."""
    if move.target == SIDE:
        return f"discard {card_label(card)} on side stack {move.slot + 1}"
    return f"play {card_label(card)} {_from(move)} on center {move.slot + 1}"


def choice_words(move: Move, card: Card | None) -> str:
    """A legal move as the completion menu describes it: ``7♥ to center 1``."""
    name = card_label(card) if card is not None else "?"
    if move.target == CENTER:
        return f"{name} to center {move.slot + 1}"
    return f"discard {name} on side {move.slot + 1}"


def _from(move: Move) -> str:
    stack = move.side_stack
    if stack is not None:
        return f"from side stack {stack + 1}"
    return "from pay-off" if move.source == PAYOFF else "from hand"


def effects(played: Played, voice: Voice) -> list[Said]:
    """What a move did beyond placing its card: a center completed and shuffled
    into the stock, a hand emptied and filled again, the turn passed."""
    m = played.move
    out: list[Said] = []
    if played.completed:
        out.append(
            (
                Style.EVENT,
                f"Center {m.slot + 1} is complete: its {STACK_COMPLETE} cards are shuffled into the stock "
                f"(now {played.stock}).",
            )
        )
    if played.result is not None:
        return out
    n = played.drew
    cards = f"{n} new card{'s' * (n != 1)}"
    if not played.turn_passed:
        if played.drawer == m.seat and n:
            if m.seat == voice.me:
                out.append((Style.INFO, f"Your hand was empty: you drew {cards}."))
            else:
                out.append((Style.INFO, f"{voice.Who(m.seat)} emptied their hand and drew {cards}."))
    elif played.turn == voice.me:
        extra = f" You drew {n} card{'s' * (n != 1)}." if played.drawer == voice.me and n else ""
        out.append((Style.INFO, f"Your turn.{extra}"))
    else:
        out.append((Style.INFO, f"{voice.names[played.turn]}'s turn."))
    return out


# -- refusals ---------------------------------------------------------------------------


def refusal(why: no.Illegal, move: Move | None, voice: Voice) -> str:
    """Why the rules refuse ``move``, in the player's terms (``why``: the engine's reason)."""
    match why:
        case no.DoesNotFit(card, center, needs):
            need = RANK_WORDS[needs - 1]
            return f"{_what(card, move, voice)} does not fit center {center + 1}: it needs {need} (or a King)"
        case no.NotYourTurn(turn, seat):
            if seat == voice.me:
                return "it is not your turn: wait for your opponent's discard"
            return f"it is {voice.whose(turn)} turn, not {voice.whose(seat)}"
        case no.NotInHand(card, seat) if type(card) is int and 0 <= card < CARD_IDS:
            return f"{card_label(card)} is not in {voice.whose(seat)} hand"
        case no.NotInHand(card, _):
            return f"there is no card {card!r} (a card is 0 to {CARD_IDS - 1})"
        case no.EmptySide(seat, stack):
            return f"{voice.whose(seat)} side stack {stack + 1} is empty"
        case no.EmptyPayoff(seat):
            return f"{voice.whose(seat)} pay-off pile is empty"
        case no.NoSuchCenter(index):
            return f"there is no center stack {_shown(index)}: 1 to 3"
        case no.NoSuchSide(index):
            return f"there is no side stack {_shown(index)}: 1 to 4"
        case no.NoSuchSeat(seat):
            return f"there is no seat {seat!r} (seats are 0 and 1)"
        case no.PlaysForOther(seat, mover):
            return f"{voice.who(seat)} cannot move for {voice.who(mover)}"
        case no.NotTheAuthor(turn):
            return f"only {voice.who(turn)}, on turn, can make the next action"
        case no.OnlyHandToSide():
            return "only a hand card can go on a side stack (it ends the turn)"
        case no.PayoffArg():
            return "a pay-off move names no card"
        case no.UnknownSource(source):
            return f"there is no place {source!r} to take a card from"
        case no.UnknownTarget(target):
            return f"there is no place {target!r} to put a card on"
        case no.NotAMove():
            return "that is not a move"
    return str(why)  # GameIsOver, MatchIsOver, and a session's own Refused words


def _what(card: Card, move: Move | None, voice: Voice) -> str:
    """The card a move plays, and from where: ``7♥ from your hand``."""
    if move is None:
        return card_label(card)
    whose = voice.whose(move.seat)
    if move.source == HAND:
        return f"{card_label(card)} from {whose} hand"
    if move.source == PAYOFF:
        return f"{whose} pay-off card {card_label(card)}"
    return f"{card_label(card)} from {whose} side stack {(move.side_stack or 0) + 1}"


def _shown(index: object) -> str:
    return str(index + 1) if type(index) is int else repr(index)


# -- a game's end ------------------------------------------------------------------------


def game_begins(game: int, starter: int, by_lot: bool, voice: Voice) -> str:
    """``Game 2 begins. You start (the higher pay-off card).``"""
    why = "equal pay-off cards, drawn by lot" if by_lot else "the higher pay-off card"
    starts = "start" if starter == voice.me else "starts"
    return f"Game {game} begins. {voice.Who(starter)} {starts} ({why})."


def game_goes_on(game: int, ply: int, turn: int, voice: Voice) -> str:
    """A resumed game: ``Game 2 goes on, 10 moves in: your turn.``"""
    return f"Game {game} goes on, {ply} move{'s' * (ply != 1)} in: {voice.whose(turn)} turn."


def match_over(winner: int | None, scores: tuple[int, int], voice: Voice) -> str:
    """``You win the match 50-31!``, ``Bob wins the match 52-40.``, ``The match stopped at 12-30.``
    (scores the winner's first, or the player's own when nobody won)."""
    me = voice.me if voice.me is not None else 0
    if winner is None:
        return f"The match stopped at {scores[me]}-{scores[1 - me]}."
    if winner == voice.me:
        return f"You win the match {scores[winner]}-{scores[1 - winner]}!"
    return f"{voice.names[winner]} wins the match {scores[winner]}-{scores[1 - winner]}."


def game_result(result: Result | None, voice: Voice) -> str:
    """How a game ended, in one clause: ``Ann won: Bob resigned, 7 points``,
    ``you won: the pay-off pile emptied, 12 points``, ``a draw: the stock ran
    out, nobody scores`` (None: it did not end, the record stops)."""
    if result is None:
        return UNFINISHED
    w = result.winner
    if w is None:
        return "a draw: the stock ran out, nobody scores"
    if result.reason is EndReason.RESIGN:
        return f"{voice.who(w)} won: {voice.who(1 - w)} resigned, {points(result.points)}"
    return f"{voice.who(w)} won: the pay-off pile emptied, {points(result.points)}"


def game_over(game: int, result: Result, voice: Voice) -> str:
    """The line that ends a game: ``Game 2: you won: Bob resigned, 7 points.``"""
    return f"Game {game}: {game_result(result, voice)}."


def short_status(result: Result | None, voice: Voice) -> str:
    """A game's end in a word or two, for a board's header: ``Ann won``, ``Bob resigned``."""
    if result is None:
        return "unfinished"
    if result.winner is None:
        return "draw"
    if result.reason is EndReason.RESIGN:
        return f"{voice.who(1 - result.winner)} resigned"
    return f"{voice.who(result.winner)} won"


_CONNECTION = {
    LinkState.CONNECTED: "Connected.",
    LinkState.RECONNECTING: "Connection lost: reconnecting...",
    LinkState.LOST: "The connection is lost.",
    LinkState.CLOSED: "The connection is closed.",
}


def connection_words(state: LinkState, detail: str = "") -> str:
    """``Connection lost: reconnecting... (redialing in 2 s)``."""
    return _CONNECTION[state] + (f" ({detail})" if detail else "")


def deck_proven(voice: Voice) -> str:
    """The line after a private-deck game's end (``GameEnded.deck_proven``), said to the
    seat ``voice.me``: ``Private deck: every shuffle proven; Bob saw none of your hidden cards.``"""
    me = voice.me if voice.me is not None else 0
    return f"Private deck: every shuffle proven; {voice.names[1 - me]} saw none of your hidden cards."


def scores_line(scores: tuple[int, int], voice: Voice) -> str:
    if voice.me is None:
        return f"scores: {voice.names[0]} {scores[0]}, {voice.names[1]} {scores[1]}"
    me = voice.me
    return f"Scores: you {scores[me]}, {voice.names[1 - me]} {scores[1 - me]}."


__all__ = [
    "UNFINISHED",
    "Said",
    "Style",
    "Voice",
    "choice_words",
    "connection_words",
    "deck_proven",
    "effects",
    "game_begins",
    "game_goes_on",
    "game_over",
    "game_result",
    "hint_words",
    "match_over",
    "move_words",
    "refusal",
    "scores_line",
    "short_status",
]
