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

from ..engine import CENTER, EndReason, IllegalMoveError, Move, PlayerView
from ..errors import SessionClosed
from ..plaintext import MAX_CHAT
from ..session import (
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
    SessionFailed,
    view_of,
)
from .board import Slots, hand_order, hand_slots, rank_label
from .commands import Chat, Enter, Help, Hint, Quit, Resign, default_hint, hint_text, is_yes, parse_command
from .notation import SYNTAX_HELP, NotationError, describe_move, explain_illegal, move_notation, parse_move
from .question import Question, Questions
from .text import card_label, clean_name, clip_text, peer_left, points

HELP = (
    f"moves: {SYNTAX_HELP}\n"
    "a card's name (7h, 10s, kd) always means the same card; a hand number keeps its card "
    "until your turn ends (a played card leaves its number empty)\n"
    "other: 'hint' (then Enter plays it), 'chat TEXT' (or 'say TEXT'), "
    "'resign' (this game; asks first), 'quit' (leave the match; asks first), 'help'\n"
    "win a game by emptying your pay-off pile; when the stock runs out the game is a draw"
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
    return f"{n} card{'' if n == 1 else 's'}"


def _need(center: tuple[int, ...]) -> str:
    return rank_label(len(center) + 1)


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
    lines = [
        f"-- game {view.game}  stock {view.stock_count}",
        f"{names[op]}: pay-off {_opt(top[op])} ({view.payoff_counts[op]} left), "
        f"hand {_cards(view.hand_counts[op])}",
        f"  {names[op]}'s sides {_sides(view.sides[op])}",
        "center: " + "  ".join(f"c{i + 1} {_stack(c)} (needs {_need(c)})" for i, c in enumerate(view.center)),
        f"  your sides {_sides(view.sides[me])}",
        f"you: pay-off {_opt(top[me])} ({view.payoff_counts[me]} left)",
        f"hand: {held or '(empty)'}",
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
    def __init__(
        self,
        session: Session,
        out: Callable[[str], None],
        hint: Callable[[PlayerView], Move] | None,
    ) -> None:
        self.session = session
        self.out = out
        self.seat = session.seat
        self.names = (
            clean_name(session.names[0]) or "Player 1",
            clean_name(session.names[1]) or "Player 2",
        )
        self.opp_name = self.names[1 - self.seat]
        self.hint_fn = hint
        self.view: PlayerView | None = None
        self.slots: Slots = ()  # the hand as numbered (board.hand_slots)
        self.hinted: tuple[PlayerView, Move] | None = None  # Enter plays it
        self.questions = Questions(self._question_changed)  # the one the next line answers
        self.asked = asyncio.Event()  # set when a command asks one
        self.said_left = False

    def set_view(self, v: PlayerView) -> None:
        self.view = v
        self.slots = hand_slots(v.hand, self.slots, v.my_turn)
        self.hinted = None

    # -- prompts --------------------------------------------------------------

    def prompt(self) -> None:
        v = self.view
        if self.question is not None:
            self.out(self.question.text)
        elif v is not None and v.my_turn and v.result is None:
            self.out("your move> ")
        else:
            self.out("> ")

    # -- events ---------------------------------------------------------------

    def show(self, ev: Event) -> int | None:
        """Print ``ev``; an exit code when the match is over."""
        names, seat, out = self.names, self.seat, self.out
        if isinstance(ev, GameStarted):
            starter = "you begin" if ev.starter == seat else f"{names[ev.starter]} begins"
            me, op = ev.scores[seat], ev.scores[1 - seat]
            score = f"scores: you {me}, {self.opp_name} {op}; first to {ev.target}"
            out(f"== game {ev.game} starts; {starter} ({score})")
        elif isinstance(ev, MovePlayed):
            who = "You" if ev.seat == seat else names[ev.seat]
            out(describe_move(ev.move, ev.card, who))
        elif isinstance(ev, GameEnded):
            r = ev.result
            if r.winner is None:
                out(f"== game {ev.game}: a draw (the stock ran out), nobody scores")
            else:
                winner = "you" if r.winner == seat else names[r.winner]
                how = "resigned" if r.reason is EndReason.RESIGN else "pay-off emptied"
                out(f"== game {ev.game} won by {winner} ({how}): {points(r.points)}")
            out(f"   scores: you {ev.scores[seat]}, {self.opp_name} {ev.scores[1 - seat]}")
        elif isinstance(ev, ChatReceived):
            if ev.seat != seat:  # our own lines are echoed when sent
                out(f"<{names[ev.seat]}> {clip_text(ev.text, MAX_CHAT)}")
        elif isinstance(ev, ConnectionChanged):
            left = peer_left(ev.ending) if ev.state is LinkState.LOST else None
            if left is not None:
                out(f"-- {left}")
                self.said_left = True
            elif ev.state is not LinkState.CLOSED:
                out(f"-- connection {ev.state}{': ' + ev.detail if ev.detail else ''}")
        elif isinstance(ev, Notice):
            out(f"-- {ev.text}")
        elif isinstance(ev, MatchEnded):
            me, op = ev.scores[seat], ev.scores[1 - seat]
            if ev.winner is None:
                out(f"== the match stopped at {me}-{op}")
            elif ev.winner == seat:
                out(f"== you win the match {me}-{op}!")
            else:
                out(f"== {names[ev.winner]} wins the match {op}-{me}")
            if ev.record_path:
                out(f"record: {ev.record_path}")
            return 0
        elif isinstance(ev, SessionFailed):
            left = peer_left(ev.ending)
            if left is None:
                out(f"-- the match cannot go on: {ev.message}")
            elif not self.said_left:
                out(f"-- {left}")
            if ev.record_path and ev.record_path not in ev.message:
                out(f"record: {ev.record_path}")
            return 1
        return None

    # -- lines typed ----------------------------------------------------------

    @property
    def question(self) -> Question | None:
        """The y/N question the next line answers."""
        return self.questions.open

    def _question_changed(self) -> None:
        if self.questions.open is not None:  # asked: show it, and let the loop read the answer
            self.asked.set()
            self.prompt()

    async def ask(self, kind: str, question: str) -> bool | None:
        """Ask a y/N question and wait for the answer, the next line typed (:class:`Questions`)."""
        return await self.questions.ask(kind, question)

    def answer(self, yes: bool | None) -> None:
        """Answer the question asked (nothing when none is)."""
        self.questions.answer(yes)

    async def line(self, text: str) -> int | None:
        """Handle one line; an exit code when the player leaves."""
        v = self.view
        cmd = parse_command(text)
        if isinstance(cmd, Quit):
            yes = await self.ask("quit", f"quit the match? {self.opp_name} will be told. [y/N]")
            if yes:
                return await self.leave()
            if yes is False:
                self.out("-- not quitting: carry on")
                self.prompt()
        elif isinstance(cmd, Enter):
            hinted = self.hinted
            if hinted is not None and hinted[0] is v:
                await self.play(hinted[1], move_notation(hinted[1], self.slots))
            else:
                self.out(HELP)
                self.prompt()
        elif isinstance(cmd, Help):
            self.out(HELP)
            self.prompt()
        elif isinstance(cmd, Chat):
            if not cmd.text:
                self.out("chat what? type chat and your message")
            else:
                try:
                    await asyncio.wait_for(self.session.chat(cmd.text), 5)
                except Exception as e:
                    self.out(f"chat not sent: {e or type(e).__name__}")
                else:
                    self.out(f"<you> {cmd.text}")
            self.prompt()
        elif isinstance(cmd, Resign):
            if v is None or v.result is not None:
                self.out("there is no game to resign now")
                self.prompt()
            else:  # at any time (off turn, the other side makes it its next action)
                n = v.payoff_counts[self.seat]
                question = f"resign game {v.game}? {self.opp_name} scores {points(n)}. [y/N]"
                yes = await self.ask("resign", question)
                if yes:
                    await self.resign()
                elif yes is False:
                    self.out("-- not resigning: carry on")
                    self.prompt()
        elif isinstance(cmd, Hint):
            await self.hint()
        elif v is None or v.result is not None:
            self.out("there is no game in play now (you can chat: chat TEXT)")
            self.prompt()
        elif not v.my_turn:
            self.out(f"wait for your turn: {self.opp_name} is playing (you can chat: chat TEXT)")
            self.prompt()
        else:
            try:
                move = parse_move(cmd.text, v, self.slots)
            except NotationError as e:
                self.out(f"{clip_text(cmd.text)}: {e}")
                self.prompt()
                return None
            await self.play(move, cmd.text)
        return None

    async def leave(self) -> int:
        """A deliberate quit: the peer is told, the record saved; exit code 0."""
        await self.session.close("quit")
        self.out("-- you left the match")
        return 0  # as in the full-screen interface

    async def resign(self) -> None:
        try:
            await asyncio.wait_for(self.session.resign(), 10)
        except IllegalMoveError as e:
            self.out(f"cannot resign: {e.reason}")
            self.prompt()
        except Exception as e:  # the game ended meanwhile, the connection closed...
            self.out(f"cannot resign: {e or type(e).__name__}")
            self.prompt()

    async def play(self, move: Move, text: str) -> None:
        v = self.view
        if v is None:
            return
        self.hinted = None
        if move not in v.legal_moves():
            self.out(f"{clip_text(text)}: {explain_illegal(move, v)}")
            self.prompt()
            return
        try:
            await self.session.play(move)
        except IllegalMoveError as e:  # legal on the board shown: the session's own reason
            self.out(f"{clip_text(text)}: not played: {e.reason}")
            self.prompt()
        except SessionClosed as e:
            self.out(f"{clip_text(text)}: not played: {e}")
            self.prompt()

    async def hint(self) -> None:
        v = self.view
        if v is None or not v.my_turn or v.result is not None:
            self.out("a hint is for your turn")
            self.prompt()
            return
        try:
            hint = self.hint_fn or default_hint
            move = await asyncio.wait_for(asyncio.to_thread(hint, v), 15)
        except Exception as e:
            self.out(f"no hint available ({e or type(e).__name__})")
            self.prompt()
            return
        if self.view is not v:
            return
        typed, words = hint_text(move, v, self.slots)
        self.hinted = (v, move)
        self.out(f"hint: {typed}  ({words}); press Enter to play it")
        self.prompt()


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
    out(f"You are {p.names[p.seat]} against {p.opp_name}.")
    out(HELP)
    ev_task: asyncio.Task[Event] = asyncio.create_task(session.next_event())
    line_task: asyncio.Task[str | None] = asyncio.create_task(lines.get())
    command: asyncio.Task[int | None] | None = None  # the line being handled
    try:
        while True:
            if command is not None and p.question is None:
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
            done, _ = await asyncio.wait({ev_task, line_task}, return_when=asyncio.FIRST_COMPLETED)
            if ev_task in done:
                ev = ev_task.result()
                ev_task = asyncio.create_task(session.next_event())
                code = p.show(ev)
                if code is not None:
                    return code
                v = view_of(ev)
                if v is not None:
                    p.set_view(v)
                    if v.my_turn and v.result is None and _turn_starts(ev, p.seat):
                        out(render(v, p.names, p.slots))
                        p.prompt()
                continue
            text = line_task.result()
            line_task = asyncio.create_task(lines.get())
            if text == _CTRL_C:
                out("")
                out("-- Ctrl-C: leaving the match (the other player is told; the record is saved)")
                await session.close("quit")
                return 0
            if p.question is not None and text is not None:
                p.answer(is_yes(text))
                continue
            if text is None and p.question is not None and command is not None:
                if p.question.kind == "quit":  # the yes a script could not type
                    out("-- end of input while asking: leaving the match as asked")
                    p.answer(True)
                    return await command or 0
                out("-- end of input while asking: not resigned")
                p.answer(None)
            if text is None:
                out(
                    "-- end of input: leaving the match (the record is saved). "
                    "Exit code 1: that was not a deliberate quit (type quit for that)."
                )
                await session.close("quit")
                return 1
            command = asyncio.create_task(p.line(text))
    finally:
        undo_ctrl_c()
        ev_task.cancel()
        line_task.cancel()
        if command is not None:
            command.cancel()


def _turn_starts(ev: Event, seat: int) -> bool:
    """Show the board when the turn becomes ours, and after each of our own moves
    onto a center (the turn goes on)."""
    if isinstance(ev, GameStarted):
        return True
    if isinstance(ev, MovePlayed):
        return ev.seat != seat or ev.move.target == CENTER
    return False


__all__ = ["HELP", "play_lines", "render"]
