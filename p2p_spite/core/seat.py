"""What a seat's session says of its match by reading the match core alone: the
part of the :class:`~p2p_spite.contracts.session.Session` contract that the network session
and the in-process one share."""

from __future__ import annotations

from ..engine import Match, PlayerView
from .game import GameCore


class CoreSeat:
    """The seat, names, match and view of ``core`` (set by the subclass)."""

    core: GameCore

    @property
    def seat(self) -> int:
        return self.core.seat

    @property
    def names(self) -> tuple[str, str]:
        p = self.core.match.players
        return (p[0], p[1])

    @property
    def match(self) -> Match:
        return self.core.match

    @property
    def seed(self) -> bytes:
        return self.core.match.seed

    @property
    def private(self) -> bool:
        """A private-deck match (docs/fairness.md)."""
        return self.core.private is not None

    def view(self) -> PlayerView | None:
        """The seat's view now (None: a private game's deal is being made)."""
        return self.core.view()


__all__ = ["CoreSeat"]
