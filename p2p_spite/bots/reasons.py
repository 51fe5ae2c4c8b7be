"""Why one turn rather than another, as typed reasons the interface words.

:func:`explain` takes a seat's view at its turn's start, a turn (its moves up to the
first chance event, as :mod:`.review` judges them, with the cards they move) and the
turn it is weighed against, and says what the turn does for the seat and what the
other turn does wrong, as :class:`Reason` values: a pay-off card played or brought
within reach, a center completed, the hand emptied, a center kept low for the pay-off
or closed to the opponent's, nothing able to reach the pay-off, a discard that builds
a run; and against the other turn, a center left open to the opponent's pay-off card.

Pure and fair: it reads the view (the seat's hand and side stacks, every face-up card:
the centers and both pay-off tops) and the two turns, never a hidden card, and draws
nothing at random.  Only the lengths of the centers matter (a King counts as the card
it stands for), so a turn is followed on the view alone, up to its first chance event.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..engine import CENTER, HAND, PAYOFF, SIDE, Card, Move, PlayerView, rank
from ..engine.state import HAND_SIZE, STACK_COMPLETE
from .planner import _can_reach


class Why(StrEnum):
    """A kind of reason; the fields of :class:`Reason` each uses are named beside it."""

    PAYOFF_PLAYED = "payoff-played"  # card: the pay-off card played; center
    PAYOFF_IN_REACH = "payoff-in-reach"  # card: the pay-off top; center: the one that takes it next
    PAYOFF_CLOSER = "payoff-closer"  # card: the pay-off top; center; gap: cards it still lacks
    CENTER_COMPLETED = "center-completed"  # card: the card that completes it; center
    HAND_EMPTIED = "hand-emptied"  # gap: the cards drawn
    BLOCKS = "blocks"  # card: the opponent's pay-off top; center: no longer takes it
    KEEPS_LOW = "keeps-low"  # card: the pay-off top; center: the other turn takes past it
    NOTHING_REACHES = "nothing-reaches"  # card: the pay-off top no center can reach this turn
    DISCARD_RUN = "discard-run"  # card: discarded; other: the side top one higher; side
    DISCARD_PAIR = "discard-pair"  # card: discarded; other: the side top of its rank; side
    DISCARD_EMPTY = "discard-empty"  # card: discarded; side: the empty side stack (others hold cards)
    DISCARD_SPARE = "discard-spare"  # card: discarded; other: a card of its rank kept in hand
    KEEPS_KING = "keeps-king"  # card: a King the other turn spends on a center for nothing
    GIVES = "gives"  # (against) card: the opponent's pay-off top; center; cards: the plays


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason: its kind and the cards and stacks it names (stacks from 0)."""

    kind: Why
    card: Card | None = None
    center: int | None = None
    side: int | None = None
    other: Card | None = None
    gap: int = 0
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Explanation:
    """What a turn does for the seat (``good``, the weightiest first) and what the turn
    it is weighed against does wrong (``against``)."""

    good: tuple[Reason, ...] = ()
    against: tuple[Reason, ...] = ()


NO_REASONS = Explanation()


@dataclass(slots=True)
class _After:
    """A turn followed on the view: the centers' lengths after it and what it did."""

    centers: list[int]
    payoff: tuple[Card, int] | None = None  # the pay-off card played, on which center
    completed: list[tuple[Card, int]] | None = None  # (card, center) of each center completed
    emptied: bool = False
    discard: Reason | None = None
    center_cards: tuple[Card, ...] = ()  # the cards it played on centers
    raised: set[int] | None = None  # the centers it played on


def _follow(view: PlayerView, moves: Sequence[Move], cards: Sequence[Card]) -> _After:
    centers = [len(c) for c in view.center]
    sides = [list(s) for s in view.sides[view.seat]]
    hand = len(view.hand)
    out = _After(centers, completed=[], raised=set())
    assert out.completed is not None and out.raised is not None
    played: list[Card] = []
    for m, card in zip(moves, cards, strict=False):
        if m.source == HAND:
            hand -= 1
        elif m.source == SIDE and m.arg is not None and sides[m.arg]:
            sides[m.arg].pop()
        if m.target == SIDE:
            out.discard = _discard_reason(view, card, m.slot, sides)
            continue
        if m.target != CENTER:
            continue
        played.append(card)
        out.raised.add(m.slot)
        centers[m.slot] += 1
        if m.source == PAYOFF:
            out.payoff = (card, m.slot)
        if centers[m.slot] == STACK_COMPLETE:
            centers[m.slot] = 0
            out.completed.append((card, m.slot))
    out.emptied = hand == 0 and len(view.hand) > 0
    out.center_cards = tuple(played)
    return out


