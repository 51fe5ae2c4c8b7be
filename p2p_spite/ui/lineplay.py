"""A plain line prompt for a person playing a match (no full-screen UI).

For ``TERM=dumb`` and pipes.  It speaks like the full-screen game: the same
move notation (:mod:`p2p_spite.ui.notation`: ``h3 c1``, ``p c2``, ``h2 s3``),
the hand numbered in the same way (:func:`p2p_spite.ui.board.hand_slots`, so
``h1`` is the same card in both, and keeps its number within a turn), every
side stack shown, refusals explained in the player's terms, ``hint``,
``chat TEXT``, ``resign`` and ``quit`` (both ask y/N first) and ``help``.

Ctrl-C leaves the match at once (the peer is told, the record saved); so does
the end of the input, with exit code 1 since it was not a deliberate quit
(but the end of the input while ``quit`` asks is taken as the yes a script
could not type: exit code 0; while ``resign`` asks it is a no).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from ..contracts.i18n import _, ngettext
from ..contracts.session import (
    Event,
    GameStarted,
    MatchEnded,
    MovePlayed,
    MoveTakenBack,
    Session,
    SessionFailed,
    view_of,
)
from ..engine import CENTER, Move, PlayerView, needs
from .board import Slots, hand_order, rank_label
from .commands import Again, default_why, is_yes, parse_command
from .controller import Controller
from .notation import syntax_help, typed_moves
from .question import Question, QuestionKind
from .text import card_label, wrapped
from .words import Style, choice_words


def help_text() -> str:
    """What ``help`` prints (and the game's start), each paragraph wrapped between words."""
    return "\n".join(
        wrapped(paragraph)
        for paragraph in (
            _("moves: {syntax}").format(syntax=syntax_help()),
            _(
                "a card's name (7h, 10s, kd) always means the same card; a hand number keeps its card "
                "until your turn ends (a played card leaves its number empty)"
            ),
            _(
                "other: 'hint' (then Enter plays it), 'undo' (take back your last move of this turn), "
                "'chat TEXT' (or 'say TEXT'), 'resign' (this game; asks first), "
                "'quit' (leave the match; asks first), 'help'"
            ),
            _("win a game by emptying your pay-off pile; when the stock runs out the game is a draw"),
            _("Tab, then Enter: the moves that start as typed (9, 9h, kd, h3)"),
        )
    )


_CTRL_C = "\x03"  # queued by the SIGINT handler in place of a line


MAX_SIDE_SHOWN = 6  # a side stack longer than this shows its top cards and "+N"


def _stack(cards: tuple[int, ...]) -> str:
    return card_label(cards[-1]) if cards else "--"


def _side(cards: tuple[int, ...]) -> str:
    """A whole side stack, bottom to top (the top, the playable card, last)."""
    if not cards:
        return "--"
    shown = [card_label(c) for c in cards[-MAX_SIDE_SHOWN:]]
    more = len(cards) - len(shown)
    return (f"+{more} " if more else "") + " ".join(shown)


def _sides(stacks: tuple[tuple[int, ...], ...]) -> str:
    return " | ".join(f"s{i + 1} {_side(st)}" for i, st in enumerate(stacks))


def _cards(n: int) -> str:
    return ngettext("{n} card", "{n} cards", n).format(n=n)


def _need(center: tuple[int, ...]) -> str:
    return rank_label(needs(len(center)))


def _opt(card: int | None) -> str:
    return card_label(card) if card is not None else "--"


def render(view: PlayerView, names: tuple[str, str], hand: Slots | None = None) -> str:
    """The board as a few lines: every side stack of both players (top card
    last), and the hand numbered as the full-screen board numbers it
    (``hand``: the slots shown, default the sorted hand)."""
    me, op = view.seat, view.opponent
    top = view.payoff_tops
    slots = hand_order(view.hand) if hand is None else hand
    held = "  ".join(f"h{i + 1} {card_label(c)}" for i, c in enumerate(slots) if c is not None)
    centers = "  ".join(
        _("{stack} {cards} (needs {rank})").format(stack=f"c{i + 1}", cards=_stack(c), rank=_need(c))
        for i, c in enumerate(view.center)
    )
    lines = [
        "-- " + _("game {game}  stock {stock}").format(game=view.game, stock=view.stock_count),
        ngettext(
            "{name}: pay-off {card} ({n} left), hand {cards}",
            "{name}: pay-off {card} ({n} left), hand {cards}",
            view.payoff_counts[op],
        ).format(
            name=names[op], card=_opt(top[op]), n=view.payoff_counts[op], cards=_cards(view.hand_counts[op])
        ),
        "  " + _("{name}'s sides {stacks}").format(name=names[op], stacks=_sides(view.sides[op])),
        _("center: {stacks}").format(stacks=centers),
        "  " + _("your sides {stacks}").format(stacks=_sides(view.sides[me])),
        ngettext(
            "you: pay-off {card} ({n} left)", "you: pay-off {card} ({n} left)", view.payoff_counts[me]
        ).format(card=_opt(top[me]), n=view.payoff_counts[me]),
        _("hand: {cards}").format(cards=held or _("(empty)")),
    ]
    return "\n".join(lines)


def _stdin_lines(
    loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None], stdin: TextIO | None
) -> None:
    source = stdin if stdin is not None else sys.stdin

    def reader() -> None:
        with contextlib.suppress(Exception):  # a closed stdin is the end of the input
            for line in source:
                loop.call_soon_threadsafe(queue.put_nowait, line)
        with contextlib.suppress(RuntimeError):  # (the loop may be gone)
            loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=reader, daemon=True).start()


