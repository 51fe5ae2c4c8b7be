"""``p2p-spite play``: a match against the computer on this machine.

The computer is a real peer: this process hosts on 127.0.0.1 (a free port),
and in the same event loop a task joins it with a bot, over the same protocol
a remote player would use.  The person plays seat 0 (the host) in the
full-screen interface, or with the plain line prompt when the terminal cannot
take it (not a terminal, or ``TERM=dumb``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from ..errors import UserError
from ..runner import run_main
from ..session import Session

DEFAULT_LEVEL = "medium"


def fullscreen_ok() -> bool:
    """Can this terminal take the full-screen interface?"""
    term = os.environ.get("TERM", "")
    if term in ("dumb", "unknown", ""):
        return False
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


async def drive_human(session: Session, *, pace: float = 0.45) -> int:
    """Let the person at this terminal play ``session``: the full-screen game if
    the terminal can take it, else the plain line prompt.  Returns an exit code:
    0 when the match ended or the person left it, 1 when it could not go on.

    The session is closed (and so its record saved) however this ends: a
    quit, Ctrl-C, or a signal that cancels the task."""
    try:
        if not fullscreen_ok():
            from .lineplay import play_lines

            return await play_lines(session)
        from .app import GameApp

        app = GameApp(session, pace=pace)
        await app.run()
        return 1 if app.failed else 0
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.close("quit"), 5)


async def play_against_computer(
    *,
    level: str = DEFAULT_LEVEL,
    seed: bytes | None = None,
    name: str = "you",
    target: int = 50,
    record_path: Path | None = None,
    pace: float = 0.45,
    driver: Callable[[Session], Awaitable[int]] | None = None,
) -> tuple[int, str | None]:
    """Host on loopback, let a bot of ``level`` join, play; returns (exit code, record path).

    ``driver`` plays the person's seat (default: :func:`drive_human`).
    """
    from ..bots import LEVELS
    from ..bots.driver import run_bot
    from ..net import host_session, join_session
    from ..net.protocol import new_join_code

    if level not in LEVELS:
        raise UserError(f"unknown bot level {level!r} (choose from {', '.join(LEVELS)})", exit_code=2)
    loop = asyncio.get_running_loop()
    port: asyncio.Future[int] = loop.create_future()

    def listening(_host: str, p: int) -> None:
        if not port.done():
            port.set_result(p)

    join_code = new_join_code()  # even on loopback: another local user must not take the seat
    host_task = asyncio.create_task(
        host_session(
            bind="127.0.0.1",
            port=0,
            name=name,
            seed=seed,
            target=target,
            record_path=record_path,
            on_listening=listening,
            code=join_code,
            on_warning=None,
        )
    )
    scratch = tempfile.mkdtemp(prefix="p2p-spite-bot-")  # the computer's own copy of the record
    bot_task: asyncio.Task[int] | None = None
    try:
        async with asyncio.timeout(10):
            while not port.done():
                if host_task.done():
                    host_task.result()  # raises why it could not listen
                    raise UserError("could not listen on 127.0.0.1")
                await asyncio.sleep(0.01)
        joiner = await join_session(
            host="127.0.0.1",
            port=port.result(),
            name="Computer",
            record_path=Path(scratch) / "bot.json",
            code=join_code,
        )
        bot_task = asyncio.create_task(run_bot(joiner, level))
        session = await asyncio.wait_for(host_task, 15)
        code = await (driver(session) if driver is not None else drive_human(session, pace=pace))
        return code, session.record_path
    finally:
        if not host_task.done():
            host_task.cancel()
        if bot_task is not None and not bot_task.done():
            try:
                await asyncio.wait_for(bot_task, 5)
            except (TimeoutError, asyncio.CancelledError, Exception):
                bot_task.cancel()
        shutil.rmtree(scratch, ignore_errors=True)


def default_name() -> str:
    try:
        import getpass

        return getpass.getuser().capitalize() or "You"
    except Exception:
        return "You"


def run_play(level: str, seed: bytes | None, name: str | None, target: int, record: Path | None) -> int:
    """The ``play`` command."""
    name = name or default_name()
    record_shown: list[str | None] = [None]

    async def main() -> int:
        code, path = await play_against_computer(
            level=level, seed=seed, name=name, target=target, record_path=record
        )
        record_shown[0] = path
        return code

    code = run_main(main())
    path = record_shown[0]
    if path:
        print(f"record: {path}")
    return code


__all__ = ["DEFAULT_LEVEL", "drive_human", "fullscreen_ok", "play_against_computer", "run_play"]
