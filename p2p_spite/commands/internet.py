"""``host --internet`` and ``join CODE``: a match with a friend anywhere, through a code.

The meeting (tunnel/rendezvous.py) gives both sides a key from the code; the paths
(tunnel/paths.py) give a sealed connection, direct or through the transit relay; the
game protocol then runs inside it unchanged, through the hooks of
:func:`~p2p_spite.net.connect.host_session` (``serve``) and
:func:`~p2p_spite.net.connect.join_session` (``connect``).  A lost connection comes back
the same ways, under the same key.  Watchers (``--watchers N``) each type a code of
their own (``p2p-spite watch CODE``, :func:`run_internet_watch`): a meeting and a sealed
path of their own, then the watch protocol inside it, as on the LAN.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ..contracts.i18n import _
from ..contracts.news import Connected, News, WatcherCode, WatcherNotIn
from ..net.link import Link
from ..tunnel.failures import NoPath, RelayRefused, RelayUnreachable, RendezvousError
from ..tunnel.hints import DirectHint, Hint, RelayHint, direct_hints
from ..tunnel.mailbox import Code, parse_code
from ..tunnel.paths import PATH_TIMEOUT, Opened, SealedTransport, TunnelServer, establish
from ..tunnel.relay import DEFAULT_PORT as RELAY_PORT
from ..tunnel.relay import new_side, parse_address
from ..tunnel.rendezvous import WATCH_APPID, Meeting, host_meeting, join_meeting
from .drive import check_bot, drive, joined_note, say, show_watch, warn
from .runner import run_main

if TYPE_CHECKING:
    from ..net.connect import WatchDoors
    from ..net.watch import WatchClient
    from ..storage.resume import Saved

DEFAULT_MAILBOX: Final = "ws://relay.magic-wormhole.io:4000/v1"  # magic-wormhole's public one
DEFAULT_RELAY: Final = f"transit.magic-wormhole.io:{RELAY_PORT}"
MAILBOX_ENV: Final = "P2P_SPITE_MAILBOX"
RELAY_ENV: Final = "P2P_SPITE_RELAY"
HOST_PATH_TIMEOUT: Final = 2 * PATH_TIMEOUT  # seconds the host waits, after the meeting, for a path
WATCHER_TYPING_WAIT: Final = 6 * 3600.0  # seconds a watcher's code waits to be typed (then a new one)
WATCHER_FAILURES: Final = 5  # watchers' meetings or paths that may fail before no more codes are offered
WATCHER_RETRY: Final = 2.0  # seconds between a failed watcher's meeting and the next code


@dataclass(frozen=True, slots=True)
class Servers:
    """The mailbox server (a ws:// or wss:// address) and the transit relay."""

    mailbox: str
    relay: tuple[str, int]
    relay_only: bool


def servers_of(args: argparse.Namespace) -> Servers:
    """``--mailbox``, ``--relay`` (then the environment, then the public servers)."""
    from ..contracts.errors import UserError

    mailbox = args.mailbox or os.environ.get(MAILBOX_ENV) or DEFAULT_MAILBOX
    relay_text = args.relay or os.environ.get(RELAY_ENV) or DEFAULT_RELAY
    try:
        relay = parse_address(relay_text)
    except ValueError:
        raise UserError(_("not a relay address: {address}").format(address=relay_text), exit_code=2) from None
    return Servers(mailbox, relay, bool(args.relay_only))


_CODE_LIKE = re.compile(r"\s*\d+[-\s]+[A-Za-z]+[-\s]+[A-Za-z]+\s*")


def _lan_only(args: argparse.Namespace, names: tuple[str, ...]) -> None:
    """A LAN option given to internet play: a usage error (the code is the key)."""
    from ..contracts.errors import UserError

    given = [f"--{n.replace('_', '-')}" for n in names if getattr(args, n, None) not in (None, False, "")]
    if given:
        text = _("{options}: not for internet play (the code is all the two players need)")
        raise UserError(text.format(options=", ".join(given)), exit_code=2)


def is_code(text: str | None) -> Code | None:
    """``text`` as a code (``join CODE`` is internet play), else None (an address).  What
    looks like a code (a number and two words) but is not one is NotACode."""
    if text is None or not _CODE_LIKE.fullmatch(text):
        return None
    return parse_code(text)


def _told(news: News) -> str:
    from ..ui.networds import news_words

    return news_words(news)


def _shared(args: argparse.Namespace, resume: Saved | None) -> dict[str, Any]:
    """The settings both sides take from their options."""
    return {
        "name": args.name,
        "record_path": args.record,
        "resume": resume,
        "grace": args.grace,
        "heartbeat": max(args.heartbeat, 0.05),
        "dead_after": 5 * max(args.heartbeat, 0.05),
        "private": args.private,
    }


def _route(connected: Connected) -> str:
    from ..ui.networds import route_words

    return route_words(connected)


def _listener() -> socket.socket:
    """A listening socket on every interface, on a free port (dual stack if it can)."""
    if socket.has_dualstack_ipv6():
        return socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True, backlog=16)
    return socket.create_server(("0.0.0.0", 0), backlog=16)