def _catch_ctrl_c(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> Callable[[], None]:
    """Ctrl-C becomes a line that leaves the match; returns the undo."""
    try:
        previous: Any = signal.getsignal(signal.SIGINT)
        loop.add_signal_handler(signal.SIGINT, queue.put_nowait, _CTRL_C)
    except (ValueError, RuntimeError, NotImplementedError, AttributeError):
        return lambda: None  # not the main thread, or no signals here: Ctrl-C cancels as before

    def undo() -> None:
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGINT)
            if previous is not None:
                signal.signal(signal.SIGINT, previous)

    return undo


class _LinePlayer:
    """The line prompt's side of the :class:`~.controller.Controller` (its Port):
    lines out, prompts, and the one line a question waits for."""

    def __init__(
        self,
        session: Session,
        out: Callable[[str], None],
        hint: Callable[[PlayerView], Move] | None,
    ) -> None:
        self.out = out
        self.ctl = Controller(
            session,
            self,
            hint=hint,
            why=default_why if hint is None else None,
            enter_plays_hint=True,
            enter_shows_help=True,
            leave_words=None,
        )
        self.asked = asyncio.Event()  # set when a command asks a question
        self._shown_question: Question | None = None
        self._moved = False  # the line handled was a move the session took

    # -- the controller's Port --------------------------------------------------

    def say(self, style: Style, text: str) -> None:
        self.out(wrapped(text, _MARKS.get(style, "")))

    def show_help(self) -> None:
        self.out(help_text())

    def offer(self, text: str) -> None:
        """(Enter plays the hint: the controller keeps it.)"""

    def next_game(self) -> bool:
        return False  # (nothing is held back: the next game starts at once)

    def holding(self) -> bool:
        return False

    async def played(self, before: PlayerView) -> None:
        self._moved = True  # (the board and the prompt come with the move's event)

    def leave(self) -> None:
        """(The line loop ends when the line that quit returns.)"""

    def changed(self) -> None:
        q = self.ctl.question
        if q is not None and q is not self._shown_question:  # asked: show it, and read the answer
            self._shown_question = q
            self.asked.set()
            self.prompt()

    # -- prompts --------------------------------------------------------------

    def prompt(self) -> None:
        v = self.ctl.view
        if self.ctl.question is not None:
            self.out(self.ctl.question.text)
        elif v is not None and v.my_turn:
            self.out(_("your move") + "> ")
        else:
            self.out("> ")

    async def again(self) -> int | None:
        """The match's end: another match?  An exit code when none follows."""
        await self.ctl.handle(Again())
        return 0 if self.ctl.over or self.ctl.left else None

    async def line(self, text: str) -> int | None:
        """Handle one line; an exit code when the player leaves."""
        if "\t" in text and self.ctl.question is None:  # Tab (then Enter): what completes it
            self._complete(text.partition("\t")[0])
            self.prompt()
            return None
        self._moved = False
        await self.ctl.handle(parse_command(text))
        if self.ctl.left:
            return 0  # a deliberate quit, as in the full-screen interface
        if not self._moved and self.ctl.question is None:
            self.prompt()
        return None

    def _complete(self, typed: str) -> None:
        """The legal moves that start as ``typed``, one a line with what each does (as the
        full screen's Tab lists them; a terminal's line prompt cannot complete in place)."""
        v = self.ctl.view
        t = " ".join(typed.lower().split()) + (" " if typed.endswith(" ") and typed.strip() else "")
        found = typed_moves(t, v.legal_moves(), self.ctl.slots) if v is not None else []
        if not found:
            self.out(wrapped(_("no move of yours starts with {typed}").format(typed=repr(typed.strip()))))
        for text, m in found:
            self.out(f"  {text:<8} {choice_words(m, v.card_of(m) if v is not None else None)}")


