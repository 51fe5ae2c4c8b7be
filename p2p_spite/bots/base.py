"""The bot interface: a bot sees one seat's view and nothing else."""

from __future__ import annotations

from typing import Protocol

from ..engine import Move, PlayerView


class Bot(Protocol):
    """A computer player.  It is handed only a :class:`PlayerView` of its seat,
    so it cannot see the opponent's hand or the stock order."""

    name: str

    def choose(self, view: PlayerView) -> Move:
        """The move to make now; called only when it is the view's seat's turn."""
        ...
