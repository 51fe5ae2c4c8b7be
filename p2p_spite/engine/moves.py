"""Moves, in the exact shape of the record (SPEC section 3)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, NamedTuple

from .cards import Card, card_str


class Pile(StrEnum):
    """A move's source or target, its value the record's word (the same bytes in
    records, journals and on the wire: a StrEnum is a ``str``)."""

    HAND = "hand"
    PAYOFF = "payoff"
    SIDE = "side"
    CENTER = "center"

    def __repr__(self) -> str:
        return str.__repr__(self)  # 'hand', as the word it stands for (a move's repr is unchanged)


HAND: Final = Pile.HAND
PAYOFF: Final = Pile.PAYOFF
SIDE: Final = Pile.SIDE
CENTER: Final = Pile.CENTER

SOURCES: Final = (HAND, PAYOFF, SIDE)
TARGETS: Final = (CENTER, SIDE)
CENTER_STACKS: Final = 3
SIDE_STACKS: Final = 4

# The record's word for each pile, to the enum member (a move read from a record or a peer).
PILE_OF: Final[dict[object, Pile]] = {p.value: p for p in Pile}


class Move(NamedTuple):
    """``[seat, source, arg, target, index]``.

    source ``"payoff"`` has arg ``None``; ``"side"`` has the side stack index
    0..3; ``"hand"`` has the card id.  target ``"center"`` has index 0..2,
    ``"side"`` (only from the hand; it ends the turn) has index 0..3.
    Read ``arg`` through :attr:`hand_card` and :attr:`side_stack`.
    """

    seat: int
    source: Pile
    arg: int | None
    target: Pile
    slot: int  # the record's "index": which center (0..2) or side stack (0..3)

    @property
    def hand_card(self) -> Card | None:
        """The card a move from the hand plays (None: the move is not from the hand)."""
        return self.arg if self.source == HAND else None

    @property
    def side_stack(self) -> int | None:
        """The side stack (0..3) a move from a side stack takes its card from (None: not one)."""
        return self.arg if self.source == SIDE else None

    @property
    def to_center(self) -> bool:
        return self.target == CENTER

    def __str__(self) -> str:
        if self.source == HAND and isinstance(self.arg, int):
            src = f"hand {card_str(self.arg)}"
        elif self.source == SIDE:
            src = f"side {self.arg}"
        else:
            src = str(self.source)
        return f"seat {self.seat}: {src} -> {self.target} {self.slot}"


def move_from_json(value: Any) -> Move:
    """A Move from its record form, checking the shape only (not legality).

    Raises ValueError naming what is wrong.  Integers must be real JSON
    integers: ``true``, ``false`` and ``1.0`` are refused.
    """
    if not isinstance(value, (list, tuple)) or len(value) != 5:
        raise ValueError("a move is an array of 5 items [seat, source, arg, target, index]")
    seat, source, arg, target, index = value
    if type(seat) is not int:
        raise ValueError(f"seat must be an integer, not {seat!r}")
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}")
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}")
    if source == PAYOFF:
        if arg is not None:
            raise ValueError(f"a pay-off move has arg null, not {arg!r}")
    elif type(arg) is not int:
        raise ValueError(f"{source} arg must be an integer, not {arg!r}")
    if type(index) is not int:
        raise ValueError(f"{target} index must be an integer, not {index!r}")
    return Move(seat, PILE_OF[source], arg, PILE_OF[target], index)


def as_move(value: Any) -> Move:
    """A Move from a 5-item sequence the engine has just accepted (its words made Piles)."""
    if type(value) is Move and type(value.source) is Pile and type(value.target) is Pile:
        return value
    seat, source, arg, target, index = value
    return tuple.__new__(Move, (seat, PILE_OF[source], arg, PILE_OF[target], index))
