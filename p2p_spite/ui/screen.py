"""The game screen's layout and keys: board, message pane, move line, toolbar.

What each part shows is read from the :class:`GameScreen` (the :class:`~.app.GameApp`) it lays out
(its view, its messages, the question it asks); what a key does is one call
into it.  The sizes that decide which board fits live here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import AfterInput, ConditionalProcessor
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from ..contracts.i18n import _
from ..contracts.session import LinkState
from .board import COMPACT_MIN_WIDTH, Line, clip, no_color, width_of, wrap
from .messages import MessageLog
from .question import Question
from .text import CONNECTION_MARKS, DOT, PROMPT, RULE, UP
from .words import connection_state, watching

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

    from ..engine import PlayerView

MIN_COLS = COMPACT_MIN_WIDTH  # the compact board's; the full board from board.MIN_WIDTH
P = PROMPT  # the prompt mark
MIN_MSG_ROWS = 3
LARGE_MIN_ROWS = 30  # big cards from this many rows on, if 8 rows are left for messages
LARGE_MIN_MSG_ROWS = 8
FIXED_ROWS = 3  # the rule above the input line, the input line, the toolbar


class GameScreen(Protocol):
    """What the layout reads from the game screen it lays out (:class:`~.app.GameApp`),
    and the calls its keys and mouse make."""

    buffer: Buffer
    log: MessageLog
    selected: str | None
    offered: str | None  # a hint's move on the move line, untouched
    opp_name: str
    private: bool  # a private-deck match
    route: str  # how the connection goes ("" on a LAN)

    @property
    def view(self) -> PlayerView | None: ...
    @property
    def confirm(self) -> Question | None: ...
    @property
    def finished(self) -> bool: ...
    @property
    def waiting_next_game(self) -> bool: ...
    @property
    def next_words(self) -> tuple[str, str]: ...
    @property
    def connection(self) -> LinkState: ...
    @property
    def watchers(self) -> int: ...

    def cols(self) -> int: ...
    def rows(self) -> int: ...
    def msg_rows(self) -> int: ...
    def board_lines(self) -> list[Line]: ...
    def board_text(self) -> StyleAndTextTuples: ...
    def message_text(self) -> StyleAndTextTuples: ...
    def too_small(self) -> bool: ...
    def scroll(self, lines: int) -> None: ...
    def ask_quit(self) -> None: ...
    def show_help(self) -> None: ...
    def tab(self) -> None: ...
    def answer(self, yes: bool | None) -> None: ...


class _MessageControl(FormattedTextControl):
    """The message pane: the mouse wheel scrolls it."""

    def __init__(self, app: GameScreen) -> None:
        super().__init__(app.message_text, focusable=False)
        self._game = app

    def mouse_handler(self, mouse_event: MouseEvent) -> NotImplementedOrNone:
        if mouse_event.event_type == MouseEventType.SCROLL_UP:
            self._game.scroll(3)
            return None
        if mouse_event.event_type == MouseEventType.SCROLL_DOWN:
            self._game.scroll(-3)
            return None
        return super().mouse_handler(mouse_event)


def prompt_text(app: GameScreen) -> StyleAndTextTuples:
    if app.confirm is not None:
        c = app.confirm
        question = c.text if len(c.text) <= app.cols() - 6 else c.short
        return [("class:input.confirm", question + " ")]
    v = app.view
    if app.finished:
        return [("class:input.prompt", _("(match over)") + f" {P} ")]
    if app.waiting_next_game:
        return [("class:input.prompt", app.next_words[0] + f" {P} ")]
    if v is not None and v.my_turn:
        return [("class:input.prompt", _("your move") + f" {P} ")]
    return [("class:input.prompt", f"{P} ")]


def placeholder(app: GameScreen) -> str:
    """A grey hint in the empty move line: what can be typed now, as many whole words of it
    as fit beside the prompt (a narrow terminal or a longer language gets fewer)."""
    words = _placeholder_words(app)
    room = app.cols() - width_of(prompt_text(app)) - 1 - (2 if no_color() else 0)
    while words and len(words) > room:
        words = words.rpartition(" ")[0].rstrip(",;")
        if words.count("(") > words.count(")"):  # no parenthesis left open
            words = words[: words.rfind("(")].rstrip()
    return f"({words})" if words and no_color() else words


def _placeholder_words(app: GameScreen) -> str:
    v = app.view
    if app.confirm is not None:
        return ""
    if app.finished:
        return _("quit to leave")
    if app.waiting_next_game:  # (the prompt says Enter)
        return app.next_words[1]
    if v is None:
        return _("dealing the private deck...") if app.private else _("waiting for the game...")
    if v.my_turn:
        return _("a move like h3 c1 (Tab lists them), or help")
    return _("{name} is playing; chat TEXT to talk").format(name=app.opp_name)


def toolbar(app: GameScreen) -> StyleAndTextTuples:
    state = app.connection
    ok = state is LinkState.CONNECTED
    mark = CONNECTION_MARKS[state]
    left: StyleAndTextTuples = [
        ("class:toolbar.ok" if ok else "class:toolbar.bad", f" {mark} {connection_state(state)}"),
        ("class:toolbar", f" {DOT} {app.opp_name} "),
    ]
    if app.route:
        left.append(("class:toolbar", f"{DOT} {app.route} "))
    if app.watchers:
        left.append(("class:toolbar", f"{DOT} {watching(app.watchers)} "))
    if app.log.scrolled:
        left.append(
            ("class:toolbar.bad", " " + _("{up} scrolled ({n})").format(up=UP, n=app.log.scrolled) + " ")
        )
    cols = app.cols()
    # The keys that fit beside the connection state, the fewest last.
    for keys_shown in (
        _keys(
            ("Tab", _("moves")),
            ("Enter", _("play")),
            ("PgUp/Dn", _("scroll")),
            ("F1", _("help")),
            ("^C", _("quit")),
        ),
        _keys(("F1", _("help")), ("^C", _("quit"))),
        _keys(("^C", _("quit"))),
    ):
        gap = cols - width_of(left) - width_of(keys_shown)
        if gap >= 1:
            return [*left, ("class:toolbar", " " * gap), *keys_shown]
    return clip([*left, ("class:toolbar", " "), *keys_shown], cols)


def small_text(app: GameScreen) -> StyleAndTextTuples:
    cols, rows = app.cols(), app.rows()
    need_rows = len(app.board_lines()) + FIXED_ROWS + MIN_MSG_ROWS
    words = _(
        "The board needs at least {cols} columns and {rows} rows (80x24 is best): "
        "please enlarge the window. The game goes on meanwhile; Ctrl-C quits."
    ).format(cols=MIN_COLS, rows=need_rows)
    out: StyleAndTextTuples = [
        (
            "class:small",
            (" " + _("Terminal too small ({cols}x{rows})").format(cols=cols, rows=rows) + " ")[
                : max(1, cols)
            ],
        )
    ]
    for line in wrap([("", words)], max(10, cols - 2), indent=0):
        out += [("", "\n "), *line]
    return out


def build_layout(app: GameScreen) -> Layout:
    small = Condition(app.too_small)
    board = Window(
        FormattedTextControl(app.board_text, focusable=False),
        height=lambda: Dimension.exact(len(app.board_lines())),
        dont_extend_height=True,
    )
    messages = Window(
        _MessageControl(app),
        height=lambda: Dimension.exact(app.msg_rows()),
        wrap_lines=False,
    )
    move_line = Window(
        BufferControl(
            app.buffer,
            input_processors=[
                ConditionalProcessor(
                    AfterInput((lambda: placeholder(app)), style="class:placeholder"),
                    filter=Condition(lambda: not app.buffer.text),
                )
            ],
        ),
        height=1,
        get_vertical_scroll=lambda w: 0,
    )
    prompt = Window(
        FormattedTextControl(lambda: prompt_text(app)),
        width=lambda: Dimension.exact(width_of(prompt_text(app))),
        dont_extend_width=True,
        height=1,
    )
    body = HSplit(
        [
            ConditionalContainer(HSplit([board, messages]), filter=~small),
            ConditionalContainer(Window(FormattedTextControl(lambda: small_text(app))), filter=small),
            Window(height=1, char=RULE, style="class:rule"),
            VSplit([prompt, move_line], height=1),
            Window(FormattedTextControl(lambda: toolbar(app)), height=1, style="class:toolbar"),
        ]
    )
    root = FloatContainer(
        content=body,
        floats=[
            Float(
                xcursor=True,
                ycursor=True,
                content=CompletionsMenu(max_height=10, scroll_offset=1),
            )
        ],
    )
    return Layout(root, focused_element=move_line)


def key_bindings(app: GameScreen) -> KeyBindings:
    kb = KeyBindings()

    @kb.add("pageup")
    def _up(event: KeyPressEvent) -> None:
        app.scroll(max(1, app.msg_rows() - 1))

    @kb.add("pagedown")
    def _down(event: KeyPressEvent) -> None:
        app.scroll(-max(1, app.msg_rows() - 1))

    @kb.add("c-c")
    @kb.add("c-q")
    def _quit(event: KeyPressEvent) -> None:
        app.ask_quit()

    @kb.add("c-d", filter=Condition(lambda: not app.buffer.text))
    def _eof(event: KeyPressEvent) -> None:
        app.ask_quit()

    @kb.add("f1")
    def _help(event: KeyPressEvent) -> None:
        app.show_help()

    @kb.add("tab")  # (also over an open menu: prompt_toolkit's own Tab would select a move)
    def _tab(event: KeyPressEvent) -> None:
        app.tab()

    @kb.add("escape", eager=True)
    def _escape(event: KeyPressEvent) -> None:
        if app.buffer.complete_state is not None:
            app.buffer.cancel_completion()
            return
        app.selected = None
        if app.confirm is not None:
            app.answer(False)  # its asker says "Carry on."
        app.buffer.reset()

    @kb.add("c-l")
    def _redraw(event: KeyPressEvent) -> None:
        event.app.renderer.clear()

    @kb.add("<any>", filter=Condition(lambda: app.offered is not None))
    def _over_hint(event: KeyPressEvent) -> None:
        # A character typed over a hint's move replaces it, as over selected text:
        # the player is typing a move of their own.  Enter plays the hint; the
        # arrows, Backspace and Tab edit it (their own bindings come first).
        if event.data.isprintable():
            app.buffer.text = ""
            app.buffer.insert_text(event.data)

    return kb


def _keys(*keys: tuple[str, str]) -> StyleAndTextTuples:
    """The toolbar's ``Tab moves F1 help`` part."""
    out: StyleAndTextTuples = []
    for k, what in keys:
        out += [("class:toolbar.key", f" {k}"), ("class:toolbar", f" {what}")]
    return [*out, ("class:toolbar", " ")]


__all__ = ["build_layout", "key_bindings", "placeholder", "prompt_text", "small_text", "toolbar"]
