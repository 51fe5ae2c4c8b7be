"""Starting a session: ``host_session`` (listen, let one peer in through the door,
handshake), ``join_session`` (dial, retry, handshake) and loading a match to resume."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..contracts.errors import EXIT_PEER_LEFT, UserError
from ..contracts.news import (
    CannotListen,
    ConnectionDropped,
    DealSeen,
    DropKind,
    HandshakeFailed,
    HostRefused,
    HostStopped,
    News,
    RefusedHost,
    SavedMatchUnusable,
    WatchStop,
)
from ..contracts.plaintext import shown_path
from ..core.game import Action, GameCore
from ..core.keys import derive_code_key
from ..core.messages import HOST, JOIN
from ..core.private import PrivateDeck, resume_core
from ..core.protocol import Agreed, Deal, Endpoint, LocalConfig, PeerLeft, PeerRefused, Phase, SeedOrigin
from ..core.watch import HostBye, WatcherDoor
from ..core.wire import CODE_REFUSALS, ProtocolError, Refusal, RemoteProtocolError
from ..engine import IllegalMoveError, Match
from ..storage.journal import claim_record
from ..storage.keeper import RecordKeeper
from ..storage.paths import default_record_path
from ..storage.resume import Saved
from .gate import (
    AUTHENTICATED,
    CONNECTED,
    GREETED,
    HELLO_TIMEOUT,
    CodeRefused,
    Door,
    Guesses,
    StrangerLog,
    address_key,
    shown_address,
)
from .link import HANDSHAKE_TIMEOUT, DialFailed, HelloTimeout, Link, connect_to, fmt_addr
from .opening import Knock, LanDial, LanDoor, lan_scalar
from .reconnect import Backoff, Dial
from .session import NetSession
from .settings import HostSettings, JoinSettings, Settings, nth_record_path
from .watch import Doorway, WatchHub, WatchLink

Warn = Callable[[News], None]  # what the host tells before the match (the caller words it)
# Another way to the peer than TCP to an address (tunnel/: the sealed channel over the
# internet): the host's serves each connection with the factory's protocol (the server
# kept for reconnections); the joiner's dials one (as connect_to: a factory, the address
# and the timeout it is given), DialFailed or ConnectionError if no way opens.
Serve = Callable[[Callable[[], asyncio.BaseProtocol]], Awaitable[asyncio.AbstractServer]]
Connector = Callable[[Callable[[], Link], str, int, float], Awaitable[Link]]


@dataclass(frozen=True, slots=True)
class WatchDoors:
    """The host's door for watchers who come another way than its own (internet.py: a
    connection sealed under a watcher's code): ``door()`` is the protocol of each such
    connection (a watcher is let in as at the host's own door, a player's hello refused);
    ``tell(news)`` says a line in the host's interface (before the match: the warning
    printed; during it: a notice)."""

    door: Callable[[], asyncio.BaseProtocol]
    tell: Callable[[News], None]


def _code_key(code: str | None, resume: Saved | None) -> bytes | None:
    """The join code's key: from ``code``; when resuming without one, the match's own."""
    if code:
        return derive_code_key(code)
    return resume.code_key if resume is not None else None


def _session_on(
    link: Link,
    kind: str,
    settings: Settings,
    code_key: bytes | None,
    *,
    server: asyncio.AbstractServer | None = None,
    dial: Dial | None = None,
    origin: SeedOrigin | None = None,
    port: int | None = None,
    dialed: str = "",
    next_match: _NextMatch | None = None,
    hub: WatchHub | None = None,
) -> NetSession:
    """The session of a link whose first handshake is done (``server``: the host's
    listener, kept for reconnections; ``dial``: how the joiner reconnects; ``origin``:
    who chose the seed, if an earlier, cut handshake agreed the match; ``next_match``:
    how another match on this connection is made, None for the first; ``hub``: the
    host's watchers, shown the match from its first event; ``port``, ``dialed``: where
    the host listens, kept in the journal)."""
    hs = link.handshaken.result()
    core = link.endpoint.core
    assert core is not None
    resume = settings.resume
    path = settings.record_path if resume is None else resume_path(resume, settings.record_path)
    # a resumed match: who chose the seed is in the record (the handshake does not say)
    if hs.seed_by is not None:
        origin = hs.seed_by
    elif resume is not None:
        origin = resume.seed_by
    played = resume.actions if resume is not None else []
    keeper = _keeper_for(core, path, kind, code_key, origin, played, port, dialed, settings.notes)
    if next_match is None:
        next_match = _NextMatch(
            kind,
            settings,
            code_key,
            keeper.path,
            Agreed.of(core),
            server=server,
            dial=dial,
            port=port,
            dialed=dialed,
        )
    return NetSession(
        core,
        link,
        keeper,
        core.match.players[1 - core.seat],  # as agreed (a resumed match: as in the record)
        settings,
        server=server,
        dial=dial,
        seed_by=origin,
        successor=next_match,
        watched=hub.follow if hub is not None else None,
    )


class _NextMatch:
    """Another match on the same connection (net/again.py): its handshake's endpoint, a
    new match from the same settings (the host: its seed drawn by both), and its session,
    with a record beside the first's (``-2``, ``-3``...).  The host's door hands a
    returning joiner to the match of the moment (``host``)."""

    def __init__(
        self,
        kind: str,
        settings: Settings,
        code_key: bytes | None,
        first_record: Path,
        agreed: Agreed,
        *,
        server: asyncio.AbstractServer | None,
        dial: Dial | None,
        port: int | None,
        dialed: str = "",
    ) -> None:
        self.kind = kind
        self.settings = settings
        self.code_key = code_key  # the record's
        self.first_record = first_record
        self.agreed = agreed  # what every later match is: the first one's terms (and the ids played)
        self.server = server
        self.dial = dial
        self.port = port
        self.dialed = dialed
        self.host: _Host | None = None  # set by host_session
        self.number = 1  # the match of the moment

    def endpoint(self) -> Endpoint:
        """The next match's handshake: the match both agreed to (the first one's target, game
        limit, names and deck), its seed drawn by both; the joiner refuses any other setup,
        the host a joiner under another name (docs/protocol.md, *Playing again*)."""
        a = self.agreed
        if self.kind == "join":
            return Endpoint(LocalConfig(JOIN, a.names[1], private=a.private, again=a))
        config = LocalConfig(HOST, a.names[0], target=a.target, max_games=a.games, private=a.private, again=a)
        return Endpoint(config)  # (seed None: every match after the first has its seed drawn by both)

    async def session(self, link: Link) -> NetSession:
        await link.handshaken  # (the link's own deadline: HANDSHAKE_TIMEOUT)
        self.number += 1
        played = self.agreed.played | {link.endpoint.hs.match_id}  # (the next refuses its id)
        self.agreed = replace(self.agreed, played=played)
        # (a file already there, a record of another match, is never written over)
        path = claim_record(nth_record_path(self.first_record, self.number))
        settings = replace(self.settings, record_path=path, resume=None)
        hub = self.host.hub if self.host is not None else None  # (the watchers follow it)
        try:
            sess = _session_on(
                link, self.kind, settings, self.code_key, server=self.server, dial=self.dial, port=self.port,
                dialed=self.dialed, next_match=self, hub=hub,
            )  # fmt: skip
        except BaseException:
            with contextlib.suppress(OSError):
                if path.stat().st_size == 0:
                    path.unlink()  # (our own empty claim: nothing was written)
            raise
        if self.host is not None:
            self.host.session = sess
        return sess


def _keeper_for(
    core: GameCore,
    record_path: str | Path | None,
    kind: str,
    code_key: bytes | None,
    origin: SeedOrigin | None,
    played: Sequence[Action],
    port: int | None = None,
    dialed: str = "",
    notes: Mapping[str, Any] | None = None,
) -> RecordKeeper:
    """The record keeper of ``core`` (``played``: a resumed match's actions so far;
    ``port``: the host's listening port, for the journal; ``dialed``: the joiner's, the
    host's address; ``notes``: the record's keys of this side's own)."""
    path = Path(record_path) if record_path is not None else default_record_path(kind)
    deck = PrivateDeck.of(core)
    private = deck.outcomes if deck is not None else None
    keeper = RecordKeeper(
        path,
        core.match,
        core.match_id,
        core.max_games,
        code_key,
        origin,
        played,
        private=private,
        notes=notes,
    )
    keeper.port, keeper.host = port, dialed
    keeper.carry(core)  # the action key first: before any action of ours is sent
    return keeper


def _core_from_saved(saved: Saved, seat: int) -> GameCore:
    match = Match(saved.seed, saved.target, saved.players)
    where = shown_path(saved.path) if saved.path else ""
    try:
        if saved.private:  # the deck of each game, or the tape of its private deck (core/private.py)
            core = GameCore(match, seat, saved.match_id, saved.max_games)
            if saved.key is not None:
                core.key = saved.key
            resume_core(core, saved.actions, saved.tags, saved.decks, saved.tape)
        else:
            core = GameCore.replay(
                match, seat, saved.match_id, saved.max_games, saved.actions, saved.tags, saved.key
            )
        core.requests = set(saved.requests)
    except IllegalMoveError as e:
        raise UserError(SavedMatchUnusable(where, detail=str(e.reason))) from None
    except ProtocolError as e:
        raise UserError(SavedMatchUnusable(where, detail=str(e), private=True)) from None
    if core.finished:
        sc = core.match.scores
        raise UserError(SavedMatchUnusable(where, over=True, scores=(sc[0], sc[1])))
    return core


async def host_session(
    settings: HostSettings,
    *,
    on_listening: Callable[[str, int], None] | None = None,
    on_warning: Warn | None = None,
    serve: Serve | None = None,
    watch_doors: Callable[[WatchDoors], None] | None = None,
) -> NetSession:
    """Listen on ``settings.bind``:``port`` (``""`` = all interfaces, port 0 = any free
    one) and return a session once a peer has joined and the handshake is done.

    ``on_listening(host, port)`` is called with the real address once listening.
    ``seed`` None: the seed is drawn by both peers (commit-reveal).  ``games``
    stops the match after that many games.  ``code``: the join code the joiner
    must give (None: no code).  ``resume``: continue a saved match
    (:func:`~p2p_spite.storage.resume.load_saved`; the record is written back to
    its file unless ``record_path`` says otherwise).  Connections that fail the
    handshake are dropped with ``on_warning(news)`` and the host keeps waiting.
    The listening socket stays open for the whole match so that a joiner who
    lost the connection can come back within ``grace`` seconds.  Up to ``watchers``
    watchers may watch (net/watch.py), from before the match begins to its end.
    Raises UserError if it cannot listen.  ``serve``: the connections come from it
    instead (no listening socket here; ``on_listening`` is not called).  ``watch_doors``
    is given the door of watchers who come through other ways (:class:`WatchDoors`)
    before ``serve`` is called.
    """
    resume, bind, port = settings.resume, settings.bind, settings.port
    code_key = _code_key(settings.code, resume)
    # A join code on the LAN: every connection opens with it first (net/opening.py).  Over
    # the internet (``serve``) the meeting's fresh code opened the channel, and a resumed
    # record's code is only kept in the record.  The protocol inside checks no code.
    w = lan_scalar(code_key) if serve is None and code_key is not None else None
    config = LocalConfig(
        HOST,
        resume.players[0] if resume is not None else settings.name,  # a resumed match keeps its names
        seed=settings.seed,
        target=settings.target,
        max_games=settings.games,
        private=settings.private,
    )
    core = _core_from_saved(resume, 0) if resume is not None else None
    if core is not None:
        config.target = core.match.target
        config.max_games = core.max_games
    host = _Host(config, core, settings.grace, on_warning, WatchHub(settings.watchers))
    loop = asyncio.get_running_loop()
    if watch_doors is not None:
        watch_doors(WatchDoors(host.watcher_door, host.warn))
    if serve is not None:
        return await _await_winner(host, await serve(host.new_door), settings, code_key, None)
    try:
        sock = await _listen_socket(bind, port)
        if w is not None:
            door = LanDoor(w, host.pace, host.turned_away, host.admit, host.door.leave)
            server: asyncio.AbstractServer = await door.serve(host.new_door, sock)
        else:
            server = await loop.create_server(host.new_door, sock=sock)
    except (OSError, OverflowError) as e:
        where = fmt_addr((bind or "*", port))
        if isinstance(e, OSError) and e.errno == errno.EADDRINUSE:
            raise UserError(CannotListen(where, port, taken=True)) from None
        if isinstance(e, OSError) and e.errno == errno.EADDRNOTAVAIL:
            raise UserError(CannotListen(where, port, not_here=bind)) from None
        raise UserError(CannotListen(where, port, detail=str(getattr(e, "strerror", None) or e))) from None
    real = sock.getsockname()
    shown = str(real[0])
    if not bind and shown == "::":
        shown = "0.0.0.0"  # dual stack: every IPv4 and IPv6 address
    if on_listening is not None:
        on_listening(shown, int(real[1]))
    return await _await_winner(host, server, settings, code_key, int(real[1]))


async def _await_winner(
    host: _Host,
    server: asyncio.AbstractServer,
    settings: HostSettings,
    code_key: bytes | None,
    port: int | None,
) -> NetSession:
    """The host's session once the first connection's handshake is done."""
    try:
        link = await host.winner
    except BaseException:
        host.stop_waiting()
        host.hub.end(HostBye.saying(WatchStop.NOT_BEGUN))
        server.close()
        host.stop_reports()
        raise
    host.stop_waiting()
    host.summary(now=True)  # the drops held back so far are told before the match starts
    sess = _session_on(link, "host", settings, code_key, server=server, port=port, hub=host.hub)
    host.session = sess
    assert isinstance(sess.again.successor, _NextMatch)
    sess.again.successor.host = host  # (a joiner coming back in a later match is handed to it)
    return sess


class _Host:
    """The host's door while it listens: every connection's handshake is watched; the
    first to finish one is the match (``winner``); later ones are the joiner coming
    back (handed to ``session``) or are turned away.  Dropped strangers are counted
    and told in merged warnings."""

    def __init__(
        self, config: LocalConfig, core: GameCore | None, grace: float, on_warning: Warn | None, hub: WatchHub
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.config = config
        self.core = core  # a resumed match
        self.grace = grace
        self.on_warning = on_warning
        self.winner: asyncio.Future[Link] = self.loop.create_future()
        self.session: NetSession | None = None  # once the match has begun
        self.watchers: set[asyncio.Task[None]] = set()
        self.hub = hub  # the watchers
        self.door: Door[Link | WatchLink | Knock] = Door(_stage)
        self.strangers = StrangerLog(self.loop.time)
        self.guesses = Guesses(self.loop.time)  # wrong join codes by address
        self.report: asyncio.TimerHandle | None = None  # the next merged warning
        self.pending: Deal | None = None  # a first seed exchange cut short: the same commitments again
        self.held: GameCore | None = None  # a seeded match a first handshake cut short agreed
        self.abandon: asyncio.TimerHandle | None = None  # giving up on the joiner who saw the deal

    def warn(self, news: News, merged: bool = False) -> None:
        """Before the match: ``on_warning``; during it: a Notice for the driver
        (printing to stderr would scribble over a full-screen interface)."""
        if self.session is not None:
            self.session.notice(news, merged=merged)
        elif self.on_warning is not None:
            self.on_warning(news)

    def new_door(self) -> Doorway:
        """The protocol of each accepted connection: a player's link, unless its first
        message makes it a watcher's."""
        return Doorway(self.new_link(), self.to_watcher)

    def watcher_door(self) -> Doorway:
        """The protocol of a connection that only a watcher may use (:class:`WatchDoors`)."""
        return Doorway(self.new_link(), self.to_watcher, seats=False)

    def to_watcher(self, link: Link, transport: asyncio.Transport, seen: bytes) -> None:
        """A connection at the door said ``watch``: it leaves the player's link for a
        watcher's, in the same handshake slot (its deadline from the connection on)."""
        link.hand_over()
        self.door.leave(link)
        door = WatcherDoor(allowed=self.hub.most > 0)
        watcher = WatchLink(door, self.hub, self, link.peer, link.connected_at)
        self.door.admit(watcher, address_key(link.peer))  # (the slot the link just left)
        watcher.take(transport, seen)

    def leave_door(self, link: WatchLink) -> None:
        self.door.leave(link)

    def pace(self, peer: Any) -> float:
        """Seconds before the opening may check a code from ``peer`` (gate.Guesses)."""
        return self.guesses.wait(address_key(peer))

    def dropped_watcher(self, link: WatchLink, line: ConnectionDropped) -> None:
        self.dropped(link, line)

    def admit(self, link: Link | Knock) -> bool:
        ok, victim = self.door.admit(link, address_key(link.peer))
        if victim is not None:
            victim.drop(DropKind.CROWDED_OUT, "by newer connections while it had not authenticated")
        return ok

    def dropped(self, link: Link | WatchLink, line: ConnectionDropped) -> None:
        self.turned_away(link.peer, line)

    def turned_away(self, peer: Any, line: ConnectionDropped) -> None:
        """A stranger at ``peer`` dropped (in its handshake, or in the opening before it)."""
        if line.kind is DropKind.WRONG_CODE:
            self.guesses.failed(address_key(peer))
        told = self.strangers.drop(address_key(peer), line.kind, line)
        if told is not None:
            self.warn(told)
        if self.report is None and self.strangers.due is not None:
            self.report = self.loop.call_at(self.strangers.due, self.summary)

    def summary(self, now: bool = False) -> None:
        self.stop_reports()
        summary = self.strangers.summary(now=now)
        if summary is not None:
            self.warn(summary, merged=True)
        if self.strangers.due is not None:
            self.report = self.loop.call_at(self.strangers.due, self.summary)

    def stop_reports(self) -> None:
        if self.report is not None:
            self.report.cancel()
            self.report = None

    def stop_waiting(self) -> None:
        """The match began (or the host stopped waiting): no more giving up on a joiner."""
        if self.abandon is not None:
            self.abandon.cancel()

    def give_up(self, who: str) -> None:
        if not self.winner.done():
            self.winner.set_exception(
                UserError(DealSeen(host=False, peer=who, seconds=self.grace), EXIT_PEER_LEFT)
            )

    def hold(self, link: Link) -> None:
        """A first handshake ended without a match: keep its deal (a returning joiner opens
        the same commitments); once fixed, wait for that joiner only, for the grace period."""
        deal = link.endpoint.hs.deal
        hs = link.handshaken
        succeeded = hs.done() and not hs.cancelled() and hs.exception() is None
        if self.session is not None or self.core is not None or self.winner.done() or succeeded:
            return
        agreed = link.endpoint.core
        if agreed is not None and link.endpoint.hs.seed_by is SeedOrigin.HOST:
            self.held = agreed  # a seeded match the joiner may have begun: it may come back to it
        if deal is None:
            return
        if self.pending is None or deal is self.pending or not self.pending.fixed:
            self.pending = deal
        if deal.fixed and deal is self.pending and self.abandon is None:
            self.abandon = self.loop.call_later(self.grace, self.give_up, link.endpoint.hs.peer_name)

    def new_link(self) -> Link:
        """The protocol of each accepted connection."""
        first = self.session is None and self.core is None
        link = Link(
            Endpoint(
                self.config,
                self.session.core if self.session is not None else self.core,
                held_deal=(lambda: self.pending) if first else None,
                held_core=(lambda: self.held) if first else None,
            ),
            admit=self.admit,
            hello_deadline=HELLO_TIMEOUT,
        )
        if first:  # a cut seed exchange: its deal is held before the next connection says hello
            link.closed.add_done_callback(lambda _f: self.hold(link))
        task = self.loop.create_task(self._watch(link))
        self.watchers.add(task)
        task.add_done_callback(self.watchers.discard)
        return link

    async def _watch(self, link: Link) -> None:
        try:
            await link.handshaken
        except (ProtocolError, ConnectionError, TimeoutError, OSError) as e:
            self.door.leave(link)
            self.hold(link)
            self.dropped(link, _dropped(link, e))
            return
        self.door.leave(link)
        sess = self.session
        if sess is not None:
            if link.endpoint.core is sess.core and sess.offer_link(link):
                self.summary(now=True)  # the drops held back while the joiner was away
                return
        elif not self.winner.done():
            self.winner.set_result(link)
            return
        link.endpoint.refuse(Refusal.SEAT_TAKEN, "this match already has its two players")
        link.fail(ConnectionError("seat taken"))


async def _listen_socket(bind: str, port: int) -> socket.socket:
    """One listening socket (one port even with port 0): dual-stack when ``bind`` is empty."""
    if not bind:
        if socket.has_dualstack_ipv6():
            return socket.create_server(("::", port), family=socket.AF_INET6, dualstack_ipv6=True, backlog=16)
        return socket.create_server(("0.0.0.0", port), backlog=16)
    infos = await asyncio.get_running_loop().getaddrinfo(
        bind.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )
    if not infos:
        raise OSError(f"cannot resolve {bind!r}")
    family, _t, _p, _c, addr = infos[0]
    return socket.create_server(addr[:2], family=family, backlog=16)


def resume_path(saved: Saved, record_path: str | Path | None) -> str | Path | None:
    return record_path if record_path is not None else saved.path


def _described(e: BaseException) -> str:
    """A failed handshake's cause, as the protocol or the system put it."""
    if isinstance(e, TimeoutError) and not str(e):
        return "timeout"
    return str(e) or type(e).__name__


def _dropped(link: Link, e: BaseException) -> ConnectionDropped:
    """What to tell of a connection refused during its handshake (its kind counts it in
    the merged warnings)."""
    who = shown_address(link.peer)
    if link.dropped_as is not None:
        return ConnectionDropped(who, link.dropped_as)
    if isinstance(e, PeerRefused):
        return ConnectionDropped(who, DropKind.REFUSED_MATCH)
    if isinstance(e, RemoteProtocolError):
        if e.code is Refusal.SEAT_TAKEN:
            return ConnectionDropped(who, DropKind.SEAT_TAKEN)
        return ConnectionDropped(who, DropKind.PROTOCOL, e.code.value, detail=str(e))
    if isinstance(e, HelloTimeout):
        return ConnectionDropped(who, DropKind.NO_HELLO, seconds=e.seconds)
    if isinstance(e, TimeoutError):
        return ConnectionDropped(who, DropKind.NO_HANDSHAKE)
    if isinstance(e, PeerLeft):
        return ConnectionDropped(who, DropKind.SAID_GOODBYE)
    return ConnectionDropped(who, DropKind.CLOSED)


def _stage(link: Link | WatchLink | Knock) -> int:
    """How far a connection has come in its handshake (see gate.Door)."""
    if isinstance(link, WatchLink):
        return link.stage
    if isinstance(link, Knock):  # in the opening: not past the code until through it
        return GREETED if link.greeted else CONNECTED
    phase = link.endpoint.phase
    if phase in (Phase.HELLO, Phase.CLOSED):
        return CONNECTED
    if phase is Phase.PROOF:
        return GREETED
    return AUTHENTICATED


# What a first handshake meets when the other end speaks something else (HTTP, SSH...):
# bytes that are no frame of ours, or a hello of another program.
_FOREIGN = frozenset({"frame", "decode", "flood", "not-p2p-spite"})


async def join_session(settings: JoinSettings, *, connect: Connector | None = None) -> NetSession:
    """Connect to ``settings.host``:``port`` and return the session once the handshake
    is done.

    A connection cut during the first handshake is retried (up to ``grace``
    seconds); so is a refused connection when resuming (the host may be
    restarting).  Mid-match, a lost connection is redialed for ``grace`` seconds.
    Raises UserError (one line) if the host cannot be reached or refuses.  ``connect``:
    dial through it instead of TCP to the address (every dial, the redials too).
    """
    resume = settings.resume
    # a resumed match keeps its names
    name = resume.players[1] if resume is not None else settings.name
    code_key = _code_key(settings.code, resume)
    # the LAN with a code: the opening (net/opening.py); over the internet (``connect``) the
    # meeting's fresh code opened the channel.  The protocol inside checks no code.
    if connect is None and code_key is not None:
        connect = LanDial(lan_scalar(code_key))
    config = LocalConfig(JOIN, name)
    config.private = settings.private  # refuse a host that does not offer a private deck
    joiner = _Joiner(config, settings.host, settings.port, settings.timeout, resume, connect)
    link = await joiner.first_link(settings.grace)
    return _session_on(
        link, "join", settings, code_key, dial=joiner.dial, origin=joiner.origin,
        port=settings.port, dialed=settings.host,
    )  # fmt: skip


class _Joiner:
    """Dialing the host: the first connection (retried while it may still come to a
    match) and the redials of a match under way (``dial``).  A handshake cut short
    leaves what it agreed, to go on with: ``last_core``, ``last_deal``, ``origin``."""

    def __init__(
        self,
        config: LocalConfig,
        host: str,
        port: int,
        timeout: float,
        resume: Saved | None,
        connect: Connector | None = None,
    ) -> None:
        self.config = config
        self.connect: Connector = connect or connect_to
        self.host = host
        self.port = port
        self.where = fmt_addr((host, port))
        self.timeout = timeout
        self.resume = resume
        self.core = _core_from_saved(resume, 1) if resume is not None else None  # the match to dial with
        self.deal: Deal | None = None  # ... or the seed agreement
        self.last_core: GameCore | None = None  # the match a cut handshake agreed
        self.last_deal: Deal | None = None  # the seed agreement of a first handshake cut short
        self.origin: SeedOrigin | None = None  # who chose the seed of the match a cut handshake agreed

    async def dial(self, with_core: GameCore | None, with_deal: Deal | None = None) -> Link:
        """One connection and its handshake."""
        where = self.where

        def new_link() -> Link:
            return Link(Endpoint(self.config, with_core, deal=with_deal), where)

        link = await self.connect(new_link, self.host, self.port, self.timeout)
        try:
            await link.handshaken
        except BaseException:
            self.last_core = link.endpoint.core
            self.last_deal = link.endpoint.hs.deal
            if link.endpoint.hs.seed_by is not None:
                self.origin = link.endpoint.hs.seed_by
            if link.transport is not None:
                link.transport.close()
            raise
        return link

    def abandoned(
        self, then: HostRefused | HostStopped | RefusedHost | HandshakeFailed | None = None
    ) -> UserError | None:
        """Once we have revealed our half of the seed, the host knows the deal: it may not
        throw it away (and we never draw a new half for this match), whatever it does then
        (``then``: what it did, if more than leaving)."""
        if self.resume is None and self.deal is not None and self.deal.revealed:
            return UserError(DealSeen(host=True, then=then), EXIT_PEER_LEFT)
        return None

    async def first_link(self, grace: float) -> Link:
        """The first link, its handshake done: a connection cut during the handshake is
        retried (up to ``grace`` seconds); so is a refused one when resuming."""
        loop = asyncio.get_running_loop()
        resume, where = self.resume, self.where
        deadline = loop.time() + grace
        connected_once = False
        backoff = Backoff()
        while True:
            try:
                return await self.dial(self.core, self.deal)
            except DialFailed as e:
                if resume is None and not connected_once:
                    raise UserError(e.news) from None
                problem: News = e.news
            except PeerRefused as e:
                self.deal = self.last_deal or self.deal
                refused = HostRefused(e.code.value, str(e))
                if (told := self.abandoned(refused)) is not None:
                    raise told from None
                if e.code in CODE_REFUSALS:
                    raise CodeRefused(refused, wrong=e.code is Refusal.BAD_CODE) from None
                if e.code is Refusal.NO_MATCH and resume is None and connected_once:
                    self.core = None  # the host forgot the half-agreed match: start afresh
                    self.deal = None
                    problem = refused
                else:
                    raise UserError(refused) from None
            except PeerLeft as e:
                self.deal = self.last_deal or self.deal
                left = HostStopped(where, e.reason)
                raise self.abandoned(left) or UserError(left) from None
            except RemoteProtocolError as e:
                self.deal = self.last_deal or self.deal
                ours = RefusedHost(where, e.code.value, str(e))
                if (told := self.abandoned(ours)) is not None:
                    raise told from None
                if e.code in _FOREIGN:  # a frame length from HTTP's or SSH's first bytes says nothing
                    detail = str(e) if e.code == "decode" else ""
                    raise UserError(RefusedHost(where, e.code.value, detail, foreign=True)) from None
                if e.code is Refusal.CODE_NEEDED:  # (we saw its hello ask for one)
                    raise CodeRefused(ours, wrong=False) from None
                raise UserError(ours) from None
            except TimeoutError:
                self.deal = self.last_deal or self.deal
                stalled = HandshakeFailed(where, timeout=True, seconds=HANDSHAKE_TIMEOUT)
                raise self.abandoned(stalled) or UserError(stalled) from None
            except (ConnectionError, OSError) as e:
                connected_once = True
                if resume is None:
                    self.core = self.last_core  # go on with the match the handshake may have agreed ...
                    self.deal = self.last_deal  # ... or with the same commitments
                problem = HandshakeFailed(where, _described(e))
            if loop.time() + backoff.delay > deadline:
                raise self.abandoned() or UserError(problem)
            await backoff.wait()
