"""The full-screen game: board, messages, a move line and a toolbar.

:class:`GameApp` is the screen of one :class:`~p2p_spite.contracts.session.Session`: the
state shown and what each intent does are the :class:`~.controller.Controller`'s
(the line prompt has the same one); the events come through
:class:`~.feed.EventFeed` (taken at once, shown paced), the message pane is
:class:`~.messages.MessageLog`, the layout and keys are :mod:`.screen`'s, the move
line's completions, Tab and the mouse are :mod:`.moveline`'s.  What stays here is
the prompt_toolkit application: the move line's buffer, the board's render cache,
the title.

The board is always drawn from the view carried by the last event shown, and
moves typed are read against that same view, so what a player types always
refers to what they see.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
from collections.abc import Callable, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ..contracts.hangups import terminal_closed
from ..contracts.i18n import _
from ..contracts.session import (
    ChatReceived,
    ConnectionChanged,
    Event,
    GameEnded,
    GameStarted,
    LinkState,
    MatchEnded,
    MovePlayed,
    Notice,
    Session,
    WatchersChanged,
    view_of,
)
from ..engine import Move, PlayerView
from .board import MIN_WIDTH, BoardInfo, Line, Slots, app_style, as_text, render_board, render_compact
from .commands import Again, Quit, default_why, is_yes, parse_command
from .controller import Controller
from .feed import EventFeed
from .messages import MessageLog
from .moveline import MoveCompleter, clicked, current_source, press_tab, targets_of
from .notation import target_token, typed_moves
from .question import Question, QuestionKind
from .screen import (
    FIXED_ROWS,
    LARGE_MIN_MSG_ROWS,
    LARGE_MIN_ROWS,
    MIN_COLS,
    MIN_MSG_ROWS,
    build_layout,
    key_bindings,
)
from .words import Style, choice_words


def help_lines() -> list[str]:
    """The help the message pane shows (F1, ``help``): each line at most 76 columns."""
    return [
        _("Moves: a hand card by name (always that card) or number (kept all turn):"),
        "  7h c1 | h3 c1   " + _("hand card to center 1"),
        "  p c2            " + _("pay-off card to center 2"),
        "  s4 c1           " + _("side stack 4 to center 1"),
        "  9s s3 | h2 s3   " + _("discard on side stack 3: ends your turn"),
        _("Centers go up from Ace to Queen in any suit; Kings (K*) are wild."),
        _("Empty your pay-off pile to win: score the cards left in the other."),
        _("An empty stock ends the game as a draw: nobody scores."),
        _("Commands: hint, undo, chat TEXT, resign, quit. Mouse: a card, then a stack."),
        _("Keys: Tab lists moves, PgUp/PgDn scroll, Esc clears, F1 help, ^C quit."),
    ]


class GameApp:
    """The game screen for the seat of ``session``.

    ``pace``: seconds between the opponent's moves as shown.  ``wait_between_games``:
    hold the finished game on screen until Enter.  ``hint``: the move suggested
    for a view (default: ``bots.best_move``, the strongest level).
    """

    def __init__(
        self,
        session: Session,
        *,
        input: Input | None = None,
        output: Output | None = None,
        pace: float = 0.45,
        wait_between_games: bool = True,
        hint: Callable[[PlayerView], Move] | None = None,
        mouse: bool = True,
        notes: Sequence[str] = (),
        route: str = "",
    ) -> None:
        self.session = session
        self.route = route  # how the connection goes (internet play: direct, or the relay), for the toolbar
        self.ctl = Controller(session, self, hint=hint, why=default_why if hint is None else None)
        self.seat = session.seat
        self.names = self.ctl.names
        self.opp_name = self.ctl.opp_name
        self.private = self.ctl.private  # a private-deck match: the header says so
        self.log = MessageLog()  # the message pane
        self.selected: str | None = None  # the board token clicked first
        self.offered: str | None = None  # a hint's move on the move line, untouched: typing replaces it
        self._asked: Question | None = None  # the question the move line shows, as last seen
        self._put_by: tuple[str, str | None] = ("", None)  # a question put by the line (and its hint)
        self.exit_reason: str | None = None
        self._board_cache: tuple[object, list[Line]] | None = None
        self._title = ""
        self._lock = asyncio.Lock()
        self.feed = EventFeed(session, self.seat, self, pace=pace, hold_between_games=wait_between_games)
        self.buffer = Buffer(
            multiline=False,
            completer=MoveCompleter(self),
            complete_while_typing=True,
            history=InMemoryHistory(),
            accept_handler=self._accept,
        )
        self.buffer.on_text_changed += self._edited
        self.app: Application[None] = Application(
            layout=build_layout(self),
            key_bindings=key_bindings(self),
            style=app_style(),
            full_screen=True,
            mouse_support=mouse,
            input=input,
            output=output,
        )
        if self.private:
            hello = _("You are {me} against {name}, on a private deck. Type help for the moves.")
        else:
            hello = _("You are {me} against {name}. Type help for the moves.")
        self.say(Style.INFO, hello.format(me=self.names[self.seat], name=self.opp_name))
        for note in notes:  # what the command said before the screen covered it (how the seed was chosen)
            self.say(Style.INFO, note)

    # -- the state shown (the controller's) ----------------------------------------

    @property
    def view(self) -> PlayerView | None:
        """The view of the last event shown: the board drawn, and what typed moves refer to."""
        return self.ctl.view

    @property
    def scores(self) -> tuple[int, int]:
        return self.ctl.scores

    @property
    def finished(self) -> bool:
        return self.ctl.finished

    @property
    def failed(self) -> bool:
        return self.ctl.failed

    @property
    def connection(self) -> LinkState:
        return self.ctl.connection

    @property
    def watchers(self) -> int:
        return self.ctl.watchers

    @property
    def target(self) -> int | None:
        return self.ctl.target

    @property
    def confirm(self) -> Question | None:
        """The y/N question the move line answers now."""
        return self.ctl.question

    @property
    def highlight(self) -> frozenset[str]:
        """The stack the opponent's last move played on."""
        last = self.ctl.last_move
        if last is None or last.seat == self.seat or self.view is not last.view:
            return frozenset()
        return frozenset({target_token(last.move, own=False)})

    @property
    def waiting_next_game(self) -> bool:
        """The next game waits for Enter (the finished one is on screen)."""
        return self.feed.waiting

    @property
    def next_words(self) -> tuple[str, str]:
        """The move line's prompt while the next game waits for Enter, and its grey hint."""
        return _("Enter: next game"), _("or chat TEXT, or quit")

    def shown_hand(self) -> Slots:
        """The hand as numbered on screen (``None``: the slot of a card played this turn)."""
        return self.ctl.slots if self.view is not None else ()

    # -- running --------------------------------------------------------------

    async def run(self) -> None:
        """Run until the player quits or leaves the finished match."""
        self.feed.start()
        try:
            await self.app.run_async()
        except (EOFError, OSError) as e:
            if isinstance(e, EOFError) or e.errno == errno.EIO:
                terminal_closed()  # (its input ended, or writing to it failed): not a goodbye
            raise
        finally:
            if self._title:
                with contextlib.suppress(Exception):
                    self.app.output.clear_title()
            await self.feed.stop()
            if self.exit_reason is None:
                self.exit_reason = "quit"
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.session.close("quit"), 5)

    # -- what the controller asks of the screen (seat.Port) -------------------

    def say(self, style: Style, text: str) -> None:
        """Add a message line of ``style``."""
        self.log.add([(f"class:msg.{style}", text)], self.cols())
        self.invalidate()

    def offer(self, text: str) -> None:
        self.offered = text
        self.buffer.set_document(Document(text, len(text)))

    def _edited(self, buffer: Buffer) -> None:
        if buffer.text != self.offered:
            self.offered = None  # (edited, played or cleared: no longer the hint as offered)

    def next_game(self) -> bool:
        held = self.feed.waiting
        self.feed.next_game()
        return held

    def holding(self) -> bool:
        return self.feed.waiting

    async def played(self, before: PlayerView) -> None:
        # Wait (briefly) for the move to show, so the next line typed reads the new board.
        shown = self.feed.shown
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(3):
                while self.view is before:
                    shown.clear()
                    await shown.wait()

    def leave(self) -> None:
        self.exit_reason = "quit"
        self.invalidate()
        with contextlib.suppress(Exception):  # (already leaving)
            self.app.exit()

    def changed(self) -> None:
        self._question_changed()
        self.invalidate()

    def _question_changed(self) -> None:
        """A question opens on an empty line (what was half typed is put by, so that
        ``h4 `` and then ``y`` is not read as the answer ``h4 y``), and the line
        comes back once it is settled, unless a yes (quit, resign, a takeback let
        through) changed what it was typed for."""
        now, was = self.confirm, self._asked
        if now is was:
            return
        self._asked = now
        if was is None:  # (one question taking another's place keeps the first one's line)
            self._put_by = (self.buffer.text, self.offered)
            self.buffer.reset()
        elif now is None:
            (text, offered), self._put_by = self._put_by, ("", None)
            said_yes = was.answer.done() and was.answer.result() is True
            if text and not said_yes and not self.buffer.text:
                self.buffer.set_document(Document(text, len(text)))
                self.offered = offered  # (a hint put by is still the hint: typing replaces it)

    def show_help(self) -> None:
        """The help in the message pane, scrolled so that its first line shows
        (PgDn shows the rest when the pane is shorter than the help)."""
        log = self.log
        log.scrolled = 0
        before = len(log.lines(self.cols()))
        for line in help_lines():
            self.say(Style.HELP, line)
        added = len(log.lines(self.cols())) - before
        log.scrolled = max(0, added - self.msg_rows())
        self.invalidate()

    # -- what the feed hands over (feed.Screen) ---------------------------------

    def feed_news(self, ev: ChatReceived | ConnectionChanged | Notice | WatchersChanged) -> None:
        self.ctl.news(ev)

    def feed_broken(self, error: Exception) -> None:
        self.ctl.broken(error)

    def feed_hold(self, game: int) -> None:
        self.say(Style.INFO, _("Press Enter to start game {game}.").format(game=game))

    def feed_show(self, ev: Event) -> None:
        if isinstance(ev, GameStarted | MovePlayed | GameEnded):
            self.selected = None
        try:
            self.ctl.show(ev)
        except Exception as e:  # a bug in the words must not stop the game
            self.ctl.view = view_of(ev) or self.view
            self.say(Style.ERROR, f"(display error: {e!r})")
        self._update_title()
        self.invalidate()
        if isinstance(ev, MatchEnded):  # another match? (asked in the move line; not under the
            # commands' lock: chat and quit go on while the other player decides)
            self.app.create_background_task(self.ctl.handle(Again()))

    def game_over_shown(self) -> bool:
        """(A match over is not held: the yes to another match was the player's Enter.)"""
        return not self.finished and self.view is not None and self.view.result is not None

    def _update_title(self) -> None:
        """The terminal's title says whose turn it is (for a player in another window)."""
        v = self.view
        if self.finished:
            title = "p2p-spite: " + _("match over")
        elif v is None or v.result is not None:
            title = "p2p-spite"
        elif v.my_turn:
            title = "p2p-spite: " + _("your turn")
        else:
            title = "p2p-spite: " + _("{name}'s turn").format(name=self.opp_name)
        if title != self._title:
            self._title = title
            with contextlib.suppress(Exception):
                self.app.output.set_title(title)

    def invalidate(self) -> None:
        with contextlib.suppress(Exception):
            self.app.invalidate()

    # -- input ----------------------------------------------------------------

    def move_choices(self, typed: str = "") -> list[tuple[str, str]]:
        """The legal moves now that complete ``typed``, as typed and described:
        ``("h3 c1", "7♥ to center 1")``; ``("9h c1", ...)`` after ``9``."""
        v = self.view
        if v is None or self.finished or self.confirm is not None:
            return []
        found = typed_moves(typed, v.legal_moves(), self.shown_hand())
        out = [(text, choice_words(m, v.card_of(m))) for text, m in found]
        out.sort(key=lambda nm: (nm[0].split()[1][0] == "s", nm[0]))  # center plays first
        return out

    def _accept(self, buf: Buffer) -> bool:
        self.app.create_background_task(self.command(buf.text))
        return False

    async def command(self, text: str) -> None:
        """Handle one line typed (a move or a command); while a question is
        asked, the line is its answer."""
        if self.confirm is not None:  # (its asker holds the lock, awaiting this)
            self.answer(is_yes(text))
            return
        async with self._lock:
            await self.ctl.handle(parse_command(text))
        self.invalidate()

    def answer(self, yes: bool | None) -> None:
        """Answer the question asked (nothing when none is)."""
        self.ctl.answer(yes)

    def ask_quit(self) -> None:
        """Ctrl-C: ask to quit; a second Ctrl-C is the yes."""
        if self.confirm is not None and self.confirm.kind is QuestionKind.QUIT:
            self.answer(True)
        else:
            self.app.create_background_task(self.ctl.handle(Quit()))

    def tab(self) -> None:
        press_tab(self)

    def click(self, token: str) -> None:
        """A click on the board's ``token`` (:func:`~.moveline.clicked`)."""
        clicked(self, token)

    def scroll(self, lines: int) -> None:
        self.log.scroll(lines, self.msg_rows(), self.cols())
        self.invalidate()

    # -- layout -----------------------------------------------------------------

    def cols(self) -> int:
        try:
            return self.app.output.get_size().columns
        except Exception:
            return 80

    def rows(self) -> int:
        try:
            return self.app.output.get_size().rows
        except Exception:
            return 24

    def board_info(self) -> BoardInfo | None:
        if self.view is None:
            return None
        source = current_source(self)
        return BoardInfo(
            view=self.view,
            names=(self.names[0], self.names[1]),
            scores=self.scores,
            target=self.target,
            selected=source,
            targets=targets_of(self, source),
            highlight=self.highlight,
            on_click=self.click,
            status=_("match over") if self.finished else None,
            hand=self.shown_hand(),
            private=self.private,
        )

    def board_lines(self) -> list[Line]:
        cols, rows = self.cols(), self.rows()
        info = self.board_info()
        if info is None:
            title = f" {self.names[0]} : {self.names[1]}"
            waiting = _("Dealing the private deck...") if self.private else _("Waiting for the game...")
            return [[("class:header", title.ljust(cols))], [], [("class:label", "  " + waiting)]]
        key = (id(self.view), cols, rows, info.selected, self.highlight, self.scores, self.finished)
        if self._board_cache is not None and self._board_cache[0] == key:
            return self._board_cache[1]
        # The largest board that leaves room for messages: big cards, the full
        # board, or the compact one (small terminals, down to 40 columns).
        lines: list[Line] | None = None
        if rows >= LARGE_MIN_ROWS:
            large = render_board(info, cols, large=True)
            if rows - len(large) - FIXED_ROWS >= LARGE_MIN_MSG_ROWS:
                lines = large
        if lines is None and cols >= MIN_WIDTH:
            full = render_board(info, cols)
            if rows - len(full) - FIXED_ROWS >= MIN_MSG_ROWS:
                lines = full
        if lines is None:
            lines = render_compact(info, cols)
        self._board_cache = (key, lines)
        return lines

    def too_small(self) -> bool:
        return self.cols() < MIN_COLS or self.rows() < len(self.board_lines()) + FIXED_ROWS + MIN_MSG_ROWS

    def msg_rows(self) -> int:
        return max(1, self.rows() - len(self.board_lines()) - FIXED_ROWS)

    def message_text(self) -> StyleAndTextTuples:
        return self.log.text(self.msg_rows(), self.cols())

    def board_text(self) -> StyleAndTextTuples:
        return as_text(self.board_lines())


__all__ = ["GameApp"]
