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
import os
import shlex
import shutil
import signal
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..bots import DEFAULT_LEVEL, LEVELS
from ..contracts.errors import UserError
from ..contracts.i18n import _, ngettext, pgettext
from ..contracts.plaintext import clean_name, shown_path
from ..contracts.session import (
    Session,
)
from ..engine import DEFAULT_TARGET, Match
from ..net import DEFAULT_PORT, new_join_code
from ..net.discovery import Announcement, Announcer, HeardHost
from ..net.localaddr import dial_form, lan_addresses
from ..net.matches import Matches
from ..net.session import NetSession
from ..storage.paths import default_record_path
from ..storage.resume import Saved, play_action
from .drive import check_bot, drive, final, joined_note, say, show_watch, warn
from .runner import run_main


def join_lines(bind: str, port: int, code: str | None, resumed: bool, private: bool = False) -> list[str]:
    """What the other player types, one line per address of this machine they can dial
    (``private``: with ``--private``, so that their side insists on the private deck)."""
    if resumed:
        tail = " --resume THEIR-RECORD"
    elif code is None:
        tail = " --no-code"
    else:
        tail = f" --code {code}"
    if private:
        tail += " --private"
    addresses = lan_addresses(bind) or [_("THIS-MACHINE'S-ADDRESS")]
    commands = [f"p2p-spite join {dial_form(a, port, DEFAULT_PORT)}{tail}" for a in addresses]
    if len(commands) == 1:
        return [_("the other player types: {command}").format(command=commands[0])]
    return [_("the other player types:")] + [f"  {c}" for c in commands]


def run_host(args: argparse.Namespace) -> int:
    check_bot(args.bot)
    from ..net.connect import host_session
    from ..net.settings import HostSettings
    from ..storage.journal import journal_path, journal_port
    from ..storage.resume import load_saved

    seed: bytes | None = args.seed
    target = args.target
    resume = load_saved(args.resume) if args.resume is not None else None
    if args.code and args.no_code:
        raise UserError(_("--code and --no-code do not go together"), exit_code=2)
    if args.code is not None and not args.code.strip():
        raise UserError(_("--code is empty (the host prints the code to give)"), exit_code=2)
    if resume is not None and not args.code:
        code = None  # a resumed match keeps its setting: its code's key is in the record, or no code
    else:
        code = None if args.no_code else (args.code or new_join_code())

    port = args.port
    if port is None:  # a resumed match listens where it did: the joiner redials that port
        saved = journal_port(journal_path(args.resume)) if args.resume is not None else None
        port = saved or DEFAULT_PORT
    announcer: list[Announcer | None] = [None]
    announced: list[Announcement] = []
    private = resume.private if resume is not None else args.private  # (a resumed match keeps its deck)

    bound = [port]  # (the port it listens on: port 0 picks one)

    def listening(host: str, port: int) -> None:
        bound[0] = port
        where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
        say(_("listening on {address}").format(address=where))
        if code is not None:
            say(_("join code: {code}").format(code=code))
        elif resume is not None:
            say(
                _("join code: the same as before (resumed match)")
                if resume.code_key is not None
                else _("no join code (the resumed match had none)")
            )
        for line in join_lines(args.bind, port, code, resume is not None, private):
            say(line)
        if seed is not None:
            say(_("seed: {seed}").format(seed=seed.hex()))
        if not args.no_announce:
            needed = code is not None or (resume is not None and resume.code_key is not None)
            ann = Announcement(args.name, port, needed, private)
            announced.append(ann)
            announcer[0] = _announce(args.bind, ann, args.discovery_port)

    async def main() -> int:
        try:
            session = await host_session(
                HostSettings(
                    bind=args.bind,
                    port=port,
                    name=args.name,
                    seed=seed,
                    target=target or DEFAULT_TARGET,
                    games=args.games,
                    record_path=args.record,
                    code=code,
                    resume=resume,
                    grace=args.grace,
                    heartbeat=max(args.heartbeat, 0.05),
                    dead_after=5 * max(args.heartbeat, 0.05),
                    private=args.private,
                    watchers=args.watchers,
                ),
                on_listening=listening,
                on_warning=warn,
            )
        except BaseException:
            if announcer[0] is not None:
                announcer[0].stop()  # we gave up: nobody to find
            raise
        if announcer[0] is not None:
            if args.watchers:  # the seat is taken: announced as playing, for watchers only
                announcer[0].say(replace(announced[0], playing=True))
            else:
                announcer[0].stop()
        if session.private:
            text = _("{name} joined; seed {seed}; private deck")
        else:
            text = _("{name} joined; seed {seed}")
        say(text.format(name=session.peer_name, seed=session.seed.hex()))
        try:
            return await drive(
                session,
                args.bot,
                args.bot_seed,
                takebacks=args.takebacks,
                matches=args.matches,
                resumer=lambda: _host_again(args.bind, bound[0]),
            )
        finally:
            if announcer[0] is not None:
                announcer[0].stop()

    return run_main(main())


