"""``p2p-spite watch``: a match shown as it is played, to someone who does not play it.

:class:`WatchModel` turns a :class:`~p2p_spite.contracts.spectator.Spectator`'s events into
the table to draw and the lines that tell what happened; :func:`print_watch`
prints those lines (off a terminal), :class:`WatchScreen` draws the board as the
replay viewer does, both hands face down, with the moves of the game below it.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output

from ..contracts.errors import EXIT_ERROR, UserError
from ..contracts.i18n import _
from ..contracts.plaintext import clean_name
from ..contracts.spectator import Spectator, SpectatorEvent, TableShown, Watching, WatchStopped
from ..engine import PublicView
from .board import (
    COMPACT_MIN_WIDTH,
    BoardInfo,
    Line,
    app_style,
    as_text,
    clip,
    fit_board,
    move_highlight,
    width_of,
)
from .networds import news_words
from .replay import screen_size, too_small_note
from .text import DOT, RULE
from .words import (
    Voice,
    game_begins,
    game_goes_on,
    game_over,
    match_over,
    move_words,
    scores_line,
    short_status,
    taken_back_words,
)


@dataclass(frozen=True, slots=True)
class Told:
    """One line of what happened (``seat``: the player it is about, for its colour)."""

    text: str
    seat: int | None = None


@dataclass
class WatchModel:
    """What a watcher knows: the players, the table as last shown, what happened."""

    names: tuple[str, str] = ("", "")
    target: int = 0
    private: bool = False
    table: TableShown | None = None
    told: list[Told] = field(default_factory=list)  # the current game's lines (the screen's list)
    over: bool = False  # the match ended (the last one, unless another follows)
    matches: int = 0  # the matches watched on this connection (the players may play again)
    stopped: WatchStopped | None = None
    _results: set[int] = field(default_factory=set)  # the games whose end was told

    @property
    def voice(self) -> Voice:
        return Voice(self.names)

    def take(self, ev: SpectatorEvent) -> list[Told]:
        """Take ``ev`` in; the lines it adds (each also kept for the screen)."""
        out: list[Told] = []
        if isinstance(ev, Watching):
            # names from the wire: made printable there, cleaned again for a terminal
            names = [clean_name(n) or _("seat {n}").format(n=i) for i, n in enumerate(ev.names)]
            if names[0] == names[1]:
                names = [f"{names[0]} {i + 1}" for i in range(2)]
            self.names = (names[0], names[1])
            self.target, self.private = ev.target, ev.private
            self.matches += 1
            if self.matches == 1:
                line = _("Watching {a} against {b}, first to {target}.")
            else:  # they play again: a new match, from its deal
                self.table, self.over, self.told, self._results = None, False, [], set()
                line = _("They play again. Match {n}: {a} against {b}, first to {target}.")
            line = line.format(a=self.names[0], b=self.names[1], target=ev.target, n=self.matches)
            if ev.private:
                line += " " + _("A private deck: only the cards shown to both players are seen.")
            out.append(Told(line))
        elif isinstance(ev, TableShown):
            out += self._table(ev)
        else:
            self.stopped = ev
            if not ev.complete:
                out.append(Told(_stop_words(ev)))
        self.told += out
        return out

    def _table(self, ev: TableShown) -> list[Told]:
        v, voice = ev.view, self.voice
        out: list[Told] = []
        last = self.table
        if last is None or last.view.game != v.game:
            if last is not None:  # (a match's first game keeps the line that named the match)
                self.told = []
            if ev.move is None and v.ply == 0:
                out.append(Told(game_begins(v.game, v.turn, ev.by_lot, voice)))
            else:
                out.append(Told(game_goes_on(v.game, v.ply, v.turn, voice)))
        if ev.move is not None and ev.card is not None:
            name = self.names[ev.move.seat]
            if ev.taken_back:
                out.append(Told("     " + taken_back_words(ev.move, ev.card, name), ev.move.seat))
            else:
                out.append(Told(f"{v.ply:>3}. {move_words(ev.move, ev.card, name)}", ev.move.seat))
        if v.result is not None and v.game not in self._results:
            self._results.add(v.game)
            out.append(Told(game_over(v.game, v.result, voice)))
            out.append(Told(scores_line(ev.scores, voice)))
        self.table = ev
        if ev.match_over and not self.over:
            self.over = True
            won = [s for s in (0, 1) if ev.scores[s] >= self.target]
            out.append(Told(match_over(won[0] if won else None, ev.scores, voice)))
        return out

    def board(self) -> BoardInfo | None:
        t = self.table
        if t is None:
            return None
        v: PublicView = t.view
        status, sstyle = None, None
        if v.result is not None:
            status, sstyle = short_status(v.result, self.voice), "class:header.turn.over"
        return BoardInfo(
            view=v.seen_from(0),
            names=self.names,
            scores=t.scores,
            target=self.target,
            me_label=self.names[0],
            highlight=move_highlight(t.move, 0),
            status=status,
            status_style=sstyle,
            private=self.private,
            watcher=True,
        )


def _ending(model: WatchModel) -> int:
    """The exit code once the watch stopped: 0 when the match ended, else a UserError."""
    st = model.stopped
    if st is None or st.complete or model.over:
        return 0
    raise UserError(_stop_words(st), st.exit_code or EXIT_ERROR)


def _stop_words(st: WatchStopped) -> str:
    """Why the watch stopped before the match's end, in the interface's language."""
    return news_words(st.news) if st.news is not None else _("the watch stopped")


async def print_watch(spectator: Spectator) -> int:
    """Watch headless: one line per event, on stdout; 0 once the match has ended."""
    model = WatchModel()
    try:
        while model.stopped is None:
            ev = await spectator.next_event()
            told = model.take(ev)
            if not isinstance(ev, WatchStopped):  # (why it stopped short: on stderr, as an error)
                for t in told:
                    print(t.text, flush=True)
    finally:
        await spectator.close()
    return _ending(model)


class WatchScreen:
    """The full-screen watcher: the board (both hands face down), the current game's
    moves under it, and a toolbar.  ``q`` stops watching."""

    def __init__(
        self, spectator: Spectator, *, input: Input | None = None, output: Output | None = None
    ) -> None:
        self.spectator = spectator
        self.model = WatchModel()
        self.app: Application[None] = Application(
            layout=self._layout(),
            key_bindings=self._bindings(),
            style=app_style(),
            full_screen=True,
            input=input,
            output=output,
        )

    def _size(self) -> tuple[int, int]:
        return screen_size(self.app)

    def board_lines(self) -> list[Line]:
        info = self.model.board()
        cols, rows = self._size()
        if info is None:
            return [[("class:msg.info", " " + _("Waiting for the match to begin..."))]]
        return fit_board(info, cols, rows, spare=5)  # (the last event: the list's last line)

    def too_small(self) -> bool:
        cols, rows = self._size()
        return cols < COMPACT_MIN_WIDTH or rows < len(self.board_lines()) + 2

    def _board_text(self) -> StyleAndTextTuples:
        return as_text(self.board_lines())

    def move_list(self) -> StyleAndTextTuples:
        cols, rows = self._size()
        room = max(1, rows - len(self.board_lines()) - 2)
        out: StyleAndTextTuples = []
        for j, told in enumerate(self.model.told[-room:]):
            if j:
                out.append(("", "\n"))
            style = "class:msg.info" if told.seat is None else ("class:msg.me", "class:msg.opp")[told.seat]
            out.extend(clip([(style, " " + told.text)], cols))
        return out

    def _toolbar(self) -> StyleAndTextTuples:
        m = self.model
        if m.over:
            state = _("the match is over")
        elif m.stopped is not None:
            state = _("stopped")
        else:
            state = _("live")
        out: StyleAndTextTuples = [
            ("class:toolbar", " " + _("Watching") + f" {DOT} {state} "),
            ("class:toolbar.key", " q"),
            ("class:toolbar", " " + _("quit")),
        ]
        cols = self._size()[0]
        return clip([*out, ("class:toolbar", " " * max(0, cols - width_of(out)))], cols)

    def _layout(self) -> Layout:
        from prompt_toolkit.filters import Condition

        small = Condition(self.too_small)
        board = Window(
            FormattedTextControl(self._board_text),
            height=lambda: Dimension.exact(len(self.board_lines())),
            dont_extend_height=True,
        )
        moves = Window(FormattedTextControl(self.move_list))
        body = HSplit([board, Window(height=1, char=RULE, style="class:rule"), moves])
        note = too_small_note(self._size)
        return Layout(
            HSplit(
                [
                    ConditionalContainer(body, filter=~small),
                    ConditionalContainer(note, filter=small),
                    Window(FormattedTextControl(self._toolbar), height=1, style="class:toolbar"),
                ]
            )
        )

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()

        def leave(e: KeyPressEvent) -> None:
            self.app.exit()

        for k in ("q", "c-c", "c-q", "escape"):
            kb.add(k)(leave)
        return kb

    async def _follow(self) -> None:
        while self.model.stopped is None:
            self.model.take(await self.spectator.next_event())
            self.app.invalidate()

    async def run(self) -> int:
        follow = asyncio.create_task(self._follow())
        try:
            await self.app.run_async()
        finally:
            follow.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await follow
            await self.spectator.close()
        st = self.model.stopped
        if st is not None and not st.complete and not self.model.over:
            raise UserError(_stop_words(st), st.exit_code or EXIT_ERROR)
        return 0


__all__ = ["Told", "WatchModel", "WatchScreen", "print_watch"]
