"""Play from here: the replay viewer's what-if board.

From any position of a record the person takes a seat and plays on against the
computer at a chosen level, on the same deck (:func:`p2p_spite.core.whatif.whatif_match`),
on the game's own screen (:class:`WhatIfApp`, a :class:`~.app.GameApp` over a
:class:`~p2p_spite.bots.localsession.LocalSession`): the bot sees only its seat's view, as
in ``play``.  A what-if writes no record and is in no history: it is a board to try
other moves on, not a match played.  It lasts the one game; at its end, Enter (or
Ctrl-C at any time) goes back to the replay at the position it started from.

The choice of level and seat is a small dialog floated over the viewer and awaited
as a future (as prompt_toolkit's own examples do: ``show_dialog_as_float``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import textwrap
from collections.abc import Awaitable, Callable

from prompt_toolkit.application import get_app
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Float, FloatContainer, HSplit
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import Button, Dialog, Label, RadioList

from ..bots import LEVELS, STRONGEST, make_bot
from ..bots.localsession import LocalSession
from ..contracts.i18n import _, pgettext
from ..contracts.session import Event, MatchEnded
from ..core.whatif import NoPositionToPlay, WhatIfStart, start_of, whatif_match
from ..engine import Match
from ..fairdeck.dealing import DeckStream
from .app import GameApp
from .board import BoardInfo
from .words import Style


@dataclasses.dataclass(frozen=True, slots=True)
class WhatIf:
    """A what-if to play: from ``start``, the person in ``seat``, the computer at ``level``;
    ``names``: the record's players as shown (cleaned of what a file may carry)."""

    start: WhatIfStart
    level: str
    seat: int
    names: tuple[str, str]
    left: WhatIfStart | None = None  # the replay's position it was asked from (None: ``start``)

    @property
    def back(self) -> WhatIfStart:
        """Where the replay takes up again once the what-if is over."""
        return self.left or self.start


Runner = Callable[[Input | None, Output | None], Awaitable[None]]


def default_seat(names: tuple[str, str], me: str | None) -> int:
    """The seat named like the person at this terminal, else seat 0."""
    if me:
        for seat, name in enumerate(names):
            if name.casefold() == me.casefold():
                return seat
    return 0


def whatif_notes(match: Match, w: WhatIf) -> list[str]:
    """What the game screen says first: where the what-if starts, and that nothing is kept."""
    g, k = w.start.game, w.start.pos
    notes = [
        _(
            "What if: game {game} from move {move} of the record, on the same deck, "
            "against the computer ({level}). Nothing is recorded."
        ).format(game=g, move=k, level=w.level)
    ]
    if isinstance(match.fresh_game(g).stream, DeckStream):
        notes.append(
            _(
                "A private deck: the deal is the one the record revealed; a reshuffle "
                "the record does not hold is shuffled from the match seed."
            )
        )
    notes.append(_("At the game's end, Enter goes back to the replay (Ctrl-C: at any time)."))
    return notes


class WhatIfApp(GameApp):
    """The game screen for a what-if: one game, then back to the replay."""

    def __init__(
        self,
        session: LocalSession,
        back: WhatIfStart,
        *,
        input: Input | None = None,
        output: Output | None = None,
        notes: list[str] | None = None,
        pace: float = 0.45,
    ) -> None:
        super().__init__(session, input=input, output=output, notes=notes or (), pace=pace)
        self.left = back  # the replay's position to go back to
        self.what_if_session = session

    def feed_show(self, ev: Event) -> None:
        if not isinstance(ev, MatchEnded):
            super().feed_show(ev)
            return
        # The what-if's one game is over (its result was said): no other match is offered.
        self.ctl.finished = True
        self.ctl.scores = ev.scores
        words = _("The what-if is over. Press Enter to go back to the replay (game {game}, move {move}).")
        self.say(Style.INFO, words.format(game=self.left.game, move=self.left.pos))
        self.invalidate()

    def board_info(self) -> BoardInfo | None:
        info = super().board_info()
        if info is not None and self.finished:
            info = dataclasses.replace(info, status=_("what-if over"))
        return info

    async def command(self, text: str) -> None:
        if self.finished and self.confirm is None and not text.strip():
            await self.back()
            return
        await super().command(text)

    def ask_quit(self) -> None:
        """Ctrl-C goes back to the replay at once (nothing is lost), or says no to a question."""
        if self.confirm is not None:
            self.answer(False)
        else:
            self.app.create_background_task(self.back())

    async def back(self) -> None:
        await self.what_if_session.close("quit")
        self.leave()


def whatif_session(match: Match, w: WhatIf) -> LocalSession:
    """The person's seat of the what-if ``w`` on ``match`` (under the record's name of that
    seat), the computer in the other."""
    names = list(w.names)
    names[1 - w.seat] = pgettext("player name", "Computer")
    if names[0] == names[1]:
        names[w.seat] += " *"
    m = whatif_match(match, w.start.game, w.start.pos, players=(names[0], names[1]))
    bot = make_bot(w.level, None)
    return LocalSession(m.seed, w.seat, m.players, match=m, opponent=bot, max_games=w.start.game)


def whatif_runner(match: Match, w: WhatIf, *, pace: float = 0.45) -> Runner:
    """Play ``w`` on the full screen with the given input and output, to its end or a quit."""

    async def run(input: Input | None, output: Output | None) -> None:
        session = whatif_session(match, w)
        app = WhatIfApp(session, w.back, input=input, output=output, notes=whatif_notes(match, w), pace=pace)
        await app.run()

    return run