def _host_again(bind: str, port: int) -> str:
    """The host's command line to listen again as it did (before `` --resume RECORD``)."""
    command = "p2p-spite host"
    if bind:
        command += f" --bind {shlex.quote(bind)}"
    return command + f" --port {port}"


def _announce(bind: str, ann: Announcement, discovery: int | None) -> Announcer | None:
    """Start announcing this host on the LAN (or on loopback only, for a loopback bind)."""
    from ..net.discovery import DEFAULT_DISCOVERY_PORT, announce_target, discovery_port

    target = announce_target(bind)
    if target is None:
        say(_("not announced on the local network (announcements are IPv4 only): give your address"))
        return None
    source, destination = target
    udp = discovery or discovery_port()
    announcer = Announcer(ann, source, destination, udp)
    try:
        announcer.start()
    except OSError as e:
        text = _("not announced on the local network: {why}").format(why=e.strerror or e)
        print(f"p2p-spite: {text}", file=sys.stderr, flush=True)
        return None
    # a joiner listens on the default discovery port unless told otherwise: say how
    finder = "p2p-spite join" if udp == DEFAULT_DISCOVERY_PORT else f"p2p-spite join --discovery-port {udp}"
    if destination.startswith("127."):
        text = _(
            "announced on this machine only: '{command}' with no address finds this host (--no-announce: not)"
        )
    else:
        text = _(
            "announced on the local network: '{command}' with no address finds this host (--no-announce: not)"
        )
    say(text.format(command=finder))
    return announcer


def _look(seconds: float, discovery: int | None) -> list[HeardHost]:
    from ..net.discovery import discovery_port, listen

    port = discovery or discovery_port()
    try:
        return asyncio.run(listen(seconds, port))
    except OSError as e:
        raise UserError(
            _("cannot listen for hosts on UDP port {port}: {why}").format(port=port, why=e.strerror or e)
        ) from None


def _host_lines(found: list[HeardHost], numbered: bool = False) -> list[str]:
    """``NAME  ADDR:PORT  code needed|no code[  private deck][  playing]``, the columns
    aligned (``playing``: its match is under way, to watch, not to join)."""
    names = [clean_name(h.name) or "?" for h in found]
    places = [f"{h.address}:{h.port}" for h in found]
    tags = ["  ".join([_("private deck")] * h.private + [_("playing")] * h.playing) for h in found]
    wn, wp = max(map(len, names)), max(map(len, places))
    wc = max(len(_code_words(h.code_needed)) for h in found) if any(tags) else 0
    lines = []
    for i, (n, p, h, tag) in enumerate(zip(names, places, found, tags, strict=True)):
        line = f"{f'{i + 1}) ' if numbered else ''}{n:<{wn}}  {p:<{wp}}  {_code_words(h.code_needed):<{wc}}"
        lines.append(f"{line}  {tag}" if tag else line.rstrip())
    return lines


def _code_words(needed: bool) -> str:
    return _("code needed") if needed else _("no code")


def run_hosts(seconds: float, discovery: int | None) -> int:
    """The ``hosts`` command: exit 0 with one line per host heard, 1 when none was."""
    found = _look(seconds, discovery)
    if not found:
        say(_("no p2p-spite host heard on the local network in {seconds} s").format(seconds=f"{seconds:g}"))
        return 1
    for line in _host_lines(found):
        say(line)
    return 0


