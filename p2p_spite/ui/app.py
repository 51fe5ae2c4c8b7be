"""The full-screen game: board, messages, a move line and a toolbar.

:class:`GameApp` drives one :class:`~p2p_spite.session.Session`: the events
come through :class:`~.feed.EventFeed` (taken at once, shown paced), the
message pane is :class:`~.messages.MessageLog`, a typed line is read by
:mod:`.commands`; what stays here is what each event and intent shows, the
layout and the keys.

The board is always drawn from the view carried by the last event shown, and
moves typed are read against that same view, so what a player types always
refers to what they see.  Legality is the engine's: the app checks a move
against ``view.legal_moves()`` only to explain a refusal in the player's
terms, then sends it through the session.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, get_common_complete_suffix
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ..engine import CENTER, HAND, SIDE, EndReason, IllegalMoveError, Move, PlayerView
from ..engine.cards import rank
from ..errors import SessionClosed
from ..plaintext import MAX_CHAT
from ..session import (
    ChatReceived,
    ConnectionChanged,
    Ending,
    Event,
    GameEnded,
    GameStarted,
    LinkState,
    MatchEnded,
    MovePlayed,
    Notice,
    Session,
    SessionFailed,
    view_of,
)
from .board import (
    MIN_WIDTH,
    BoardInfo,
    Line,
    Slots,
    app_style,
    hand_slots,
    render_board,
    render_compact,
)
from .commands import (
    COMPLETIONS,
    Chat,
    Command,
    Enter,
    Help,
    Hint,
    Quit,
    Resign,
    card_of,
    default_hint,
    hint_text,
    is_yes,
    parse_command,
)
from .feed import EventFeed
from .messages import MessageLog
from .notation import (
    NotationError,
    describe_move,
    explain_illegal,
    move_notation,
    parse_move,
    source_token,
    target_token,
    typed_source,
)
from .question import Question, Questions
from .screen import (
    FIXED_ROWS,
    LARGE_MIN_MSG_ROWS,
    LARGE_MIN_ROWS,
    MIN_COLS,
    MIN_MSG_ROWS,
    build_layout,
    key_bindings,
)
from .text import (
    card_label,
    clean_name,
    clip_text,
    peer_left,
    points,
)

if TYPE_CHECKING:
    pass

HELP = [
    "Moves: a hand card by name (always that card) or number (kept all turn):",
    "  7h c1 or h3 c1   hand card to center 1",
    "  p c2             pay-off card to center 2",
    "  s4 c1            side stack 4 to center 1",
    "  9s s3 or h2 s3   discard on side stack 3: ends your turn",
    "Centers go up from Ace to Queen in any suit; Kings (K*) are wild.",
    "Empty your pay-off pile to win: score the cards left in the other.",
    "An empty stock ends the game as a draw: nobody scores.",
    "Commands: hint, chat TEXT, resign, quit. Mouse: a card, then a stack.",
    "Keys: Tab lists moves, PgUp/PgDn scroll, Esc clears, F1 help, ^C quit.",
]


class MoveCompleter(Completer):
    """Completes the legal moves (as shown numbers) and the commands."""

    def __init__(self, app: GameApp) -> None:
        self.app = app

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        typed = " ".join(text.lower().split())
        if not typed and not complete_event.completion_requested:
            return  # no menu over an empty line unless Tab asks for it
        if text.endswith(" ") and typed:
            typed += " "
        for notation, meta in self.app.move_choices():
            if notation.startswith(typed):
                yield Completion(notation, start_position=-len(text), display_meta=meta)
        if len(typed) >= 2 or (typed and not self.app.move_choices()):
            for cmd in COMPLETIONS:
                if cmd.startswith(typed) and cmd != typed:
                    yield Completion(cmd, start_position=-len(text))


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
    ) -> None:
        self.session = session
        self.seat = session.seat
        self.names = tuple(clean_name(n) or f"Player {i + 1}" for i, n in enumerate(session.names))
        self.opp_name = self.names[1 - self.seat]
        self.pace = pace
        self.wait_between_games = wait_between_games
        self.target: int | None = None  # from the first GameStarted

        self._hint_fn = hint

        self._view: PlayerView | None = None  # the view of the last event shown
        self._slots: Slots = ()  # its hand as numbered (board.hand_slots: stable within a turn)
        self.scores: tuple[int, int] = (0, 0)  # from GameStarted and GameEnded
        self.log = MessageLog()  # the message pane
        self.connection = LinkState.CONNECTED
        self.connection_detail = ""
        self.selected: str | None = None
        self.highlight: frozenset[str] = frozenset()
        self.questions = Questions(self.invalidate)  # the question the move line answers now
        self.finished = False  # the match is over (or failed)
        self.failed = False  # the match could not go on (peer left, connection lost, desync)
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
        self.app: Application[None] = Application(
            layout=build_layout(self),
            key_bindings=key_bindings(self),
            style=app_style(),
            full_screen=True,
            mouse_support=mouse,
            input=input,
            output=output,
        )
        self.say("info", f"You are {self.names[self.seat]} against {self.opp_name}. Type help for the moves.")
        for note in notes:  # what the command said before the screen covered it (how the seed was chosen)
            self.say("info", note)

    @property
    def view(self) -> PlayerView | None:
        """The view of the last event shown: the board drawn, and what typed moves refer to."""
        return self._view

    @view.setter
    def view(self, v: PlayerView | None) -> None:
        if v is not self._view and v is not None:
            self._slots = hand_slots(v.hand, self._slots, v.my_turn)
        self._view = v

    # -- running --------------------------------------------------------------

    async def run(self) -> None:
        """Run until the player quits or leaves the finished match."""
        self.feed.start()
        try:
            await self.app.run_async()
        finally:
            if self._title:
                with contextlib.suppress(Exception):
                    self.app.output.clear_title()
            await self.feed.stop()
            if self.exit_reason is None:
                self.exit_reason = "quit"
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.session.close("quit"), 5)

    @property
    def waiting_next_game(self) -> bool:
        """The next game waits for Enter (the finished one is on screen)."""
        return self.feed.waiting

    # -- what the feed hands over (feed.Screen) ---------------------------------

    def feed_news(self, ev: ChatReceived | ConnectionChanged | Notice) -> None:
        if isinstance(ev, ChatReceived):
            if ev.seat != self.seat:  # our own lines are shown when sent
                self.say("chat", f"{self.names[ev.seat]}: {clip_text(ev.text, MAX_CHAT)}")
        elif isinstance(ev, ConnectionChanged):
            self._show_connection(ev)
        else:
            self.say("info", ev.text)
        self.invalidate()

    def feed_broken(self, error: Exception) -> None:
        self._show_failure(f"the connection failed: {error}")
        self.invalidate()

    def feed_hold(self, game: int) -> None:
        self.say("info", f"Press Enter to start game {game}.")
        self.invalidate()

    def feed_show(self, ev: Event) -> None:
        try:
            self.show(ev)
        except Exception as e:  # a bug in the words must not stop the game
            self.view = view_of(ev) or self.view
            self.say("error", f"(display error: {e!r})")
        self._update_title()
        self.invalidate()

    def _update_title(self) -> None:
        """The terminal's title says whose turn it is (for a player in another window)."""
        v = self.view
        if self.finished:
            title = "p2p-spite: match over"
        elif v is None or v.result is not None:
            title = "p2p-spite"
        elif v.my_turn:
            title = "p2p-spite: your turn"
        else:
            title = f"p2p-spite: {self.opp_name}'s turn"
        if title != self._title:
            self._title = title
            with contextlib.suppress(Exception):
                self.app.output.set_title(title)

    def game_over_shown(self) -> bool:
        return self.view is not None and self.view.result is not None

    def invalidate(self) -> None:
        with contextlib.suppress(Exception):
            self.app.invalidate()

    # -- showing events -------------------------------------------------------

    def say(self, kind: str, text: str) -> None:
        """Add a message line of ``kind`` (me, opp, event, error, info, chat, help)."""
        self.log.add([(f"class:msg.{kind}", text)], self._cols())
        self.invalidate()

    def show(self, ev: Event) -> None:
        """Show one game event: messages, then the board from its view."""
        prev = self.view
        if isinstance(ev, GameStarted):
            self.view = ev.view
            self.scores = ev.scores  # a resumed match starts with its scores
            self.target = ev.target
            self.selected = None
            self.highlight = frozenset()
            who = "You start" if ev.starter == self.seat else f"{self.names[ev.starter]} starts"
            tops = ev.view.payoff_tops
            ranks = [rank(c) if c is not None else 0 for c in tops]
            why = "equal pay-off cards, drawn by lot" if ranks[0] == ranks[1] else "the higher pay-off card"
            self.say("event", f"Game {ev.game} begins. {who} ({why}).")
            if ev.view.my_turn:
                self.say("info", "Your turn. Type a move (Tab lists them) or help.")
        elif isinstance(ev, MovePlayed):
            self.view = ev.view
            self._describe(ev, prev)
        elif isinstance(ev, GameEnded):
            self.view = ev.view
            self.scores = ev.scores
            self.selected = None
            self._describe_end(ev)
        elif isinstance(ev, SessionFailed):
            self._show_failure(ev.message, ev.record_path, ev.ending)
        elif isinstance(ev, MatchEnded):
            self.scores = ev.scores
            self.finished = True
            me, opp = self.scores[self.seat], self.scores[1 - self.seat]
            if ev.winner is None:
                self.say("event", f"The match stopped at {me}-{opp}.")
            elif ev.winner == self.seat:
                self.say("event", f"You win the match {me}-{opp}!")
            else:
                self.say("event", f"{self.names[ev.winner]} wins the match {opp}-{me}.")
            if ev.record_path:
                self.say("info", f"The record is saved in {ev.record_path}")
            self.say("info", "Type quit (or press Ctrl-C) to leave.")
        self.invalidate()

    def _describe(self, ev: MovePlayed, prev: PlayerView | None) -> None:
        mine = ev.seat == self.seat
        who = "You" if mine else self.names[ev.seat]
        self.say("me" if mine else "opp", describe_move(ev.move, ev.card, who))
        m, v = ev.move, ev.view
        self.highlight = frozenset() if mine else frozenset({target_token(m, own=False)})
        self.selected = None
        was = len(prev.center[m.slot]) if prev is not None and m.target == CENTER else 0
        completed = was == 11 and not v.center[m.slot]
        if completed:
            self.say(
                "event",
                f"Center {m.slot + 1} is complete: its 12 cards are shuffled into the stock "
                f"(now {v.stock_count}).",
            )
        if v.result is not None or prev is None:
            return
        seat = ev.seat
        if m.target == CENTER and m.source == HAND and prev.hand_counts[seat] == 1:
            n = v.hand_counts[seat]
            if mine:
                self.say("info", f"Your hand was empty: you drew {n} new card{'s' * (n != 1)}.")
            else:
                self.say("info", f"{who} emptied their hand and drew {n} new card{'s' * (n != 1)}.")
        if m.target == SIDE:
            if mine:
                self.say("info", f"{self.opp_name}'s turn.")
            else:
                drawn = v.hand_counts[self.seat] - prev.hand_counts[self.seat]
                extra = f" You drew {drawn} card{'s' * (drawn != 1)}." if drawn > 0 else ""
                self.say("info", f"Your turn.{extra}")

    def _describe_end(self, ev: GameEnded) -> None:
        r = ev.result
        g = ev.game
        if r.winner is None:
            self.say("event", f"The stock ran out: game {g} is a draw, nobody scores.")
        else:
            won = r.winner == self.seat
            winner = "You" if won else self.names[r.winner]
            loser = self.opp_name if won else "you"
            if r.reason is EndReason.RESIGN:
                quitter = self.opp_name if won else "You"
                verb = "score" if won else "scores"
                self.say("event", f"{quitter} resigned game {g}: {winner} {verb} {points(r.points)}.")
            else:
                self.say(
                    "event",
                    f"{winner} played the last pay-off card and win{'' if won else 's'} game {g}: "
                    f"+{points(r.points)} ({loser} had {r.points} left).",
                )
        me, opp = self.scores[self.seat], self.scores[1 - self.seat]
        self.say("info", f"Scores: you {me}, {self.opp_name} {opp}.")

    def _show_connection(self, ev: ConnectionChanged) -> None:
        left = peer_left(ev.ending) if ev.state is LinkState.LOST else None
        if left is not None:  # the peer quit on purpose: SessionFailed says so, once
            self.connection = LinkState.CLOSED
            self.connection_detail = left
            return
        self.connection = ev.state
        self.connection_detail = ev.detail
        text = {
            LinkState.CONNECTED: "Connected.",
            LinkState.RECONNECTING: "Connection lost: reconnecting...",
            LinkState.LOST: "The connection is lost.",
            LinkState.CLOSED: "The connection is closed.",
        }[ev.state]
        if ev.detail:
            text += f" ({ev.detail})"
        self.say("error" if ev.state in (LinkState.LOST, LinkState.RECONNECTING) else "info", text)

    def _show_failure(
        self, message: str, record_path: str | None = None, ending: Ending | None = None
    ) -> None:
        self.finished = True
        self.failed = True
        left = peer_left(ending)
        if left is not None:  # a deliberate goodbye, not a failure of the connection
            self.connection = LinkState.CLOSED
            self.say("event", left)
            if record_path:
                self.say("info", f"The record is saved in {record_path}")
        else:
            self.connection = LinkState.LOST
            self.say("error", f"The match cannot go on: {message}")
        if left is None and record_path and record_path not in message:
            self.say("info", f"The record is saved in {record_path}")
        self.say("info", "Type quit (or press Ctrl-C) to leave.")

    # -- input ----------------------------------------------------------------

    def shown_hand(self) -> Slots:
        """The hand as numbered on screen (``None``: the slot of a card played this turn)."""
        return self._slots if self.view is not None else ()

    def move_choices(self) -> list[tuple[str, str]]:
        """The legal moves now, as typed and described: ``("h3 c1", "7♥ to center 1")``."""
        v = self.view
        if v is None or self.finished or self.confirm is not None:
            return []
        hand = self.shown_hand()
        out: list[tuple[str, str]] = []
        for m in v.legal_moves():
            card = card_of(m, v)
            name = card_label(card) if card is not None else "?"
            if m.target == CENTER:
                meta = f"{name} to center {m.slot + 1}"
            else:
                meta = f"discard {name} on side {m.slot + 1}"
            out.append((move_notation(m, hand), meta))
        out.sort(key=lambda nm: (nm[0].split()[1][0] == "s", nm[0]))  # center plays first
        return out

    def _accept(self, buf: Buffer) -> bool:
        text = buf.text
        self.app.create_background_task(self.command(text))
        return False

    async def command(self, text: str) -> None:
        """Handle one line typed (a move or a command); while a question is
        asked, the line is its answer."""
        if self.confirm is not None:  # (its asker holds the lock, awaiting this)
            self.answer(is_yes(text))
            return
        async with self._lock:
            await self._command(parse_command(text))
        self.invalidate()

    @property
    def confirm(self) -> Question | None:
        """The y/N question the move line answers now."""
        return self.questions.open

    async def ask(self, kind: str, question: str, short: str) -> bool | None:
        """Ask a y/N question in the move line and wait for the answer (:class:`Questions`)."""
        return await self.questions.ask(kind, question, short)

    def answer(self, yes: bool | None) -> None:
        """Answer the question asked (nothing when none is)."""
        self.questions.answer(yes)

    async def _command(self, cmd: Command) -> None:
        if isinstance(cmd, Enter):
            self.feed.next_game()
        elif isinstance(cmd, Help):
            self.show_help()
        elif isinstance(cmd, Quit):
            await self._ask_quit()
        elif isinstance(cmd, Resign):
            v = self.view
            if self.finished or v is None or v.result is not None:
                self.say("error", "There is no game to resign.")
                return
            # at any time (off turn, the other side makes it its next action)
            n = v.payoff_counts[self.seat]
            question = f"Resign game {v.game}? {self.opp_name} scores {points(n)}. [y/N]"
            yes = await self.ask("resign", question, f"Resign game {v.game}? [y/N]")
            if yes:
                await self._resign()
            elif yes is False:
                self.say("info", "Carry on.")
        elif isinstance(cmd, Chat):
            if not cmd.text:
                self.say("error", "chat what? Type chat and your message.")
                return
            try:
                await asyncio.wait_for(self.session.chat(cmd.text), 5)
            except Exception as e:
                self.say("error", f"chat not sent: {e or type(e).__name__}")
            else:
                self.say("chat", f"You: {cmd.text}")
        elif isinstance(cmd, Hint):
            await self._hint()
        else:
            await self._move(cmd.text)

    async def _ask_quit(self) -> None:
        if self.finished:
            await self._quit()
            return
        question = f"Quit the match? {self.opp_name} will be told. [y/N]"
        yes = await self.ask("quit", question, "Quit the match? [y/N]")
        if yes:
            await self._quit()
        elif yes is False:
            self.say("info", "Carry on.")

    async def _move(self, text: str) -> None:
        v = self.view
        if self.finished:
            self.say("error", "The match is over: type quit to leave.")
            return
        if v is None:
            self.say("error", "The game has not started yet.")
            return
        try:
            move = parse_move(text, v, self.shown_hand())
        except NotationError as e:
            self.say("error", f"{clip_text(text)}: {e}.")
            return
        if v.result is not None:
            extra = " Press Enter for the next game." if self.waiting_next_game else ""
            self.say("error", f"{clip_text(text)}: this game is over.{extra}")
            return
        if move not in v.legal_moves():
            self.say("error", f"{clip_text(text)}: {explain_illegal(move, v)}.")
            return
        shown = self.feed.shown
        shown.clear()
        try:
            await asyncio.wait_for(self.session.play(move), 10)
        except IllegalMoveError as e:
            # Legal on the board shown, so the session refused it for its own
            # reason (the match ended, the connection closed): say that one.
            self.say("error", f"{clip_text(text)}: not played: {e.reason}.")
            return
        except SessionClosed as e:
            self.say("error", f"{clip_text(text)}: not played: {e}.")
            return
        except Exception as e:
            self.say("error", f"{clip_text(text)}: not sent ({e or type(e).__name__}).")
            return
        # Wait (briefly) for the move to show, so the next line typed reads the new board.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(3):
                while self.view is v:
                    shown.clear()
                    await shown.wait()

    async def _hint(self) -> None:
        v = self.view
        if v is None or not v.my_turn or self.finished:
            self.say("error", "A hint is for your turn.")
            return
        try:
            hint = self._hint_fn or default_hint
            move: Move = await asyncio.wait_for(asyncio.to_thread(hint, v), 15)
        except Exception as e:
            self.say("error", f"no hint available ({e or type(e).__name__}).")
            return
        if self.view is not v:
            return
        text, words = hint_text(move, v, self.shown_hand())
        self.say("info", f"Hint: {text}  ({words}). Press Enter to play it.")
        self.buffer.set_document(Document(text, len(text)))

    async def _quit(self) -> None:
        self.exit_reason = "quit"
        self.say("info", "Leaving the match...")
        self.invalidate()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.session.close("quit"), 5)
        with contextlib.suppress(Exception):  # (already leaving)
            self.app.exit()

    async def _resign(self) -> None:
        try:
            await asyncio.wait_for(self.session.resign(), 10)
        except IllegalMoveError as e:
            self.say("error", f"could not resign: {e.reason}")
        except Exception as e:
            self.say("error", f"could not resign: {e or type(e).__name__}")

    def ask_quit(self) -> None:
        """Ctrl-C: ask to quit; a second Ctrl-C is the yes."""
        if self.confirm is not None and self.confirm.kind == "quit":
            self.answer(True)
        else:
            self.app.create_background_task(self._ask_quit())

    def show_help(self) -> None:
        """The help in the message pane, scrolled so that its first line shows
        (PgDn shows the rest when the pane is shorter than the help)."""
        log = self.log
        log.scrolled = 0
        before = len(log.lines(self._cols()))
        for line in HELP:
            self.say("help", line)
        added = len(log.lines(self._cols())) - before
        log.scrolled = max(0, added - self._msg_rows())
        self.invalidate()

    def tab(self) -> None:
        """Tab: list the completions; insert only what makes whole words.

        prompt_toolkit's own Tab inserts the completions' common prefix, so on
        an empty line it typed ``h`` (every move started with a hand card) and
        ``h5`` then read ``hh5``.  Here the common part is inserted only when
        the line is not empty and what it completes is a whole token."""
        b = self.buffer
        doc = b.document
        event = CompleteEvent(completion_requested=True)
        found = list(MoveCompleter(self).get_completions(doc, event))
        if len(found) == 1 and doc.text_before_cursor.strip():
            b.apply_completion(found[0])
            return
        common = get_common_complete_suffix(doc, found) if found else ""
        if doc.text_before_cursor.strip() and common.endswith(" "):
            b.insert_text(common)
        b.start_completion(insert_common_part=False)

    # -- mouse ------------------------------------------------------------------

    def click(self, token: str) -> None:
        """A click on a board token: pick a card, then the stack it goes on."""
        v = self.view
        if v is None or not v.my_turn or self.finished:
            return
        sel = self.selected
        is_source = token.startswith(("h", "p")) or (token.startswith("s") and sel is None)
        if token == sel:
            self.selected = None
            self.buffer.reset()
        elif sel is not None and (token.startswith("c") or (token.startswith("s") and sel.startswith("h"))):
            self.selected = None
            self.buffer.reset()
            self.app.create_background_task(self.command(f"{sel} {token}"))
        elif is_source or token.startswith("s"):
            self.selected = token
            self.buffer.set_document(Document(f"{token} ", len(token) + 1))
        self.invalidate()

    def scroll(self, lines: int) -> None:
        self.log.scroll(lines, self._msg_rows(), self._cols())
        self.invalidate()

    # -- layout -----------------------------------------------------------------

    def _cols(self) -> int:
        try:
            return self.app.output.get_size().columns
        except Exception:
            return 80

    def _rows(self) -> int:
        try:
            return self.app.output.get_size().rows
        except Exception:
            return 24

    def current_source(self) -> str | None:
        """The card being played: clicked, or typed at the start of the line (``h3``, ``p``, ``s2``)."""
        if self.selected is not None:
            return self.selected
        return typed_source(self.buffer.text)

    def targets_of(self, source: str | None) -> frozenset[str]:
        """Where the card ``source`` may go now (from the legal moves): ``c1``, ``s3``..."""
        v = self.view
        if source is None or v is None or self.finished:
            return frozenset()
        hand = self.shown_hand()
        out: set[str] = set()
        for m in v.legal_moves():
            if source_token(m, hand) == source:
                out.add(target_token(m))
        return frozenset(out)

    def board_info(self) -> BoardInfo | None:
        if self.view is None:
            return None
        source = self.current_source()
        return BoardInfo(
            view=self.view,
            names=(self.names[0], self.names[1]),
            scores=self.scores,
            target=self.target,
            selected=source,
            targets=self.targets_of(source),
            highlight=self.highlight,
            on_click=self.click,
            status="match over" if self.finished else None,
            hand=self.shown_hand(),
        )

    def _board_lines(self) -> list[Line]:
        cols, rows = self._cols(), self._rows()
        info = self.board_info()
        if info is None:
            title = f" {self.names[0]} : {self.names[1]}"
            return [[("class:header", title.ljust(cols))], [], [("class:label", "  Waiting for the game...")]]
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
        return self._cols() < MIN_COLS or self._rows() < len(self._board_lines()) + FIXED_ROWS + MIN_MSG_ROWS

    def _msg_rows(self) -> int:
        return max(1, self._rows() - len(self._board_lines()) - FIXED_ROWS)

    def _message_text(self) -> StyleAndTextTuples:
        return self.log.text(self._msg_rows(), self._cols())

    def _board_text(self) -> StyleAndTextTuples:
        frags: StyleAndTextTuples = []
        for i, line in enumerate(self._board_lines()):
            if i:
                frags.append(("", "\n"))
            frags.extend(line)
        return frags


__all__ = ["GameApp", "MoveCompleter"]
