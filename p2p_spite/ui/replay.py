"""``p2p-spite replay FILE``: step through a record, both hands face up.

The record is loaded and verified first (:func:`p2p_spite.storage.record.verify`);
any point of it is then re-dealt from the seed and replayed up to that move,
which takes a few milliseconds.  Positions are (game, n): the deal of game
``game`` with its first ``n`` moves applied.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, FormattedTextControl, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.containers import FloatContainer
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.output import Output

from ..bots.review import REVIEW, ReviewConfig
from ..contracts.i18n import _, ngettext
from ..contracts.plaintext import clean_name
from ..engine import (
    CENTER,
    HAND,
    SIDE,
    Card,
    EndReason,
    GameState,
    Match,
    Move,
    Result,
    move_from_json,
    view,
)
from ..engine.refusals import NoSuchSeat, NotYourTurn
from ..storage import record as recordmod
from ..storage.resume import replay_with_journal
from .board import (
    COMPACT_MIN_WIDTH,
    BoardInfo,
    Line,
    app_style,
    as_text,
    card_label,
    clip,
    fit_board,
    move_highlight,
    width_of,
)
from .marks import Judge, Marks
from .review import SIGNS, mark_note
from .text import DOT, RULE, UNICODE, VBAR
from .whatif import Runner, WhatIf, ask_whatif, default_seat, play_whatif_lines, whatif_runner
from .words import Voice, game_result, move_words, refusal, scores_line, short_status, unfinished

SIDE_PANE_MIN_COLS = 112
SIDE_PANE = 34
MIN_COLS = COMPACT_MIN_WIDTH  # the compact board's; the full board from board.MIN_WIDTH


def screen_size(app: Application[None]) -> tuple[int, int]:
    """A full-screen viewer's columns and rows (80x24 when its output cannot say)."""
    try:
        s = app.output.get_size()
        return s.columns, s.rows
    except Exception:
        return 80, 24


def too_small_note(size: Callable[[], tuple[int, int]]) -> Window:
    """What a viewer shows instead when the terminal is too small for it."""

    def text() -> StyleAndTextTuples:
        cols, rows = size()
        words = _("The terminal is too small ({cols}x{rows}): please enlarge it (q quits).")
        return [("class:small", " " + words.format(cols=cols, rows=rows) + " ")]

    return Window(FormattedTextControl(text))


class Replay:
    """A verified match and a position in it."""

    def __init__(self, match: Match) -> None:
        self.match = match
        # A record is a file from anywhere: its names may carry escape codes or newlines.
        names = [clean_name(n) or _("seat {n}").format(n=i) for i, n in enumerate(match.players)]
        if names[0] == names[1]:  # two "easy bot"s: tell them apart
            names = [f"{names[0]} {i + 1}" for i in range(2)]
        self.names = (names[0], names[1])
        self.voice = Voice(self.names)  # (no seat at the screen: both by name)
        self.moves: list[list[Move]] = match.moves
        self.results: list[Result | None] = match.results
        self.game = 1
        self.pos = 0
        self._cache: tuple[int, int, GameState] | None = None

    @property
    def game_moves(self) -> list[Move]:
        return self.moves[self.game - 1]

    def state(self, game: int | None = None, pos: int | None = None) -> GameState:
        g = self.game if game is None else game
        n = self.pos if pos is None else pos
        c = self._cache
        if c is not None and c[0] == g and c[1] <= n:
            st, start = c[2].copy(), c[1]
        else:
            st, start = self.match.fresh_game(g), 0
        for m in self.moves[g - 1][start:n]:
            st.apply(m)
        self._cache = (g, n, st.copy())
        return st

    def scores_at(self) -> tuple[int, int]:
        """The match scores at this position (a game's result counts at its end)."""
        s = [0, 0]
        for i, r in enumerate(self.results[: self.game]):
            last = i == self.game - 1
            if r is None or r.winner is None or (last and not self.at_end()):
                continue
            s[r.winner] += r.points
        return (s[0], s[1])

    def at_end(self) -> bool:
        return self.pos >= len(self.game_moves)

    # -- moving ---------------------------------------------------------------------

    def step(self, d: int) -> None:
        n = self.pos + d
        if n < 0:
            if self.game > 1:
                self.game -= 1
                self.pos = len(self.game_moves)
            return
        if n > len(self.game_moves):
            if self.game < len(self.moves):
                self.game += 1
                self.pos = 0
            return
        self.pos = n

    def _bounds(self) -> list[int]:
        ms = self.game_moves
        return sorted({0, len(ms), *(i + 1 for i, m in enumerate(ms) if m.target == SIDE)})

    def turn(self, d: int) -> None:
        b = self._bounds()
        if d > 0:
            later = [p for p in b if p > self.pos]
            if later:
                self.pos = later[0]
            else:
                self.step(1)
        else:
            earlier = [p for p in b if p < self.pos]
            if earlier:
                self.pos = earlier[-1]
            else:
                self.step(-1)

    def jump_game(self, d: int) -> None:
        g = min(max(1, self.game + d), len(self.moves))
        if g != self.game:
            self.game, self.pos = g, 0
        elif d > 0:
            self.pos = len(self.game_moves)
        else:
            self.pos = 0

    def goto(self, game: int, pos: int) -> None:
        self.game = min(max(1, game), len(self.moves))
        self.pos = min(max(0, pos), len(self.game_moves))

    # -- words ----------------------------------------------------------------------

    def move_cards(self) -> list[Card]:
        """The card each move of the current game placed."""
        st = self.match.fresh_game(self.game)
        out: list[Card] = []
        for m in self.game_moves:
            out.append(st.card_of(m))
            st.apply(m)
        return out