def _ask(question: str) -> str:
    """A line typed at the terminal.  Ctrl-C stops (KeyboardInterrupt: exit 130): asyncio's
    own SIGINT handler, which only cancels the main task, would leave ``input`` waiting."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return input(question)
    except EOFError:
        raise UserError(_("no answer (end of input)")) from None
    except KeyboardInterrupt:
        print(file=sys.stderr, flush=True)  # (the line ends after the ^C the terminal shows)
        raise
    finally:
        signal.signal(signal.SIGINT, previous)


def choose_host(args: argparse.Namespace) -> tuple[str, int]:
    """``join`` or ``watch`` with no address: the host heard on the LAN (asking which one
    when several, and the join code when it needs one and none was given).  A host
    whose match is under way is one to watch, not to join."""
    ask = args.bot is None and sys.stdin.isatty()
    command = args.command
    say(_("looking for hosts on the local network ({seconds} s)...").format(seconds=f"{args.wait:g}"))
    found = _look(args.wait, args.discovery_port)
    playing = [h for h in found if h.playing]
    if command == "join":
        found = [h for h in found if not h.playing]
    if not found and playing:
        name = clean_name(playing[0].name) or "the host"
        more = f" (and {len(playing) - 1} more)" if len(playing) > 1 else ""
        raise UserError(f"{name}{more} is playing a match already: p2p-spite watch to watch it")
    if not found:
        text = _(
            "no p2p-spite host found on the local network in {seconds} s: "
            "give its address (p2p-spite {command} HOST)"
        )
        raise UserError(text.format(seconds=f"{args.wait:g}", command=command))
    pick = found[0]
    if len(found) > 1:
        for line in _host_lines(found, numbered=ask):
            say(line)
        if not ask:
            text = ngettext(
                "{n} host found: choose one, e.g. p2p-spite {command} ADDRESS:PORT",
                "{n} hosts found: choose one, e.g. p2p-spite {command} ADDRESS:PORT",
                len(found),
            )
            raise UserError(text.format(n=len(found), command=command))
        while True:
            answer = _ask(_("which one? (1-{n}) ").format(n=len(found))).strip()
            if answer.isdigit() and 1 <= int(answer) <= len(found):
                pick = found[int(answer) - 1]
                break
    name = clean_name(pick.name) or _("the host")
    if pick.private:  # as the host's own join line says: insist on it (an impostor is refused)
        args.private = True
    where = f"{pick.address}:{pick.port}"
    if pick.private:
        say(_("found {name} at {address}: a private deck").format(name=name, address=where))
    else:
        say(_("found {name} at {address}").format(name=name, address=where))
    if pick.code_needed and not args.code and not args.no_code and args.resume is None:
        if not ask:
            text = _("{name} needs a join code: add --code CODE (the host printed it)")
            raise UserError(text.format(name=name), exit_code=2)
        args.code = _ask(_("join code (the host printed it): ")).strip() or None
        if args.code is None:
            raise UserError(_("no join code given"))
    return pick.address, pick.port


def _code_again(wrong: bool) -> str:
    """A person at a terminal whose join code the host wanted or refused: asked for it."""
    if wrong:
        say(_("that join code is wrong"))
    code = _ask(_("join code (the host printed it; Enter to stop): ")).strip()
    if not code:
        raise UserError(_("no join code given"))
    return code


def run_join(args: argparse.Namespace, host: str, port: int) -> int:
    check_bot(args.bot)
    from ..net.connect import join_session
    from ..net.gate import CodeRefused
    from ..net.settings import JoinSettings
    from ..storage.resume import load_saved

    if args.code and args.no_code:
        raise UserError(_("--code and --no-code do not go together"), exit_code=2)
    if args.code is not None and not args.code.strip():
        raise UserError(_("--code is empty (the host prints the code to give)"), exit_code=2)
    resume = load_saved(args.resume) if args.resume is not None else None

    async def main() -> int:
        where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        if resume is not None:
            text = _("reconnecting to {address} to resume the match (for up to {seconds} s)...")
            say(text.format(address=where, seconds=f"{args.grace:.0f}"))
        else:
            say(_("connecting to {address}...").format(address=where))
        # a person at a terminal is asked for the join code (again, if it was wrong)
        ask = args.bot is None and resume is None and not args.no_code and sys.stdin.isatty()
        while True:
            try:
                session = await join_session(
                    JoinSettings(
                        host=host,
                        port=port,
                        name=args.name,
                        record_path=args.record,
                        code=args.code,
                        resume=resume,
                        grace=args.grace,
                        heartbeat=max(args.heartbeat, 0.05),
                        dead_after=5 * max(args.heartbeat, 0.05),
                        private=args.private,
                    )
                )
                break
            except CodeRefused as e:
                if not ask:
                    raise
                args.code = _code_again(e.wrong)
        note = joined_note(session, resume is not None)
        say(note)
        return await drive(
            session,
            args.bot,
            args.bot_seed,
            notes=(note,),
            takebacks=args.takebacks,
            matches=args.matches,
            resumer=lambda: f"p2p-spite join {dial_form(host, port, DEFAULT_PORT)}",
        )

    return run_main(main())


def run_watch(args: argparse.Namespace, host: str, port: int) -> int:
    """The ``watch`` command: full screen on a terminal, else one line per event."""
    from ..net.watch import watch_match
    from ..ui.play import fullscreen_ok

    if args.code is not None and not args.code.strip():
        raise UserError(_("--code is empty (the host prints the code to give)"), exit_code=2)

    async def main() -> int:
        from ..net.gate import CodeRefused

        where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        full = fullscreen_ok()
        if not full:
            say(_("connecting to {address} to watch...").format(address=where))
        ask = not args.no_code and sys.stdin.isatty()  # (asked again when wrong, as join does)
        while True:
            try:
                client = await watch_match(host=host, port=port, code=args.code)
                break
            except CodeRefused as e:
                if not ask:
                    raise
                args.code = _code_again(e.wrong)
        line = _("watching the match at {address}: each move is shown as it is played").format(address=where)
        return await show_watch(client, line, full)

    return run_main(main())


def computer_name() -> str:
    """The computer's name in ``play``, in the interface's language (it is the
    peer's name on the wire and in the record, like a person's)."""
    return pgettext("player name", "Computer")


# ``play --private``: the computer's own process runs this (see computer_main)
_COMPUTER_MAIN = "import sys; from p2p_spite.commands.lan import computer_main; sys.exit(computer_main())"


async def play_against_computer(
    *,
    level: str = DEFAULT_LEVEL,
    seed: bytes | None = None,
    name: str = "you",
    target: int = DEFAULT_TARGET,
    record_path: Path | None = None,
    pace: float = 0.45,
    driver: Callable[[Session], Awaitable[int]] | None = None,
    private: bool = False,
    resume: Saved | None = None,
) -> tuple[int, str | None]:
    """Host on loopback, let a bot of ``level`` join, play; returns (exit code, record path).

    The computer is a real peer: it joins over 127.0.0.1 with the same protocol a
    remote player uses, in this event loop.  ``driver`` plays the person's seat
    (default: the interface, :func:`p2p_spite.ui.play.drive_human`).

    ``private``: a private deck (docs/fairness.md), and the computer runs in a
    process of its own instead (:func:`computer_main`), holding its own keys and
    none of ours, so that the deck proves it saw none of the person's hidden cards.

    ``resume``: go on with this saved match against the computer (not a private one:
    its computer's keys left with its process); the computer takes it up from the same
    record, with an action key of its own.
    """
    from ..bots.driver import run_bot
    from ..net import HostSettings, JoinSettings, host_session, join_session
    from ..ui.play import drive_human

    check_bot(level)
    loop = asyncio.get_running_loop()
    port: asyncio.Future[int] = loop.create_future()

    def listening(_host: str, p: int) -> None:
        if not port.done():
            port.set_result(p)

    join_code = new_join_code()  # even on loopback: another local user must not take the seat
    host_task = asyncio.create_task(
        host_session(
            HostSettings(
                bind="127.0.0.1",
                port=0,
                name=name,
                seed=seed,
                target=target,
                # A record of its own kind: `history` offers `play --resume` for it, not `host`.
                record_path=record_path if record_path is not None or resume else default_record_path("play"),
                code=join_code,
                private=private,
                watchers=0,  # (nobody else has the code: a match against the computer is not watched)
                resume=resume,
                notes={COMPUTER_KEY: level},
            ),
            on_listening=listening,
            on_warning=None,
        )
    )
    scratch = Path(tempfile.mkdtemp(prefix="p2p-spite-bot-"))  # the computer's own copy of the record
    bot_task: asyncio.Task[int] | None = None
    computer: asyncio.subprocess.Process | None = None
    began = False  # the match began: the computer is told goodbye, and leaves by itself
    try:
        either: list[asyncio.Future[Any]] = [port, host_task]  # listening, or failing to
        await asyncio.wait(either, timeout=10, return_when=asyncio.FIRST_COMPLETED)
        if not port.done():
            if host_task.done():
                host_task.result()  # raises why it could not listen
            raise UserError(_("could not listen on {address}").format(address="127.0.0.1"))
        if private:
            computer = await _start_computer(port.result(), join_code, level, scratch)
            session = await _joined_by(host_task, computer, scratch, PRIVATE_SETUP_TIMEOUT)
            began = True
        else:
            joiner = await join_session(
                JoinSettings(
                    host="127.0.0.1",
                    port=port.result(),
                    name=computer_name(),
                    record_path=scratch / "bot.json",
                    code=join_code,
                    resume=None if resume is None else computer_side(resume),
                )
            )
            bot_task = asyncio.create_task(run_bot(Matches(joiner), level, matches=None))  # (always again)
            session = await asyncio.wait_for(host_task, 15)
            session.takeback.peer_answers_at_once = True
        played = Matches(session)
        code = await (driver(played) if driver is not None else drive_human(played, pace=pace))
        return code, played.current.record_path
    finally:
        if not host_task.done():
            host_task.cancel()
        if bot_task is not None and not bot_task.done():
            # The computer leaves after the person: give it a moment, then stop it
            # (wait_for cancels it on time-out; our own cancellation goes on up).
            with contextlib.suppress(Exception):
                await asyncio.wait_for(bot_task, 5)
        if computer is not None:
            await _end_computer(computer, patience=5.0 if began else 0.0)
        shutil.rmtree(scratch, ignore_errors=True)


COMPUTER_KEY = "computer"  # a ``play`` record's key: the computer's level (seat 1)


def computer_side(saved: Saved) -> Saved:
    """The computer's copy of a saved match against it, for ``play --resume``: the same
    actions from the person's record, but none of the person's secrets (its action key,
    resignation requests) and no tags (both sides resume at the same action)."""
    return replace(saved, path=None, key=None, tags={}, requests=set())


def saved_level(saved: Saved) -> str | None:
    """The computer's level a ``play`` record names (None: an older record does not)."""
    level = saved.notes.get(COMPUTER_KEY)
    return level if isinstance(level, str) and level in LEVELS else None


PRIVATE_SETUP_TIMEOUT = 60.0  # seconds for the computer's process to start, join and deal
COMPUTER_GRACE = 5.0  # seconds the computer redials a lost connection (the person's side is gone)


async def _start_computer(port: int, code: str, level: str, scratch: Path) -> asyncio.subprocess.Process:
    """The computer of ``play --private``: this program again, in a session of its own
    (so the terminal's Ctrl-C and hang-up reach only us), told where to join on its stdin
    (the join code never shows in a process list); its errors go to a log in ``scratch``."""
    import json
    import os
    import subprocess

    env = dict(os.environ)
    here = str(Path(__file__).resolve().parents[2])  # this package, even run from a source tree
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    try:
        with open(scratch / "computer.log", "wb") as log:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", _COMPUTER_MAIN,
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log,
                start_new_session=True, env=env,
            )  # fmt: skip
    except OSError as e:
        raise UserError(_("cannot start the computer's program: {why}").format(why=e.strerror or e)) from None
    assert proc.stdin is not None
    record = str(scratch / "bot.json")
    spec = {"port": port, "code": code, "level": level, "record": record, "name": computer_name()}
    proc.stdin.write(json.dumps(spec).encode() + b"\n")
    with contextlib.suppress(ConnectionError):  # (it died at once: _joined_by says so)
        await proc.stdin.drain()
    proc.stdin.close()
    return proc


