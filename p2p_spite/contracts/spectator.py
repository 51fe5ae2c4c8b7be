"""The contract between a watcher's connection and whoever shows it.

A :class:`Spectator` is a watcher's side of a match it does not play: the
network layer implements it (``p2p-spite watch``), and the full-screen viewer
or the headless line printer drives it.  It only ever hands out a
:class:`~p2p_spite.engine.PublicView`: no hand, no stock order, no seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..engine import Card, Move, PublicView
from .news import News


@dataclass(frozen=True, slots=True)
class Watching:
    """The host let us watch: the match's players (seat 0 first) and settings."""

    names: tuple[str, str]
    target: int
    games: int | None  # the game limit, if any
    private: bool  # a private deck (docs/fairness.md)


@dataclass(frozen=True, slots=True)
class TableShown:
    """The table now: first the one we arrived at (mid-game too), then one after each
    move, resignation and deal.  ``move`` and ``card``: the move that led here and
    the card it placed (None: a deal or a resignation)."""

    view: PublicView
    scores: tuple[int, int]
    move: Move | None = None
    card: Card | None = None
    by_lot: bool = False  # a deal whose starter was drawn by lot (equal pay-off tops)
    match_over: bool = False  # the last table of the match
    taken_back: bool = False  # ``move`` was taken back (undo): the table is as it was before it


@dataclass(frozen=True, slots=True)
class WatchStopped:
    """The watch is over: ``complete`` when the match ended, else ``news`` says why
    (the host left, refused us, the connection was lost; worded by the interface) and
    ``exit_code`` is the command's (errors.py: EXIT_PEER_LEFT, EXIT_LOST, EXIT_ERROR)."""

    complete: bool
    news: News | None = None
    exit_code: int = 0
    refusal: str | None = None  # the host's refusal code (docs/protocol.md), if it refused us


SpectatorEvent = Watching | TableShown | WatchStopped


class Spectator(Protocol):
    """A watcher's side of a match."""

    async def next_event(self) -> SpectatorEvent:
        """Wait for the next event, in order (a WatchStopped is the last)."""
        ...

    async def close(self) -> None:
        """Stop watching: tell the host, close the connection."""
        ...
