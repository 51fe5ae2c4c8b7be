"""``p2p-spite learn``: the lessons of :mod:`p2p_spite.ui.lessons`, played on the real board.

A lesson is a :class:`LessonSession` (the Session contract over a
:class:`~p2p_spite.ui.lessons.Tutor`), so the full screen (:class:`LessonApp`, the game's
own :class:`~.app.GameApp`) and the line prompt (:func:`learn_lines`, the game's own
line player) show the board, read moves and refuse them exactly as in a game.  The
:class:`Coach` adds the lessons' words around the events (the goal, what a solved
lesson taught) and the lesson's own commands: ``retry``, ``next``, ``lessons``, Enter
for the next lesson.  At the end it offers a first game against the computer (easy).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import TextIO

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ..contracts.errors import SessionClosed
from ..contracts.i18n import _
from ..contracts.session import Event, GameStarted, MovePlayed, MoveTakenBack, Rematch
from ..engine import DEFAULT_TARGET, IllegalMoveError, Move, PlayerView, view
from ..engine.refusals import Refused
from .app import GameApp
from .board import BoardInfo
from .commands import Quit, is_yes, parse_command
from .controller import Controller
from .lessons import STUDENT, Tutor, lessons
from .lineplay import _LinePlayer, _stdin_lines, _turn_starts, render
from .messages import MessageLog
from .play import fullscreen_ok
from .question import QuestionKind
from .text import card_label
from .words import Style


class LessonSession:
    """The student's seat (0) in the lessons, from lesson ``first`` (0-based): each lesson
    begins with a GameStarted (its number as the game's), each move is checked by the
    rules and then by the lesson (its words in the refusal), the computer never moves."""

    seat = STUDENT
    private = False

    def __init__(self, names: tuple[str, str], first: int = 0) -> None:
        self.names = names
        self.lessons = lessons()
        self.index = first
        self.tutor = Tutor(self.lessons[first], first + 1)
        self.closed: str | None = None
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self.go(first)

    # -- the lessons ----------------------------------------------------------------

    def go(self, index: int) -> None:
        """Lesson ``index`` from its start (again, if it is the one under way)."""
        self.index = index
        self.tutor = Tutor(self.lessons[index], index + 1)
        self._events.put_nowait(GameStarted(index + 1, STUDENT, self.view(), (0, 0), DEFAULT_TARGET))

    def hint(self, v: PlayerView) -> Move:
        """The lesson's next move (the ``hint``)."""
        move = self.tutor.next_move()
        if move is None:
            raise ValueError(_("this lesson is done"))
        return move

    @property
    def queued(self) -> int:
        return self._events.qsize()

    def pending(self) -> Event | None:
        """The next event if one waits (the line prompt takes them as they come)."""
        return None if self._events.empty() else self._events.get_nowait()

    # -- the Session contract ----------------------------------------------------------

    def view(self) -> PlayerView:
        return view(self.tutor.state, STUDENT)

    @property
    def closed_for_play(self) -> bool:
        return self.closed is not None

    async def play(self, move: Move) -> None:
        if self.closed is not None:
            raise SessionClosed(_("the lessons are over"))
        played = self.tutor.play(move, card_label)
        self._events.put_nowait(MovePlayed(move.seat, played, self.view()))

    async def take_back(self) -> None:
        played = self.tutor.take_back()
        self._events.put_nowait(MoveTakenBack(STUDENT, played, self.view()))

    async def answer_takeback(self, yes: bool) -> bool:
        return False

    async def chat(self, text: str) -> None:
        raise SessionClosed(_("there is no one to chat with in a lesson"))

    async def resign(self) -> None:
        raise IllegalMoveError([], Refused(_("a lesson is not resigned: type next to skip it")))

    async def close(self, reason: str = "quit") -> None:
        self.closed = reason

    async def rematch(self, yes: bool) -> Rematch:
        return Rematch.NOT_OFFERED

    async def next_event(self) -> Event:
        return await self._events.get()


class Coach:
    """The lessons' words and commands beside the game's controller ``ctl``."""

    def __init__(self, session: LessonSession, ctl: Controller) -> None:
        self.session = session
        self.ctl = ctl
        self.listed = False  # the list of lessons was shown (before the first one)
        self.left = False  # the student left (quit, or the last lesson's question answered)
        self.wants_game = False  # ... saying yes to a first game against the computer

    def say(self, style: Style, text: str) -> None:
        self.ctl.say(style, text)

    def _words(self, text: str) -> str:
        return self.session.tutor.lesson.words(text, card_label)

    def show_list(self) -> None:
        self.say(Style.EVENT, _("Lessons:"))
        for n, lesson in enumerate(self.session.lessons, 1):
            mark = ">" if n == self.session.index + 1 else " "
            self.say(Style.HELP, f" {mark} {n}. {lesson.title}")

    def show_goal(self) -> None:
        self.say(Style.INFO, self._words(self.session.tutor.lesson.goal))

    def begin(self, ev: GameStarted) -> None:
        """A lesson begins (instead of the game's "Game N begins"): its title and goal."""
        ctl = self.ctl
        ctl.takebacks.new_game()
        ctl.view = ev.view
        ctl.target = None  # (no match: the board's header says no "first to 50")
        ctl.last_move = None
        if not self.listed:
            self.listed = True
            self.show_list()
            self.say(
                Style.INFO,
                _(
                    "Type moves as in a game (help shows how). retry: the lesson again; "
                    "next: skip it; lessons: the list; quit: leave."
                ),
            )
        n, lesson, total = self.session.index + 1, self.session.tutor.lesson, len(self.session.lessons)
        self.say(
            Style.EVENT,
            _("Lesson {n} of {total}: {title}").format(n=n, total=total, title=lesson.title),
        )
        self.show_goal()
        ctl.port.changed()

    def after(self, ev: Event) -> bool:
        """The words after a move: what a solved lesson taught.  True: that was the last
        lesson (call :meth:`offer_game`)."""
        if not isinstance(ev, MovePlayed) or not self.session.tutor.done:
            return False
        self.say(Style.EVENT, _("Lesson solved."))
        self.say(Style.INFO, self._words(self.session.tutor.lesson.done))
        if self.session.index + 1 < len(self.session.lessons):
            self.say(Style.INFO, _("Press Enter for the next lesson, or type retry to play this one again."))
            return False
        return True

    async def offer_game(self) -> None:
        """The end: a first game against the computer?"""
        self.say(Style.EVENT, _("That was the last lesson."))
        question = _("Play a first game against the computer (easy)? [y/N]")
        yes = await self.ctl.questions.ask(QuestionKind.AGAIN, question, question)
        self.wants_game = yes is True
        self.left = True
        self.ctl.port.leave()

    async def leave(self) -> None:
        """Leave the lessons (nothing is lost: no question asked)."""
        self.left = True
        await self.session.close()
        self.ctl.port.leave()

    async def line(self, text: str) -> bool:
        """Handle ``text`` if it is one of the lessons' words (True: it was)."""
        word = text.strip().lower()
        session = self.session
        if word in ("retry", _("retry")):
            session.go(session.index)
        elif word in ("next", _("next")) or (not word and session.tutor.done):
            if session.index + 1 < len(session.lessons):
                session.go(session.index + 1)
            elif session.tutor.done:
                return True  # (the question at the end is on its way)
            else:
                self.say(Style.ERROR, _("This is the last lesson."))
        elif word in ("lessons", _("lessons")):
            self.show_list()
        elif not word and self.ctl.hinted is None:  # (Enter plays a hint offered)
            self.show_goal()
        elif isinstance(parse_command(text), Quit):
            await self.leave()
        else:
            return False
        return True


class LessonApp(GameApp):
    """The game's full screen, playing the lessons."""

    def __init__(
        self, session: LessonSession, *, input: Input | None = None, output: Output | None = None
    ) -> None:
        super().__init__(session, input=input, output=output, pace=0.2, hint=session.hint)
        self.coach = Coach(session, self.ctl)
        self.log = MessageLog()  # (the lessons say who plays whom their own way)

    @property
    def waiting_next_game(self) -> bool:
        """A lesson solved waits for Enter (the move line says so), as a game over does."""
        s = self.coach.session
        return s.tutor.done and s.index + 1 < len(s.lessons)

    @property
    def next_words(self) -> tuple[str, str]:
        """A lesson has no chat: Enter, retry or quit."""
        return _("Enter: next lesson"), _("or retry, or quit")

    def board_info(self) -> BoardInfo | None:
        """The board's header names the lesson, not a game."""
        info = super().board_info()
        if info is None:
            return None
        s = self.coach.session
        return dataclasses.replace(
            info, title=_("Lesson {n}/{total}").format(n=s.index + 1, total=len(s.lessons))
        )

    def feed_show(self, ev: Event) -> None:
        if isinstance(ev, GameStarted):  # a lesson: a clean message pane
            self.selected = None
            self.log = MessageLog()
            self.coach.begin(ev)
            self.invalidate()
            return
        super().feed_show(ev)
        if self.coach.after(ev):
            self.app.create_background_task(self.coach.offer_game())

    def ask_quit(self) -> None:
        """Ctrl-C leaves at once (nothing is lost), or says no to the question at the end."""
        if self.confirm is not None:
            self.answer(False)
        else:
            self.app.create_background_task(self.coach.leave())

    async def command(self, text: str) -> None:
        if self.confirm is None and await self.coach.line(text):
            self.invalidate()
            return
        await super().command(text)


async def learn_lines(
    session: LessonSession, out: Callable[[str], None] = print, *, stdin: TextIO | None = None
) -> bool:
    """The lessons on the plain line prompt (lines from ``stdin``, default ``sys.stdin``).
    True: the student asked for a first game against the computer."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    _stdin_lines(loop, lines, stdin)
    p = _LinePlayer(session, out, session.hint)
    ctl = p.ctl
    coach = Coach(session, ctl)
    offer: asyncio.Task[None] | None = None
    while True:
        shown = False
        while (ev := session.pending()) is not None:
            shown = True
            if isinstance(ev, GameStarted):
                coach.begin(ev)
            else:
                ctl.show(ev)
                if coach.after(ev):
                    offer = asyncio.create_task(coach.offer_game())
                    await asyncio.sleep(0)  # (the question is asked, and shown)
            v = ctl.view
            if v is not None and v.my_turn and _turn_starts(ev, STUDENT):
                out(render(v, ctl.names, ctl.slots))
        if shown and offer is None:
            p.prompt()
        if coach.left:
            return coach.wants_game
        text = await lines.get()
        if ctl.question is not None:
            ctl.answer(None if text is None else is_yes(text))
            if offer is not None:
                await offer
            continue
        if text is None:
            return False
        if await coach.line(text):
            if session.queued == 0 and not coach.left:
                p.prompt()
            continue
        await p.line(text)


def run_learn(name: str, first: int) -> bool:
    """``p2p-spite learn``: the lessons from ``first`` (0-based) on this terminal, full
    screen or the line prompt.  True: the student asked for a first game against the
    computer."""

    async def main() -> bool:
        session = LessonSession((name, _("Computer")), first)
        if not fullscreen_ok():
            return await learn_lines(session)
        app = LessonApp(session)
        await app.run()
        return app.coach.wants_game

    return asyncio.run(main())


__all__ = ["Coach", "LessonApp", "LessonSession", "learn_lines", "run_learn"]
