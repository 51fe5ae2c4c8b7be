"""The ``host`` and ``join`` commands (argument parsing and running), kept out of cli.py."""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..session import ChatReceived, ConnectionChanged, Event, GameEnded, GameStarted
from .peer import DEFAULT_PORT, NetSession

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L


def new_join_code() -> str:
    """A short code to read out loud: 8 characters (~39 bits), as XXXX-XXXX."""
    chars = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{chars[:4]}-{chars[4:]}"


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT``, ``[V6]``, ``[V6]:PORT`` or a bare IPv6 literal."""
    t = text.strip()
    if not t:
        raise UserError("no host given", exit_code=2)
    if t.startswith("["):
        end = t.find("]")
        if end < 0:
            raise UserError(f"bad address {text!r}: missing ']'", exit_code=2)
        host, rest = t[1:end], t[end + 1 :]
        if rest and not rest.startswith(":"):
            raise UserError(f"bad address {text!r}", exit_code=2)
        port_text = rest[1:] if rest else ""
    elif t.count(":") == 1:
        host, port_text = t.split(":")
    else:
        host, port_text = t, ""  # a name, an IPv4 address or a bare IPv6 literal
    if not host:
        raise UserError(f"bad address {text!r}: no host", exit_code=2)
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise UserError(f"bad port {port_text!r} (1..65535)", exit_code=2)
    return host, int(port_text)


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535, not {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= 86400:
        raise argparse.ArgumentTypeError(f"must be 0..86400 seconds, not {text!r}")
    return value


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return int(text)


def add_commands(
    sub: Any, seed_arg: Callable[[str], bytes], levels: str
) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """Add ``host`` and ``join`` to the CLI's subparsers; returns both parsers."""
    h = sub.add_parser(
        "host",
        help="host a match on the network and wait for a peer",
        description="Listen for a peer and play a match with it.  "
        f"Prints 'listening on HOST:PORT' once ready (default port {DEFAULT_PORT}).",
    )
    h.add_argument("--bind", default="", help="address to listen on (default: all interfaces)")
    h.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free)"
    )
    h.add_argument("--name", default="host", help="your name, shown to the peer")
    g = h.add_mutually_exclusive_group()
    g.add_argument("--seed", type=seed_arg, help="play this deal (64 hex digits; the joiner is shown it)")
    g.add_argument("--seed-file", type=Path, help="take the seed (and target) from a record or seed file")
    h.add_argument("--target", type=_positive, help="points that win the match (default 50)")
    h.add_argument("--games", type=_positive, help="stop after this many games")
    h.add_argument("--record", type=Path, help="where to write the record (default: the data directory)")
    h.add_argument("--bot", metavar="LEVEL", help=f"let a computer play this side, headless ({levels})")
    h.add_argument("--code", help="the join code to require (default: a fresh one, printed)")
    h.add_argument("--no-code", action="store_true", help="do not require a join code (trusted networks)")
    h.add_argument(
        "--resume", type=Path, metavar="RECORD", help="continue the unfinished match of this record"
    )
    h.add_argument(
        "--grace", type=_seconds, default=60.0, help="seconds to wait for a lost peer (default 60)"
    )
    h.add_argument("--bot-seed", type=int, help="seed of the --bot's own choices (for reproducible tests)")
    h.add_argument(
        "--heartbeat",
        type=_seconds,
        default=2.0,
        help="seconds between heartbeats; a peer silent for 5 of them is taken as gone (default 2)",
    )

    j = sub.add_parser(
        "join",
        help="join a match hosted on the network",
        description="Connect to a host and play the match it offers.",
    )
    j.add_argument(
        "address", metavar="HOST[:PORT]", help=f"the host (IPv6 as [::1]:PORT; default port {DEFAULT_PORT})"
    )
    j.add_argument("--name", default="joiner", help="your name, shown to the peer")
    j.add_argument("--record", type=Path, help="where to write the record (default: the data directory)")
    j.add_argument("--bot", metavar="LEVEL", help=f"let a computer play this side, headless ({levels})")
    j.add_argument("--code", help="the join code the host printed")
    j.add_argument("--no-code", action="store_true", help="the host requires no code")
    j.add_argument(
        "--resume", type=Path, metavar="RECORD", help="continue the unfinished match of this record"
    )
    j.add_argument("--grace", type=_seconds, default=60.0, help="seconds to keep reconnecting (default 60)")
    j.add_argument("--bot-seed", type=int, help="seed of the --bot's own choices (for reproducible tests)")
    j.add_argument(
        "--heartbeat",
        type=_seconds,
        default=2.0,
        help="seconds between heartbeats; a peer silent for 5 of them is taken as gone (default 2)",
    )
    return h, j


