"""The y/N question a command asks and awaits, answered by the next line typed.

Both interfaces ask the same way (prompt_toolkit's dialogs are awaited like this
too): the command that asks ``await``\\ s :meth:`Questions.ask`; whatever reads the
next line calls :meth:`Questions.answer` with :func:`~.commands.is_yes` of it.  One
question is open at a time: a new one withdraws the one before (its asker gets None).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum


class QuestionKind(Enum):
    QUIT = "quit"  # leave the match
    RESIGN = "resign"  # give up the current game
    TAKEBACK = "takeback"  # let the other player take back its last move
    AGAIN = "again"  # play another match, at a match's end


@dataclass(frozen=True, slots=True)
class Question:
    kind: QuestionKind
    text: str
    short: str  # the question on a narrow line
    answer: asyncio.Future[bool | None]  # True: y; False: anything else; None: withdrawn


class Questions:
    """The question open now (``open``), if any; ``changed`` is called whenever one is
    asked or settled (the interface shows it, or stops showing it)."""

    def __init__(self, changed: Callable[[], None]) -> None:
        self.open: Question | None = None
        self._changed = changed

    async def ask(self, kind: QuestionKind, text: str, short: str = "") -> bool | None:
        """Ask and wait for the answer: True for y, False for anything else, None when it
        was withdrawn (another question took its place, or the input ended)."""
        self.answer(None)
        asked = Question(kind, text, short or text, asyncio.get_running_loop().create_future())
        self.open = asked
        self._changed()
        try:
            return await asked.answer
        finally:
            if self.open is asked:
                self.open = None
                self._changed()

    def answer(self, yes: bool | None) -> None:
        """Answer the open question (nothing when none is)."""
        asked, self.open = self.open, None
        if asked is not None:
            if not asked.answer.done():
                asked.answer.set_result(yes)
            self._changed()
