"""Everything the interfaces say about the game, in one place: moves, what they
did, why the rules refuse one, how a game ended.

The engine says what happened as data (:class:`~p2p_spite.engine.Played`, the
reasons of :mod:`p2p_spite.engine.refusals`, :class:`~p2p_spite.engine.Result`);
this module puts it in the player's terms: players by name or as "you", stacks
counted from 1, cards as ``7♥``.  No English is parsed or edited anywhere else.
Each sentence is one whole message of the catalogs (:mod:`p2p_spite.contracts.i18n`), with
a message of its own for "you" and for a name (a language may conjugate, or
decline, them differently): no sentence is assembled from translated pieces.
No prompt_toolkit, no session: data in, text out.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from ..contracts.i18n import _, ngettext
from ..contracts.news import News, PeerLeft
from ..contracts.session import EndCause, Ending, LinkState, Rematch
from ..engine import CENTER, HAND, PAYOFF, SIDE, Card, EndReason, Move, Played, Result
from ..engine import refusals as no
from ..engine.state import STACK_COMPLETE
from .networds import news_words
from .text import card_label, points

if TYPE_CHECKING:
    from ..bots.reasons import Explanation, Reason
    from ..bots.review import HintReason

CARD_IDS = 104  # two decks: the engine's cards are 0..103


def unfinished() -> str:
    return _("unfinished: the record stops here")


def rank_needed_words(rank: int) -> str:
    """The rank a center needs, as a sentence ends with it: ``an Ace``, ``a 7``, ``a Queen``."""
    return (
        _("an Ace"),
        _("a 2"),
        _("a 3"),
        _("a 4"),
        _("a 5"),
        _("a 6"),
        _("a 7"),
        _("an 8"),
        _("a 9"),
        _("a 10"),
        _("a Jack"),
        _("a Queen"),
        _("a King"),
    )[rank - 1]


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

    def is_me(self, seat: int) -> bool:
        return seat == self.me


# -- moves ----------------------------------------------------------------------------


def move_words(move: Move, card: Card, who: str, me: bool = False) -> str:
    """Plain words: ``Bob played 7♥ from hand on center 2`` (``me``: the player at the screen)."""
    c, n = card_label(card), move.slot + 1
    if move.target == SIDE:
        if me:
            return _("You discarded {card} on side stack {n}").format(card=c, n=n)
        return _("{who} discarded {card} on side stack {n}").format(who=who, card=c, n=n)
    stack = move.side_stack
    if stack is not None:
        if me:
            return _("You played {card} from side stack {s} on center {n}").format(card=c, s=stack + 1, n=n)
        return _("{who} played {card} from side stack {s} on center {n}").format(
            who=who, card=c, s=stack + 1, n=n
        )
    if move.source == PAYOFF:
        if me:
            return _("You played {card} from your pay-off on center {n}").format(card=c, n=n)
        return _("{who} played {card} from the pay-off on center {n}").format(who=who, card=c, n=n)
    if me:
        return _("You played {card} from hand on center {n}").format(card=c, n=n)
    return _("{who} played {card} from hand on center {n}").format(who=who, card=c, n=n)


def hint_words(move: Move, card: Card) -> str:
    """A suggested move as advice: ``play 7♥ from hand on center 1``."""
    c, n = card_label(card), move.slot + 1
    if move.target == SIDE:
        return _("discard {card} on side stack {n}").format(card=c, n=n)
    stack = move.side_stack
    if stack is not None:
        return _("play {card} from side stack {s} on center {n}").format(card=c, s=stack + 1, n=n)
    if move.source == PAYOFF:
        return _("play {card} from the pay-off on center {n}").format(card=c, n=n)
    return _("play {card} from hand on center {n}").format(card=c, n=n)


def turn_words(moves: Sequence[Move], cards: Sequence[Card]) -> str:
    """Moves as the completion menu words them: ``5♠ to center 1, discard 7♦ on side 2``."""
    return ", ".join(choice_words(m, c) for m, c in zip(moves, cards, strict=False))


def reason_words(reason: Reason, opponent: str) -> str:
    """One reason a turn is good (``bots.reasons``), as a clause: ``your pay-off 7♥ comes
    within reach: center 2 then takes it`` (``opponent``: the other player's name)."""
    from ..bots.reasons import Why  # (the bots are loaded only when a reason is given)

    c = card_label(reason.card) if reason.card is not None else "?"
    n = (reason.center if reason.center is not None else reason.side or 0) + 1
    top = card_label(reason.other) if reason.other is not None else "?"
    if reason.kind is Why.HAND_EMPTIED:
        text = ngettext(
            "your hand empties: you draw {n} new card",
            "your hand empties: you draw {n} new cards",
            reason.gap,
        )
        return text.format(n=reason.gap)
    if reason.kind is Why.PAYOFF_CLOSER:
        text = ngettext(
            "your pay-off {card} comes closer: center {n} lacks {k} card before it",
            "your pay-off {card} comes closer: center {n} lacks {k} cards before it",
            reason.gap,
        )
    else:
        text = {
            Why.PAYOFF_PLAYED: _("your pay-off card {card} gets played: one card nearer the win"),
            Why.PAYOFF_IN_REACH: _("your pay-off {card} comes within reach: center {n} then takes it"),
            Why.CENTER_COMPLETED: _("{card} completes center {n}: it starts again from an Ace"),
            Why.BLOCKS: _("center {n} no longer takes {name}'s pay-off {card}"),
            Why.KEEPS_LOW: _("center {n} stays low for your pay-off {card}"),
            Why.NOTHING_REACHES: _("nothing you hold brings a center to your pay-off {card} this turn"),
            Why.DISCARD_RUN: _("{card} goes on {top} on side stack {n}: a run to play off later"),
            Why.DISCARD_PAIR: _("{card} goes on {top} on side stack {n}: one rank kept together"),
            Why.DISCARD_EMPTY: _("{card} starts the empty side stack {n}, keeping the runs on the others"),
            Why.DISCARD_SPARE: _("{card} is a spare: you still hold {top}"),
            Why.KEEPS_KING: _("the King {card} stays in your hand for a play that counts"),
            Why.GIVES: _("playing {cards} now would let {name} play the pay-off {card}"),
        }[reason.kind]
    cards = _card_list(reason.cards)
    return text.format(card=c, n=n, top=top, k=reason.gap, name=opponent, cards=cards)


def _card_list(cards: Sequence[Card]) -> str:
    return ", ".join(card_label(c) for c in cards)


def played_fault_words(reason: Reason, opponent: str) -> str:
    """What the turn as played did wrong (a review's ``against`` reason), as a clause."""
    c = card_label(reason.card) if reason.card is not None else "?"
    return _("as played, {cards} let {name} play the pay-off {card} on center {n}").format(
        cards=_card_list(reason.cards), name=opponent, card=c, n=(reason.center or 0) + 1
    )


def reasons_words(why: Explanation, opponent: str, played: bool = False, most: int = 3) -> str:
    """The reasons of an explanation, one clause each (the weightiest ``most`` of the good
    ones, then the other turn's fault; ``played``: the other turn is the one played, in a
    review); "" when there are none."""
    against = played_fault_words if played else reason_words
    clauses = [reason_words(r, opponent) for r in why.good[:most]]
    clauses += [against(r, opponent) for r in why.against[:1]]
    return "; ".join(clauses)


def hint_reason_words(reason: HintReason, opponent: str) -> str:
    """Why a hint, from the review's evaluation (``bots.review.hint_reason``): its reasons
    in the game's words, then the win chances."""
    best, other = f"{100 * reason.win_best:.0f}%", f"{100 * reason.win_plain:.0f}%"
    why = reasons_words(reason.why, opponent)
    plain = turn_words(reason.plain, reason.plain_cards)
    if why:
        if reason.plain == reason.best:
            text = _("Why: {why} (it is also the plain play; win chance about {best}).")
        elif reason.win_best >= reason.win_plain:
            text = _("Why: {why} (win chance about {best}; the plain play, {plain}: {other}).")
        else:
            text = _("Why: {why} (the plain play, {plain}, estimates about as well: {other} against {best}).")
        return text.format(why=why, best=best, plain=plain, other=other)
    if reason.plain == reason.best:
        return _("Why: it is also the plain play; your win chance after this turn is about {best}.").format(
            best=best
        )
    if reason.win_best >= reason.win_plain:
        text = _("Why: your win chance after this turn is about {best}; the plain play ({plain}): {other}.")
    else:
        text = _(
            "Why: the strongest level prefers it, though the plain play ({plain}) estimates about as "
            "well ({other} against {best})."
        )
    return text.format(best=best, plain=plain, other=other)


def taken_back_words(move: Move, card: Card, who: str, me: bool = False) -> str:
    """A move taken back: ``Bob took back 7♥ from center 1`` (the card is where it came from)."""
    c, n = card_label(card), move.slot + 1
    if me:
        return _("You took back {card} from center {n}").format(card=c, n=n)
    return _("{who} took back {card} from center {n}").format(who=who, card=c, n=n)


def takeback_question(move: Move, card: Card, who: str) -> tuple[str, str]:
    """The question a takeback asks the other player, and its short form (a narrow line)."""
    c, n = card_label(card), move.slot + 1
    return (
        _("{who} wants to take back {card} on center {n}. Allow? [y/N]").format(who=who, card=c, n=n),
        _("Allow {who}'s takeback? [y/N]").format(who=who),
    )


def takeback_asked(move: Move, card: Card, who: str) -> str:
    """Said to the player whose takeback waits for the other's answer."""
    c, n = card_label(card), move.slot + 1
    return _("Asking {who} to let you take back {card} on center {n}...").format(who=who, card=c, n=n)


def choice_words(move: Move, card: Card | None) -> str:
    """A legal move as the completion menu describes it: ``7♥ to center 1``."""
    name = card_label(card) if card is not None else "?"
    if move.target == CENTER:
        return _("{card} to center {n}").format(card=name, n=move.slot + 1)
    return _("discard {card} on side {n}").format(card=name, n=move.slot + 1)


def effects(played: Played, voice: Voice) -> list[Said]:
    """What a move did beyond placing its card: a center completed and shuffled
    into the stock, a hand emptied and filled again, the turn passed."""
    m = played.move
    out: list[Said] = []
    if played.completed:
        out.append(
            (
                Style.EVENT,
                _("Center {n} is complete: its {k} cards are shuffled into the stock (now {stock}).").format(
                    n=m.slot + 1, k=STACK_COMPLETE, stock=played.stock
                ),
            )
        )
    if played.result is not None:
        return out
    n = played.drew
    if not played.turn_passed:
        if played.drawer == m.seat and n:
            if voice.is_me(m.seat):
                text = ngettext(
                    "Your hand was empty: you drew {n} new card.",
                    "Your hand was empty: you drew {n} new cards.",
                    n,
                )
                out.append((Style.INFO, text.format(n=n)))
            else:
                text = ngettext(
                    "{who} emptied their hand and drew {n} new card.",
                    "{who} emptied their hand and drew {n} new cards.",
                    n,
                )
                out.append((Style.INFO, text.format(who=voice.names[m.seat], n=n)))
    elif voice.is_me(played.turn):
        if played.drawer == voice.me and n:
            out.append(
                (
                    Style.INFO,
                    ngettext("Your turn. You drew {n} card.", "Your turn. You drew {n} cards.", n).format(
                        n=n
                    ),
                )
            )
        else:
            out.append((Style.INFO, _("Your turn.")))
    else:
        out.append((Style.INFO, _("{name}'s turn.").format(name=voice.names[played.turn])))
    return out


# -- refusals ---------------------------------------------------------------------------


def refusal(why: no.Illegal, move: Move | None, voice: Voice) -> str:
    """Why the rules refuse ``move``, in the player's terms (``why``: the engine's reason)."""
    match why:
        case no.DoesNotFit(card, center, needs):
            return _fits(card, move, voice, center + 1, rank_needed_words(needs))
        case no.NotYourTurn(turn, seat):
            if voice.is_me(seat):
                return _("it is not your turn: wait for your opponent's discard")
            return _("it is {turn}'s turn, not {seat}'s").format(
                turn=voice.names[turn], seat=voice.names[seat]
            )
        case no.NotInHand(card, seat) if type(card) is int and 0 <= card < CARD_IDS:
            if voice.is_me(seat):
                return _("{card} is not in your hand").format(card=card_label(card))
            return _("{card} is not in {name}'s hand").format(card=card_label(card), name=voice.names[seat])
        case no.NotInHand(card, _seat):
            return _("there is no card {card} (a card is 0 to {last})").format(
                card=repr(card), last=CARD_IDS - 1
            )
        case no.EmptySide(seat, stack):
            if voice.is_me(seat):
                return _("your side stack {n} is empty").format(n=stack + 1)
            return _("{name}'s side stack {n} is empty").format(name=voice.names[seat], n=stack + 1)
        case no.EmptyPayoff(seat):
            if voice.is_me(seat):
                return _("your pay-off pile is empty")
            return _("{name}'s pay-off pile is empty").format(name=voice.names[seat])
        case no.NoSuchCenter(index):
            return _("there is no center stack {n}: 1 to 3").format(n=_shown(index))
        case no.NoSuchSide(index):
            return _("there is no side stack {n}: 1 to 4").format(n=_shown(index))
        case no.NoSuchSeat(seat):
            return _("there is no seat {seat} (seats are 0 and 1)").format(seat=repr(seat))
        case no.PlaysForOther(seat, mover):
            return _("{seat} cannot move for {mover}").format(
                seat=_who(seat, voice), mover=_who(mover, voice)
            )
        case no.NotTheAuthor(turn):
            if voice.is_me(turn):
                return _("only you, on turn, can make the next action")
            return _("only {name}, on turn, can make the next action").format(name=voice.names[turn])
        case no.OnlyHandToSide():
            return _("only a hand card can go on a side stack (it ends the turn)")
        case no.PayoffArg():
            return _("a pay-off move names no card")
        case no.UnknownSource(source):
            return _("there is no place {place} to take a card from").format(place=repr(source))
        case no.UnknownTarget(target):
            return _("there is no place {place} to put a card on").format(place=repr(target))
        case no.NotAMove():
            return _("that is not a move")
        case no.NothingToTakeBack():
            return _("you have made no move this turn to take back")
        case no.EndedTurn():
            return _("your discard ended your turn: it cannot be taken back")
        case no.ShowedPayoff():
            return _("your pay-off move turned up your next pay-off card: it cannot be taken back")
        case no.RefilledHand():
            return _("that move emptied your hand, which drew new cards: it cannot be taken back")
        case no.CompletedCenter(center):
            return _(
                "that move completed center {n}, which was shuffled into the stock: it cannot be taken back"
            ).format(n=center + 1)
        case no.TakebackWaiting():
            return _("your takeback already waits for an answer")
        case no.TooManyTakebacks(most):
            return ngettext(
                "you can ask for at most {n} takeback a turn",
                "you can ask for at most {n} takebacks a turn",
                most,
            ).format(n=most)
        case no.TakebackOffline():
            return _("the connection is down: ask again once it is back")
        case no.DeckBusy():
            return _("cards are still being shown for your next move: your last one cannot be taken back now")
        case no.GameIsOver():
            return _("the game is over")
        case no.MatchIsOver():
            return _("the match is over")
    return str(why)  # a session's own Refused words


def _who(seat: int, voice: Voice) -> str:
    return _("you") if voice.is_me(seat) else voice.names[seat]


def _fits(card: Card, move: Move | None, voice: Voice, center: int, need: str) -> str:
    """``7♥ from your hand does not fit center 2: it needs a 5 (or a King)``: the card
    named, and where it comes from."""
    f = {"card": card_label(card), "center": center, "need": need}
    if move is None:
        return _("{card} does not fit center {center}: it needs {need} (or a King)").format(**f)
    me, name = voice.is_me(move.seat), voice.names[move.seat]
    if move.source == HAND:
        if me:
            return _(
                "{card} from your hand does not fit center {center}: it needs {need} (or a King)"
            ).format(**f)
        return _(
            "{card} from {name}'s hand does not fit center {center}: it needs {need} (or a King)"
        ).format(name=name, **f)
    if move.source == PAYOFF:
        if me:
            return _(
                "your pay-off card {card} does not fit center {center}: it needs {need} (or a King)"
            ).format(**f)
        return _(
            "{name}'s pay-off card {card} does not fit center {center}: it needs {need} (or a King)"
        ).format(name=name, **f)
    s = (move.side_stack or 0) + 1
    if me:
        return _(
            "{card} from your side stack {s} does not fit center {center}: it needs {need} (or a King)"
        ).format(s=s, **f)
    return _(
        "{card} from {name}'s side stack {s} does not fit center {center}: it needs {need} (or a King)"
    ).format(name=name, s=s, **f)


def _shown(index: object) -> str:
    return str(index + 1) if type(index) is int else repr(index)


# -- a game's end ------------------------------------------------------------------------


def game_begins(game: int, starter: int, by_lot: bool, voice: Voice) -> str:
    """``Game 2 begins. You start (the higher pay-off card).``"""
    if voice.is_me(starter):
        if by_lot:
            return _("Game {game} begins. You start (equal pay-off cards, drawn by lot).").format(game=game)
        return _("Game {game} begins. You start (the higher pay-off card).").format(game=game)
    name = voice.names[starter]
    if by_lot:
        return _("Game {game} begins. {name} starts (equal pay-off cards, drawn by lot).").format(
            game=game, name=name
        )
    return _("Game {game} begins. {name} starts (the higher pay-off card).").format(game=game, name=name)


def game_goes_on(game: int, ply: int, turn: int, voice: Voice) -> str:
    """A resumed game: ``Game 2 goes on, 10 moves in: your turn.``"""
    if voice.is_me(turn):
        text = ngettext(
            "Game {game} goes on, {n} move in: your turn.",
            "Game {game} goes on, {n} moves in: your turn.",
            ply,
        )
        return text.format(game=game, n=ply)
    text = ngettext(
        "Game {game} goes on, {n} move in: {name}'s turn.",
        "Game {game} goes on, {n} moves in: {name}'s turn.",
        ply,
    )
    return text.format(game=game, n=ply, name=voice.names[turn])


def match_over(winner: int | None, scores: tuple[int, int], voice: Voice) -> str:
    """``You win the match 50-31!``, ``Bob wins the match 52-40.``, ``The match stopped at 12-30.``
    (scores the winner's first, or the player's own when nobody won)."""
    me = voice.me if voice.me is not None else 0
    if winner is None:
        return _("The match stopped at {a}-{b}.").format(a=scores[me], b=scores[1 - me])
    a, b = scores[winner], scores[1 - winner]
    if voice.is_me(winner):
        return _("You win the match {a}-{b}!").format(a=a, b=b)
    return _("{name} wins the match {a}-{b}.").format(name=voice.names[winner], a=a, b=b)


def game_result(result: Result | None, voice: Voice) -> str:
    """How a game ended, in one clause: ``Ann won: Bob resigned, 7 points``,
    ``you won: the pay-off pile emptied, 12 points``, ``a draw: the stock ran
    out, nobody scores`` (None: it did not end, the record stops)."""
    if result is None:
        return unfinished()
    w = result.winner
    if w is None:
        return _("a draw: the stock ran out, nobody scores")
    pts = points(result.points)
    if result.reason is EndReason.RESIGN:
        if voice.is_me(w):
            return _("you won: {name} resigned, {points}").format(name=voice.names[1 - w], points=pts)
        if voice.is_me(1 - w):
            return _("{name} won: you resigned, {points}").format(name=voice.names[w], points=pts)
        return _("{name} won: {other} resigned, {points}").format(
            name=voice.names[w], other=voice.names[1 - w], points=pts
        )
    if voice.is_me(w):
        return _("you won: the pay-off pile emptied, {points}").format(points=pts)
    return _("{name} won: the pay-off pile emptied, {points}").format(name=voice.names[w], points=pts)


def game_over(game: int, result: Result, voice: Voice) -> str:
    """The line that ends a game: ``Game 2: you won: Bob resigned, 7 points.``"""
    return _("Game {game}: {result}.").format(game=game, result=game_result(result, voice))


def short_status(result: Result | None, voice: Voice) -> str:
    """A game's end in a word or two, for a board's header: ``Ann won``, ``Bob resigned``."""
    if result is None:
        return _("unfinished")
    if result.winner is None:
        return _("draw")
    if result.reason is EndReason.RESIGN:
        loser = 1 - result.winner
        return (
            _("you resigned") if voice.is_me(loser) else _("{name} resigned").format(name=voice.names[loser])
        )
    w = result.winner
    return _("you won") if voice.is_me(w) else _("{name} won").format(name=voice.names[w])


def connection_words(state: LinkState, news: News | None = None) -> str:
    """``Connection lost: reconnecting... (the connection to Bob was lost; redialing for
    up to 60 s)``: the state, and the network's news of it."""
    text = {
        LinkState.CONNECTED: _("Connected."),
        LinkState.RECONNECTING: _("Connection lost: reconnecting..."),
        LinkState.LOST: _("The connection is lost."),
        LinkState.CLOSED: _("The connection is closed."),
    }[state]
    return text + (f" ({news_words(news)})" if news is not None else "")


def peer_left(ending: Ending | None) -> str | None:
    """``Ann left the match.`` when the session stopped because the peer left on
    purpose (its goodbye, ``EndCause.PEER_LEFT``); None for any other ending.  A
    reason other than a plain quit is kept."""
    if ending is None or ending.cause is not EndCause.PEER_LEFT:
        return None
    return news_words(PeerLeft(ending.peer, ending.reason))


def connection_state(state: LinkState) -> str:
    """The toolbar's word for ``state``: ``connected``, ``reconnecting``, ``lost``, ``closed``."""
    return {
        LinkState.CONNECTED: _("connected"),
        LinkState.RECONNECTING: _("reconnecting"),
        LinkState.LOST: _("lost"),
        LinkState.CLOSED: _("closed"),
    }[state]


def rematch_words(settled: Rematch, name: str, number: int) -> str | None:
    """How the offer of another match settled, said to the player (``name``: the
    opponent's, ``number``: the match that begins); None when nothing is to be said
    (the player said no)."""
    if settled is Rematch.STARTED:
        return _("Match {number} begins.").format(number=number)
    if settled is Rematch.DECLINED:
        return _("{name} does not want another match.").format(name=name)
    if settled is Rematch.GONE:
        return _("{name} has left: no other match.").format(name=name)
    if settled is Rematch.SILENT:
        return _("{name} did not answer in time: no other match.").format(name=name)
    if settled is Rematch.REFUSED:
        return _("Match {number} with {name} was refused before any card was dealt: no other match.").format(
            number=number + 1, name=name
        )
    return None


def watching(n: int) -> str:
    """The toolbar's count of watchers: ``2 watching``."""
    return ngettext("{n} watching", "{n} watching", n).format(n=n)


def watchers_words(n: int) -> str:
    """Said when someone starts watching: ``2 people are watching (...)``"""
    return ngettext(
        "{n} person is watching (they see only the cards shown to both of you).",
        "{n} people are watching (they see only the cards shown to both of you).",
        n,
    ).format(n=n)


def deck_proven(voice: Voice) -> str:
    """The line after a private-deck game's end (``GameEnded.deck_proven``), said to the
    seat ``voice.me``: ``Private deck: every shuffle proven; Bob saw none of your hidden cards.``"""
    me = voice.me if voice.me is not None else 0
    return _("Private deck: every shuffle proven; {name} saw none of your hidden cards.").format(
        name=voice.names[1 - me]
    )


def scores_line(scores: tuple[int, int], voice: Voice) -> str:
    if voice.me is None:
        return _("scores: {a} {x}, {b} {y}").format(
            a=voice.names[0], x=scores[0], b=voice.names[1], y=scores[1]
        )
    me = voice.me
    return _("Scores: you {x}, {name} {y}.").format(x=scores[me], name=voice.names[1 - me], y=scores[1 - me])


__all__ = [
    "Said",
    "Style",
    "Voice",
    "choice_words",
    "connection_state",
    "connection_words",
    "deck_proven",
    "effects",
    "game_begins",
    "game_goes_on",
    "game_over",
    "game_result",
    "hint_reason_words",
    "hint_words",
    "match_over",
    "move_words",
    "peer_left",
    "played_fault_words",
    "reason_words",
    "reasons_words",
    "refusal",
    "rematch_words",
    "scores_line",
    "short_status",
    "takeback_asked",
    "takeback_question",
    "taken_back_words",
    "turn_words",
    "unfinished",
    "watchers_words",
    "watching",
]
