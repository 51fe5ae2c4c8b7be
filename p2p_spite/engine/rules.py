"""What the rules allow, from what the seat on turn can see: whether a card fits a
center, the one judgement of a move's legality, and the legal moves.  A game
(:mod:`.state`) and a seat's view (:mod:`.view`) both ask these, so the two can
never disagree."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import refusals as no
from .cards import Card
from .moves import CENTER, CENTER_STACKS, HAND, PAYOFF, SIDE, SIDE_STACKS, Move
from .refusals import Illegal


def fits(card: Card, stack_len: int) -> bool:
    """May ``card`` go on a center stack holding ``stack_len`` cards?"""
    r = card % 13
    return r == 12 or r == stack_len


def needs(stack_len: int) -> int:
    """The rank (1 Ace .. 12 Queen) a center stack holding ``stack_len`` cards takes next, or a King."""
    return stack_len + 1


def stands_for(stack_len: int) -> int:
    """The rank the top card of a center stack holding ``stack_len`` cards counts as
    (a King on it is wild: it stands for this rank)."""
    return stack_len


def judge(
    move: Sequence[Any],
    turn: int,
    hand: Sequence[Card],
    payoff_top: Card | None,
    side_tops: Sequence[Card | None],
    center_lens: Sequence[int],
) -> Illegal | Card:
    """The card ``move`` places, or why the rules refuse it, from what the seat on
    turn (``turn``) can see: its hand, its pay-off top and side tops, the centers.
    The one statement of a move's legality (:meth:`GameState.check`,
    :meth:`~.view.PlayerView.check`); a game that is over is the caller's to refuse."""
    try:
        seat, source, arg, target, index = move
    except (TypeError, ValueError):
        return no.NotAMove()
    if type(seat) is not int or seat != turn:
        if type(seat) is int and seat in (0, 1):
            return no.NotYourTurn(turn, seat)
        return no.NoSuchSeat(seat)
    if target == CENTER:
        if type(index) is not int or not 0 <= index < CENTER_STACKS:
            return no.NoSuchCenter(index)
        if source == HAND:
            if type(arg) is not int or arg not in hand:
                return no.NotInHand(arg, seat)
            card = arg
        elif source == PAYOFF:
            if arg is not None:
                return no.PayoffArg(arg)
            if payoff_top is None:
                return no.EmptyPayoff(seat)
            card = payoff_top
        elif source == SIDE:
            if type(arg) is not int or not 0 <= arg < SIDE_STACKS:
                return no.NoSuchSide(arg)
            top = side_tops[arg]
            if top is None:
                return no.EmptySide(seat, arg)
            card = top
        else:
            return no.UnknownSource(source)
        n = center_lens[index]
        if not fits(card, n):
            return no.DoesNotFit(card, index, needs(n))
        return card
    if target == SIDE:
        if source != HAND:
            if source not in (PAYOFF, SIDE):
                return no.UnknownSource(source)
            return no.OnlyHandToSide()
        if type(index) is not int or not 0 <= index < SIDE_STACKS:
            return no.NoSuchSide(index)
        if type(arg) is not int or arg not in hand:
            return no.NotInHand(arg, seat)
        return arg
    return no.UnknownTarget(target)


def generate_moves(
    seat: int,
    hand: Sequence[Card],
    payoff_top: Card | None,
    side_tops: Sequence[Card | None],
    center_lens: Sequence[int],
) -> list[Move]:
    """Every legal move for the seat to move, from what that seat can see.

    Order: pay-off to centers, side tops to centers, hand to centers, then the
    discards (hand to side stacks), each by index.  Two copies of a card (two
    decks) give two moves.
    """
    moves: list[Move] = []
    append = moves.append
    if payoff_top is not None:
        for i, n in enumerate(center_lens):
            if fits(payoff_top, n):
                append(Move(seat, PAYOFF, None, CENTER, i))
    for s, top in enumerate(side_tops):
        if top is not None:
            for i, n in enumerate(center_lens):
                if fits(top, n):
                    append(Move(seat, SIDE, s, CENTER, i))
    for card in hand:
        for i, n in enumerate(center_lens):
            if fits(card, n):
                append(Move(seat, HAND, card, CENTER, i))
    for card in hand:
        for s in range(SIDE_STACKS):
            append(Move(seat, HAND, card, SIDE, s))
    return moves


__all__ = ["fits", "generate_moves", "judge", "needs", "stands_for"]