def _discard_reason(view: PlayerView, card: Card, side: int, sides: list[list[Card]]) -> Reason | None:
    """What a discard of ``card`` on ``side`` (its stacks now ``sides``) keeps in order."""
    top = sides[side][-1] if sides[side] else None
    if top is not None and rank(top) == rank(card) + 1:
        return Reason(Why.DISCARD_RUN, card, side=side, other=top)
    if top is not None and rank(top) == rank(card):
        return Reason(Why.DISCARD_PAIR, card, side=side, other=top)
    twin = next((c for c in view.hand if c != card and rank(c) == rank(card)), None)
    if twin is not None:
        return Reason(Why.DISCARD_SPARE, card, side=side, other=twin)
    if top is None and any(sides[i] for i in range(len(sides)) if i != side):
        return Reason(Why.DISCARD_EMPTY, card, side=side)
    return None


def _gap(length: int, top: Card) -> int:
    """The cards a center of ``length`` cards lacks before it takes ``top`` (0: it takes it)."""
    return (rank(top) - 1 - length) % STACK_COMPLETE


def _nearest(centers: Sequence[int], top: Card) -> tuple[int, int]:
    """The smallest gap to ``top`` over the centers, and the first center with it."""
    gap, center = min((_gap(n, top), i) for i, n in enumerate(centers))
    return gap, center


def _wild(top: Card | None) -> bool:
    """No pay-off top, or a King: any center takes it, no center is nearer."""
    return top is None or rank(top) == 13


def _can_reach_payoff(view: PlayerView, top: Card) -> bool:
    """Can the hand and side stacks bring some center to ``top`` this turn?"""
    counts = [0] * 13
    for c in view.hand:
        counts[rank(c) - 1] += 1
    stacks = tuple(tuple(rank(c) - 1 for c in s) for s in view.sides[view.seat])
    return any(_can_reach(len(c), rank(top) - 1, counts, stacks) for c in view.center)


def explain(
    view: PlayerView,
    turn: Sequence[Move],
    cards: Sequence[Card],
    other: Sequence[Move] = (),
    other_cards: Sequence[Card] = (),
) -> Explanation:
    """Why ``turn`` (from ``view``, with the cards it moves) rather than ``other``."""
    mine, theirs = view.payoff_tops[view.seat], view.payoff_tops[1 - view.seat]
    before = [len(c) for c in view.center]
    done = _follow(view, turn, cards)
    good: list[Reason] = []
    if done.payoff is not None:
        good.append(Reason(Why.PAYOFF_PLAYED, done.payoff[0], done.payoff[1]))
    elif mine is not None and not _wild(mine):
        was, _c = _nearest(before, mine)
        now, center = _nearest(done.centers, mine)
        if now == 0 and was > 0:
            good.append(Reason(Why.PAYOFF_IN_REACH, mine, center))
        elif now < was:
            good.append(Reason(Why.PAYOFF_CLOSER, mine, center, gap=now))
    for card, center in done.completed or ():
        good.append(Reason(Why.CENTER_COMPLETED, card, center))
    if done.emptied:
        good.append(Reason(Why.HAND_EMPTIED, gap=HAND_SIZE))
    if theirs is not None and not _wild(theirs):
        opened = [i for i, n in enumerate(before) if _gap(n, theirs) == 0]
        if opened and all(_gap(done.centers[i], theirs) != 0 for i in range(len(before))):
            good.append(Reason(Why.BLOCKS, theirs, opened[0]))
    against: list[Reason] = []
    if other and tuple(other) != tuple(turn):
        alt = _follow(view, other, other_cards)
        if mine is not None and not _wild(mine) and done.payoff is None:
            # a center that could still take the pay-off, which the other turn lifts past it
            for i, n in enumerate(before):
                if n < rank(mine) <= alt.centers[i] and done.centers[i] < rank(mine):
                    good.append(Reason(Why.KEEPS_LOW, mine, i))
                    break
        kings = [k for k in alt.center_cards if rank(k) == 13 and k not in done.center_cards]
        spent = done.payoff is None and alt.payoff is None and not alt.completed
        if mine is not None and not _wild(mine):  # (a King that brings the pay-off within reach counts)
            spent = spent and _nearest(alt.centers, mine)[0] != 0
        if kings and spent and kings[0] in view.hand:
            good.append(Reason(Why.KEEPS_KING, kings[0]))
        if theirs is not None and not _wild(theirs):
            gives = [i for i in sorted(alt.raised or ()) if _gap(alt.centers[i], theirs) == 0]
            spared = all(_gap(n, theirs) != 0 for n in done.centers)
            if gives and spared and alt.center_cards:
                against.append(Reason(Why.GIVES, theirs, gives[0], cards=alt.center_cards))
    if not done.center_cards and mine is not None and not _wild(mine) and not _can_reach_payoff(view, mine):
        good.append(Reason(Why.NOTHING_REACHES, mine))
    if done.discard is not None:
        good.append(done.discard)
    return Explanation(tuple(good), tuple(against))


__all__ = ["NO_REASONS", "Explanation", "Reason", "Why", "explain"]
