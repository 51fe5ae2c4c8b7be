"""A plain line prompt for a person playing a network match (no full-screen UI).

Small on purpose: the terminal interface can take its place.  It uses the
move notation of :mod:`p2p_spite.ui.notation` (``h3 c1``, ``p c2``, ``h2 s3``).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable

from ..engine import IllegalMoveError, PlayerView, card_symbol
from ..session import (
    ChatReceived,
    ConnectionChanged,
    Event,
    GameEnded,
    GameStarted,
    MatchEnded,
    MovePlayed,
    Notice,
    Session,
    SessionFailed,
    view_of,
)
from .notation import SYNTAX_HELP, NotationError, describe_move, parse_move

HELP = (
    f"moves: {SYNTAX_HELP}\n"
    "other: 'say TEXT' (chat), 'resign' (this game, on your turn), 'quit' (leave the match), 'help'"
)


def _stack(cards: tuple[int, ...]) -> str:
    return card_symbol(cards[-1]) if cards else "--"


def render(view: PlayerView, names: tuple[str, str]) -> str:
    me, op = view.seat, view.opponent
    top = view.payoff_tops
    lines = [
        f"-- game {view.game}  stock {view.stock_count}",
        f"{names[op]}: pay-off {_opt(top[op])} ({view.payoff_counts[op]} left), "
        f"hand {view.hand_counts[op]} cards, sides {' '.join(_stack(s) for s in view.sides[op])}",
        f"center: {'  '.join(f'c{i + 1} {_stack(c)}' for i, c in enumerate(view.center))}",
        f"you: pay-off {_opt(top[me])} ({view.payoff_counts[me]} left), "
        f"sides {' '.join(f's{i + 1} {_stack(s)}' for i, s in enumerate(view.sides[me]))}",
        f"hand: {'  '.join(f'h{i + 1} {card_symbol(c)}' for i, c in enumerate(view.hand))}",
    ]
    return "\n".join(lines)


def _opt(card: int | None) -> str:
    return card_symbol(card) if card is not None else "--"


def _stdin_lines(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> None:
    def reader() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=reader, daemon=True).start()


async def play_lines(session: Session, out: Callable[[str], None] = print) -> int:
    """Let a person play ``session`` by typing lines; returns an exit code."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    _stdin_lines(loop, lines)
    names = session.names
    seat = session.seat
    out(
        f"You are {names[seat] or 'seat ' + str(seat)} (seat {seat}) against {names[1 - seat] or 'the peer'}."
    )
    out(HELP)
    view: PlayerView | None = None
    ev_task: asyncio.Task[Event] = asyncio.create_task(session.next_event())
    line_task: asyncio.Task[str | None] = asyncio.create_task(lines.get())
    try:
        while True:
            done, _ = await asyncio.wait({ev_task, line_task}, return_when=asyncio.FIRST_COMPLETED)
            if ev_task in done:
                ev = ev_task.result()
                ev_task = asyncio.create_task(session.next_event())
                code = _show(ev, names, seat, out)
                if code is not None:
                    return code
                v = view_of(ev)
                if v is not None:
                    view = v
                    if v.my_turn and not (isinstance(ev, GameEnded)):
                        out(render(v, names))
                        out("your move> ")
                continue
            text = line_task.result()
            line_task = asyncio.create_task(lines.get())
            if text is None:
                await session.close("quit")
                out("left the match (end of input)")
                return 1
            text = text.strip()
            if text in ("quit", "exit"):
                await session.close("quit")
                out("you left the match")
                return 0  # a deliberate quit, as in the full-screen interface
            if text == "help" or not text:
                out(HELP)
            elif text.startswith(("say ", "chat ")):
                await session.chat(text.split(" ", 1)[1])
            elif text == "resign":
                try:
                    await session.resign()
                except IllegalMoveError as e:
                    out(f"cannot resign: {e.reason}")
            elif view is None or not view.my_turn:
                out("wait for your turn (you can chat: say TEXT)")
            else:
                try:
                    await session.play(parse_move(text, view))
                except NotationError as e:
                    out(str(e))
                    out("your move> ")
                except IllegalMoveError as e:
                    out(f"not allowed: {e.reason}")
                    out("your move> ")
    finally:
        ev_task.cancel()
        line_task.cancel()


def _show(ev: Event, names: tuple[str, str], seat: int, out: Callable[[str], None]) -> int | None:
    if isinstance(ev, GameStarted):
        out(f"== game {ev.game} starts; {names[ev.starter] or 'seat ' + str(ev.starter)} begins")
    elif isinstance(ev, MovePlayed):
        who = "You" if ev.seat == seat else (names[ev.seat] or f"seat {ev.seat}")
        out(describe_move(ev.move, ev.card, who))
    elif isinstance(ev, GameEnded):
        r = ev.result
        if r.winner is None:
            out(f"== game {ev.game}: a draw (the stock ran out)")
        else:
            out(f"== game {ev.game} won by {names[r.winner]} ({r.reason}), {r.points} points")
        out(f"   scores: {names[0]} {ev.scores[0]}, {names[1]} {ev.scores[1]}")
    elif isinstance(ev, ChatReceived):
        out(f"<{names[ev.seat]}> {ev.text}")
    elif isinstance(ev, ConnectionChanged):
        if ev.state != "closed":
            out(f"-- connection {ev.state}{': ' + ev.detail if ev.detail else ''}")
    elif isinstance(ev, Notice):
        out(f"-- {ev.text}")
    elif isinstance(ev, MatchEnded):
        return 0
    elif isinstance(ev, SessionFailed):
        return 1
    return None
