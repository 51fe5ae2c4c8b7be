"""The short move syntax players type and the board's tokens (the words are :mod:`.words`').

``h3 c1``  hand card 3 to center 1      ``p c2``   pay-off card to center 2
``s4 c1``  side stack 4 to center 1     ``h2 s3``  hand card 2 to side stack 3
(ends the turn).  Numbers are 1-based as shown on screen; a card's name may
stand for a hand card: ``7h c1``, ``10s s2``, ``kd c3``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..contracts.i18n import _
from ..engine import CENTER, HAND, PAYOFF, SIDE, Card, Move, PlayerView
from ..engine.cards import card_symbol, parse_card, same_card
from .text import card_label, clip_text


class NotationError(ValueError):
    """Text that is not a move; the message says what was expected."""


_SOURCE = re.compile(
    r"^(?:(h|hand)\s*(\d+)|(p|pay|payoff)\s*1?|(s|side)\s*(\d+)|(10|[2-9atjqk])\s*([cdhs]))$"
)
_TARGET = re.compile(r"^(?:(c|center|centre)|(s|side))\s*(\d+)$")
_SPLIT = re.compile(r"^\s*(.+?)\s*(?:\s|->|>|\bto\b|\bon\b)\s*((?:c|center|centre|s|side)\s*\d+)\s*$")
_TYPED_SOURCE = re.compile(r"^\s*(h[1-9]|p|s[1-4])(?:\s|$)")
_COMPACT = re.compile(r"^\s*((?:h|s)\d+|p|(?:10|[2-9atjqk])[cdhs])\s*((?:c|s)\d+)\s*$")


def syntax_help() -> str:
    """The notation in one sentence (the tokens themselves stay as typed in every language)."""
    return _(
        "7h c1 or h3 c1 (a hand card, by name or number, to center 1), p c2 (pay-off), "
        "s4 c1 (side stack 4), 9s s3 or h2 s3 (discard: ends the turn)"
    )


def parse_move(text: str, view: PlayerView, hand: Sequence[Card | None] | None = None) -> Move:
    """The move written ``text`` for ``view``'s seat.

    ``hand`` is the hand as numbered on screen, ``None`` in the slot of a card
    played this turn (default: the view's order).
    Raises NotationError if the text is not a move; legality is the engine's job.
    """
    shown = tuple(view.hand if hand is None else hand)
    t = text.strip().lower()
    m = _COMPACT.match(t) or _SPLIT.match(t)
    if not m:
        typed = clip_text(text.strip(), 40)
        raise NotationError(
            _("not a move: {typed}; try 7h c1, h3 c1, p c2, s4 c1 or h2 s3 (help explains)").format(
                typed=repr(typed)
            )
        )
    src, dst = m.group(1).strip(), m.group(2).strip()
    sm, tm = _SOURCE.match(src), _TARGET.match(dst)
    if not sm:
        raise NotationError(
            _("unknown source {typed}: use h1..h{n}, p, s1..s4 or a card like 7h").format(
                typed=repr(clip_text(src, 20)), n=len(shown)
            )
        )
    if not tm:
        raise NotationError(
            _("unknown target {typed}: use c1..c3 or s1..s4").format(typed=repr(clip_text(dst, 20)))
        )
    seat = view.seat
    if sm.group(1):
        n = int(sm.group(2))
        if not 1 <= n <= len(shown):
            # the numbers that hold a card (those of cards played this turn stay empty)
            held = [f"h{i}" for i, c in enumerate(shown, 1) if c is not None]
            if not held:
                raise NotationError(_("there is no hand card {n}: your hand is empty").format(n=n))
            if len(held) == 1:
                raise NotationError(
                    _("there is no hand card {n}: your hand card is {which}").format(n=n, which=held[0])
                )
            which = _("{some} and {last}").format(some=", ".join(held[:-1]), last=held[-1])
            raise NotationError(
                _("there is no hand card {n}: your hand cards are {which}").format(n=n, which=which)
            )
        card = shown[n - 1]
        if card is None:
            raise NotationError(
                _("hand card {n} was played this turn (the others keep their numbers)").format(n=n)
            )
        source, arg = HAND, card
    elif sm.group(3):
        source, arg = PAYOFF, None
    elif sm.group(4):
        n = int(sm.group(5))
        if not 1 <= n <= 4:
            raise NotationError(_("there is no side stack {n}: they are s1..s4").format(n=n))
        source, arg = SIDE, n - 1
    else:
        card = _card_in_hand(sm.group(6) + sm.group(7), shown)
        source, arg = HAND, card
    k = int(tm.group(3))
    if tm.group(1):
        if not 1 <= k <= 3:
            raise NotationError(_("there is no center stack {n}: they are c1..c3").format(n=k))
        return Move(seat, source, arg, CENTER, k - 1)
    if not 1 <= k <= 4:
        raise NotationError(_("there is no side stack {n}: they are s1..s4").format(n=k))
    if source != HAND:
        raise NotationError(_("only a hand card can go on a side stack (that ends your turn)"))
    return Move(seat, source, arg, SIDE, k - 1)


def _card_in_hand(name: str, hand: Sequence[Card | None]) -> Card:
    try:
        wanted = parse_card(name)
    except ValueError:
        raise NotationError(_("not a card: {typed}").format(typed=repr(clip_text(name, 20)))) from None
    for card in hand:
        if card is not None and same_card(card, wanted):
            return card
    raise NotationError(_("you have no {card} in your hand").format(card=card_label(wanted)))


def source_token(move: Move, hand: Sequence[Card | None]) -> str:
    """The token of the card ``move`` takes, as typed and as clicked on the board:
    ``h3`` (hand card 3 as ``hand`` is shown; a card not in it by name, ``7h``),
    ``p`` (the pay-off), ``s2`` (side stack 2)."""
    card = move.hand_card
    if card is not None:
        return f"h{list(hand).index(card) + 1}" if card in hand else card_symbol(card, "cdhs").lower()
    stack = move.side_stack
    if stack is not None:
        return f"s{stack + 1}"
    return "p"


def target_token(move: Move, own: bool = True) -> str:
    """The token of the stack ``move`` plays on: ``c1`` (a center), ``s3`` (a side
    stack of one's own) or, for the opponent's move on its side stack, ``os3``."""
    if move.target == CENTER:
        return f"c{move.slot + 1}"
    return f"{'s' if own else 'os'}{move.slot + 1}"


def typed_source(line: str) -> str | None:
    """The card token a line being typed starts with (``h3``, ``p``, ``s2``), if any."""
    m = _TYPED_SOURCE.match(line.lower())
    return m.group(1) if m else None


def move_notation(move: Move, hand: Sequence[Card | None]) -> str:
    """The short form of ``move``, numbering hand cards as ``hand`` is shown (by name
    when not in it: ``move_notation(m, ())`` is ``7h c1``, as typed or read alone)."""
    return f"{source_token(move, hand)} {target_token(move)}"


_CARD_START = "123456789atjqk"  # a line that starts so names a card (``9h``, ``10s``, ``kd``)


def typed_moves(typed: str, moves: Sequence[Move], hand: Sequence[Card | None]) -> list[tuple[str, Move]]:
    """The moves that complete ``typed`` (lower case, blanks single), as written from it on:
    by token (``h3 c1``) or, when it starts with a card's name or rank (``9``, ``9h``,
    ``kd``, ``t``), by that card's name (``9h c1``; ``ts c1`` after ``t``)."""
    out = []
    for m in moves:
        if typed[:1] and typed[0] in _CARD_START:
            card = m.hand_card
            if card is None:
                continue
            name = card_symbol(card, "cdhs").lower()
            if typed.startswith("t"):
                name = name.replace("10", "t")
            text = f"{name} {target_token(m)}"
        else:
            text = move_notation(m, hand)
        if text.startswith(typed):
            out.append((text, m))
    return out


__all__ = [
    "NotationError",
    "move_notation",
    "parse_move",
    "syntax_help",
    "typed_moves",
]