def _wrapped(text: str) -> str:
    """``text`` in lines that fit the dialog, broken between words."""
    return "\n".join(textwrap.wrap(text, DIALOG_WIDTH - 6))


DIALOG_WIDTH = 60


class WhatIfDialog:
    """Level and seat for play from here; ``future`` is the choice (None: cancelled)."""

    def __init__(self, names: tuple[str, str], seat: int, note: str | None = None) -> None:
        self.future: asyncio.Future[tuple[str, int] | None] = asyncio.get_running_loop().create_future()
        self.levels = RadioList([(lv, lv) for lv in LEVELS], default=STRONGEST, show_scrollbar=False)
        self.seats = RadioList([(i, n) for i, n in enumerate(names)], default=seat, show_scrollbar=False)
        play = Button(_("Play"), handler=self._ok)
        cancel = Button(_("Cancel"), handler=lambda: self._done(None))
        if note is not None:  # nothing to choose: say why
            body = HSplit([Label(_wrapped(note))])
            buttons = [cancel]
        else:
            keys = _("Up/Down and Enter choose, Tab goes on, Esc cancels.")
            body = HSplit(
                [
                    Label(_("Computer level:")),
                    self.levels,
                    Label(_("Your seat:")),
                    self.seats,
                    Label(_wrapped(keys), style="class:label"),
                ]
            )
            buttons = [play, cancel]
        dialog = Dialog(
            title=_("Play from here"),
            body=body,
            buttons=buttons,
            width=Dimension(preferred=DIALOG_WIDTH),
            modal=False,
        )
        kb = KeyBindings()
        kb.add("escape")(lambda e: self.cancel())
        kb.add("c-c")(lambda e: self.cancel())
        self.container = HSplit([dialog], key_bindings=kb, modal=True)  # (the viewer's keys wait)

    def _ok(self) -> None:
        self._done((self.levels.current_value, self.seats.current_value))

    def _done(self, choice: tuple[str, int] | None) -> None:
        if not self.future.done():
            self.future.set_result(choice)

    def cancel(self) -> None:
        self._done(None)

    def __pt_container__(self) -> HSplit:
        return self.container


async def show_dialog_as_float(root: FloatContainer, dialog: WhatIfDialog) -> tuple[str, int] | None:
    """Float ``dialog`` over ``root`` with the focus, and await its choice."""
    app = get_app()
    float_ = Float(content=dialog)
    root.floats.insert(0, float_)
    # The parents of the dialog's windows are known from the next render on; a key that
    # comes first would find (and cache) no binding above the focused window.
    app.layout.update_parents_relations()
    before = app.layout.current_window
    app.layout.focus(dialog)
    app.invalidate()
    try:
        return await dialog.future
    finally:
        if float_ in root.floats:
            root.floats.remove(float_)
        app.layout.focus(before)
        app.invalidate()


def nothing_after(e: NoPositionToPlay) -> str:
    """Why there is nothing to play from at the end of a record, in the person's words."""
    if e.private:
        return _(
            "a private-deck record reveals no deal after its last game: "
            "play from here needs a seeded record or a revealed deck"
        )
    return _("the match is over here")


async def ask_whatif(
    root: FloatContainer, match: Match, names: tuple[str, str], game: int, pos: int, me: str | None
) -> WhatIf | None:
    """The what-if from (``game``, ``pos``) the person chooses in the dialog (None: none)."""
    try:
        start = start_of(match, game, pos)
    except NoPositionToPlay as e:
        note = _("{why}: step back to play from an earlier position.").format(why=nothing_after(e))
        note = note[:1].upper() + note[1:]
        await show_dialog_as_float(root, WhatIfDialog(names, 0, note))
        return None
    choice = await show_dialog_as_float(root, WhatIfDialog(names, default_seat(names, me)))
    if choice is None:
        return None
    return WhatIf(start, choice[0], choice[1], names, WhatIfStart(game, pos))


def plan_whatif(
    match: Match, names: tuple[str, str], game: int, move: int, level: str, seat: int | None, me: str | None
) -> WhatIf:
    """``replay --from GAME:MOVE``'s what-if (``seat`` None: :func:`default_seat`); ValueError,
    in the person's words, when there is no such position to play from."""
    if level not in LEVELS:
        raise ValueError(
            _("no computer level {level}: {levels}").format(level=level, levels=", ".join(LEVELS))
        )
    if not 1 <= game <= len(match.moves) or not 0 <= move <= len(match.moves[game - 1]):
        raise ValueError(
            _("the record has no move {move} in game {game} (games 1 to {games})").format(
                move=move, game=game, games=len(match.moves)
            )
        )
    try:
        start = start_of(match, game, move)
    except NoPositionToPlay as e:
        raise ValueError(nothing_after(e)) from None
    return WhatIf(
        start, level, default_seat(names, me) if seat is None else seat, names, WhatIfStart(game, move)
    )


async def play_whatif_lines(match: Match, w: WhatIf) -> int:
    """A what-if on the plain line prompt (off a terminal); returns its exit code."""
    from .lineplay import play_lines

    for note in whatif_notes(match, w)[:-1]:
        print(note)
    return await play_lines(whatif_session(match, w))


__all__ = [
    "WhatIf",
    "WhatIfApp",
    "WhatIfDialog",
    "ask_whatif",
    "default_seat",
    "plan_whatif",
    "play_whatif_lines",
    "show_dialog_as_float",
    "whatif_notes",
    "whatif_runner",
    "whatif_session",
]
