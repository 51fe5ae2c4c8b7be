"""Moves, in the exact shape of the record (SPEC section 3)."""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from .cards import card_str

# Sources and targets, spelled as in the record.
HAND: Final = "hand"
PAYOFF: Final = "payoff"
SIDE: Final = "side"
CENTER: Final = "center"

SOURCES: Final = (HAND, PAYOFF, SIDE)
TARGETS: Final = (CENTER, SIDE)
CENTER_STACKS: Final = 3
SIDE_STACKS: Final = 4


class Move(NamedTuple):
    """``[seat, source, arg, target, index]``.

    source ``"payoff"`` has arg ``None``; ``"side"`` has the side stack index
    0..3; ``"hand"`` has the card id.  target ``"center"`` has index 0..2,
    ``"side"`` (only from the hand; it ends the turn) has index 0..3.
    """

    seat: int
    source: str
    arg: int | None
    target: str
    slot: int  # the record's "index": which center (0..2) or side stack (0..3)

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
    return Move(seat, source, arg, target, index)