_MARKS = {Style.EVENT: "== ", Style.INFO: "-- "}


async def play_lines(
    session: Session,
    out: Callable[[str], None] = print,
    *,
    stdin: TextIO | None = None,
    hint: Callable[[PlayerView], Move] | None = None,
) -> int:
    """Let a person play ``session`` by typing lines (from ``stdin``, default
    ``sys.stdin``); returns an exit code.  Closing the session on the way out
    (a quit, Ctrl-C, the end of the input) is done here; a cancellation is
    never swallowed, so the caller's own ``finally`` still runs."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    _stdin_lines(loop, lines, stdin)
    undo_ctrl_c = _catch_ctrl_c(loop, lines)
    p = _LinePlayer(session, out, hint)
    ctl = p.ctl
    if ctl.private:
        hello = _("You are {me} against {name}, on a private deck.")
    else:
        hello = _("You are {me} against {name}.")
    out(hello.format(me=ctl.names[ctl.seat], name=ctl.opp_name))
    out(help_text())
    ev_task: asyncio.Task[Event] = asyncio.create_task(session.next_event())
    line_task: asyncio.Task[str | None] = asyncio.create_task(lines.get())
    command: asyncio.Task[int | None] | None = None  # the line being handled
    again: asyncio.Task[int | None] | None = None  # at a match's end: another match? (lines go on)
    try:
        while True:
            if command is not None and ctl.question is None:
                # one line at a time: nothing else until it is handled or asks a question
                p.asked.clear()
                asked = asyncio.create_task(p.asked.wait())
                try:
                    await asyncio.wait({command, asked}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    asked.cancel()
                if command.done():
                    code, command = command.result(), None
                    if code is not None:
                        return code
                continue
            waits: set[asyncio.Task[Any]] = {ev_task, line_task, *([again] if again is not None else [])}
            done, _pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if again is not None and again in done:
                code, again = again.result(), None
                if code is not None:
                    return code
                continue
            if ev_task in done:
                ev = ev_task.result()
                ev_task = asyncio.create_task(session.next_event())
                ctl.show(ev)
                if isinstance(ev, SessionFailed):
                    return 1
                if isinstance(ev, MatchEnded):  # another match? (asked, then settled; lines go on)
                    again = asyncio.create_task(p.again())
                    continue
                v = view_of(ev)
                if v is not None and v.my_turn and _turn_starts(ev, ctl.seat):
                    out(render(v, ctl.names, ctl.slots))
                    p.prompt()
                continue
            text = line_task.result()
            line_task = asyncio.create_task(lines.get())
            if text == _CTRL_C:
                out("")
                out("-- " + _("Ctrl-C: leaving the match (the other player is told; the record is saved)"))
                await session.close("quit")
                return 0
            if ctl.question is not None and text is not None:
                ctl.answer(is_yes(text))
                continue
            if text is None and again is not None:  # the match ended as it should: no other
                out("-- " + _("end of input: no other match"))
                if ctl.question is not None and ctl.question.kind is QuestionKind.AGAIN:
                    ctl.answer(False)
                else:
                    await ctl.leave()  # (waiting for the peer's answer: no more)
                return await again or 0
            if text is None and ctl.question is not None and command is not None:
                if ctl.question.kind is QuestionKind.QUIT:  # the yes a script could not type
                    out("-- " + _("end of input while asking: leaving the match as asked"))
                    ctl.answer(True)
                    return await command or 0
                if ctl.question.kind is QuestionKind.RESIGN:  # (the other's takeback: left unanswered)
                    out("-- " + _("end of input while asking: not resigned"))
                ctl.answer(None)
            if text is None:
                out(
                    "-- "
                    + _(
                        "end of input: leaving the match (the record is saved). "
                        "Exit code 1: that was not a deliberate quit (type quit for that)."
                    )
                )
                await session.close("quit")
                return 1
            command = asyncio.create_task(p.line(text))
    finally:
        undo_ctrl_c()
        ev_task.cancel()
        line_task.cancel()
        for task in (command, again):
            if task is not None:
                task.cancel()


def _turn_starts(ev: Event, seat: int) -> bool:
    """Show the board when the turn becomes ours, and after each of our own moves
    onto a center (the turn goes on)."""
    if isinstance(ev, GameStarted):
        return True
    if isinstance(ev, MovePlayed):
        return ev.seat != seat or ev.move.target == CENTER
    return isinstance(ev, MoveTakenBack) and ev.seat == seat


__all__ = ["help_text", "play_lines", "render"]