class ReplayViewer:
    """The full-screen viewer of a :class:`Replay`.  ``me``: the name of the person at
    this terminal (play from here offers them that seat first; ``m`` reviews that seat's
    turns, with ``review`` or, in tests, ``judge`` judging each)."""

    def __init__(
        self,
        replay: Replay,
        *,
        input: Input | None = None,
        output: Output | None = None,
        me: str | None = None,
        review: ReviewConfig = REVIEW,
        judge: Judge | None = None,
    ) -> None:
        self.r = replay
        self.me = me
        seat = default_seat(replay.names, me)
        self.marks = Marks(replay.match, seat, config=review, judge=judge, changed=self._marks_changed)
        self._marks_seen = 0  # (the board's lines are kept until the marks change)
        self.pending: Runner | None = None  # a what-if to play before the viewer shows again
        self.root = FloatContainer(Window(), floats=[])  # (its dialogs float over the viewer)
        self._cards: dict[int, list[Card]] = {}
        self._lines_cache: tuple[object, list[Line]] | None = None
        self.app: Application[None] = Application(
            layout=self._layout(),
            key_bindings=self._bindings(),
            style=app_style(),
            full_screen=True,
            mouse_support=True,
            input=input,
            output=output,
        )

    def _marks_changed(self) -> None:
        self._marks_seen += 1
        self.app.invalidate()

    def cards(self) -> list[Card]:
        g = self.r.game
        if g not in self._cards:
            self._cards[g] = self.r.move_cards()
        return self._cards[g]

    def _size(self) -> tuple[int, int]:
        return screen_size(self.app)

    def side_pane(self) -> bool:
        return self._size()[0] >= SIDE_PANE_MIN_COLS

    def _board_width(self) -> int:
        cols = self._size()[0]
        return cols - SIDE_PANE - 1 if self.side_pane() else cols

    def board_lines(self) -> list[Line]:
        r = self.r
        st = r.state()
        v = view(st, 0)
        ms = r.game_moves
        hl = move_highlight(ms[r.pos - 1] if r.pos else None, 0)
        status, sstyle = None, None
        if r.at_end():
            status = short_status(r.results[r.game - 1], r.voice)
            sstyle = "class:header.turn.over"
        info = BoardInfo(
            view=v,
            names=(r.names[0], r.names[1]),
            scores=r.scores_at(),
            target=r.match.target,
            me_label=r.names[0],
            opp_hand=tuple(st.hands[1]),
            highlight=hl,
            status=status,
            status_style=sstyle,
            header_extra=_("of {games} {dot} move {pos}/{moves}").format(
                games=len(r.moves), dot=DOT, pos=r.pos, moves=len(ms)
            ),
        )
        cols, rows = self._size()
        key = (r.game, r.pos, cols, rows, self._marks_seen)
        if self._lines_cache is not None and self._lines_cache[0] == key:
            return self._lines_cache[1]
        lines = fit_board(info, self._board_width(), rows, spare=0 if self.side_pane() else 8)
        lines.extend(self._status_lines())
        self._lines_cache = (key, lines)
        return lines

    def _status_lines(self) -> list[Line]:
        """The move shown, under the board; at a game's end, how it ended: on the same line
        when both fit, else on a line of its own (never cut)."""
        r = self.r
        ms = r.game_moves
        if r.pos == 0:
            text = " " + _("Game {game}: the deal. {name} starts.").format(
                game=r.game, name=r.names[r.state().starter]
            )
        else:
            m = ms[r.pos - 1]
            text = f" {r.pos}. " + move_words(m, self.cards()[r.pos - 1], r.names[m.seat])
        width = self._board_width()
        marks = self._mark_lines(width)
        if not r.at_end():
            return [clip([("class:msg.event", text)], width), *marks]
        # The last move did not always end the game: a resignation comes
        # after it, and a record may stop in the middle of a game.
        res = r.results[r.game - 1]
        if res is None:
            end = unfinished()
        elif res.reason is EndReason.RESIGN:
            end = _("then {result}").format(result=game_result(res, r.voice))
        else:
            end = _("game over: {result}").format(result=game_result(res, r.voice))
        one: Line = [("class:msg.event", f"{text}  {RULE} {end}")]
        if width_of(one) <= width:
            return [one, *marks]
        return [clip([("class:msg.event", line)], width) for line in (text, f" {RULE} {end}")] + marks

    def _mark_lines(self, width: int) -> list[Line]:
        """Under the move: the review's progress, the mark of the turn shown with the
        better turn, or how many turns it marked."""
        mk, r = self.marks, self.r
        if mk.progress is not None:
            done, total = mk.progress
            text = _("reviewing {done}/{total} turns").format(done=done, total=total)
            stops = _("m stops")
            return [clip([("class:msg.event", f" {text} ({stops})")], width)]
        if mk.judged is None:
            return []
        j = mk.at(r.game, r.pos)
        if j is None:
            n = len(mk.marked())
            text = ngettext(
                "Review of {name}: {n} marked turn (n, N: next, previous)",
                "Review of {name}: {n} marked turns (n, N: next, previous)",
                n,
            ).format(name=r.names[mk.seat], n=n)
            return [clip([("class:msg.event", " " + text)], width)]
        head = _("Turn {turn}").format(turn=j.turn.number) + ": " + mark_note(j, r.names[1 - mk.seat])
        # (at most four lines: a longer note ends in "…" rather than stopping mid-sentence)
        w, more = max(20, width - 3), " …" if UNICODE else " ~"
        lines = textwrap.wrap(head, w, subsequent_indent="   ", max_lines=4, placeholder=more)
        return [clip([("class:msg.opp", " " + line)], width) for line in lines]

    def _move_rows(self) -> int:
        rows = self._size()[1]
        if self.side_pane():
            return rows - 2
        return max(1, rows - len(self.board_lines()) - 2)

    def move_list(self) -> StyleAndTextTuples:
        r = self.r
        ms = r.game_moves
        cards = self.cards()
        width = SIDE_PANE if self.side_pane() else self._size()[0]
        rows = self._move_rows()
        title = ngettext("Game {game}: {n} move", "Game {game}: {n} moves", len(ms)).format(
            game=r.game, n=len(ms)
        )
        items: list[Line] = [[("class:list.game", " " + title)]]
        cap = 8 if self.side_pane() else 14
        nw = max(len(n[:cap]) for n in r.names)
        src_w = max(len(w) for w in (_("side {n}").format(n=4), _("hand"), _("pay-off")))
        signs = {
            j.turn.start + 1: SIGNS[j.review.mark]  # (on the turn's first move: in view at its start)
            for j in self.marks.marked()
            if j.turn.game == r.game and j.review.mark is not None
        }
        for i, m in enumerate(ms):
            who = r.names[m.seat][:cap]
            stack = m.side_stack
            if stack is not None:
                src = _("side {n}").format(n=stack + 1)
            else:
                src = _("hand") if m.source == HAND else _("pay-off")
            dst = f"c{m.slot + 1}" if m.target == CENTER else f"s{m.slot + 1}"
            text = f" {i + 1:>3}. {who:<{nw}} {card_label(cards[i]):>3} {src:<{src_w}} > {dst}"
            if i + 1 in signs:
                text += f" {signs[i + 1]}"
            style = "class:msg.me" if m.seat == 0 else "class:msg.opp"
            if i + 1 == r.pos:
                style = "class:list.current"
            handler = self._jump(i + 1)
            items.append(clip([(style, text.ljust(width), handler)], width))
        items.append([("class:list.game", " " + game_result(r.results[r.game - 1], r.voice))])
        # Keep the current move in view.
        cur = min(r.pos, len(items) - 1)
        start = max(0, min(cur - rows // 2, len(items) - rows))
        out: StyleAndTextTuples = []
        for j, line in enumerate(items[start : start + rows]):
            if j:
                out.append(("", "\n"))
            out.extend(line)
        return out

    def _jump(self, pos: int) -> Callable[[MouseEvent], None]:
        def handler(ev: MouseEvent) -> None:
            if ev.event_type == MouseEventType.MOUSE_UP:
                self.r.goto(self.r.game, pos)
                self.app.invalidate()

        return handler

    def too_small(self) -> bool:
        cols, rows = self._size()
        return cols < MIN_COLS or rows < len(self.board_lines()) + 3

    def _board_text(self) -> StyleAndTextTuples:
        return as_text(self.board_lines())

    def _toolbar(self) -> StyleAndTextTuples:
        keys = [
            ("<- ->", _("move")),
            ("[ ]", _("turn")),
            ("PgUp/Dn", _("game")),
            ("Home/End", ""),
            ("p", _("play from here")),
            ("n N", _("marks")) if self.marks.judged is not None else ("m", _("review")),
            ("q", _("quit")),
        ]
        cols = self._size()[0]

        def bar() -> StyleAndTextTuples:
            out: StyleAndTextTuples = [("class:toolbar", " " + _("Replay") + " ")]
            for k, what in keys:
                out += [("class:toolbar.key", f" {k}"), ("class:toolbar", f" {what}" if what else "")]
            return out

        out = bar()
        if width_of(out) > cols:  # (Home/End is the one left unsaid)
            keys = [k for k in keys if k[0] != "Home/End"]
            out = bar()
        return clip([*out, ("class:toolbar", " " * max(0, cols - width_of(out)))], cols)

    def _layout(self) -> Layout:
        small = Condition(self.too_small)
        side = Condition(self.side_pane)
        board = Window(
            FormattedTextControl(self._board_text),
            height=lambda: Dimension.exact(len(self.board_lines())),
            dont_extend_height=True,
        )
        moves = Window(FormattedTextControl(self.move_list))
        narrow = HSplit([board, Window(height=1, char=RULE, style="class:rule"), moves])
        wide = VSplit(
            [
                HSplit([board, Window()]),
                Window(width=1, char=VBAR, style="class:rule"),
                Window(FormattedTextControl(self.move_list), width=SIDE_PANE),
            ]
        )
        note = too_small_note(self._size)
        body = HSplit(
            [
                ConditionalContainer(wide, filter=~small & side),
                ConditionalContainer(narrow, filter=~small & ~side),
                ConditionalContainer(note, filter=small),
                Window(FormattedTextControl(self._toolbar), height=1, style="class:toolbar"),
            ]
        )
        self.root.content = body
        return Layout(self.root)

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        r = self.r
        free = Condition(lambda: not self.root.floats)  # (a dialog open has the keys)

        def on(keys: tuple[str, ...], fn: Callable[[], None]) -> None:
            def handler(e: KeyPressEvent) -> None:
                fn()

            for k in keys:
                kb.add(k, filter=free)(handler)

        on(("right", "l", "space"), lambda: r.step(1))
        on(("left", "h", "backspace"), lambda: r.step(-1))
        on(("]", "down", "j"), lambda: r.turn(1))
        on(("[", "up", "k"), lambda: r.turn(-1))
        on(("pagedown", "}"), lambda: r.jump_game(1))
        on(("pageup", "{"), lambda: r.jump_game(-1))
        on(("home", "g"), lambda: r.goto(r.game, 0))
        on(("end", "G"), lambda: r.goto(r.game, len(r.game_moves)))
        on(("q", "c-c", "c-q", "escape"), self.app_exit)
        on(("p",), self.ask_play_from_here)
        on(("m",), self.marks.toggle)
        on(("n",), lambda: self.jump_mark(1))
        on(("N",), lambda: self.jump_mark(-1))
        return kb

    def jump_mark(self, d: int) -> None:
        """``n``/``N``: to the start of the next/previous turn the review marked (any mark)."""
        j = self.marks.next(self.r.game, self.r.pos, d)
        if j is not None:
            self.r.goto(j.turn.game, j.turn.start)

    def app_exit(self) -> None:
        self.app.exit()

    def ask_play_from_here(self) -> None:
        self.app.create_background_task(self.play_from_here())

    async def play_from_here(self) -> None:
        """Ask for a what-if from the position shown; the viewer steps aside while it is played."""
        r = self.r
        w = await ask_whatif(self.root, r.match, r.names, r.game, r.pos, self.me)
        if w is not None:
            self.pending = whatif_runner(r.match, w)
            self.app.exit()

    async def run(self) -> None:
        """The viewer, and the what-ifs played from it (each comes back to where it left).
        Leaving it, however, stops a review still running."""
        try:
            while True:
                if self.pending is not None:
                    go, self.pending = self.pending, None
                    await go(self.app.input, self.app.output)
                    self._lines_cache = None
                await self.app.run_async()
                if self.pending is None:
                    return
        finally:
            if self.marks.running:
                self.marks.stop()


def text_listing(replay: Replay) -> list[str]:
    """The record as plain lines (for a pipe or a dumb terminal)."""
    r = replay
    out = [
        _("{a} against {b}, first to {target}; seed {seed}").format(
            a=r.names[0], b=r.names[1], target=r.match.target, seed=r.match.seed.hex()
        )
    ]
    for g in range(1, len(r.moves) + 1):
        r.goto(g, 0)
        st = r.state()
        out.append(_("game {game}: {name} starts").format(game=g, name=r.names[st.starter]))
        for i, (m, c) in enumerate(zip(r.game_moves, r.move_cards(), strict=True)):
            out.append(f"  {i + 1:>3}. {move_words(m, c, r.names[m.seat])}")
        out.append(f"  {game_result(r.results[g - 1], r.voice)}")
    s = r.match.scores
    out.append(scores_line((s[0], s[1]), r.voice))
    return out


def print_listing(replay: Replay, out: TextIO | None = None) -> None:
    """Print :func:`text_listing`; a reader that stops early (``| head``) just ends it."""
    stream = out if out is not None else sys.stdout
    try:
        for line in text_listing(replay):
            stream.write(line + "\n")
        stream.flush()
    except BrokenPipeError:
        # Nobody reads the rest: point stdout at /dev/null so the interpreter's
        # final flush does not complain again, and stop quietly.
        if out is None:
            with contextlib.suppress(OSError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
                os.close(devnull)


def check_failure(rec: recordmod.Record, err: recordmod.RecordError) -> str:
    """What ``replay --check`` says when ``rec`` does not replay: ``err``'s
    words, except that a move the rules refused is named as the game screen
    names things (players by name, ``center 1``/``side stack 3`` counted from
    1, cards as ``7♥``), from the engine's reason and the facts it carries
    (:func:`.words.refusal`), with the record's own move (0-based) beside it.
    """
    raw, why = err.bad_move, err.why
    if raw is None or why is None or err.game is None or err.move is None:
        return str(err)
    where = _("game {game}, move {move}").format(game=err.game, move=err.move)
    written = _("(in the record: {raw}, its indexes counting from 0)").format(raw=json.dumps(raw))
    try:
        move = move_from_json(raw)
    except ValueError as e:
        return _("{where}: not a move: {why}").format(where=where, why=e)
    names = [clean_name(p) or _("seat {n}").format(n=k) for k, p in enumerate(rec.players)]
    voice = Voice((names[0], names[1]))
    if isinstance(why, NoSuchSeat):
        return f"{where}: {refusal(why, move, voice)} {written}"
    if isinstance(why, NotYourTurn):
        return _("{where}: {name} moved, but it is {turn}'s turn {written}").format(
            where=where, name=names[why.seat], turn=names[why.turn], written=written
        )
    f = {"where": where, "name": names[move.seat], "why": refusal(why, move, voice), "written": written}
    if move.target == SIDE:
        return _("{where}: {name} cannot discard that: {why} {written}").format(**f)
    return _("{where}: {name} cannot play that: {why} {written}").format(**f)


def load_replay(path: Path) -> Replay:
    """The record at ``path``, with what its journal holds beyond it (an interrupted match)."""
    rec = recordmod.load(path)
    match = recordmod.verify(rec)
    replay_with_journal(path, rec, match)
    return Replay(match)


def run_viewer(path: Path, me: str | None = None, what_if: Callable[[Replay], WhatIf] | None = None) -> int:
    """The ``replay FILE`` command: the viewer, or a plain listing off a terminal.  ``me``:
    the person's name; ``what_if``: the what-if to play first (``--from``), then the viewer
    at its position (off a terminal: the what-if alone, on the line prompt)."""
    import asyncio

    from .play import fullscreen_ok

    replay = load_replay(path)
    w = what_if(replay) if what_if is not None else None
    if not fullscreen_ok():
        if w is not None:
            return asyncio.run(play_whatif_lines(replay.match, w))
        print_listing(replay)
        return 0
    viewer = ReplayViewer(replay, me=me)
    if w is not None:
        replay.goto(w.back.game, w.back.pos)
        viewer.pending = whatif_runner(replay.match, w)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(viewer.run())
    return 0


__all__ = [
    "Replay",
    "ReplayViewer",
    "check_failure",
    "load_replay",
    "print_listing",
    "run_viewer",
    "screen_size",
    "text_listing",
    "too_small_note",
]
