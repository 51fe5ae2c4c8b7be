"""A person playing a session: the full-screen interface, or the plain line
prompt when the terminal cannot take it (not a terminal, or ``TERM=dumb``).

Used by ``play``, ``host`` and ``join`` (their wiring is in p2p_spite/commands/lan.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence

from ..contracts.session import Session


def fullscreen_ok() -> bool:
    """Can this terminal take the full-screen interface?"""
    term = os.environ.get("TERM", "")
    if term in ("dumb", "unknown", ""):
        return False
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


async def drive_human(
    session: Session, *, pace: float = 0.45, notes: Sequence[str] = (), route: str = ""
) -> int:
    """Let the person at this terminal play ``session``: the full-screen game if
    the terminal can take it, else the plain line prompt.  Returns an exit code:
    0 when the match ended or the person left it, 1 when it could not go on.

    ``notes``: lines the command printed before the game (how the seed was
    chosen); the full screen covers the terminal, so it repeats them in its
    message pane (the line prompt leaves them where they were printed).
    ``route``: how the connection goes (internet play), for the toolbar.

    The session is closed (and so its record saved) however this ends: a
    quit, Ctrl-C, or a signal that cancels the task."""
    try:
        if not fullscreen_ok():
            from .lineplay import play_lines

            return await play_lines(session)
        from .app import GameApp

        app = GameApp(session, pace=pace, notes=notes, route=route)
        await app.run()
        return 1 if app.failed else 0
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.close("quit"), 5)


__all__ = ["drive_human", "fullscreen_ok"]
