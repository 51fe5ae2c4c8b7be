"""Driving a session with a computer player (no terminal interface)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from ..contracts.errors import SessionClosed
from ..contracts.session import Event, MatchEnded, Rematch, Session, SessionFailed, TakebackAsked, view_of
from ..engine import PlayerView
from . import make_bot


async def run_bot(
    session: Session,
    level: str,
    *,
    seed: int | None = None,
    on_event: Callable[[Event], None] | None = None,
    matches: int | None = 1,
) -> int:
    """Play ``session`` with a bot of ``level`` until the match ends; return an exit code.

    0: the match ended (MatchEnded); 1: it failed (SessionFailed), or the next match
    was refused before its deal (``Rematch.REFUSED``).  The bot
    decides only from the views the events carry, at full speed, and allows
    every takeback it is asked for (a side told ``--takebacks never`` refuses
    before asking).  At a match's end it answers the offer of another one: yes
    while fewer than ``matches`` were played (None: always yes, the computer a
    person plays), else no, so that a person on the other side is told at once
    rather than asked (a peer that offers no other match hears nothing).  The
    session is closed before returning.  ``on_event`` sees every event (for
    printing).  ValueError if the level is unknown.
    """
    bot = make_bot(level, seed)
    played = 0

    async def play(v: PlayerView) -> None:
        # SessionClosed: the session just stopped; its SessionFailed event follows
        with contextlib.suppress(SessionClosed):
            await session.play(bot.choose(v))

    try:
        while True:
            ev = await session.next_event()
            if on_event is not None:
                on_event(ev)
            if isinstance(ev, MatchEnded):
                played += 1
                wanted = matches is None or played < matches
                settled = await session.rematch(wanted)
                if settled is not Rematch.STARTED:
                    return 1 if settled is Rematch.REFUSED else 0
                continue
            if isinstance(ev, SessionFailed):
                return 1
            if isinstance(ev, TakebackAsked):
                with contextlib.suppress(SessionClosed):
                    await session.answer_takeback(True)
            v = view_of(ev)
            if v is not None and v.my_turn:
                await play(v)
    finally:
        await session.close("match over")