def _say(text: str) -> None:
    print(text, flush=True)


def _check_bot(level: str | None) -> None:
    if level is None:
        return
    from ..bots import LEVELS

    if level not in LEVELS:
        raise UserError(f"unknown bot level {level!r} (choose from {', '.join(LEVELS)})", exit_code=2)


def _progress(session: NetSession) -> Callable[[Event], None]:
    names = session.names

    def show(ev: Event) -> None:
        if isinstance(ev, GameStarted):
            _say(f"game {ev.game} started")
        elif isinstance(ev, GameEnded):
            r = ev.result
            who = (
                "a draw" if r.winner is None else f"won by {names[r.winner]} ({r.reason}, {r.points} points)"
            )
            _say(f"game {ev.game}: {who}; scores {ev.scores[0]}-{ev.scores[1]}")
        elif isinstance(ev, ChatReceived):
            _say(f"<{names[ev.seat]}> {ev.text}")
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


async def _drive(session: NetSession, bot: str | None, bot_seed: int | None = None) -> int:
    from .headless import run_bot

    if bot is not None:
        code = await run_bot(session, bot, seed=bot_seed, on_event=_progress(session))
    else:
        from ..ui.play import drive_human  # full screen; the line prompt (lineplay) off a terminal

        code = await drive_human(session)
        await session.close("quit")
    return _final(session, code)


def run_host(args: argparse.Namespace) -> int:
    _check_bot(args.bot)
    from .. import record
    from .journal import load_saved
    from .peer import host_session

    seed: bytes | None = args.seed
    target = args.target
    if args.seed_file is not None:
        rec = record.load(args.seed_file)
        seed = rec.seed
        if target is None:
            target = rec.target
    resume = load_saved(args.resume) if args.resume is not None else None
    if args.code and args.no_code:
        raise UserError("--code and --no-code do not go together", exit_code=2)
    if resume is not None and resume.code_key is not None and not args.code:
        code = None  # the resumed match keeps its join code (its key is in the record)
    else:
        code = None if args.no_code else (args.code or new_join_code())

    def listening(host: str, port: int) -> None:
        _say(f"listening on {host}:{port}" if ":" not in host else f"listening on [{host}]:{port}")
        if code is not None:
            _say(f"join code: {code}")
        elif resume is not None and resume.code_key is not None:
            _say("join code: the same as before (resumed match)")
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

    return asyncio.run(main())


def run_join(args: argparse.Namespace) -> int:
    _check_bot(args.bot)
    from .journal import load_saved
    from .peer import join_session

    host, port = parse_address(args.address)
    if args.code and args.no_code:
        raise UserError("--code and --no-code do not go together", exit_code=2)
    resume = load_saved(args.resume) if args.resume is not None else None

    async def main() -> int:
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
            _say(f"joined {who}'s match; the host chose the seed: {session.seed.hex()}")
        else:
            _say(f"joined {who}'s match; seed drawn by both: {session.seed.hex()}")
        return await _drive(session, args.bot, args.bot_seed)

    return asyncio.run(main())