async def _first_path(server: TunnelServer, session: asyncio.Future[Any], relay_only: bool) -> Connected:
    """How the joiner first came (or the error that ends the wait for it)."""
    waits: set[asyncio.Future[Any]] = {session, server.first}
    if relay_only:
        waits.add(server.relay_failed)
    done, _pending = await asyncio.wait(waits, timeout=HOST_PATH_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
    if server.first in done:
        return server.first.result()
    if session in done:
        session.result()  # its error
    if server.relay_failed in done:
        raise server.relay_failed.result()
    raise NoPath(seconds=HOST_PATH_TIMEOUT)


def run_internet_host(args: argparse.Namespace) -> int:
    """``host --internet``: the code printed, the match played through the tunnel (and,
    with ``--watchers N``, a code for each watcher: :class:`_WatcherCodes`)."""
    check_bot(args.bot)
    _lan_only(args, ("code", "no_code", "port", "bind"))
    from ..engine import DEFAULT_TARGET
    from ..net.connect import host_session
    from ..net.settings import HostSettings
    from ..storage.resume import load_saved

    servers = servers_of(args)
    resume = load_saved(args.resume) if args.resume is not None else None

    async def main() -> int:
        loop = asyncio.get_running_loop()
        told = asyncio.Event()  # the player's code is out: the watchers' may follow
        tunnel: asyncio.Future[TunnelServer] = loop.create_future()
        doors: asyncio.Future[WatchDoors] = loop.create_future()
        later: list[Callable[[News], None]] = []  # (how a reconnection came: told in the match)

        def on_code(code: Code) -> None:
            say(_("the other player types: {command}").format(command=f"p2p-spite join {code}"))
            if args.seed is not None:
                say(_("seed: {seed}").format(seed=args.seed.hex()))
            told.set()

        def on_path(news: News) -> None:
            for fn in later:
                fn(news)

        async def serve(factory: Callable[[], asyncio.BaseProtocol]) -> TunnelServer:
            sock = None if servers.relay_only else _listener()
            try:
                meeting = await host_meeting(servers.mailbox, _hints(sock, servers), on_code)
            except BaseException:
                if sock is not None:
                    sock.close()
                raise
            server = TunnelServer(meeting.ke, servers.relay, sock, on_path)
            tunnel.set_result(server)
            return await server.serve(factory)

        settings = HostSettings(
            port=0,
            seed=args.seed,
            target=args.target or DEFAULT_TARGET,
            games=args.games,
            watchers=args.watchers,
            **_shared(args, resume),
        )
        task = asyncio.ensure_future(
            host_session(settings, on_warning=warn, serve=serve, watch_doors=doors.set_result)
        )
        codes = _WatcherCodes(servers, args.watchers, told)
        offering = asyncio.ensure_future(codes.offer(doors)) if args.watchers else None
        try:
            either: set[asyncio.Future[Any]] = {task, tunnel}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if not tunnel.done():
                await task  # (its error: the meeting failed)
            server = tunnel.result()
            try:
                connected = await _first_path(server, task, servers.relay_only)
                line, route = _told(connected), _route(connected)
                say(line)
                session = await task
            except BaseException:
                task.cancel()
                server.close()
                raise
            codes.started = True  # (the watchers' lines from now on: notices in the match)
            later.append(session.notice)
            if session.private:
                text = _("{name} joined; seed {seed}; private deck")
            else:
                text = _("{name} joined; seed {seed}")
            say(text.format(name=session.peer_name, seed=session.seed.hex()))
            return await drive(
                session, args.bot, args.bot_seed, notes=(line,), takebacks=args.takebacks,
                matches=args.matches, route=route, resumer=lambda: "p2p-spite host --internet",
            )  # fmt: skip
        finally:
            task.cancel()
            if offering is not None:
                offering.cancel()
            codes.close()

    return run_main(main())


def _hints(sock: socket.socket | None, servers: Servers) -> list[Hint]:
    """Where the other side may reach us: our direct port's addresses (unless relay only)
    and the relay."""
    hints: list[Hint] = [] if sock is None else list(direct_hints(int(sock.getsockname()[1])))
    hints.append(RelayHint(*servers.relay))
    return hints


class _WatcherCodes:
    """The host's codes for watchers (``most``: how many codes are taken at most): each
    code is a meeting of its own under the watchers' app id (:data:`WATCH_APPID`: a
    player's code is not a watcher's), one guess per code like the players'; once a
    watcher has taken one (its key agreed), the next code is told, and the watcher's
    sealed path is served by a :class:`TunnelServer` of its own, handed to the host's
    door for watchers (``door``: a player's hello there is refused).  A meeting or a
    path that fails is told and another code offered, up to :data:`WATCHER_FAILURES`
    times.  The first code is printed after the player's (``told``); the later lines go
    through the host's door (``tell``: during the match, notices)."""

    def __init__(self, servers: Servers, most: int, told: asyncio.Event) -> None:
        self.servers = servers
        self.most = most
        self.told = told
        self.started = False  # the match is on: lines go to its interface
        self._servers: list[TunnelServer] = []

    def _say(self, doors: WatchDoors, news: News) -> None:
        if self.started:
            doors.tell(news)
        else:
            say(_told(news))

    async def offer(self, doors_future: asyncio.Future[WatchDoors]) -> None:
        doors = await doors_future
        await self.told.wait()
        taken = failures = 0
        while taken < self.most:
            try:
                await self._one(doors, again=taken > 0 or failures > 0)
            except RendezvousError as e:
                failures += 1
                last = failures >= WATCHER_FAILURES
                self._say(doors, WatcherNotIn(e.failure, last=last))
                if last:
                    return
                await asyncio.sleep(WATCHER_RETRY)
                continue
            taken += 1

    async def _one(self, doors: WatchDoors, *, again: bool) -> None:
        """One code: told, typed by a watcher, its path served."""
        servers = self.servers
        sock = None if servers.relay_only else _listener()
        try:
            meeting = await host_meeting(
                servers.mailbox,
                _hints(sock, servers),
                lambda code: self._say(doors, WatcherCode(str(code), again=again)),
                typing_wait=WATCHER_TYPING_WAIT,
                appid=WATCH_APPID,
            )
        except BaseException:
            if sock is not None:
                sock.close()
            raise
        server = TunnelServer(meeting.ke, servers.relay, sock)
        self._servers.append(server)
        await server.serve(doors.door)
        waits: set[asyncio.Future[Any]] = {server.first}
        if servers.relay_only:
            waits.add(server.relay_failed)
        try:
            done, _pending = await asyncio.wait(
                waits, timeout=HOST_PATH_TIMEOUT, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            server.close()  # (the watcher's connection, once taken, lives on: only the ways in close)
        if server.first in done:
            return
        if server.relay_failed in done:
            raise server.relay_failed.result()
        raise NoPath(seconds=HOST_PATH_TIMEOUT)

    def close(self) -> None:
        for server in self._servers:
            server.close()


def run_internet_join(args: argparse.Namespace, code: Code) -> int:
    """``join CODE``: the meeting, the path, the match through the tunnel."""
    check_bot(args.bot)
    _lan_only(args, ("code", "no_code"))
    from ..net.connect import join_session
    from ..net.settings import JoinSettings
    from ..storage.resume import load_saved

    servers = servers_of(args)
    resume = load_saved(args.resume) if args.resume is not None else None

    async def main() -> int:
        meeting = await join_meeting(servers.mailbox, code, [RelayHint(*servers.relay)])
        relay = _relay_of(meeting, servers)
        direct: tuple[DirectHint, ...] = () if servers.relay_only else meeting.direct
        side = new_side()
        first = [await establish(meeting.ke, direct, relay, side=side)]
        first_connected = first[0].connected
        line = _told(first_connected)
        say(line)

        async def connect(factory: Callable[[], Link], _host: str, _port: int, timeout: float) -> Link:
            if first:
                opened: Opened = first.pop()
            else:  # a reconnection: the same ways, the same key, a fresh channel
                try:
                    opened = await establish(meeting.ke, direct, relay, side=side, timeout=max(timeout, 10.0))
                except (NoPath, RelayUnreachable, RelayRefused, RendezvousError) as e:
                    raise ConnectionError(str(e)) from None
            link = factory()
            SealedTransport(opened).attach(link)
            return link

        settings = JoinSettings(host=first[0].address[0], port=first[0].address[1], **_shared(args, resume))
        session = await join_session(settings, connect=connect)
        note = joined_note(session, resume is not None)
        say(note)
        return await drive(
            session,
            args.bot,
            args.bot_seed,
            notes=(line, note),
            takebacks=args.takebacks,
            matches=args.matches,
            route=_route(first_connected),
            resumer=lambda: "p2p-spite join CODE",  # (the code the host's resume prints)
        )

    return run_main(main())


def run_internet_watch(args: argparse.Namespace, code: Code) -> int:
    """``watch CODE``: the watcher's meeting (under :data:`WATCH_APPID`), its sealed path,
    then the watch protocol inside it, shown as ``watch`` shows a match on the LAN."""
    _lan_only(args, ("code", "no_code"))
    from ..net.watch import watch_match

    servers = servers_of(args)

    async def main() -> int:
        meeting = await join_meeting(servers.mailbox, code, [RelayHint(*servers.relay)], appid=WATCH_APPID)
        direct: tuple[DirectHint, ...] = () if servers.relay_only else meeting.direct
        opened = await establish(meeting.ke, direct, _relay_of(meeting, servers), side=new_side())
        line = _told(opened.connected)
        say(line)

        async def dial(factory: Callable[[], WatchClient], _h: str, _p: int, _t: float) -> WatchClient:
            client = factory()
            SealedTransport(opened).attach(client)
            return client

        host, port = opened.address
        client = await watch_match(host=host, port=port, dial=dial)
        return await show_watch(client, _("watching the match: each move is shown as it is played"))

    return run_main(main())


def _relay_of(meeting: Meeting, servers: Servers) -> tuple[str, int]:
    """The relay the host waits at (its hint), else ours."""
    if meeting.relays:
        return meeting.relays[0].host, meeting.relays[0].port
    return servers.relay