async def _joined_by(
    host_task: asyncio.Task[NetSession], computer: asyncio.subprocess.Process, scratch: Path, timeout: float
) -> NetSession:
    """The host's session once the computer's process has joined (and the first deal is
    under way); a UserError if that process stops first or does not join in time."""
    gone = asyncio.create_task(computer.wait())
    try:
        done, _pending = await asyncio.wait(
            {host_task, gone}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        gone.cancel()
    if host_task in done:
        return host_task.result()
    if gone in done:
        try:
            lines = (scratch / "computer.log").read_text(errors="replace").strip().splitlines()
        except OSError:
            lines = []
        if lines:
            text = _("the computer's program stopped before the match began: {why}")
            raise UserError(text.format(why=lines[-1].removeprefix("p2p-spite: ")))
        text = _("the computer's program stopped before the match began (exit code {code})")
        raise UserError(text.format(code=computer.returncode))
    raise UserError(_("the computer did not join within {seconds} s").format(seconds=f"{timeout:.0f}"))


async def _end_computer(computer: asyncio.subprocess.Process, patience: float) -> None:
    """Let the computer's process leave after the person (it is told goodbye); stop it
    if it has not within ``patience`` seconds, or if we are stopped meanwhile."""
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(computer.wait(), patience)
    finally:
        if computer.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                computer.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(computer.wait(), 5)


def computer_main() -> int:
    """The computer's side of ``play --private``, in its own process: one JSON line on
    stdin gives the loopback port, the join code, the level and where to keep its
    record; it joins, plays headless and exits (0: the match ended, 1: it did not)."""
    import json

    from ..contracts.errors import SpiteError, set_wording
    from ..ui.networds import news_words

    set_wording(news_words)  # (its own program: cli.main did not run here)
    try:
        spec = json.loads(sys.stdin.readline())
        port, code, level = int(spec["port"]), str(spec["code"]), str(spec["level"])
        path, name = Path(str(spec["record"])), clean_name(str(spec["name"]))
    except (ValueError, KeyError, TypeError):
        print("p2p-spite: " + _("the computer was not told where to join"), file=sys.stderr)
        return 2

    async def main() -> int:
        from ..bots.driver import run_bot
        from ..net.connect import join_session
        from ..net.settings import JoinSettings

        session = await join_session(
            JoinSettings(
                host="127.0.0.1",
                port=port,
                name=name,
                record_path=path,
                code=code,
                private=True,
                grace=COMPUTER_GRACE,
            )
        )
        return await run_bot(Matches(session), level, matches=None)  # (always again: the person decides)

    try:
        return run_main(main())
    except SpiteError as e:
        print(f"p2p-spite: {e}", file=sys.stderr, flush=True)
        return e.exit_code


def default_name() -> str:
    """The player's name in ``play`` without ``--name``: the login name from the
    environment (as getpass reads it), capitalized; ``Player`` (in the interface's
    language) when there is none or it is ``root`` (a bare container: not a person's)."""
    for var in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        login = clean_name(os.environ.get(var, "")).strip()
        if login:
            if login.lower() != "root":
                return login.capitalize()
            break
    return pgettext("player name", "Player")


def run_play(
    level: str | None,
    seed: bytes | None,
    name: str | None,
    target: int,
    record: Path | None,
    private: bool = False,
    resume: Saved | None = None,
) -> int:
    """The ``play`` command; like ``host`` and ``join`` it leaves the final
    scores on the terminal once the full screen has closed.  ``private``: a
    private deck against the computer in a process of its own.  ``resume``: go on
    with a saved match against the computer (``level`` None: the level it was played at)."""
    check_bot(level)
    if resume is not None:
        level = level or saved_level(resume)
        name = resume.players[0]
        target = resume.target
        say(resume_note(resume))
    level = level or DEFAULT_LEVEL
    name = name or default_name()
    if private:  # its first deal takes a second or two: say what is going on meanwhile
        say(_("dealing a private deck with the computer, a program of its own on 127.0.0.1..."))
    played: list[Matches] = []

    async def person(session: Session) -> int:
        from ..ui.play import drive_human

        if isinstance(session, Matches):
            played.append(session)
        return await drive_human(session)

    async def main() -> int:
        code, _path = await play_against_computer(
            level=level,
            seed=seed,
            name=name,
            target=target,
            record_path=record,
            driver=person,
            private=private,
            resume=resume,
        )
        return code

    code = run_main(main())
    from ..ui.play import fullscreen_ok

    return final(played[0], code, told=not fullscreen_ok()) if played else code


def resume_note(saved: Saved) -> str:
    """What ``play --resume`` says before it goes on: the match, the game and the score
    (a UserError if the match is over, or its record and journal do not replay)."""
    from ..contracts.news import SavedMatchUnusable
    from ..engine import RulesError

    where = shown_path(saved.path) if saved.path is not None else ""
    match = Match(saved.seed, saved.target, saved.players)
    try:
        for a in saved.actions:
            play_action(match, a)
    except RulesError as e:
        raise UserError(SavedMatchUnusable(where, detail=str(e))) from None
    if match.over:
        sc = match.scores
        raise UserError(SavedMatchUnusable(where, over=True, scores=(sc[0], sc[1])))
    if match.game.result is not None:
        match.next_game()
    text = _("going on with the match against the computer: game {game}, scores {a}-{b}")
    return text.format(game=match.game_number, a=match.scores[0], b=match.scores[1])
