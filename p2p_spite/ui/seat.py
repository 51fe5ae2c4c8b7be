"""What the controller and its parts (takebacks, play again) share: the interface's
:class:`Port`, and the :class:`Seat` the parts read and change (the
:class:`~p2p_spite.ui.controller.Controller` is one), so that no part imports the
controller."""

from __future__ import annotations

from typing import Protocol

from ..contracts.session import MovePlayed, Session
from ..engine import PlayerView
from .board import Slots
from .question import Question, Questions
from .words import Style, Voice


class Port(Protocol):
    """What an interface gives the controller: where its words go, and the few
    things only the interface can do."""

    def say(self, style: Style, text: str) -> None:
        """Show one message line."""

    def show_help(self) -> None:
        """Show the help (each interface has its own keys to explain)."""

    def offer(self, text: str) -> None:
        """A line ready for Enter to play (the hint): the full screen fills its move line."""

    def next_game(self) -> bool:
        """Enter between games: show the game held back, if one is (True: one was)."""

    def holding(self) -> bool:
        """Is a new game held back until Enter (the finished one on screen)?"""

    async def played(self, before: PlayerView) -> None:
        """A move of ours was taken by the session (the full screen waits for it to show)."""

    def leave(self) -> None:
        """The player left: stop reading lines."""

    def changed(self) -> None:
        """The state shown changed (redraw, or prompt again)."""


class Seat(Protocol):
    """The controller as its parts see it."""

    session: Session
    port: Port
    seat: int
    names: tuple[str, str]
    opp_name: str
    voice: Voice
    last_move: MovePlayed | None
    slots: Slots
    questions: Questions
    match_number: int
    finished: bool
    failed: bool
    over: bool
    left: bool
    leave_words: str | None

    @property
    def view(self) -> PlayerView | None: ...

    @view.setter
    def view(self, v: PlayerView | None) -> None: ...

    @property
    def question(self) -> Question | None: ...

    def board(self) -> PlayerView | None: ...

    def say(self, style: Style, text: str) -> None: ...

    def answer(self, yes: bool | None) -> None: ...

    async def leave(self) -> None: ...
