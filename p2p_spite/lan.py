"""Running a networked match from the command line: ``host``, ``join``, and
``play`` (the computer joins over loopback).

Wiring only: open a network session, hand it to its driver (a bot, headless,
or a person at the terminal interface), print what a headless run or the end of
a match needs to say.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from .errors import UserError
from .net.peer import NetSession
from .net.protocol import new_join_code
from .runner import run_main
from .session import ChatReceived, ConnectionChanged, Event, GameEnded, GameStarted, Notice, Session

DEFAULT_LEVEL = "medium"  # the computer's level in ``play``


def _say(text: str) -> None:
    print(text, flush=True)


def _check_bot(level: str | None) -> None:
    if level is None:
        return
    from .bots import LEVELS

    if level not in LEVELS:
        raise UserError(f"unknown bot level {level!r} (choose from {', '.join(LEVELS)})", exit_code=2)


def _progress(session: NetSession) -> Callable[[Event], None]:
    names = session.names

    def show(ev: Event) -> None:
        if isinstance(ev, GameStarted):
            _say(f"game {ev.game} started")
        elif isinstance(ev, GameEnded):
            r = ev.result
            pts = f"{r.points} point{'s' * (r.points != 1)}"
            who = "a draw" if r.winner is None else f"won by {names[r.winner]} ({r.reason}, {pts})"
            _say(f"game {ev.game}: {who}; scores {ev.scores[0]}-{ev.scores[1]}")
        elif isinstance(ev, ChatReceived):
            _say(f"<{names[ev.seat]}> {ev.text}")
        elif isinstance(ev, Notice):
            print(f"p2p-spite: {ev.text}", file=sys.stderr, flush=True)
        elif isinstance(ev, ConnectionChanged) and ev.state in ("reconnecting", "connected"):
            _say(f"connection {ev.state}{': ' + ev.detail if ev.detail else ''}")

    return show


def _final(session: NetSession, code: int) -> int:
    m = session.match
    names = session.names
    if session.failure is not None:
        print(f"p2p-spite: {session.failure}", file=sys.stderr, flush=True)
    _say(f"final scores: {names[0]} {m.scores[0]}, {names[1]} {m.scores[1]}")
    if m.winner is not None:
        _say(f"match won by {names[m.winner]} (seat {m.winner})")
    if session.record_path:
        _say(f"record: {session.record_path}")
    return code


async def _drive(
    session: NetSession, bot: str | None, bot_seed: int | None = None, notes: tuple[str, ...] = ()
) -> int:
    from .bots.driver import run_bot

    if bot is not None:
        code = await run_bot(session, bot, seed=bot_seed, on_event=_progress(session))
    else:
        from .ui.play import drive_human  # full screen; the line prompt (lineplay) off a terminal

        code = await drive_human(session, notes=notes)  # closes the session however it ends
    return _final(session, code)


def run_host(args: argparse.Namespace) -> int:
    _check_bot(args.bot)
    from .net.journal import load_saved
    from .net.peer import host_session

    seed: bytes | None = args.seed
    target = args.target
    resume = load_saved(args.resume) if args.resume is not None else None
    if args.code and args.no_code:
        raise UserError("--code and --no-code do not go together", exit_code=2)
    if args.code is not None and not args.code.strip():
        raise UserError("--code is empty (the host prints the code to give)", exit_code=2)
    if resume is not None and not args.code:
        code = None  # a resumed match keeps its setting: its code's key is in the record, or no code
    else:
        code = None if args.no_code else (args.code or new_join_code())

    def listening(host: str, port: int) -> None:
        _say(f"listening on {host}:{port}" if ":" not in host else f"listening on [{host}]:{port}")
        if code is not None:
            _say(f"join code: {code}")
        elif resume is not None:
            _say(
                "join code: the same as before (resumed match)"
                if resume.code_key is not None
                else "no join code (the resumed match had none)"
            )
        if seed is not None:
            _say(f"seed: {seed.hex()}")

    async def main() -> int:
        session = await host_session(
            bind=args.bind,
            port=args.port,
            name=args.name,
            seed=seed,
            target=target or 50,
            games=args.games,
            record_path=args.record,
            on_listening=listening,
            code=code,
            resume=resume,
            grace=args.grace,
            heartbeat=max(args.heartbeat, 0.05),
            dead_after=5 * max(args.heartbeat, 0.05),
        )
        _say(f"{session.peer_name} joined; seed {session.seed.hex()}")
        return await _drive(session, args.bot, args.bot_seed)

    return run_main(main())


def run_join(args: argparse.Namespace, host: str, port: int) -> int:
    _check_bot(args.bot)
    from .net.journal import load_saved
    from .net.peer import join_session

    if args.code and args.no_code:
        raise UserError("--code and --no-code do not go together", exit_code=2)
    if args.code is not None and not args.code.strip():
        raise UserError("--code is empty (the host prints the code to give)", exit_code=2)
    resume = load_saved(args.resume) if args.resume is not None else None

    async def main() -> int:
        where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        if resume is not None:
            _say(f"reconnecting to {where} to resume the match (for up to {args.grace:.0f} s)...")
        else:
            _say(f"connecting to {where}...")
        session = await join_session(
            host=host,
            port=port,
            name=args.name,
            record_path=args.record,
            code=args.code,
            resume=resume,
            grace=args.grace,
            heartbeat=max(args.heartbeat, 0.05),
            dead_after=5 * max(args.heartbeat, 0.05),
        )
        who = session.peer_name
        if session.seed_from_host:
            note = f"joined {who}'s match; the host chose the seed: {session.seed.hex()}"
        elif session.seed_from_host is False:
            note = f"joined {who}'s match; seed drawn by both: {session.seed.hex()}"
        else:  # a record from before the seed's origin was kept
            note = f"joined {who}'s match; seed {session.seed.hex()}"
        _say(note)
        return await _drive(session, args.bot, args.bot_seed, notes=(note,))

    return run_main(main())


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

    The computer is a real peer: it joins over 127.0.0.1 with the same protocol a
    remote player uses, in this event loop.  ``driver`` plays the person's seat
    (default: the interface, :func:`p2p_spite.ui.play.drive_human`).
    """
    from .bots.driver import run_bot
    from .net import host_session, join_session
    from .ui.play import drive_human

    _check_bot(level)
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
        either: list[asyncio.Future[Any]] = [port, host_task]  # listening, or failing to
        await asyncio.wait(either, timeout=10, return_when=asyncio.FIRST_COMPLETED)
        if not port.done():
            if host_task.done():
                host_task.result()  # raises why it could not listen
            raise UserError("could not listen on 127.0.0.1")
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
            # The computer leaves after the person: give it a moment, then stop it
            # (wait_for cancels it on time-out; our own cancellation goes on up).
            with contextlib.suppress(Exception):
                await asyncio.wait_for(bot_task, 5)
        shutil.rmtree(scratch, ignore_errors=True)


def default_name() -> str:
    try:
        import getpass

        return getpass.getuser().capitalize() or "You"
    except Exception:
        return "You"


def run_play(level: str, seed: bytes | None, name: str | None, target: int, record: Path | None) -> int:
    """The ``play`` command; like ``host`` and ``join`` it leaves the final
    scores on the terminal once the full screen has closed."""
    name = name or default_name()
    played: list[NetSession] = []

    async def person(session: Session) -> int:
        from .ui.play import drive_human

        if isinstance(session, NetSession):
            played.append(session)
        return await drive_human(session)

    async def main() -> int:
        code, _path = await play_against_computer(
            level=level, seed=seed, name=name, target=target, record_path=record, driver=person
        )
        return code

    code = run_main(main())
    return _final(played[0], code) if played else code
